#!/usr/bin/env bash
# index_quality.sh - how well `mnemo index` sees Python code, against
# references computed without mnemo.
#
#   bench/index_quality.sh [--mnemo BIN] [--strict] [--keep DIR] [--misses N] CHECKOUT...
#
# For each CHECKOUT (a directory of Python code, e.g. psf/requests at HEAD)
# it indexes the tree into a temporary store and measures:
#
#  symbols   the functions, classes and methods universal-ctags finds in the
#            *.py files (ctags --python-kinds=cfm: kinds class, function,
#            member), and how many of them mnemo has as a symbol of kind
#            class/function/method. A ctags tag matches a mnemo symbol of the
#            same file and name whose line span holds the tag's line (mnemo's
#            span starts at the first decorator, ctags's line is the `def`);
#            matching is one to one, nearest start first. "exact" counts the
#            matches whose start line is within 1 of the tag's line, or whose
#            lines between start and the tag are all decorators.
#            Target: >= 95% matched.
#  imports   every import in every *.py file, read with Python's ast module
#            and resolved by Python's rules, without mnemo:
#              - relative (from . / from ..x): by the package structure,
#                from the importing file's directory;
#              - absolute: under the importing file's base directory (the
#                nearest ancestor directory without __init__.py: where a
#                script or pytest's default import mode puts it on sys.path),
#                then each enclosing project directory (one holding
#                pyproject.toml, setup.py or setup.cfg: its src/, then
#                itself; nearest first), then src/ (if it exists), then the
#                top of the checkout;
#              - a module is M.py, M/__init__.py or M.pyi under a root.
#            An import is keyed as mnemo stores it (edges.dst_name): the
#            module as written ("requests.adapters", "..utils"), and for
#            `from . import a, b` one key per name (".a", ".b"). The right
#            files of `from M import n` are M's file and, when n is a
#            submodule, n's file; of `from . import n`, n's file when n is a
#            module, else the package's __init__.py. A key is intra-repository
#            when it has a right file other than the importing file itself.
#            Keys are (file, name) pairs: a module imported twice by one file
#            counts once.
#              recall    = intra-repository keys mnemo resolved to a right file
#                          / intra-repository keys
#              precision = mnemo's resolved import edges (keys) from files the
#                          ast could read that point at a right file
#                          / those resolved keys (a key resolved although the
#                          module is outside the repository is wrong)
#            Target: recall >= 80%.
#
# mnemo's edges are read from the store with the sqlite3 CLI (table edges:
# src_kind 'file', kind 'import', dst_id -> files.path). Needs python3,
# universal-ctags and sqlite3 (developer tools: this is a bench, not a test;
# CI has no python3). Exit status: 0; 1 with --strict when a target is
# missed; 2 on usage or setup errors.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mnemo=
strict=0
keep=
misses=0
dirs=()

usage() {
    sed -n '2,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
    case $1 in
    --mnemo)
        mnemo=${2:?--mnemo needs a path}
        shift 2
        ;;
    --strict)
        strict=1
        shift
        ;;
    --keep)
        keep=${2:?--keep needs a directory}
        shift 2
        ;;
    --misses)
        misses=${2:?--misses needs a count}
        shift 2
        ;;
    -h | --help)
        usage
        exit 0
        ;;
    -*)
        echo "index_quality: unknown option '$1'" >&2
        usage >&2
        exit 2
        ;;
    *)
        dirs+=("$1")
        shift
        ;;
    esac
done

if [ ${#dirs[@]} -eq 0 ]; then
    echo "index_quality: no checkout given: skipped (usage: bench/index_quality.sh CHECKOUT...)"
    exit 0
fi
if [ -z "$mnemo" ]; then
    for b in "$ROOT/build-bench/mnemo" "$ROOT/build/mnemo"; do
        if [ -x "$b" ]; then
            mnemo=$b
            break
        fi
    done
fi
if [ -z "$mnemo" ] || [ ! -x "$mnemo" ]; then
    echo "index_quality: no mnemo binary: build it or give --mnemo BIN" >&2
    exit 2
fi
for tool in python3 ctags sqlite3; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "index_quality: '$tool' not found" >&2
        exit 2
    }
done
ctags --version 2>/dev/null | grep -q 'Universal Ctags' || {
    echo "index_quality: ctags is not universal-ctags" >&2
    exit 2
}

work=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-quality-XXXXXX")
trap 'rm -rf "$work"' EXIT
[ -z "$keep" ] || mkdir -p "$keep"

i=0
for d in "${dirs[@]}"; do
    [ -d "$d" ] || {
        echo "index_quality: '$d' is not a directory" >&2
        exit 2
    }
    i=$((i + 1))
    abs=$(cd "$d" && pwd)
    db=$work/$i.db
    [ -z "$keep" ] || db=$keep/$(basename "$abs").db
    rm -f "$db" "$db-wal" "$db-shm"
    "$mnemo" --db "$db" index "$abs" >"$work/$i.index.log" 2>&1 || {
        echo "index_quality: mnemo index '$abs' failed:" >&2
        cat "$work/$i.index.log" >&2
        exit 2
    }
    sqlite3 -json "$db" "SELECT f.path, y.name, y.kind, y.start_line AS start, y.end_line AS end
        FROM symbols y JOIN files f ON f.id = y.file_id
        WHERE y.kind IN ('class', 'function', 'method')" >"$work/$i.symbols.json"
    sqlite3 -json "$db" "SELECT f.path, e.dst_name AS name, d.path AS dst
        FROM edges e JOIN files f ON f.id = e.src_id LEFT JOIN files d ON d.id = e.dst_id
        WHERE e.src_kind = 'file' AND e.kind = 'import'" >"$work/$i.imports.json"
    sqlite3 -json "$db" "SELECT path FROM files" >"$work/$i.files.json"
    (cd "$abs" && ctags -R --languages=Python --langmap=Python:.py --python-kinds=cfm \
        --output-format=json --fields=+n -f - . 2>/dev/null) >"$work/$i.ctags.json"
    printf '%s\t%s\t%s\n' "$abs" "$work/$i" "$(head -n1 "$work/$i.index.log")" >>"$work/list"
done

python3 - "$work/list" "$strict" "$misses" <<'PY'
import ast, json, os, re, sys

list_file, strict, show = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3])
SYM_TARGET, RECALL_TARGET = 0.95, 0.80


def load_json(path):
    with open(path, encoding="utf-8") as f:
        text = f.read().strip()
    return json.loads(text) if text else []


def load_ctags(path):
    tags = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                t = json.loads(line)
            except ValueError:
                continue
            if t.get("_type") != "tag" or t.get("kind") not in ("class", "function", "member"):
                continue
            p = t["path"]
            if p.startswith("./"):
                p = p[2:]
            tags.append((p, t["name"], int(t["line"]), t["kind"]))
    return tags


def symbols_quality(root, tags, syms, indexed):
    by_key = {}
    for s in syms:
        by_key.setdefault((s["path"], s["name"]), []).append(s)
    used = set()
    matched = exact = 0
    missed = []
    lines_cache = {}

    def lines_of(path):
        if path not in lines_cache:
            try:
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                    lines_cache[path] = f.read().split("\n")
            except OSError:
                lines_cache[path] = []
        return lines_cache[path]

    def is_lambda(path, line, name):
        ls = lines_of(path)
        t = ls[line - 1].strip() if 0 < line <= len(ls) else ""
        if t.endswith("\\") and line < len(ls):  # name = \ (newline) lambda ...
            t = t[:-1] + " " + ls[line].strip()
        # name = lambda ..., or a, b = lambda ..., lambda ...
        m = re.match(r"([\w\s,]+?)(:[^=]*)?=(?!=)\s*(.*)$", t)
        return bool(m and re.search(r"\b%s\b" % re.escape(name), m.group(1))
                    and re.match(r"\(?\s*lambda\b", m.group(3)))

    def decorators_only(path, start, line):
        ls = lines_of(path)
        # lines start .. line-1 are decorators (or their continuation lines)
        depth = 0
        for n in range(start, line):
            if n - 1 >= len(ls):
                return False
            t = ls[n - 1].strip()
            if depth == 0 and t and not t.startswith("@") and not t.startswith("#"):
                return False
            depth += t.count("(") + t.count("[") - t.count(")") - t.count("]")
        return True

    for path, name, line, kind in sorted(tags):
        best = None
        for s in by_key.get((path, name), []):
            if id(s) in used or not (s["start"] <= line <= s["end"]):
                continue
            if best is None or abs(s["start"] - line) < abs(best["start"] - line):
                best = s
        if best is None:
            if path not in indexed:
                why = "file not indexed"
            elif is_lambda(path, line, name):
                why = "no symbol: a lambda assigned to a name"
            else:
                why = "no symbol"
            missed.append((path, line, name, kind, why))
            continue
        used.add(id(best))
        matched += 1
        if abs(best["start"] - line) <= 1 or decorators_only(path, best["start"], line):
            exact += 1
    return matched, exact, missed


# ---- imports, by Python's rules ----

def module_file(files, base, dotted):
    """The file of module `dotted` under directory base ('' = top), or None."""
    rel = dotted.replace(".", "/")
    p = base + "/" + rel if base else rel
    for cand in (p + ".py", p + "/__init__.py", p + ".pyi"):
        if cand in files:
            return cand
    return None


def has_init(files, d):
    return (d + "/__init__.py" if d else "__init__.py") in files


def basedir(files, path):
    d = os.path.dirname(path)
    while d and has_init(files, d):
        d = os.path.dirname(d)
    return d


def parent(d, levels):
    for _ in range(levels):
        if not d:
            return None
        d = os.path.dirname(d)
    return d


def expected_imports(root, pyfiles):
    """(path, key) -> set of right files (empty: outside the repository)."""
    files = set(pyfiles)
    src_root = "src" if os.path.isdir(os.path.join(root, "src")) else None
    projects = set()
    for dp, dn, fn in os.walk(root):
        dn[:] = [x for x in dn if x != ".git"]
        if {"pyproject.toml", "setup.py", "setup.cfg"} & set(fn):
            projects.add(os.path.relpath(dp, root).replace(os.sep, "/"))
    out, unreadable = {}, 0

    def absolute(path, dotted):
        roots = [basedir(files, path)]
        d = os.path.dirname(path)
        while d:  # enclosing projects (pyproject.toml, setup.py, setup.cfg), nearest first
            if d in projects:
                roots += [d + "/src", d]
            d = os.path.dirname(d)
        if src_root is not None:
            roots.append(src_root)
        roots.append("")
        for r in roots:
            f = module_file(files, r, dotted)
            if f:
                return f, r
        return None, None

    for path in pyfiles:
        try:
            with open(os.path.join(root, path), "rb") as fh:
                tree = ast.parse(fh.read(), filename=path)
        except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError):
            unreadable += 1
            continue
        pkg = os.path.dirname(path)
        for node in ast.walk(tree):
            entries = []  # (key, set of right files)
            if isinstance(node, ast.Import):
                for a in node.names:
                    f, _ = absolute(path, a.name)
                    entries.append((a.name, {f} if f else set()))
            elif isinstance(node, ast.ImportFrom):
                names = [a.name for a in node.names if a.name != "*"]
                if node.level:
                    base = parent(pkg, node.level - 1)
                    dots = "." * node.level
                    if node.module:
                        right = set()
                        if base is not None:
                            f = module_file(files, base, node.module)
                            if f:
                                right.add(f)
                                for n in names:
                                    g = module_file(files, base, node.module + "." + n)
                                    if g:
                                        right.add(g)
                        entries.append((dots + node.module, right))
                    else:
                        for n in names:
                            right = set()
                            if base is not None:
                                g = module_file(files, base, n)
                                if g:
                                    right.add(g)
                                elif has_init(files, base):
                                    right.add(base + "/__init__.py" if base else "__init__.py")
                            entries.append((dots + n, right))
                elif node.module:
                    f, r = absolute(path, node.module)
                    right = {f} if f else set()
                    if f:
                        for n in names:
                            g = module_file(files, r, node.module + "." + n)
                            if g:
                                right.add(g)
                    entries.append((node.module, right))
            for key, right in entries:
                right.discard(path)  # importing oneself makes no edge
                out.setdefault((path, key), set()).update(right)
    return out, unreadable


def imports_quality(root, pyfiles, edges):
    exp, unreadable = expected_imports(root, pyfiles)
    intra = {k for k, v in exp.items() if v}
    resolved = {}
    for e in edges:
        if e["dst"] is not None:
            resolved.setdefault((e["path"], e["name"]), set()).add(e["dst"])
    judged = right_resolved = outside = 0
    wrong, unjudged = [], 0
    for k, dsts in resolved.items():
        if k not in exp:
            unjudged += 1
            continue
        judged += 1
        if dsts <= exp[k]:
            right_resolved += 1
        else:
            wrong.append((k, sorted(dsts), sorted(exp[k])))
            if not exp[k]:
                outside += 1
    hit = sum(1 for k in intra if k in resolved and resolved[k] <= exp[k])
    missed = sorted(
        (k, sorted(exp[k]), sorted(resolved.get(k, [])))
        for k in intra
        if not (k in resolved and resolved[k] <= exp[k])
    )
    return {
        "keys": len(exp), "intra": len(intra), "recall_hit": hit, "judged": judged,
        "right": right_resolved, "unjudged": unjudged, "unreadable": unreadable,
        "wrong": wrong, "missed": missed, "outside": outside,
    }


def pct(a, b):
    return 100.0 * a / b if b else 100.0


rows, failed = [], False
with open(list_file, encoding="utf-8") as f:
    entries = [l.rstrip("\n").split("\t") for l in f if l.strip()]
for root, prefix, log in entries:
    name = os.path.basename(root)
    indexed = {r["path"] for r in load_json(prefix + ".files.json")}
    tags = load_ctags(prefix + ".ctags.json")
    syms = load_json(prefix + ".symbols.json")
    matched, exact, sym_missed = symbols_quality(root, tags, syms, indexed)
    pyfiles = []
    for dp, dn, fn in os.walk(root):
        dn[:] = [d for d in dn if d != ".git"]
        for n in fn:
            if n.endswith(".py"):
                pyfiles.append(os.path.relpath(os.path.join(dp, n), root).replace(os.sep, "/"))
    pyfiles.sort()
    edges = load_json(prefix + ".imports.json")
    q = imports_quality(root, pyfiles, edges)
    sym_pct = pct(matched, len(tags))
    rec = pct(q["recall_hit"], q["intra"])
    prec = pct(q["right"], q["judged"])
    ok_sym, ok_rec = sym_pct >= 100 * SYM_TARGET, rec >= 100 * RECALL_TARGET
    failed |= not (ok_sym and ok_rec)
    rows.append((name, len(pyfiles), len(tags), matched, sym_pct, pct(exact, len(tags)), ok_sym,
                 q, rec, prec, ok_rec))
    print("== %s (%s)" % (name, root))
    print("   %s" % log)
    print("   ctags tags %d: matched %d (%.1f%%), exact line %d (%.1f%%)%s" % (
        len(tags), matched, sym_pct, exact, pct(exact, len(tags)),
        "" if ok_sym else "  BELOW TARGET"))
    reasons = {}
    for m in sym_missed:
        reasons[m[4]] = reasons.get(m[4], 0) + 1
    if reasons:
        print("   symbols missed: " + ", ".join("%s %d" % kv for kv in sorted(reasons.items())))
        lam = reasons.get("no symbol: a lambda assigned to a name", 0)
        if lam:
            print("   without ctags's lambda tags: %d/%d (%.1f%%)"
                  % (matched, len(tags) - lam, pct(matched, len(tags) - lam)))
    for m in sym_missed[:show]:
        print("     miss %s:%d %s (%s; %s)" % m)
    print("   imports: %d keys in %d .py files (%d unreadable by ast), %d intra-repository"
          % (q["keys"], len(pyfiles), q["unreadable"], q["intra"]))
    print("   recall %d/%d (%.1f%%)%s; precision %d/%d (%.1f%%), %d resolved keys not judged"
          % (q["recall_hit"], q["intra"], rec, "" if ok_rec else " BELOW TARGET", q["right"],
             q["judged"], prec, q["unjudged"]))
    if q["wrong"]:
        print("   of the %d resolved but not right: %d to another repository file, %d where the"
              " reference finds no module in the repository (sys.path set at run time?)"
              % (len(q["wrong"]), len(q["wrong"]) - q["outside"], q["outside"]))
    for (k, dsts, right) in q["wrong"][:show]:
        print("     wrong %s: %s -> %s (right: %s)" % (k[0], k[1], dsts, right or "outside"))
    for (k, right, got) in q["missed"][:show]:
        print("     missed %s: %s -> %s (got: %s)" % (k[0], k[1], right, got or "unresolved"))

print()
print("%-10s %6s %7s %8s %7s %7s | %6s %7s %8s %8s | %s" % (
    "repo", ".py", "ctags", "matched", "sym%", "exact%", "intra", "right", "recall%",
    "precis%", "targets (sym>=95, recall>=80)"))
for (name, npy, ntags, matched, sym_pct, exact_pct, ok_sym, q, rec, prec, ok_rec) in rows:
    print("%-10s %6d %7d %8d %7.1f %7.1f | %6d %7d %8.1f %8.1f | %s %s" % (
        name, npy, ntags, matched, sym_pct, exact_pct, q["intra"], q["recall_hit"], rec, prec,
        "PASS" if ok_sym else "FAIL", "PASS" if ok_rec else "FAIL"))
sys.exit(1 if strict and failed else 0)
PY
