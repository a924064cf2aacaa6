#!/usr/bin/env bash
# vector_file.sh - the vectors file beside the store, across processes, on
# a real index (mnemo's own src/, ~2,600 chunk vectors): a search that
# reads the vectors from the rows writes the file; the next process maps it
# and ranks exactly the same, semantic scores included; a damaged file is
# not used (same answer) and is written again; a vector written since (a
# save) makes the file stale, and the next search writes it anew.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
: "${MNEMO:?}" "${MNEMO_SOURCE_DIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home XDG_DATA_HOME=$tmp/home/xdg
unset MNEMO_DB MNEMO_PROJECT
mkdir -p "$HOME" "$tmp/repo"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cp -r "$MNEMO_SOURCE_DIR/src" "$tmp/repo/"
cd "$tmp/repo"
"$MNEMO" init >/dev/null
"$MNEMO" index >/dev/null
q="where is the tokenizer's stemming done"
"$MNEMO" search "$q" >/dev/null
file=$(ls .mnemo/mnemo.db-vectors-*-chunk 2>/dev/null | head -1 || true)
[ -n "$file" ] || { echo "FAIL: no vectors file after a search"; exit 1; }
# items: id, score and semantic signal of each, one per line (scores to 4 decimals: a
# memory's recency moves with the clock between two runs)
items() { node -e "const d=JSON.parse(require('fs').readFileSync(0,'utf8')); for (const i of d.items) console.log(i.id, i.score.toFixed(4), (i.signals.semantic||0).toFixed(9))"; }

rm -f "$file"
"$MNEMO" search --json --k 20 "$q" | items >"$tmp/rows.txt"
[ -s "$file" ] || fail "a search that read the rows wrote the file"
grep -qv ' 0.000000000$' "$tmp/rows.txt" || fail "the search has a semantic signal (else this test checks nothing)"
"$MNEMO" search --json --k 20 "$q" | items >"$tmp/mapped.txt"
cmp -s "$tmp/rows.txt" "$tmp/mapped.txt" || fail "mapped from the file: the same ranking ($(diff "$tmp/rows.txt" "$tmp/mapped.txt" | head -4))"

# a damaged payload (a third of the rows zeroed): not used, the same answer, and the file is good again afterwards
size=$(stat -c %s "$file")
dd if=/dev/zero of="$file" bs=1 seek=$((size / 2)) count=$((size / 3)) conv=notrunc status=none
cp "$file" "$tmp/damaged"
"$MNEMO" search --json --k 20 "$q" | items >"$tmp/after_damage.txt"
cmp -s "$tmp/rows.txt" "$tmp/after_damage.txt" || fail "a damaged file is not used"
cmp -s "$file" "$tmp/damaged" && fail "the damaged file was written again"

# a vector written since: the file names an older epoch, and is written anew
cp "$file" "$tmp/before_save"
"$MNEMO" save --kind fact --title "stemming" "Snowball stemming of English, Russian and French words" >/dev/null
"$MNEMO" search --json --k 20 "$q" >/dev/null
cmp -s "$file" "$tmp/before_save" && fail "after a save the file names the new epoch"
[ "$fails" = 0 ] || exit 1
echo "vector_file: ok"
