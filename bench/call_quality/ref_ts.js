// ref_ts.js - the reference resolver for JavaScript and TypeScript calls:
// the TypeScript compiler's checker (Debian's node-typescript, 4.8).
//
//   node ref_ts.js javascript|typescript ROOT FILE...   (FILE relative to ROOT)
//
// Builds one program of every source file of the language under ROOT
// (.js/.mjs/.cjs/.jsx with allowJs, or .ts/.tsx/.d.ts; node_modules left
// out: the checkout has no dependencies installed) and prints one JSON line
// per call in each FILE: a CallExpression whose callee is a name (f()) or a
// property access (a.b.f()), at the callee's last name, with the symbol the
// checker gives that name (an import followed to what it imports, a
// property of an object literal to the value it holds):
//   ref "repo"      declared in the checkout (defs: each declaration's name line;
//                   why "dynamic: ..." when only an interface declares it)
//   ref "external"  declared in TypeScript's lib.*.d.ts or outside ROOT
//   ref "unknown"   no symbol (an untyped receiver: a parameter, `any`, a
//                   module the checkout does not have), or only a parameter
'use strict';
const fs = require('fs');
const path = require('path');
let ts;
try {
    ts = require('/usr/share/nodejs/typescript');
} catch (e) {
    ts = require('typescript');
}

const [lang, rootArg, ...sample] = process.argv.slice(2);
const root = path.resolve(rootArg);
const exts = lang === 'typescript' ? ['.ts', '.tsx'] : ['.js', '.mjs', '.cjs', '.jsx'];

function walk(dir, out) {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p, out);
        else if (exts.some((x) => e.name.endsWith(x)) && !e.name.endsWith('.min.js')) out.push(p);
    }
    return out;
}

const files = walk(root, []).sort();
const program = ts.createProgram(files, {
    allowJs: true,
    checkJs: false,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.NodeJs,
    jsx: ts.JsxEmit.Preserve,
    esModuleInterop: true,
    allowSyntheticDefaultImports: true,
    resolveJsonModule: true,
    skipLibCheck: true,
    types: [],
    noLib: false,
    maxNodeModuleJsDepth: 0,
});
const checker = program.getTypeChecker();

function inRoot(f) {
    const p = path.resolve(f);
    return (p + '/').startsWith(root + '/') && !p.includes('/node_modules/');
}

function lineOf(decl) {
    const sf = decl.getSourceFile();
    const n = ts.getNameOfDeclaration(decl) || decl;
    return sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
}

function judge(nameNode) {
    let sym;
    try {
        sym = checker.getSymbolAtLocation(nameNode);
        if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
    } catch (e) {
        return { ref: 'unknown', defs: [], why: 'checker: ' + e.message };
    }
    const decls = ((sym && sym.declarations) || []).slice();
    if (!decls.length) return { ref: 'unknown', defs: [], why: 'no symbol' };
    if (decls.every((d) => d.kind === ts.SyntaxKind.Parameter))
        return { ref: 'unknown', defs: [], why: 'parameter' };
    // { f } or { f: g } in an exported object literal: the definition is
    // what the property holds (the function f or g), kept beside it
    for (const d of decls.slice()) {
        let v = null;
        if (ts.isShorthandPropertyAssignment(d)) v = checker.getShorthandAssignmentValueSymbol(d);
        else if (ts.isPropertyAssignment(d) && ts.isIdentifier(d.initializer))
            v = checker.getSymbolAtLocation(d.initializer);
        if (v && v.flags & ts.SymbolFlags.Alias) v = checker.getAliasedSymbol(v);
        if (v && v.declarations) decls.push(...v.declarations);
    }
    const defs = [];
    let outside = false;
    for (const d of decls) {
        const f = d.getSourceFile().fileName;
        if (inRoot(f)) defs.push([path.relative(root, path.resolve(f)), lineOf(d)]);
        else outside = true;
    }
    const sig = (d) => d.kind === ts.SyntaxKind.MethodSignature || d.kind === ts.SyntaxKind.PropertySignature;
    if (defs.length) return { ref: 'repo', defs, why: decls.every(sig) ? 'dynamic: an interface member' : '' };
    return { ref: outside ? 'external' : 'unknown', defs: [], why: '' };
}

const out = [];
for (const rel of sample) {
    const sf = program.getSourceFile(path.join(root, rel));
    if (!sf) continue;
    const visit = (node) => {
        if (ts.isCallExpression(node)) {
            const e = node.expression;
            let nameNode = null;
            if (ts.isIdentifier(e)) nameNode = e;
            else if (ts.isPropertyAccessExpression(e) && ts.isIdentifier(e.name)) nameNode = e.name;
            if (nameNode && !(ts.isIdentifier(e) && e.text === 'require')) {
                const lc = sf.getLineAndCharacterOfPosition(nameNode.getStart(sf));
                const j = judge(nameNode);
                out.push(JSON.stringify({ path: rel, line: lc.line + 1, col: lc.character,
                                          name: nameNode.text, ref: j.ref, defs: j.defs, why: j.why }));
            }
        }
        ts.forEachChild(node, visit);
    };
    visit(sf);
}
process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
