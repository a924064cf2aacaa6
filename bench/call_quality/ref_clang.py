"""ref_clang.py - the reference resolver for C and C++ calls: clang 14.

    python3 ref_clang.py c|cpp ROOT SUBDIRS FILE...   (SUBDIRS: a,b relative to ROOT)

Parses every translation unit (.c; .cc/.cpp/.cxx) under SUBDIRS with
libclang (clang 14, the front end clangd runs on) and prints one JSON line
per call site in each FILE (relative to ROOT; a header's sites come from
the first unit that includes it):
  - a CALL_EXPR whose callee is a function or method named in the source
    at the site (constructors, operators and calls spelled inside a macro
    expansion are left out: their name is not written there);
  - a function-like macro invocation NAME( (mnemo, like tree-sitter, sees
    it as a call), resolved to the #define.
The callee's definition is looked up by USR over all the units (a C
function defined in another .c file): ref "repo" with defs [[path, line]]
(line of the definition's name) and decls (its other declarations in the
checkout; why "dynamic: ..." for a virtual method); "external" when it is declared or defined outside the checkout;
"unknown" for a call through a pointer, or a function declared in the
checkout whose definition no unit compiled (another platform's #ifdef).
No compile_commands.json is needed: each unit is parsed with -I for every
directory of headers under SUBDIRS plus ROOT/include and the unit's own
directory (a build's configure-generated headers are absent; the
diagnostics count is printed on stderr).
"""
import json
import os
import sys

import clang.cindex as ci

lang, root, subs = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3].split(",")
sample = sys.argv[4:]
K = ci.CursorKind
FUNCS = {K.FUNCTION_DECL, K.CXX_METHOD, K.FUNCTION_TEMPLATE, K.CONSTRUCTOR, K.DESTRUCTOR,
         K.CONVERSION_FUNCTION}
unit_ext = (".c",) if lang == "c" else (".cc", ".cpp", ".cxx")
hdr_ext = (".h", ".hh", ".hpp", ".hxx")

units, hdr_dirs = [], set()
for s in subs:
    top = os.path.join(root, s)
    walk = [(os.path.dirname(top), [], [os.path.basename(top)])] if os.path.isfile(top) else os.walk(top)
    for dp, dn, fn in walk:
        dn[:] = sorted(d for d in dn if d not in (".git", "node_modules"))
        for n in sorted(fn):
            p = os.path.join(dp, n)
            if n.endswith(unit_ext):
                units.append(p)
            if n.endswith(hdr_ext):
                hdr_dirs.add(dp)
for inc in (os.path.join(root, "include"), root):
    if os.path.isdir(inc):
        hdr_dirs.add(inc)
base_args = ["-x", "c", "-std=gnu11"] if lang == "c" else ["-x", "c++", "-std=c++17"]
base_args += ["-I" + d for d in sorted(hdr_dirs)]
sample_abs = {os.path.join(root, f): f for f in sample}
# units of the sample first, so that a header's sites come from one of them
units.sort(key=lambda u: (u not in sample_abs, u))


def rel(path):
    p = os.path.abspath(path)
    return os.path.relpath(p, root) if (p + "/").startswith(root + "/") else None


defs, decls = {}, {}  # usr -> (path, line); usr -> set of (path, line)
macro_defs = {}  # name -> [(path, line)]
pending = []  # sites: (path, line, col, name, usr or None, kind, why)
seen = set()
lines_cache = {}
diag = 0


def text_line(path, n):
    if path not in lines_cache:
        try:
            with open(os.path.join(root, path), "rb") as f:
                lines_cache[path] = f.read().split(b"\n")
        except OSError:
            lines_cache[path] = []
    ls = lines_cache[path]
    return ls[n - 1] if 0 < n <= len(ls) else b""


def char_col(path, line, bcol):
    """libclang's 1-based byte column -> 0-based character column."""
    return len(text_line(path, line)[:bcol - 1].decode("utf-8", "replace"))


def callee_ref(call, name):
    """The DeclRefExpr/MemberRefExpr naming the callee in a call's callee part."""
    kids = list(call.get_children())
    stack = kids[:1]
    while stack:
        c = stack.pop()
        if c.kind in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR, K.OVERLOADED_DECL_REF) and c.spelling == name:
            return c
        stack.extend(reversed(list(c.get_children())))
    return None


sample_rel = set(sample)
CONTAINERS = {K.NAMESPACE, K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE, K.LINKAGE_SPEC,
              K.UNEXPOSED_DECL, K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION, K.UNION_DECL}


def decl_walk(c):
    stack = [c]
    while stack:
        x = stack.pop()
        yield x
        if x.kind in CONTAINERS:
            stack.extend(x.get_children())


def visit(c):
    loc = c.location
    if loc.file is None:
        return
    path = rel(loc.file.name)
    if path is None:
        return
    k = c.kind
    if k in FUNCS:
        usr = c.get_usr()
        if c.is_definition():
            defs.setdefault(usr, (path, loc.line))
        else:
            decls.setdefault(usr, set()).add((path, loc.line))
    elif k == K.MACRO_DEFINITION:
        macro_defs.setdefault(c.spelling, set()).add((path, loc.line))
    elif k == K.MACRO_INSTANTIATION and path in sample_rel and (path, loc.line, loc.column) not in seen:
        seen.add((path, loc.line, loc.column))
        t = text_line(path, loc.line)[loc.column - 1:]
        name = c.spelling
        if not t.startswith(name.encode()) or not t[len(name):].lstrip().startswith(b"("):
            return
        r = c.referenced
        mloc = r.location if r is not None else None
        mpath = rel(mloc.file.name) if mloc is not None and mloc.file else None
        pending.append((path, loc.line, char_col(path, loc.line, loc.column), name,
                        None, "macro", (mpath, mloc.line) if mpath else None))
    elif k == K.CALL_EXPR and path in sample_rel:
        r = c.referenced
        name = c.spelling
        if (r is None or not name or name.startswith("operator")
                or r.kind in (K.CONSTRUCTOR, K.DESTRUCTOR, K.CONVERSION_FUNCTION)):
            return
        ref = callee_ref(c, name)
        if ref is None:
            return
        rl = ref.location
        if rl.file is None or rel(rl.file.name) != path:
            return
        key = (path, rl.line, rl.column)
        if key in seen:
            return
        if not text_line(path, rl.line)[rl.column - 1:].startswith(name.encode()):
            return  # spelled inside a macro's expansion
        seen.add(key)
        col = char_col(path, rl.line, rl.column)
        if r.kind not in FUNCS:
            pending.append((path, rl.line, col, name, None, "pointer", None))
            return
        d = r.get_definition()
        dl = None
        if d is not None and d.location.file is not None:
            dl = (rel(d.location.file.name), d.location.line)
        decl_in = rel(r.location.file.name) if r.location.file else None
        pending.append((path, rl.line, col, name, r.get_usr(), "call",
                        (dl, decl_in, r.location.line, r.kind == K.CXX_METHOD and r.is_virtual_method())))


index = ci.Index.create()
opts = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
for u in units:
    args = base_args + ["-I" + os.path.dirname(u)]
    try:
        tu = index.parse(u, args=args, options=opts)
    except ci.TranslationUnitLoadError:
        continue
    diag += sum(1 for d in tu.diagnostics if d.severity >= 3)
    for top in tu.cursor.get_children():
        f = top.location.file
        tpath = rel(f.name) if f else None
        if tpath is None:
            continue
        # every cursor of a sampled file; elsewhere only declarations
        # (functions sit at the top, in namespaces, classes, extern "C")
        it = top.walk_preorder() if tpath in sample_rel else decl_walk(top)
        for c in it:
            visit(c)

for path, line, col, name, usr, kind, info in pending:
    site = {"path": path, "line": line, "col": col, "name": name}
    if kind == "macro":
        if info:
            site.update(ref="repo", defs=[list(info)], why="macro")
        else:
            site.update(ref="external", defs=[], why="macro")
    elif kind == "pointer":
        site.update(ref="unknown", defs=[], why="call through a pointer or variable")
    else:
        dl, decl_in, decl_line, virtual = info
        d = defs.get(usr)
        if d is None and dl is not None:
            d = dl if dl[0] is not None else "outside"
        ds = sorted(decls.get(usr, ()))
        if d == "outside" or (d is None and decl_in is None):
            site.update(ref="external", defs=[], why="")
        elif d is not None:
            site.update(ref="repo", defs=[list(d)], decls=[list(x) for x in ds],
                        why="dynamic: a virtual method" if virtual else "")
        else:
            site.update(ref="unknown", defs=[], decls=[list(x) for x in ds],
                        why="declared in the checkout, no definition compiled")
    print(json.dumps(site))
print("ref_clang: %d units, %d error diagnostics, %d sites" % (len(units), diag, len(pending)),
      file=sys.stderr)
