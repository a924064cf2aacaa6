#!/usr/bin/env bash
# store_degraded.sh - a store that cannot be written still answers.
#
#   read-only  a 0444 store file, and a store in a 0555 directory: search,
#              search_code, context and recall answer (exit 0) with a note
#              that nothing was recorded and why, and no `served` id; a
#              stale index is not refreshed, and the note says so; save
#              fails with one line that says why; a store whose directory
#              cannot take the -shm file its write-ahead log needs is
#              reported as that, with what to do, not as "not a mnemo store"
#   full disk  the same questions under a file-size limit that the
#              write-ahead log reaches (RLIMIT_FSIZE: `ulimit -f` with
#              SIGXFSZ ignored, so a write past it fails with EFBIG as a
#              full disk fails with ENOSPC; it needs no privilege and no
#              mount, so it runs in CI as root or not); where unprivileged
#              user and mount namespaces are allowed, also on a tmpfs that
#              is really full (ENOSPC), where even the 32 KB -shm file
#              cannot be made
#
# Permissions bind root only without CAP_DAC_OVERRIDE: as root, the
# commands that must meet them run under setpriv with that capability (and
# DAC_READ_SEARCH, FOWNER) out of the bounding set.
# A failed check is reported and the script goes on; it exits 1 if any failed.
# shellcheck disable=SC2015 # A && B || fail is meant
set -euo pipefail
: "${MNEMO:?MNEMO must name the mnemo binary}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-degraded.XXXXXX")
cleanup() {
    chmod -R u+w "$tmp" 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg
unset MNEMO_DB MNEMO_NOW_MS MNEMO_PROJECT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
mkdir -p "$HOME"
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
js() {
    node -e "let d; try { d = JSON.parse(require('fs').readFileSync(0, 'utf8')) } catch (e) { console.error('not JSON'); process.exit(1) }
if (!($2)) { console.error(JSON.stringify(d).slice(0, 600)); process.exit(1) }" || fail "$1"
}
later=$(($(date +%s) * 1000 + 3600000))

# as_user CMD...: run with file permissions binding (root without DAC override)
as_user=()
if [ "$(id -u)" = 0 ]; then
    if setpriv --bounding-set=-dac_override,-dac_read_search,-fowner -- true 2>/dev/null; then
        # shellcheck disable=SC2054 # the commas are setpriv's
        as_user=(setpriv --bounding-set=-dac_override,-dac_read_search,-fowner --)
    else
        echo "SKIP: root without setpriv's bounding set: permissions cannot bind; read-only checks skipped"
        as_user=(SKIP)
    fi
fi

# crash.py STORE: commit a row and exit without closing: the -wal stays, as after a crash
cat >"$tmp/crash.py" <<'PY'
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("PRAGMA wal_autocheckpoint=0")
c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('crash', 'left a log')")
c.commit()
os._exit(0)
PY

# a store with memories and an indexed repository
repo=$tmp/repo
mkdir -p "$repo/shop"
cd "$repo"
git init -q
printf 'def checkout(cart):\n    """Charge the cart for the migrations."""\n    return cart.total\n' >shop/cart.py
git add -A
git -c user.name=t -c user.email=t@t commit -qm init
"$MNEMO" init >/dev/null
"$MNEMO" save "Run the migrations before the tests" >/dev/null
"$MNEMO" save --kind gotcha --title "Checkout fails without migrations" "Apply migrations first." >/dev/null
"$MNEMO" index >/dev/null
cp -r "$repo/.mnemo" "$tmp/pristine"

# ask WHAT REASON: every question answers, with a note that it was not recorded because REASON
ask() {
    local what=$1 reason=$2 op args
    for op in search search_code context recall; do
        case $op in
        search | search_code) args='{"query":"migrations checkout"}' ;;
        context) args='{"query":"how do migrations work","max_tokens":800}' ;;
        recall) args='{"query":"how do migrations work"}' ;;
        esac
        rc=0
        MNEMO_NOW_MS=$later "${as_user[@]}" "$MNEMO" call "$op" "$args" >"$tmp/out" 2>"$tmp/err" || rc=$?
        [ "$rc" = 0 ] || {
            fail "$what: $op exit $rc: $(head -c 300 "$tmp/err")"
            continue
        }
        REASON=$reason js "$what: $op answers, not recorded ($reason), no served id" \
            "(d.items || d.facts || []).length > 0 && d.served === undefined &&
             d.notes.some(n => n.startsWith('this answer was not recorded') && n.includes(process.env.REASON))" <"$tmp/out"
    done
    # the index is an hour old: not refreshed, and the answer says why
    MNEMO_NOW_MS=$later "${as_user[@]}" "$MNEMO" --json context "migrations" >"$tmp/out" 2>/dev/null ||
        fail "$what: context"
    REASON=$reason js "$what: a stale index is not refreshed" \
        "d.notes.some(n => n.startsWith('the index was not refreshed') && n.includes(process.env.REASON))" <"$tmp/out"
    rc=0
    "${as_user[@]}" "$MNEMO" save "A memory that cannot be kept" >"$tmp/out" 2>"$tmp/err" || rc=$?
    [ "$rc" = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "cannot be written: .*$reason" "$tmp/err" ||
        fail "$what: save fails with the reason (exit $rc): $(cat "$tmp/err")"
}

# restore: the store as it was after indexing
restore() {
    chmod -R u+w "$repo/.mnemo" 2>/dev/null || true
    rm -rf "$repo/.mnemo"
    cp -r "$tmp/pristine" "$repo/.mnemo"
}

if [ "${as_user[0]:-}" != SKIP ]; then
    # ==== a 0444 store file ===================================================
    chmod 444 .mnemo/mnemo.db
    ask "0444 store" "no write permission on the store's file"
    restore

    # ==== a store in a 0555 directory ==========================================
    chmod 555 .mnemo
    ask "0555 directory" "no write permission on the store's directory"
    # its write-ahead log left behind (a crash) and no -shm: named as what it is
    chmod 755 .mnemo
    python3 "$tmp/crash.py" "$repo/.mnemo/mnemo.db"
    rm -f .mnemo/mnemo.db-shm
    [ -s .mnemo/mnemo.db-wal ] || fail "no write-ahead log left to test with"
    chmod 555 .mnemo
    # the store file writable: read in exclusive mode, the log's last commit with it
    "${as_user[@]}" "$MNEMO" --json list >"$tmp/out" 2>"$tmp/err" || fail "a log left in a 0555 directory: list: $(cat "$tmp/err")"
    ask "0555 directory with a log" "no write permission on the store's directory"
    # the store file read-only too (as on a read-only mount): nothing can read the log here
    chmod 444 .mnemo/mnemo.db
    rc=0
    "${as_user[@]}" "$MNEMO" list >/dev/null 2>"$tmp/err" || rc=$?
    [ "$rc" = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && ! grep -q "not a mnemo store" "$tmp/err" &&
        grep -q "no write permission on its directory" "$tmp/err" && grep -q "open it once where it can be written" "$tmp/err" ||
        fail "a log that cannot be read here is named (exit $rc): $(cat "$tmp/err")"
    restore
fi

# ==== a full disk: a file-size limit the write-ahead log reaches ===============
# 40 KiB: room for the 32 KiB -shm and for a few answers' pages in the -wal,
# which grows with every recorded answer (the checkpoint that would reset it
# must write into the 400 KB store, past the limit, and fails)
full_ask() {
    (
        trap '' XFSZ
        ulimit -f 40
        MNEMO_NOW_MS=$later "$MNEMO" call "$@"
    )
}
recorded=0 unrecorded=0
for i in $(seq 1 12); do
    rc=0
    full_ask search "{\"query\":\"migrations $i\"}" >"$tmp/out" 2>"$tmp/err" || rc=$?
    [ "$rc" = 0 ] || {
        fail "full disk: search $i exit $rc: $(head -c 300 "$tmp/err")"
        continue
    }
    if node -e "process.exit(JSON.parse(require('fs').readFileSync(0,'utf8')).served ? 0 : 1)" <"$tmp/out"; then
        recorded=$((recorded + 1))
    else
        unrecorded=$((unrecorded + 1))
        js "full disk: search $i answers with a note" \
            "d.items.length > 0 && d.notes.some(n => n.startsWith('this answer was not recorded'))" <"$tmp/out"
    fi
done
[ "$unrecorded" -gt 0 ] || fail "full disk: the limit was never reached ($recorded recorded)"
for op in context recall search_code; do
    rc=0
    full_ask "$op" '{"query":"how do migrations work"}' >"$tmp/out" 2>"$tmp/err" || rc=$?
    [ "$rc" = 0 ] || fail "full disk: $op exit $rc: $(head -c 300 "$tmp/err")"
    js "full disk: $op answers, not recorded" \
        "d.served === undefined && d.notes.some(n => n.startsWith('this answer was not recorded') || n.startsWith('the index could not be refreshed'))" <"$tmp/out"
done
# once there is room again, nothing was lost and answers are recorded again
n=$("$MNEMO" --json list | node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).memories.length)")
[ "$n" -ge 2 ] || fail "full disk: memories lost ($n)"
"$MNEMO" --json search "migrations" >"$tmp/out" 2>/dev/null
js "room again: answers are recorded" "d.served > 0" <"$tmp/out"
"$MNEMO" --json files >"$tmp/out"
js "room again: the index is whole" "d.total === 1" <"$tmp/out"

# ==== a file system that is really full (ENOSPC), where namespaces allow ======
if unshare -rm true 2>/dev/null; then
    restore
    cat >"$tmp/full.sh" <<EOF
set -u
mount -t tmpfs -o size=2m tmpfs "$tmp/mnt" || exit 3
cp "$repo/.mnemo/mnemo.db" "$tmp/mnt/"
dd if=/dev/zero of="$tmp/mnt/fill" bs=4k 2>/dev/null
for op in search context recall; do
    MNEMO_NOW_MS=$later "$MNEMO" --db "$tmp/mnt/mnemo.db" call "\$op" '{"query":"migrations"}' >"$tmp/full.\$op" 2>"$tmp/full.\$op.err"
    echo "\$op \$?" >>"$tmp/full.rc"
done
"$MNEMO" --db "$tmp/mnt/mnemo.db" save "No room for this" 2>"$tmp/full.save.err"
echo "save \$?" >>"$tmp/full.rc"
EOF
    mkdir -p "$tmp/mnt"
    : >"$tmp/full.rc"
    unshare -rm sh "$tmp/full.sh" || fail "the full tmpfs could not be set up"
    for op in search context recall; do
        grep -qx "$op 0" "$tmp/full.rc" || fail "ENOSPC: $op failed: $(head -c 300 "$tmp/full.$op.err")"
        js "ENOSPC: $op answers, not recorded: the disk is full" \
            "d.served === undefined && d.notes.some(n => n.includes('not recorded (the disk is full)'))" <"$tmp/full.$op"
    done
    grep -qx "save 1" "$tmp/full.rc" && grep -q "disk is full" "$tmp/full.save.err" ||
        fail "ENOSPC: save fails saying the disk is full: $(cat "$tmp/full.save.err")"

    # a read-only mount (a bind mount remounted ro): answers, and says why nothing is recorded;
    # with a write-ahead log left on it, the error says what is wrong and what to do
    restore
    mkdir -p "$tmp/romnt"
    cat >"$tmp/ro.sh" <<EOF
set -u
mount --bind "$repo/.mnemo" "$tmp/romnt" && mount -o remount,bind,ro "$tmp/romnt" || exit 3
MNEMO_NOW_MS=$later "$MNEMO" --db "$tmp/romnt/mnemo.db" call search '{"query":"migrations"}' >"$tmp/ro.search" 2>"$tmp/ro.search.err"
echo "search \$?" >>"$tmp/ro.rc"
umount "$tmp/romnt"
python3 "$tmp/crash.py" "$repo/.mnemo/mnemo.db"
rm -f "$repo/.mnemo/mnemo.db-shm"
mount --bind "$repo/.mnemo" "$tmp/romnt" && mount -o remount,bind,ro "$tmp/romnt" || exit 3
"$MNEMO" --db "$tmp/romnt/mnemo.db" list >/dev/null 2>"$tmp/ro.list.err"
echo "list \$?" >>"$tmp/ro.rc"
EOF
    : >"$tmp/ro.rc"
    unshare -rm sh "$tmp/ro.sh" || fail "the read-only mount could not be set up"
    grep -qx "search 0" "$tmp/ro.rc" || fail "read-only mount: search failed: $(cat "$tmp/ro.search.err")"
    js "read-only mount: search answers, not recorded: read-only file system" \
        "d.items.length > 0 && d.notes.some(n => n.includes('not recorded (the store is on a read-only file system)'))" <"$tmp/ro.search"
    grep -qx "list 1" "$tmp/ro.rc" && [ "$(wc -l <"$tmp/ro.list.err")" = 1 ] &&
        ! grep -q "not a mnemo store" "$tmp/ro.list.err" && grep -q "it is on a read-only file system" "$tmp/ro.list.err" &&
        grep -q "open it once where it can be written" "$tmp/ro.list.err" ||
        fail "read-only mount with a log: the error says what is wrong and what to do: $(cat "$tmp/ro.list.err")"
else
    echo "SKIP: no unprivileged user and mount namespaces here: the tmpfs part is skipped"
fi

[ "$failures" = 0 ] || {
    echo "$failures check(s) failed"
    exit 1
}
echo "store_degraded: all checks passed"
