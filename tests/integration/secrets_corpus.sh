#!/usr/bin/env bash
# secrets_corpus.sh - the corpus of fake secrets and personal data
# (tests/data/secrets: corpus.jsonl, and repo/ with the values its files
# hold in repo_manifest.json) through every way in and out of mnemo:
# tests/mcp/secrets.mjs saves it through the CLI and the official MCP SDK
# client, asks questions, reads resources and export, and looks for every
# value in the bytes of the store's files. Here: the fixture repository as
# a project commits it (a value in a commit message too), indexed.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../mcp/fixture.sh
. "${MNEMO_SOURCE_DIR:?}/tests/mcp/fixture.sh"
mcp_setup
data=$MNEMO_SOURCE_DIR/tests/data/secrets
repo=$tmp/repo
cp -r "$data/repo" "$repo"
cd "$repo"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
in_message=glpat-Xq3FAKEv9RkT2mLw8ZpB
git init -q
git add -A
git -c user.email=dev@example.invalid -c user.name=dev commit -qm "ci: deploy with token $in_message for now"
"$MNEMO" init >/dev/null
"$MNEMO" index >/dev/null
node -e '
const [repo, mnemo, corpus, manifest, extra] = process.argv.slice(1);
require("fs").writeFileSync(process.env.MCP_FIXTURE, JSON.stringify({ repo, mnemo, corpus, manifest, extra: [extra] }));
' "$repo" "$MNEMO" "$data/corpus.jsonl" "$data/repo_manifest.json" "$in_message"
node "$tmp/run/secrets.mjs"
