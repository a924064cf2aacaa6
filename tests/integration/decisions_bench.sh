#!/usr/bin/env bash
# decisions_bench.sh - the decision detector's targets on the committed
# labelled set (tests/data/decisions/decisions.jsonl), so that a change to
# the cue tables cannot silently break them: bench_decisions --strict must
# pass (capture >= 0.70 and precision >= 0.80 in English, Russian and
# French), the detector must beat the keyword baseline's F1 in every
# language, and the held-out third must stay within reach (capture and
# precision >= 0.60 in each language: it is small, so the bar is lower).
# Also: a missing file exits 2, a malformed line exits 2.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
bench=${MNEMO_BENCH_DIR:?MNEMO_BENCH_DIR, the bench directory of the build, is not set}/bench_decisions
data=$MNEMO_TEST_DATA/decisions/decisions.jsonl

"$bench" "$data" --strict --json >"$tmp/out.json" 2>"$tmp/table" || fail "targets missed: $(cat "$tmp/table")"
cat "$tmp/table"

# value SPLIT LANG KEY from the JSON summary
value() { python3 -c "import json,sys; print(json.load(open('$tmp/out.json'))['$1']['$2']['$3'])"; }
for lang in en ru fr; do
    python3 - "$tmp/out.json" "$lang" <<'PY' || fail "$lang: see above"
import json, sys
j = json.load(open(sys.argv[1])); l = sys.argv[2]
def f1(p, r): return 2 * p * r / (p + r) if p + r else 0
a = j["all"][l]
mine = f1(a["precision"], a["capture"])
base = f1(a["keyword_precision"], a["keyword_capture"])
if mine <= base:
    sys.exit(f"{l}: F1 {mine:.3f} does not beat the keyword baseline's {base:.3f}")
h = j["holdout"][l]
if h["capture"] < 0.60 or h["precision"] < 0.60:
    sys.exit(f"{l}: held-out capture {h['capture']:.3f} precision {h['precision']:.3f} under 0.60")
if a["passages"] < 60 or a["decisions"] < 20:
    sys.exit(f"{l}: only {a['passages']} passages, {a['decisions']} decisions")
PY
done
[ "$(python3 -c "import json; print(json.load(open('$tmp/out.json'))['all']['all']['passages'])")" -ge 300 ] ||
    fail "the set has fewer than 300 passages"

rc=0
"$bench" "$tmp/none.jsonl" >"$tmp/o" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "missing file: exit $rc, want 2"
printf '{"id":"x","text":"use a instead of b","lang":"en","split":"dev","source":"commit","label":1}\nnot json\n' >"$tmp/bad.jsonl"
rc=0
"$bench" "$tmp/bad.jsonl" >"$tmp/o" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "malformed line: exit $rc, want 2"
grep -q "bad.jsonl:2" "$tmp/o" || fail "malformed line not named: $(cat "$tmp/o")"

[ "$fails" = 0 ] && echo "decisions_bench: ok"
exit "$fails"
