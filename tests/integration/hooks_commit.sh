#!/usr/bin/env bash
# hooks_commit.sh - what the hooks do, with the real mnemo:
#   post-commit   a commit's candidates are in the store within 2 s of
#                 `git commit` returning (the ingest runs in the background);
#   post-checkout after a branch switch, the branch filter's answers for the
#                 new HEAD are cached (the next context asks git nothing);
#   hooksPath     with core.hooksPath set (husky's way), the hooks go where
#                 git looks, next to the hook there, and uninstall restores it;
#   no store      in a repository without a store, a hook creates none.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
: "${MNEMO:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=Ada GIT_AUTHOR_EMAIL=ada@example.com
export GIT_COMMITTER_NAME=Ada GIT_COMMITTER_EMAIL=ada@example.com
unset MNEMO_DB MNEMO_PROJECT
fails=0
# a check on the right of a pipe runs in a subshell: its failure is counted in a file too
fail() { echo "FAIL: $*"; fails=$((fails + 1)); echo "$*" >>"$tmp/failed"; }
mn() { "$MNEMO" "$@"; }
ms() { echo $(($(date +%s%N) / 1000000)); }
# wait_for SECONDS CMD...: until CMD succeeds, polling; 1 when the time is up
wait_for() {
    local until=$(($(ms) + $1 * 1000))
    shift
    while ! "$@" >/dev/null 2>&1; do
        [ "$(ms)" -lt "$until" ] || return 1
        sleep 0.05
    done
}

repo=$tmp/repo
mkdir -p "$repo" && cd "$repo"
git init -q -b main
cat >setup.py <<'EOF'
from setuptools import setup
setup(name="shop", install_requires=["idna>=2.5"])
EOF
git add -A && git commit -q -m "Initial shop"
mn init >/dev/null
mn index >/dev/null
mn hooks install >/dev/null

# ---- post-commit: the candidates within 2 s ----
sed -i 's/\["idna>=2.5"\]/["idna>=2.5", "urllib3>=2"]/' setup.py
git add -A
t0=$(ms)
git commit -q -m "Depend on urllib3 2 for its TLS defaults"
t1=$(ms)
sha=$(git rev-parse HEAD)
has_candidate() {
    mn --json list --limit 100 --status active | node -e "
      const d=JSON.parse(require('fs').readFileSync(0));
      process.exit(d.memories.some(m=>/Added dependency urllib3>=2/.test(m.title)) ? 0 : 1)"
}
if wait_for 2 has_candidate; then
    echo "post-commit: candidate stored $(($(ms) - t1)) ms after git commit returned (commit took $((t1 - t0)) ms)"
else
    fail "no candidate of the commit within 2 s of git commit"
fi
mn --json list --limit 100 | node -e "
  const d=JSON.parse(require('fs').readFileSync(0));
  const m=d.memories.find(m=>/urllib3/.test(m.title));
  if(!m) process.exit(1)" || fail "the candidate is not listed"
mn --json export --format json | node -e "
  const d=JSON.parse(require('fs').readFileSync(0));
  const m=d.find(m=>/urllib3>=2/.test(m.title));
  if(!m || m.provenance.commit!=='$sha' || m.provenance.source!=='git') process.exit(1)" ||
    fail "the hook's candidate does not name its commit"

# ---- post-checkout: the branch filter's answers cached for the new HEAD ----
git checkout -q -b feature
echo x >f.txt && git add f.txt && git commit -q -m "feature work"
mn save "Feature flags live in redis under ff:<name>" >/dev/null
git checkout -q main
main_head=$(git rev-parse HEAD)
cached() {
    [ "$(sqlite3 .mnemo/mnemo.db "SELECT count(*) FROM branch_ancestry WHERE head='$main_head' AND merged=0")" -ge 1 ]
}
wait_for 5 cached || fail "post-checkout did not cache the answers for the new HEAD"

# ---- a repository without a store: the hooks create none ----
bare=$tmp/nostore
mkdir -p "$bare" && cd "$bare"
git init -q -b main
echo a >a && git add a && git commit -q -m a
mn hooks install >/dev/null
echo b >b && git add b && git commit -q -m b
sleep 1
[ -e .mnemo ] && fail "a hook created a store where there was none"

# ---- core.hooksPath (husky's way): install there, chain, restore ----
h=$tmp/husky
mkdir -p "$h" && cd "$h"
git init -q -b main
mkdir -p .husky/_
printf '#!/bin/sh\necho husky-post-commit >>"%s/husky.log"\n' "$tmp" >.husky/_/post-commit
chmod 755 .husky/_/post-commit
git config core.hooksPath .husky/_
before=$(sha256sum .husky/_/post-commit | cut -d' ' -f1)
echo a >a && git add a && git commit -q -m a
mn init >/dev/null
mn --json hooks install >"$tmp/hp.json"
node -e "const d=JSON.parse(require('fs').readFileSync('$tmp/hp.json')); if(!d.dir.endsWith('.husky/_')) process.exit(1)" ||
    fail "install did not use core.hooksPath: $(cat "$tmp/hp.json")"
[ -e .git/hooks/post-commit ] && fail "install wrote into .git/hooks despite core.hooksPath"
echo b >b && git add b && git commit -q -m b
grep -q husky-post-commit "$tmp/husky.log" || fail "husky's hook did not run"
mn hooks uninstall >/dev/null
[ "$(sha256sum .husky/_/post-commit | cut -d' ' -f1)" = "$before" ] || fail "husky's hook not restored"
[ -e .husky/_/post-commit.mnemo-chained ] && fail "a .mnemo-chained file is left in hooksPath"

[ "$fails" = 0 ] && [ ! -s "$tmp/failed" ] && echo "ok: hooks_commit" || exit 1
