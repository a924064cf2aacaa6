#!/usr/bin/env bash
# swebench_functions.sh - bench_swebench's function ranking on a real git
# repository made here. mnemo's chunk of a Go function opens with the doc
# comment above it while the function's symbol starts at its `func` line,
# so a function ranking that maps an item by its first line alone finds no
# function for it and counts the fix as missed. The fix changes one line of
# a documented function the statement names, in a file of two: the bench
# must find that function among mnemo's first five (func_acc@5 1.000) and
# print its name. Then --stores: kept and reused, and not kept when the disk
# has less free than --min-free.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg TMPDIR=$tmp GIT_CONFIG_NOSYSTEM=1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
bench=${MNEMO_BENCH_DIR:?MNEMO_BENCH_DIR, the bench directory of the build, is not set}/bench_swebench

repo=$tmp/mirrors/o+r/repo
mkdir -p "$repo"
cd "$repo"
git init -q -b main .
git config user.name t && git config user.email t@example.org
cat >calc.go <<'EOF'
package calc

// Add returns the sum of a and b, the first operation of the calculator.
func Add(a, b int) int {
	return a + b
}

// ScaleQuantity multiplies the quantity by the factor, rounding towards zero.
// A negative factor mirrors the quantity.
func ScaleQuantity(quantity, factor int) int {
	return quantity * factor
}
EOF
cat >format.go <<'EOF'
package calc

import "fmt"

// Describe prints a value with its unit, for the logs of the calculator.
func Describe(v int, unit string) string {
	return fmt.Sprintf("%d %s", v, unit)
}
EOF
git add -A && git commit -q -m initial
base=$(git rev-parse HEAD)
sed -i 's/return quantity \* factor/return quantity * factor \/ 1/' calc.go
git commit -q -am "fix ScaleQuantity"
patch=$(git diff "$base" HEAD)
python3 - "$base" "$patch" >"$tmp/set.jsonl" <<'EOF'
import json, sys
print(json.dumps({"instance_id": "o__r-1", "repo": "o/r", "base_commit": sys.argv[1],
                  "patch": sys.argv[2] + "\n",
                  "problem_statement": "ScaleQuantity multiplies the quantity by the wrong factor"}))
EOF

"$bench" "$tmp/set.jsonl" --repos "$tmp/mirrors" --verbose >"$tmp/bench.out" 2>"$tmp/bench.err" ||
    fail "bench_swebench: exit $?: $(tail -3 "$tmp/bench.err")"
grep -q "gold functions: calc.go:ScaleQuantity" "$tmp/bench.err" ||
    fail "gold function: $(grep 'gold functions' "$tmp/bench.err")"
grep -Eq "mnemo functions:.* ScaleQuantity( |$)" "$tmp/bench.err" ||
    fail "ScaleQuantity not in the function ranking: $(grep 'mnemo functions' "$tmp/bench.err")"
grep -Eq "^func_acc@5 +\| +1\.000" "$tmp/bench.out" ||
    fail "func_acc@5: $(grep func_acc "$tmp/bench.out")"

# --stores keeps the checkout and its store; a second run reuses it and scores the same
"$bench" "$tmp/set.jsonl" --repos "$tmp/mirrors" --stores "$tmp/stores" >"$tmp/kept.out" 2>&1 ||
    fail "--stores: exit $?"
[ -f "$tmp/stores/o__r-1/.mnemo/bench-indexed" ] || fail "--stores: no store kept: $(ls -A "$tmp/stores")"
"$bench" "$tmp/set.jsonl" --repos "$tmp/mirrors" --stores "$tmp/stores" >"$tmp/reuse.out" 2>&1 ||
    fail "--stores, reused: exit $?"
grep -Eq "^func_acc@5 +\| +1\.000" "$tmp/reuse.out" || fail "reused store: $(grep func_acc "$tmp/reuse.out")"
# no disk has a million GB free: the instance runs in a temporary directory, nothing is kept,
# the run says so and still scores it
"$bench" "$tmp/set.jsonl" --repos "$tmp/mirrors" --stores "$tmp/low" --min-free 1000000 \
    >"$tmp/low.out" 2>&1 || fail "--min-free: exit $?"
[ -z "$(ls -A "$tmp/low")" ] || fail "--min-free: a store was kept: $(ls -A "$tmp/low")"
grep -q "new stores are not kept" "$tmp/low.out" || fail "--min-free: no warning: $(head -3 "$tmp/low.out")"
grep -q "1 stores not kept in $tmp/low" "$tmp/low.out" || fail "--min-free: no count"
grep -Eq "^func_acc@5 +\| +1\.000" "$tmp/low.out" || fail "--min-free: $(grep func_acc "$tmp/low.out")"
[ -z "$(find "$tmp" -maxdepth 1 -name 'mnemo-swe*')" ] || fail "--min-free: the temporary directory is left"
# --signals: the ranking of each instance with every signal of each file, the gold beside it
"$bench" "$tmp/set.jsonl" --repos "$tmp/mirrors" --stores "$tmp/stores" --signals "$tmp/sig.jsonl" \
    >"$tmp/sig.out" 2>&1 || fail "--signals: exit $?"
python3 - "$tmp/sig.jsonl" <<'EOF' || fail "--signals: $(head -c 300 "$tmp/sig.jsonl")"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
d = json.loads(lines[0])
assert d["instance_id"] == "o__r-1" and d["gold"] == ["calc.go"], d
top = d["files"][0]
assert top["path"] == "calc.go", top
for name in ("lexical", "names", "named_path", "title", "path_words", "share", "fault",
             "message", "graph", "graph_gap", "history", "role"):
    assert name in top["signals"], name
assert top["signals"]["role"] == 1.0 and top["signals"]["names"] > 0, top
EOF
rc=0
"$bench" "$tmp/set.jsonl" --repos "$tmp/mirrors" --signals >/dev/null 2>&1 || rc=$?
[ $rc -eq 2 ] || fail "--signals without a file: exit $rc, want 2"
rc=0
"$bench" "$tmp/set.jsonl" --repos "$tmp/mirrors" --min-free lots >/dev/null 2>&1 || rc=$?
[ $rc -eq 2 ] || fail "--min-free lots: exit $rc, want 2"

[ "$fails" = 0 ] && echo "ok"
exit "$fails"
