#!/usr/bin/env bash
# call_quality.sh - how well `mnemo index` resolves calls, against reference
# resolvers computed without mnemo (a sibling of index_quality.sh).
#
#   bench/call_quality.sh [--mnemo BIN] [--files N] [--keep DIR] [--misses N] LANG:CHECKOUT[:SUBDIR]...
#
# LANG is python, c, cpp, go, javascript, typescript or java. For each checkout it
# indexes the whole tree into a temporary store, takes N source files of
# LANG under SUBDIR (a directory or file of the checkout, or several joined
# by commas; default: the whole checkout; N default 30, spread evenly
# over the sorted list: files i*count/N), has the reference resolver find
# every call in them and the definition it calls, and compares with mnemo's
# call edges (table edges, kind 'call': calling symbol -> callee symbol, or
# the unresolved name):
#
#   python      jedi (Script.goto, follow_imports)            ref_python.py
#   c, cpp      clang 14's libclang (the front end of clangd): ref_clang.py
#               CALL_EXPR -> the callee's definition, found by USR over
#               every translation unit under SUBDIR
#   go          go/parser + go/types (source importer for the  ref_go.go
#               standard library, the module's own packages
#               type-checked from the checkout)
#   javascript  the TypeScript 4.8 compiler API (allowJs), the  ref_ts.js
#   typescript  checker's symbol at the callee's name
#   java        javac's attribution (the JDK's compiler tree     RefJava.java
#               API) over every .java file of the checkout
#
# Per language it prints the reference's call sites (split into defined in
# the repository / outside it / unknown to the reference), mnemo's resolved
# share, precision (a resolved edge is right when its target symbol is in
# the file of the reference's definition and its line span holds the
# definition's line) and recall (reference sites defined in the repository
# that mnemo resolved right / all of them). mnemo stores no line per call:
# evaluate.py matches a site to the edge of the innermost mnemo symbol
# holding its line with the same callee name (see there).
#
# Needs python3, sqlite3 and, per language, Debian's python3-jedi,
# python3-clang-14, golang-go, node + node-typescript, a JDK >= 11
# (default-jdk-headless) (developer tools: a
# bench, not a test). Exit status 0; 2 on usage or setup errors.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HERE=$ROOT/bench/call_quality
mnemo=
nfiles=30
keep=
misses=0
items=()

usage() {
    sed -n '2,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
    case $1 in
    --mnemo)
        mnemo=${2:?--mnemo needs a path}
        shift 2
        ;;
    --files)
        nfiles=${2:?--files needs a count}
        shift 2
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
        echo "call_quality: unknown option '$1'" >&2
        usage >&2
        exit 2
        ;;
    *)
        items+=("$1")
        shift
        ;;
    esac
done

if [ ${#items[@]} -eq 0 ]; then
    echo "call_quality: no checkout given: skipped (usage: bench/call_quality.sh LANG:CHECKOUT...)"
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
    echo "call_quality: no mnemo binary: build it or give --mnemo BIN" >&2
    exit 2
fi
case $nfiles in '' | *[!0-9]* | 0)
    echo "call_quality: --files wants a positive count" >&2
    exit 2
    ;;
esac
# Debian's python3 has Debian's jedi and clang bindings (a pyenv one may not)
py=/usr/bin/python3
[ -x "$py" ] || py=python3
need() {
    command -v "$1" >/dev/null 2>&1 || {
        echo "call_quality: '$1' not found ($2)" >&2
        exit 2
    }
}
need sqlite3 "apt-get install sqlite3"
need "$py" "apt-get install python3"

work=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-callq-XXXXXX")
trap 'rm -rf "$work"' EXIT
[ -z "$keep" ] || mkdir -p "$keep"

i=0
for item in "${items[@]}"; do
    lang=${item%%:*}
    rest=${item#*:}
    dir=${rest%%:*}
    sub=
    [ "$rest" = "$dir" ] || sub=${rest#*:}
    case $lang in
    python) exts='py' ;;
    c) exts='c' ;;
    cpp) exts='cc cpp cxx h hpp hh' ;;
    go) exts='go' ;;
    javascript) exts='js mjs cjs jsx' ;;
    typescript) exts='ts tsx' ;;
    java) exts='java' ;;
    *)
        echo "call_quality: unknown language '$lang' (python, c, cpp, go, javascript, typescript, java)" >&2
        exit 2
        ;;
    esac
    [ -d "$dir" ] || {
        echo "call_quality: '$dir' is not a directory" >&2
        exit 2
    }
    IFS=, read -r -a subs <<<"${sub:-.}"
    for s in "${subs[@]}"; do
        [ -e "$dir/$s" ] || {
            echo "call_quality: '$dir/$s' does not exist" >&2
            exit 2
        }
    done
    i=$((i + 1))
    abs=$(cd "$dir" && pwd)
    p=$work/$i
    db=$p.db
    [ -z "$keep" ] || db=$keep/$lang-$(basename "$abs").db
    rm -f "$db" "$db-wal" "$db-shm"
    t0=$(date +%s)
    "$mnemo" --db "$db" index "$abs" >"$p.index.log" 2>&1 || {
        echo "call_quality: mnemo index '$abs' failed:" >&2
        cat "$p.index.log" >&2
        exit 2
    }
    sqlite3 -json "$db" "SELECT y.id, f.path, y.name, y.kind, y.start_line AS start, y.end_line AS end
        FROM symbols y JOIN files f ON f.id = y.file_id" >"$p.symbols.json"
    sqlite3 -json "$db" "SELECT COALESCE(sf.path, ff.path) AS path,
            CASE WHEN e.src_kind = 'symbol' THEN e.src_id ELSE 0 END AS src,
            e.dst_name AS name, e.dst_key AS key, e.weight AS weight, e.dst_id AS dst,
            d.name AS dname, df.path AS dpath, d.start_line AS dstart, d.end_line AS dend
        FROM edges e
        LEFT JOIN symbols s ON e.src_kind = 'symbol' AND s.id = e.src_id
        LEFT JOIN files sf ON sf.id = s.file_id
        LEFT JOIN files ff ON e.src_kind = 'file' AND ff.id = e.src_id
        LEFT JOIN symbols d ON d.id = e.dst_id
        LEFT JOIN files df ON df.id = d.file_id
        WHERE e.kind = 'call'" >"$p.calls.json"
    # the sample: N files of the language under SUBDIR, spread evenly
    (
        cd "$abs"
        args=()
        for x in $exts; do
            [ ${#args[@]} -eq 0 ] || args+=(-o)
            args+=(-name "*.$x")
        done
        starts=()
        for s in "${subs[@]}"; do starts+=("./$s"); done
        find "${starts[@]}" \( -name node_modules -o -name .git -o -name vendor \) -prune -o \
            -type f \( "${args[@]}" \) ! -name '*.d.ts' ! -name '*.min.js' -print |
            sed 's|//*|/|g; s|^\(\./\)*||' | LC_ALL=C sort
    ) >"$p.all"
    total=$(wc -l <"$p.all")
    awk -v n="$nfiles" -v t="$total" 'BEGIN { if (n > t) n = t; for (k = 0; k < n; k++) want[int(k * t / n) + 1] = 1 }
        want[NR]' "$p.all" >"$p.sample"
    mapfile -t sample <"$p.sample"
    case $lang in
    python)
        "$py" -c 'import jedi' 2>/dev/null || {
            echo "call_quality: jedi missing (apt-get install python3-jedi)" >&2
            exit 2
        }
        (cd "$abs" && "$py" "$HERE/ref_python.py" "$abs" "${sample[@]}") >"$p.ref" 2>"$p.ref.log"
        ;;
    c | cpp)
        "$py" -c 'import clang.cindex' 2>/dev/null || {
            echo "call_quality: libclang bindings missing (apt-get install python3-clang-14)" >&2
            exit 2
        }
        "$py" "$HERE/ref_clang.py" "$lang" "$abs" "${sub:-.}" "${sample[@]}" >"$p.ref" 2>"$p.ref.log"
        ;;
    go)
        need go "apt-get install golang-go"
        (cd "$HERE" && GO111MODULE=off go build -o "$work/ref_go" ref_go.go) >"$p.ref.log" 2>&1 || {
            cat "$p.ref.log" >&2
            exit 2
        }
        "$work/ref_go" "$abs" "${sample[@]}" >"$p.ref" 2>>"$p.ref.log"
        ;;
    javascript | typescript)
        need node "apt-get install nodejs"
        [ -d /usr/share/nodejs/typescript ] || {
            echo "call_quality: TypeScript missing (apt-get install node-typescript)" >&2
            exit 2
        }
        node "$HERE/ref_ts.js" "$lang" "$abs" "${sample[@]}" >"$p.ref" 2>"$p.ref.log"
        ;;
    java)
        need javac "apt-get install default-jdk-headless"
        java "$HERE/RefJava.java" "$abs" "${sample[@]}" >"$p.ref" 2>"$p.ref.log"
        ;;
    esac
    t1=$(date +%s)
    echo "== $lang: $(basename "$abs") ($abs), sample ${#sample[@]} of $total files under ${sub:-.} ($((t1 - t0)) s)"
    echo "   $(head -n1 "$p.index.log")"
    python3 "$HERE/evaluate.py" "$lang" "$abs" "$p.symbols.json" "$p.calls.json" "$p.ref" "$misses" >"$p.eval"
    grep -v '^SUMMARY ' "$p.eval"
    grep '^SUMMARY ' "$p.eval" | sed 's/^SUMMARY //' >>"$work/summary"
    [ -z "$keep" ] || cp "$p.ref" "$keep/$lang-$(basename "$abs").ref.jsonl"
done

python3 - "$work/summary" <<'PY'
import json, os, sys

def pct(a, b):
    return "%.1f" % (100.0 * a / b) if b else "-"

rows = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
print()
print("| language | repository | files | call sites | in repo / outside / unknown (reference) | mnemo edge found % | resolved % | precision % | to a declaration | recall % |")
print("|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    print("| %s | %s | %d | %d | %d / %d / %d | %s | %s | %s (%d/%d) | %d | %s (%d/%d) |" % (
        r["lang"], os.path.basename(r["root"]), r["files"], r["sites"], r["ref_repo"], r["ref_ext"],
        r["ref_unk"], pct(r["matched"], r["sites"]), pct(r["resolved"], r["matched"]),
        pct(r["right"], r["judged"]), r["right"], r["judged"], r["decl"],
        pct(r["recall_hit"], r["ref_repo"]), r["recall_hit"], r["ref_repo"]))
PY
