#!/usr/bin/env bash
# token_bound.sh - the token estimate `context` budgets with
# (src/retrieve/tokens.c) is never below cl100k_base's count.
#
# Every file of this repository's src/, docs/ and tests/data/, and the
# evaluation datasets when ../shared/eval is there, cut into 1,500-byte
# chunks by $MNEMO_TOKEN_CHUNKS; each chunk's estimate is compared with
# js-tiktoken's cl100k_base count (pinned in deps/npm.lock). Also checks
# that mn_tokens_fit keeps a prefix under a budget of 50 and 500 tokens.
set -euo pipefail
: "${MNEMO_TOKEN_CHUNKS:?}" "${MNEMO_SOURCE_DIR:?}"
deps=${MNEMO_DEPS_DIR:-$MNEMO_SOURCE_DIR/.deps}/npm
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-tokens.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/node_modules"
ln -s "$deps/js-tiktoken@1.0.21" "$tmp/node_modules/js-tiktoken"
ln -s "$deps/base64-js@1.5.1" "$tmp/node_modules/base64-js"

cat > "$tmp/check.cjs" <<'JS'
// Reads {"est","text"} lines on stdin; fails on any est below the true count.
const { getEncoding } = require("js-tiktoken");
const enc = getEncoding("cl100k_base");
const lines = require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean);
let n = 0, bad = 0, sum = 0, worst = Infinity;
for (const l of lines) {
  const { est, text } = JSON.parse(l);
  const real = enc.encode(text).length;
  n++;
  if (real > 0) { sum += est / real; worst = Math.min(worst, est / real); }
  if (est < real) {
    bad++;
    if (bad <= 5) console.error(`under: est ${est} < cl100k ${real}: ${JSON.stringify(text.slice(0, 120))}`);
  }
}
const limit = Number(process.argv[2] || 0);
if (limit) {
  for (const l of lines) {
    const real = enc.encode(JSON.parse(l).text).length;
    if (real > limit) { bad++; console.error(`fit: ${real} tokens > budget ${limit}`); }
  }
}
console.log(`${n} texts, estimate/cl100k mean ${(sum / Math.max(n, 1)).toFixed(2)}, worst ${worst.toFixed(3)}, ${bad} under`);
process.exit(bad ? 1 : 0);
JS

files=$(find "$MNEMO_SOURCE_DIR/src" "$MNEMO_SOURCE_DIR/docs" "$MNEMO_SOURCE_DIR/tests/data" -type f \
    \( -name '*.c' -o -name '*.h' -o -name '*.md' -o -name '*.sql' -o -name '*.json' -o -name '*.jsonl' \
       -o -name '*.yaml' -o -name '*.tsv' -o -name '*.scm' -o -name '*.py' \) | sort)
eval_dir=$MNEMO_SOURCE_DIR/../shared/eval
if [ -d "$eval_dir" ]; then
    files="$files $(find "$eval_dir" -type f \( -name '*.json' -o -name '*.jsonl' \) | sort)"
fi
# shellcheck disable=SC2086
"$MNEMO_TOKEN_CHUNKS" $files > "$tmp/chunks.jsonl"
test -s "$tmp/chunks.jsonl"
NODE_PATH="$tmp/node_modules" node "$tmp/check.cjs" < "$tmp/chunks.jsonl"
for budget in 50 500; do
    # shellcheck disable=SC2086
    "$MNEMO_TOKEN_CHUNKS" --fit "$budget" $files > "$tmp/fit.jsonl"
    NODE_PATH="$tmp/node_modules" node "$tmp/check.cjs" "$budget" < "$tmp/fit.jsonl"
done
