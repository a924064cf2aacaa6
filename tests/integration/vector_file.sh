#!/usr/bin/env bash
# vector_file.sh - the vectors file beside the store, across processes, on
# a real index (mnemo's own src/, ~2,600 chunk vectors): `mnemo index`
# leaves it, so the first search maps it; a search that reads the vectors
# from the rows writes the file; the next process maps it and ranks exactly
# the same, semantic scores included; a damaged file is not used (same
# answer) and is written again; a memory saved leaves the chunks' file as
# it is (its own epoch, schema v19); a chunk changed makes it stale, and the
# index that changed it writes it anew.
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
file=$(ls .mnemo/mnemo.db-vectors-*-chunk 2>/dev/null | head -1 || true)
[ -n "$file" ] || { echo "FAIL: no vectors file after an index"; exit 1; }
cp "$file" "$tmp/after_index"
"$MNEMO" search "$q" >/dev/null
cmp -s "$file" "$tmp/after_index" || fail "the first search after an index maps the file it left"
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

# a memory saved (its vector written by the next search): the chunks' file stays as it is,
# and the search still finds the memory
cp "$file" "$tmp/before_save"
"$MNEMO" save --kind fact --title "stemming" "Snowball stemming of English, Russian and French words" >/dev/null
"$MNEMO" search --json --k 20 "$q" | node -e "const d=JSON.parse(require('fs').readFileSync(0,'utf8')); process.exit(d.items.some(i => i.title === 'stemming' && (i.signals.semantic||0) > 0) ? 0 : 1)" ||
    fail "the memory saved is found, with a semantic signal"
cmp -s "$file" "$tmp/before_save" || fail "a memory saved leaves the chunks' file as it was"
# a chunk changed: the file names an older epoch, and the index writes it anew
echo "/* the stemmer's languages: English, Russian, French */ int mn_stem_langs(void) { return 3; }" >>"$(ls src/text/*.c | head -1)"
"$MNEMO" index >/dev/null
cmp -s "$file" "$tmp/before_save" && fail "a chunk changed: the index writes the file anew"
[ "$fails" = 0 ] || exit 1
echo "vector_file: ok"
