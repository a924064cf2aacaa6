#!/usr/bin/env bash
# hooks_safety.sh - mnemo's git hooks never fail nor slow git, and never
# lose the hooks that were there:
#   chain     a hand-written post-commit (and a post-checkout and post-merge)
#             is kept, runs first with its arguments, and its exit status is
#             git's (post-checkout's becomes `git checkout`'s);
#   timing    with the mnemo the hooks name removed, failing (exit 1) or
#             hanging (sleep), `git commit`, `git merge` and `git checkout`
#             still succeed, and take at most 50 ms longer than without
#             mnemo's hooks: RUNS rounds each time the operation without
#             them, then with them (the same load on both), and the median
#             of the differences counts (the user's hooks run in both);
#   restore   uninstall puts each hook back byte for byte, with its mode; a
#             symbolic link stays one; status says what is where;
#   refuse    a NAME.mnemo-chained in the way of a foreign hook: install
#             changes nothing and says what to do.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
: "${MNEMO:?}"
tmp=$(mktemp -d)
pids=$tmp/hung.pids
cleanup() {
    # the hanging stand-ins started by the hooks wrote their pids: end exactly those
    if [ -f "$pids" ]; then
        while read -r p; do kill "$p" 2>/dev/null || true; done <"$pids"
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=Ada GIT_AUTHOR_EMAIL=ada@example.com
export GIT_COMMITTER_NAME=Ada GIT_COMMITTER_EMAIL=ada@example.com
unset MNEMO_DB MNEMO_PROJECT
fails=0
# a check on the right of a pipe runs in a subshell: its failure is counted in a file too
fail() { echo "FAIL: $*"; fails=$((fails + 1)); echo "$*" >>"$tmp/failed"; }
RUNS=11
MARGIN_MS=50

# the mnemo the hooks will name: a copy we can remove, break or hang
mkdir -p "$tmp/bin"
cp "$MNEMO" "$tmp/bin/mnemo"
MN=$tmp/bin/mnemo

repo=$tmp/repo
mkdir -p "$repo" && cd "$repo"
git init -q -b main
echo one >a.txt && git add a.txt && git commit -q -m "one"
"$MN" init >/dev/null

# the user's own hooks: they count their runs and see their arguments
cat >.git/hooks/post-commit <<EOF
#!/bin/sh
echo "post-commit \$*" >>"$tmp/user.log"
EOF
cat >.git/hooks/post-checkout <<EOF
#!/bin/sh
echo "post-checkout \$*" >>"$tmp/user.log"
exit 0
EOF
printf '#!/bin/sh\necho "post-merge $*" >>"%s/user.log"\n' "$tmp" >"$tmp/merge-hook.sh"
chmod 755 .git/hooks/post-commit .git/hooks/post-checkout "$tmp/merge-hook.sh"
chmod 700 .git/hooks/post-commit # an odd mode, to see it kept
ln -s "$tmp/merge-hook.sh" .git/hooks/post-merge
sha() { sha256sum "$1" | cut -d' ' -f1; }
before_commit=$(sha .git/hooks/post-commit)
before_checkout=$(sha .git/hooks/post-checkout)
mode_commit=$(stat -c %a .git/hooks/post-commit)

# ---- timings ----
# Each check runs RUNS rounds; a round times one commit, two checkouts and a
# merge without mnemo's hooks (git -c core.hooksPath= a copy of the user's
# hooks: the user's hooks run, mnemo's do not) and then the same with them,
# so both see the same load; the medians are compared.
mkdir -p "$tmp/userhooks"
cp -p .git/hooks/post-commit .git/hooks/post-checkout "$tmp/userhooks/"
ln -s "$tmp/merge-hook.sh" "$tmp/userhooks/post-merge"
BASE=(git -c "core.hooksPath=$tmp/userhooks")
ms() { echo $(($(date +%s%N) / 1000000)); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# the timings run in subshells ($(...)): a counter in a file names each change
next_k() {
    local k
    k=$(($(cat "$tmp/k" 2>/dev/null || echo 0) + 1))
    echo "$k" >"$tmp/k"
    echo "$k"
}
time_commit() { # time_commit LABEL GIT...
    local label=$1 k t0 t1
    shift
    k=$(next_k)
    echo "$k" >>a.txt
    git add a.txt
    t0=$(ms)
    "$@" commit -q -m "change $k" || fail "git commit failed ($label)"
    t1=$(ms)
    echo $((t1 - t0))
}
time_checkout() { # one checkout, to the other branch
    local label=$1 t0 t1 to=side
    shift
    [ "$(git rev-parse --abbrev-ref HEAD)" = side ] && to=main
    t0=$(ms)
    "$@" checkout -q "$to" || fail "git checkout failed ($label)"
    t1=$(ms)
    echo $((t1 - t0))
}
time_merge() {
    local label=$1 k t0 t1
    shift
    k=$(next_k)
    "${BASE[@]}" checkout -q -b "m$k" main
    echo "$k" >"m$k.txt" && git add "m$k.txt" && "${BASE[@]}" commit -q -m "on m$k"
    "${BASE[@]}" checkout -q main
    t0=$(ms)
    "$@" merge -q --no-ff -m "merge m$k" "m$k" || fail "git merge failed ($label)"
    t1=$(ms)
    echo $((t1 - t0))
}
git branch side
measure() { # measure LABEL: per operation, the median without mnemo's hooks, with them, and of the rounds' differences
    local bc=() bo=() bm=() c=() o=() m=() dc=() dk=() dm=() x y
    for _ in $(seq $RUNS); do
        x=$(time_commit baseline "${BASE[@]}") && y=$(time_commit "$1" git)
        bc+=("$x") c+=("$y") dc+=($((y - x)))
        # to side and back: each goes once each way (checking out main
        # writes the files the merges added, side removes them)
        x=$(time_checkout baseline "${BASE[@]}") && y=$(time_checkout "$1" git)
        bo+=("$x") o+=("$y") dk+=($((y - x)))
        y=$(time_checkout "$1" git) && x=$(time_checkout baseline "${BASE[@]}")
        bo+=("$x") o+=("$y") dk+=($((y - x)))
        x=$(time_merge baseline "${BASE[@]}") && y=$(time_merge "$1" git)
        bm+=("$x") m+=("$y") dm+=($((y - x)))
    done
    local med=() a
    for a in bc c dc bo o dk bm m dm; do
        local -n arr=$a
        med+=("$(printf '%s\n' "${arr[@]}" | median)")
    done
    echo "${med[*]}"
}
# what git makes of a post-checkout that fails (its status becomes git checkout's, as git sees fit)
cp .git/hooks/post-checkout "$tmp/pc.save"
printf '#!/bin/sh\nexit 3\n' >.git/hooks/post-checkout
set +e
git checkout -q side 2>/dev/null
st_user=$?
set -e
git checkout -q main 2>/dev/null || true
cp "$tmp/pc.save" .git/hooks/post-checkout
[ "$st_user" != 0 ] || fail "git ignored the failing post-checkout: the check below means nothing"

# ---- install: chained, not overwritten ----
"$MN" --json hooks install >"$tmp/install.json"
for h in post-commit post-checkout post-merge; do
    head -2 ".git/hooks/$h" | grep -q "mnemo-hook v1" || fail "$h is not mnemo's hook"
    [ -e ".git/hooks/$h.mnemo-chained" ] || [ -L ".git/hooks/$h.mnemo-chained" ] || fail "$h was not kept"
done
[ "$(sha .git/hooks/post-commit.mnemo-chained)" = "$before_commit" ] || fail "the user's post-commit changed"
[ -L .git/hooks/post-merge.mnemo-chained ] || fail "the user's post-merge link is no link now"
"$MN" --json hooks status | node -e "const d=JSON.parse(require('fs').readFileSync(0)); if(!d.hooks.every(h=>h.state==='installed' && h.chained && h.binary_ok)) process.exit(1)" ||
    fail "status does not say installed and chained"

# the user's hooks still run, with their arguments; git's status is theirs
: >"$tmp/user.log"
echo x >>a.txt && git commit -qam "with hooks"
git checkout -q side && git checkout -q main
grep -q "^post-commit" "$tmp/user.log" || fail "the user's post-commit did not run"
grep -qE "^post-checkout [0-9a-f]{40} [0-9a-f]{40} 1" "$tmp/user.log" || fail "the user's post-checkout lost its arguments"
printf '#!/bin/sh\nexit 3\n' >.git/hooks/post-checkout.mnemo-chained
chmod 755 .git/hooks/post-checkout.mnemo-chained
set +e
git checkout -q side 2>/dev/null
st=$?
set -e
[ "$st" = "$st_user" ] || fail "git checkout's status is $st with mnemo's hook, $st_user with the user's alone"
git checkout -q main 2>/dev/null || true
cat >.git/hooks/post-checkout.mnemo-chained <<EOF
#!/bin/sh
echo "post-checkout \$*" >>"$tmp/user.log"
exit 0
EOF
before_checkout=$(sha .git/hooks/post-checkout.mnemo-chained)

# ---- mnemo removed, failing, hanging: git as fast as without ----
# A check fails when, for one operation, the median of the rounds'
# differences is over MARGIN_MS twice in a row: a slower git stays slower,
# a burst of load elsewhere on the machine does not last two measures.
check() { # check LABEL
    local attempt bc c dc bo o dk bm m dm bad
    for attempt in 1 2; do
        read -r bc c dc bo o dk bm m dm <<<"$(measure "$1")"
        echo "$1: commit ${c} ms (${bc} without mnemo's hooks, median difference ${dc}), checkout ${o} ms (${bo}, ${dk}), merge ${m} ms (${bm}, ${dm}); $RUNS rounds, checkouts $((2 * RUNS))"
        bad=
        [ "$dc" -le $MARGIN_MS ] || bad="$bad commit"
        [ "$dk" -le $MARGIN_MS ] || bad="$bad checkout"
        [ "$dm" -le $MARGIN_MS ] || bad="$bad merge"
        [ -z "$bad" ] && return 0
        echo "$1: over ${MARGIN_MS} ms:$bad (measure $attempt of 2)"
    done
    fail "$1: git$bad slower by more than ${MARGIN_MS} ms with mnemo's hooks"
}
rm "$MN"
check removed
printf '#!/bin/sh\necho broken >&2\nexit 1\n' >"$MN" && chmod 755 "$MN"
check failing
printf '#!/bin/sh\necho $$ >>"%s"\nexec sleep 600\n' "$pids" >"$MN" && chmod 755 "$MN"
check hanging
[ -s "$pids" ] || fail "the hanging mnemo was never started (the hooks did not run it)"
lines=$(grep -c "^post-commit" "$tmp/user.log")
[ "$lines" -ge $((6 * RUNS)) ] || fail "the user's post-commit ran $lines times, not $((6 * RUNS))"

# ---- uninstall: byte for byte ----
cp "$MNEMO" "$MN"
"$MN" --json hooks uninstall >"$tmp/uninstall.json"
[ "$(sha .git/hooks/post-commit)" = "$before_commit" ] || fail "post-commit not restored byte for byte"
[ "$(stat -c %a .git/hooks/post-commit)" = "$mode_commit" ] || fail "post-commit's mode not restored"
[ "$(sha .git/hooks/post-checkout)" = "$before_checkout" ] || fail "post-checkout not restored"
[ -L .git/hooks/post-merge ] && [ "$(readlink .git/hooks/post-merge)" = "$tmp/merge-hook.sh" ] ||
    fail "post-merge is not the user's link again"
ls .git/hooks | grep -q mnemo-chained && fail "a .mnemo-chained file is left"

# ---- a foreign hook and a .mnemo-chained in its way: nothing changes ----
echo '#!/bin/sh' >.git/hooks/post-commit.mnemo-chained
if "$MN" hooks install >/dev/null 2>"$tmp/err"; then fail "install went on over a .mnemo-chained"; fi
grep -q "move one of them away" "$tmp/err" || fail "install's refusal: $(cat "$tmp/err")"
[ "$(sha .git/hooks/post-commit)" = "$before_commit" ] || fail "a refused install changed post-commit"
head -2 .git/hooks/post-checkout | grep -q mnemo-hook && fail "a refused install wrote post-checkout"

[ "$fails" = 0 ] && [ ! -s "$tmp/failed" ] && echo "ok: hooks_safety" || exit 1
