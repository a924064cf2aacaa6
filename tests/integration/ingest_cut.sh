#!/usr/bin/env bash
# ingest_cut.sh - a cut never leaves part of a secret: text is scrubbed before
# the ingests cut it, since a token cut in half no longer matches its rule and
# the save pipeline's scrub, after the cut, would keep most of it. Each case
# puts a GitHub token across one of the cuts:
#   git        a commit message longer than the 64 KiB read of it (git_commits.body);
#              a workflow's `run:` line, clipped to 120 characters in the CI memory;
#   capture    a tool's output across the 1,500 characters of a turn in an excerpt;
#   decide     a decision whose first line is clipped to 200 characters as its title;
#   docs       a section longer than the 20,000 bytes a memory keeps of it.
# No part of any token reaches the store's files or an export; the memories
# are saved with the marker instead.
set -euo pipefail
: "${MNEMO:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=Ada GIT_AUTHOR_EMAIL=ada@example.com
export GIT_COMMITTER_NAME=Ada GIT_COMMITTER_EMAIL=ada@example.com
unset MNEMO_DB MNEMO_PROJECT CLAUDE_CONFIG_DIR
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
mn() { "$MNEMO" "$@"; }

# four tokens; the first 10 characters of each (ghp_CUTxxx) lie before its cut
T_MSG=ghp_CUTmsg7Wm2Xr9Lk4Tz8Vb3Nc6Yd1Hs5Jp0Ga
T_RUN=ghp_CUTrun7Wm2Xr9Lk4Tz8Vb3Nc6Yd1Hs5Jp0Gb
T_CAP=ghp_CUTcap7Wm2Xr9Lk4Tz8Vb3Nc6Yd1Hs5Jp0Gc
T_DEC=ghp_CUTdec7Wm2Xr9Lk4Tz8Vb3Nc6Yd1Hs5Jp0Gd
T_DOC=ghp_CUTdoc7Wm2Xr9Lk4Tz8Vb3Nc6Yd1Hs5Jp0Ge

# no part of a token in the store's files nor in an export
nowhere() { # nowhere WHAT TOKEN
    local part=${2:0:10} f
    for f in .mnemo/mnemo.db .mnemo/mnemo.db-wal; do
        [ -e "$f" ] || continue
        if grep -aqF "$part" "$f"; then fail "$1: part of the token is in $f"; fi
    done
    if mn export --format json | grep -qF "$part"; then fail "$1: part of the token is in the export"; fi
}

repo=$tmp/repo
mkdir -p "$repo" && cd "$repo"
git init -q -b main
mn init >/dev/null

# git: the token across the message's 64 KiB cut (64 KiB - 10 bytes of words before it)
python3 - "$T_MSG" <<'PY'
import sys
tok = sys.argv[1]
head = "Fix the loader\n\n" + "word " * 20000
m = head[:65536 - 11] + " " + tok + "\nmore words after it\n"
assert m.index(tok) == 65536 - 10
open("msg", "w").write(m)
PY
echo a >a.txt
git add a.txt && git commit -q -F msg && rm msg

# git: a workflow whose run line is clipped to 120 characters across the token (no space
# before it in the line's last quarter, where the clip would rather cut at a word)
mkdir -p .github/workflows
pad=$(printf 'x%.0s' $(seq 1 64))
cat >.github/workflows/deploy.yml <<EOF
name: deploy
on: [push]
jobs:
  deploy:
    runs-on: ubuntu-latest
    steps:
      - run: curl --fail -X POST -d 'payload=$pad&t=$T_RUN' https://api.example.com/deploy
EOF
git add -A && git commit -q -m "Deploy from GitHub Actions"
mn --json ingest git >"$tmp/git.json"
node -e "const d=JSON.parse(require('fs').readFileSync('$tmp/git.json')); process.exit(d.commits.ingested===2?0:1)" ||
    fail "ingest git: $(head -c 400 "$tmp/git.json")"
sqlite3 .mnemo/mnemo.db "SELECT body FROM git_commits" | grep -qF '[REDACTED' ||
    fail "the long message was not stored redacted up to its cut"
mn export --format json | grep -q 'Runs: `curl' || fail "the CI memory does not quote the run line"
nowhere "a commit message cut at 64 KiB" "$T_MSG"
nowhere "a workflow's run line clipped" "$T_RUN"

# capture: the token across the 1,500 characters of a turn in an excerpt
python3 - "$T_CAP" <<'PY'
import json, sys
tok = sys.argv[1]
def rec(t, c):
    return json.dumps({"type": t, "sessionId": "s-cut", "message": {"role": t, "content": c}})
lead = "Bash(pytest -q)\n"
first = "FAILED test_a.py - KeyError: token\n"
res = first + "y" * (1500 - len(lead) - len(first) - 11) + " " + tok + "\n1 failed"
assert (lead + res).index(tok) == 1500 - 10
lines = [rec("user", "fix the test"),
         rec("assistant", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest -q"}}]),
         rec("user", [{"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": res}]),
         rec("assistant", [{"type": "tool_use", "id": "t2", "name": "Edit", "input": {"file_path": "a.py"}}]),
         rec("assistant", [{"type": "tool_use", "id": "t3", "name": "Bash", "input": {"command": "pytest -q"}}]),
         rec("user", [{"type": "tool_result", "tool_use_id": "t3", "content": "5 passed"}])]
open("t.jsonl", "w").write("\n".join(lines) + "\n")
PY
mn --json capture t.jsonl >"$tmp/cap.json"
node -e "const d=JSON.parse(require('fs').readFileSync('$tmp/cap.json')); process.exit(d.candidates.fix===1?0:1)" ||
    fail "capture: no fix found: $(head -c 400 "$tmp/cap.json")"
mn export --format json | grep -q 'Bash(pytest -q)' || fail "the fix's excerpt is not in the export"
nowhere "a turn cut in an excerpt" "$T_CAP"

# decide: the title is the decision's first line clipped to 200 characters; the token
# starts at 185, in a URL that starts at 104
words=$(printf 'word %.0s' $(seq 1 20))
as=$(printf 'a%.0s' $(seq 1 55))
mn --json decide "Use ${words}https://ci.example.com/$as?t=$T_DEC for the release job" \
    --reason "the job needs it" >"$tmp/dec.json"
nowhere "a decision's title clipped" "$T_DEC"

# docs: a section's body is cut at 20,000 bytes; the token starts 20 bytes before the cut
mkdir -p wiki
node -e "process.stdout.write('# Release notes\\n\\n## Deploy\\n\\n' + 'word '.repeat(4000).slice(0, 19980) +
    '$T_DOC and the rest of the section after the token.\\n')" >wiki/notes.md
mn ingest docs wiki >/dev/null || fail "ingest docs"
nowhere "a section cut at 20,000 bytes" "$T_DOC"

[ "$fails" = 0 ] && echo "ok: ingest_cut" || exit 1
