#!/usr/bin/env bash
# check_sets.sh - the check sets built from history (docs/internals/retrieval.md, "A check set
# from history"), made again from full clones, one JSONL per language family in OUT:
#   cl3.jsonl  tokio (Rust), axios (JavaScript), jib (Java): 110 instances
#   c.jsonl    jq, ponyc (C): 80
#   go.jsonl   gin (changelog), cli/cli and go-zero (pull request titles): 120
#   cpp.jsonl  fmt, nlohmann/json (C++): 80
#   py.jsonl   rich, httpx (changelogs), sympy (pull request titles): Python, no dev set's
#              repository: 115
# MIRRORS holds each repository as MIRRORS/<owner>+<name>/repo (a bare or normal full clone,
# the layout bench_swebench --repos reads); a repository missing there is skipped with a
# note. The dev sets' fixes are left out (--exclude). Then, for example:
#   build-bench/bench/bench_swebench OUT/c.jsonl --repos MIRRORS --stores NEW_DIR --verbose
# Usage: bench/check_sets.sh MIRRORS OUT [EVAL_DIR (default ../shared/eval)]
set -euo pipefail
[ $# -ge 2 ] || {
    echo "usage: $0 MIRRORS OUT [EVAL_DIR]" >&2
    exit 2
}
mirrors=$1 out=$2
eval_dir=${3:-$(dirname "$0")/../../shared/eval}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
exclude=()
for f in "$eval_dir/swebench/dev.jsonl" "$eval_dir/swebench/multi_dev.jsonl"; do
    [ -f "$f" ] && exclude+=(--exclude "$f")
done

# make SET OWNER/NAME N ARGS...: append N instances of one repository to OUT/SET.jsonl
make() {
    local set=$1 name=$2 n=$3
    shift 3
    local repo="$mirrors/${name/\//+}/repo"
    if [ ! -d "$repo" ]; then
        echo "check_sets: no clone of $name at $repo: left out" >&2
        return 0
    fi
    python3 "$here/history_set.py" --repo "$repo" --name "$name" --n "$n" "${exclude[@]}" "$@" \
        >>"$out/$set.jsonl"
}

rm -f "$out"/cl3.jsonl "$out"/c.jsonl "$out"/go.jsonl "$out"/cpp.jsonl "$out"/py.jsonl
make cl3 tokio-rs/tokio 40 --changelog tokio/CHANGELOG.md --changelog tokio-util/CHANGELOG.md \
    --changelog tokio-stream/CHANGELOG.md --changelog tokio-macros/CHANGELOG.md
make cl3 axios/axios 40 --changelog CHANGELOG.md
make cl3 GoogleContainerTools/jib 30 --changelog jib-core/CHANGELOG.md \
    --changelog jib-maven-plugin/CHANGELOG.md --changelog jib-gradle-plugin/CHANGELOG.md \
    --changelog jib-cli/CHANGELOG.md
make c jqlang/jq 40 --changelog NEWS.md
make c ponylang/ponyc 40 --changelog CHANGELOG.md
make go gin-gonic/gin 40 --changelog CHANGELOG.md
make go cli/cli 40 --from-log
make go zeromicro/go-zero 40 --from-log
make cpp fmtlib/fmt 40 --changelog ChangeLog.md
make cpp nlohmann/json 40 --changelog ChangeLog.md
make py Textualize/rich 40 --changelog CHANGELOG.md
make py encode/httpx 40 --changelog CHANGELOG.md
make py sympy/sympy 40 --from-log
wc -l "$out"/*.jsonl >&2
