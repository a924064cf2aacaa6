#!/usr/bin/env bash
# token_bound.sh - mnemo's token counts against js-tiktoken (pinned in
# deps/npm.lock):
#  - the exact counter (src/text/bpe.h, the tables the build installs)
#    gives js-tiktoken's count, to the token, in cl100k_base and o200k_base,
#    on every file of this repository's src/, docs/ and tests/data/, the
#    evaluation datasets when ../shared/eval is there (the first 2 MB of
#    each file: LongMemEval's 64 MB would take minutes), cut into
#    1,500-byte chunks by $MNEMO_TOKEN_CHUNKS, and on 3,000 random texts
#    mixing every kind of character the encodings' patterns tell apart
#    (scripts, marks, digits of other scripts, the Unicode spaces where
#    JavaScript and PCRE2 differ, emoji);
#  - the shape-based estimate (src/retrieve/tokens.c), the fallback when no
#    table is installed, is never below cl100k_base's count, and
#    mn_tokens_fit keeps a prefix under a budget of 50 and 500 tokens.
set -euo pipefail
: "${MNEMO_TOKEN_CHUNKS:?}" "${MNEMO_SOURCE_DIR:?}"
deps=${MNEMO_DEPS_DIR:-$MNEMO_SOURCE_DIR/.deps}/npm
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-tokens.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/node_modules"
ln -s "$deps/js-tiktoken@1.0.21" "$tmp/node_modules/js-tiktoken"
ln -s "$deps/base64-js@1.5.1" "$tmp/node_modules/base64-js"

cat > "$tmp/check.cjs" <<'JS'
// Reads {"est","cl100k","o200k","text"} lines on stdin. Fails on any exact count that is
// not js-tiktoken's, and on any estimate below cl100k's count (not with "exact": the
// estimate is made for real text, not for random characters); with a budget argument, on
// any text over it (the fit check: est only).
const { getEncoding } = require("js-tiktoken");
const cl = getEncoding("cl100k_base"), o2 = getEncoding("o200k_base");
const lines = require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean);
const exact = process.argv[2] === "exact", limit = exact ? 0 : Number(process.argv[2] || 0);
let n = 0, under = 0, differ = 0, over = 0, sum = 0, worst = Infinity, tokens = 0;
for (const l of lines) {
  const d = JSON.parse(l);
  // special tokens ("<|endoftext|>") are text like any other, as mnemo counts them
  const real = cl.encode(d.text, [], []).length;
  const real2 = limit ? d.o200k : o2.encode(d.text, [], []).length; // the fit check: cl100k only
  n++;
  tokens += real;
  if (real > 0) { sum += d.est / real; worst = Math.min(worst, d.est / real); }
  if (!exact && d.est < real) {
    under++;
    if (under <= 5) console.error(`estimate under: ${d.est} < cl100k ${real}: ${JSON.stringify(d.text.slice(0, 120))}`);
  }
  if (d.cl100k !== real || d.o200k !== real2) {
    differ++;
    if (differ <= 5) console.error(`exact count differs: cl100k ${d.cl100k} (js ${real}), o200k ${d.o200k} (js ${real2}): ${JSON.stringify(d.text.slice(0, 160))}`);
  }
  if (limit && real > limit) { over++; console.error(`fit: ${real} tokens > budget ${limit}`); }
}
console.log(`${n} texts, ${tokens} cl100k tokens: exact counts ${n - differ}/${n} equal to js-tiktoken's; estimate/cl100k mean ${(sum / Math.max(n, 1)).toFixed(2)}, worst ${worst.toFixed(3)}, ${under} under${limit ? `, ${over} over ${limit}` : ""}`);
process.exit(under || differ || over || n === 0 ? 1 : 0);
JS

cat > "$tmp/random.cjs" <<'JS'
// 3,000 random texts (fixed seed), one JSON string a line.
let seed = 12345;
const rnd = () => { // mulberry32
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = a => a[Math.floor(rnd() * a.length)];
const pools = [
  "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789", " ", "  ", "\n", "\r\n", "\t",
  "'s", "'T", "'re", "'LL", "'ve", "'d", "/", ".,;:!?-_()[]{}<>\"'`~@#$%^&*+=|\\",
  "éèàüöñçÉÀÜ", "ßøåæœ", "ДжЯщьЪ", "αβγΔΩ", "中文字符漢字", "ひらがなカタカナ", "한국어", "ʰʲˠ", "ǅǈǋ",
  "\u0301\u0308\u0327", "٠١٢٣", "²³¹", "Ⅻⅳ", "½¾",
  "\u00a0", "\u2003", "\u3000", "\ufeff", "\u0085", "\u180e", "\u2028", "\u000b\u000c",
  "😀👍🏽", "€£¥", "\u200b", "<|endoftext|>",
];
const out = [];
for (let i = 0; i < 3000; i++) {
  let s = "";
  const n = 1 + Math.floor(rnd() * 60);
  for (let j = 0; j < n; j++) {
    const p = pick(pools), k = 1 + Math.floor(rnd() * 4);
    for (let m = 0; m < k; m++) s += p.length > 3 && rnd() < 0.7 ? pick([...p]) : p;
  }
  out.push(JSON.stringify(s));
}
require("fs").writeFileSync(process.argv[2], out.join("\n") + "\n");
JS

files=$(find "$MNEMO_SOURCE_DIR/src" "$MNEMO_SOURCE_DIR/docs" "$MNEMO_SOURCE_DIR/tests/data" -type f \
    \( -name '*.c' -o -name '*.h' -o -name '*.md' -o -name '*.sql' -o -name '*.json' -o -name '*.jsonl' \
       -o -name '*.yaml' -o -name '*.tsv' -o -name '*.scm' -o -name '*.py' \) | sort)
eval_dir=$MNEMO_SOURCE_DIR/../shared/eval
if [ -d "$eval_dir" ]; then
    while IFS= read -r f; do
        head -c 2000000 "$f" >"$tmp/eval.$(basename "$f")"
        files="$files $tmp/eval.$(basename "$f")"
    done < <(find "$eval_dir" -type f \( -name '*.json' -o -name '*.jsonl' \) | sort)
fi
# shellcheck disable=SC2086
"$MNEMO_TOKEN_CHUNKS" $files > "$tmp/chunks.jsonl"
test -s "$tmp/chunks.jsonl"
NODE_PATH="$tmp/node_modules" node "$tmp/check.cjs" < "$tmp/chunks.jsonl"
node "$tmp/random.cjs" "$tmp/random.txt"
"$MNEMO_TOKEN_CHUNKS" --texts "$tmp/random.txt" > "$tmp/random.jsonl"
[ "$(wc -l < "$tmp/random.jsonl")" = 3000 ]
NODE_PATH="$tmp/node_modules" node "$tmp/check.cjs" exact < "$tmp/random.jsonl"
for budget in 50 500; do
    # shellcheck disable=SC2086
    "$MNEMO_TOKEN_CHUNKS" --fit "$budget" $files > "$tmp/fit.jsonl"
    NODE_PATH="$tmp/node_modules" node "$tmp/check.cjs" "$budget" < "$tmp/fit.jsonl"
done
