#!/usr/bin/env bash
# store_files.sh - what mnemo does to files that are or are not its stores,
# checked on the files with stat, sha256sum and sqlite3.
#
#   private    a store made by init, by a first save outside any repository
#              (the per-user store) or with --db is 0600, its .mnemo/ (or
#              ~/.local/share/mnemo/) 0700, and the files beside it (-wal,
#              -shm while open, the chunk cache) 0600, whatever the umask;
#              a store an older mnemo left 0644 in a 0755 .mnemo/ is made
#              private by the next command; a --db store's own directory
#              is left as it is
#   foreign    --db (or MNEMO_DB) naming another program's SQLite database,
#              in rollback-journal or WAL mode, for list, save, search, mcp:
#              one clear error, and the file byte for byte as it was, no
#              -wal, -shm or -journal left, no table added; a text file
#              likewise; `mnemo init` where .mnemo/mnemo.db is one adopts it
#   creating   a command that only reads (list, search, export) makes no
#              store, not even from an empty file; one that writes does
#   urls       --db and MNEMO_DB naming a PostgreSQL database (postgres://,
#              postgresql://, a libpq conninfo such as service=team) or
#              another URL: one clear error (no such server here: unreachable,
#              retryable) that never shows the password, and no file or
#              directory made, here or in HOME; ./service=team is a file
#   served     what was asked is kept as served.max_rows and served.max_age
#              say; feedback on a forgotten answer says so; bad values are
#              refused
# A failed check is reported and the script goes on; it exits 1 if any failed.
# shellcheck disable=SC2015 # A && B || fail is meant
set -euo pipefail
: "${MNEMO:?MNEMO must name the mnemo binary}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-storefiles.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home
unset XDG_DATA_HOME MNEMO_DB MNEMO_NOW_MS MNEMO_PROJECT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
mkdir -p "$HOME"
umask 022
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
mode() { stat -c %a "$1"; }
# mode_is WHAT FILE MODE
mode_is() {
    local m
    m=$(mode "$2" 2>/dev/null || echo missing)
    [ "$m" = "$3" ] || fail "$1: '$2' is $m, not $3"
}
# refused WHAT REGEX ARGS...: mnemo fails with one stderr line matching REGEX, nothing on stdout
refused() {
    local what=$1 re=$2 rc=0
    shift 2
    "$MNEMO" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
    if [ "$rc" = 0 ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -Eq -- "$re" "$tmp/err"; then
        fail "$what: exit $rc, stdout $(head -c 200 "$tmp/out"), stderr $(head -c 400 "$tmp/err")"
    fi
}
js() {
    node -e "let d; try { d = JSON.parse(require('fs').readFileSync(0, 'utf8')) } catch (e) { console.error('not JSON'); process.exit(1) }
if (!($2)) { console.error(JSON.stringify(d).slice(0, 600)); process.exit(1) }" || fail "$1"
}
sql() { sqlite3 "$1" "$2"; }

# ==== private ================================================================
repo=$tmp/repo
mkdir -p "$repo"
cd "$repo"
git init -q
printf 'def checkout(cart):\n    return cart.total\n' >shop.py
git add shop.py
git -c user.name=t -c user.email=t@t commit -qm init
"$MNEMO" init >/dev/null
mode_is "init: .mnemo/" .mnemo 700
mode_is "init: the store" .mnemo/mnemo.db 600
"$MNEMO" save "Run the migrations before the tests" >/dev/null
"$MNEMO" index >/dev/null
"$MNEMO" search_code "checkout cart" >/dev/null 2>&1 || "$MNEMO" call search_code '{"query":"checkout cart"}' >/dev/null
for f in .mnemo/*; do mode_is "a file beside the store" "$f" 600; done
ls .mnemo/mnemo.db-chunks-* >/dev/null 2>&1 || fail "no chunk cache beside the store to check"
# -wal and -shm while a process has the store open
{ sleep 1; } | "$MNEMO" mcp >/dev/null 2>&1 &
mcp_pid=$!
for _ in $(seq 1 50); do [ -e .mnemo/mnemo.db-shm ] && break; sleep 0.05; done
mode_is "the -wal of an open store" .mnemo/mnemo.db-wal 600
mode_is "the -shm of an open store" .mnemo/mnemo.db-shm 600
wait "$mcp_pid" || true

# made by an older mnemo: 0644 in a 0755 .mnemo/, tightened by the next command
chmod 755 .mnemo
chmod 644 .mnemo/mnemo.db .mnemo/mnemo.db-chunks-*
"$MNEMO" list >/dev/null
mode_is "an older .mnemo/ after a command" .mnemo 700
mode_is "an older store after a command" .mnemo/mnemo.db 600
"$MNEMO" call search_code '{"query":"checkout cart"}' >/dev/null
for f in .mnemo/mnemo.db-chunks-*; do mode_is "an older chunk cache once read" "$f" 600; done

# the per-user store, outside any repository
mkdir -p "$tmp/elsewhere"
cd "$tmp/elsewhere"
"$MNEMO" save "A memory of no repository" >/dev/null
mode_is "the per-user store's directory" "$HOME/.local/share/mnemo" 700
mode_is "the per-user store" "$HOME/.local/share/mnemo/mnemo.db" 600

# --db: the store is private, the directory it was put in is the user's business
mkdir -p "$tmp/shared"
chmod 755 "$tmp/shared"
"$MNEMO" --db "$tmp/shared/team.db" save "A memory in a named store" >/dev/null
mode_is "a --db store" "$tmp/shared/team.db" 600
mode_is "the directory a --db store was put in" "$tmp/shared" 755
"$MNEMO" --db "$tmp/new/dir/x.db" save "A memory in a new directory" >/dev/null
mode_is "a directory made for a --db store" "$tmp/new/dir" 700

# ==== foreign databases ======================================================
cd "$tmp"
sqlite3 other.db "CREATE TABLE accounts(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO accounts(name) VALUES ('alice'), ('bob');"
sqlite3 walled.db "PRAGMA journal_mode=WAL; CREATE TABLE items(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO items(v) VALUES ('x');" >/dev/null
printf 'just some text, not a database at all, long enough for a header....\n' >notes.txt
for f in other.db walled.db; do
    sum=$(sha256sum "$f")
    tables=$(sql "$f" "SELECT count(*) FROM sqlite_schema")
    journal=$(sql "$f" "PRAGMA journal_mode")
    refused "list on $f" "is not a mnemo store but another program's SQLite database" --db "$f" list
    refused "save on $f" "is not a mnemo store" --db "$f" save "must not land in another program's file"
    refused "search on $f" "is not a mnemo store" --db "$f" search anything
    MNEMO_DB=$tmp/$f refused "MNEMO_DB=$f list" "is not a mnemo store" list
    MNEMO_DB=$tmp/$f refused "MNEMO_DB=$f save" "is not a mnemo store" save "nor through MNEMO_DB"
    rc=0
    "$MNEMO" --db "$f" mcp </dev/null >/dev/null 2>"$tmp/err" || rc=$?
    [ "$rc" != 0 ] && grep -q "is not a mnemo store" "$tmp/err" || fail "mcp on $f: exit $rc: $(cat "$tmp/err")"
    [ "$(sha256sum "$f")" = "$sum" ] || fail "$f was changed"
    [ "$(sql "$f" "SELECT count(*) FROM sqlite_schema")" = "$tables" ] || fail "$f got tables"
    [ "$(sql "$f" "PRAGMA journal_mode")" = "$journal" ] || fail "$f changed journal mode"
    for s in -wal -shm -journal -wlock; do [ ! -e "$f$s" ] || fail "$f$s was left"; done
done
sum=$(sha256sum notes.txt)
refused "a text file" "is not a mnemo store: not a SQLite database" --db notes.txt list
[ "$(sha256sum notes.txt)" = "$sum" ] || fail "the text file was changed"
# asked explicitly, init makes one a store
mkdir -p "$tmp/adopt/.mnemo"
cp other.db "$tmp/adopt/.mnemo/mnemo.db"
"$MNEMO" init "$tmp/adopt" >/dev/null 2>"$tmp/err" || fail "init adopts a database: $(cat "$tmp/err")"
"$MNEMO" --db "$tmp/adopt/.mnemo/mnemo.db" save "Now a store" >/dev/null || fail "the adopted store takes a save"
[ "$(sql "$tmp/adopt/.mnemo/mnemo.db" "SELECT count(*) FROM accounts")" = 2 ] || fail "the adopted database lost its rows"

# ==== creating ===============================================================
refused "list where no store is" "no mnemo store at" --db "$tmp/none.db" list
refused "search where no store is" "no mnemo store at" --db "$tmp/none.db" search x
refused "export where no store is" "no mnemo store at" --db "$tmp/none.db" export
[ ! -e "$tmp/none.db" ] || fail "a command that only reads made a store"
: >"$tmp/empty.db"
refused "list of an empty file" "is an empty file, not a mnemo store" --db "$tmp/empty.db" list
[ ! -s "$tmp/empty.db" ] || fail "list wrote to an empty file"
"$MNEMO" --db "$tmp/empty.db" save "A memory in what was an empty file" >/dev/null || fail "save into an empty file"
mode_is "an empty file made a store" "$tmp/empty.db" 600
"$MNEMO" --db "$tmp/empty.db" list >"$tmp/out" && grep -q "empty file" "$tmp/out" || fail "the memory is listed"
# a fresh repository: status reads, and makes nothing
mkdir -p "$tmp/fresh" && cd "$tmp/fresh" && git init -q
refused "status in a repository without a store" "no mnemo store at" status
# the commands that write only when asked look by default: none makes a store to look at
for c in "config list" "config get memory.excerpt_cap" "scan" "stale" "review" "gc" "consolidate"; do
    # shellcheck disable=SC2086 # the words of c are the command's
    refused "$c in a repository without a store" "no mnemo store at" $c
done
[ ! -e .mnemo ] || fail "status, config list, scan, stale, review, gc or consolidate made .mnemo/"
"$MNEMO" config set memory.excerpt_cap 1200 >/dev/null || fail "config set makes the store"
[ -e .mnemo/mnemo.db ] || fail "config set made no store"
cd "$tmp"

# ==== urls ===================================================================
# a URL or a libpq conninfo names a database server: never a file or directory here
mkdir -p "$tmp/urls" && cd "$tmp/urls"
home_before=$(find "$HOME" | sort)
: >"$tmp/urls.err"
url_refused() {
    refused "$@"
    cat "$tmp/err" >>"$tmp/urls.err"
}
# (no such server here: the open fails as unreachable, retryable, before anything is made)
export PGCONNECT_TIMEOUT=3
pg="the PostgreSQL server cannot be reached"
url_refused "--db postgres://" "^mnemo: error: --db: cannot open store 'postgres://u:\*\*\*@db.example/mnemo': $pg" \
    --db "postgres://u:s3cret@db.example/mnemo" list
url_refused "--db postgresql:// save" "$pg" --db "postgresql://db.example/mnemo" save "x y z"
url_refused "--db postgresql://?password=" "'postgresql://db.example/mnemo\?password=\*\*\*'" \
    --db "postgresql://db.example/mnemo?password=s3cret" search "x"
MNEMO_DB=postgresql://u:s3cret@db.example/mnemo url_refused "MNEMO_DB=postgresql://" "^mnemo: error: MNEMO_DB: cannot open store 'postgresql://u:\*\*\*@db.example/mnemo'" list
MNEMO_DB=postgresql://u:s3cret@db.example/mnemo url_refused "MNEMO_DB=postgresql:// save" "$pg" save "x y z"
url_refused "--db service=team" "'service=team': $pg" --db "service=team" save "x y z"
url_refused "--db conninfo with a password" "'host=db dbname=mnemo password=\*\*\*': $pg" \
    --db "host=db dbname=mnemo password=s3cret" save "x y z"
MNEMO_DB="service=team" url_refused "MNEMO_DB=service=team" "MNEMO_DB: .*$pg" export
url_refused "mcp --db postgres://" "$pg" --db "postgres://u:s3cret@db.example/mnemo" mcp
url_refused "--db https://" "is a URL mnemo cannot open" --db "https://u:s3cret@example.com/store" list
[ -z "$(ls -A "$tmp/urls")" ] || fail "a store URL made files here: $(ls -A "$tmp/urls")"
[ "$(find "$HOME" | sort)" = "$home_before" ] || fail "a store URL made files in HOME"
grep -q s3cret "$tmp/urls.err" && fail "a refusal printed the store's password"
# a file named like a conninfo is still a file, named ./NAME
"$MNEMO" --db "./service=team" save "A store file named like a conninfo" >/dev/null 2>"$tmp/err" || fail "./service=team is a file: $(cat "$tmp/err")"
mode_is "a store file named like a conninfo" "$tmp/urls/service=team" 600
cd "$tmp"

# ==== served =================================================================
cd "$repo"
refused "served.max_rows -1" "served.max_rows" config set served.max_rows -1
refused "served.max_age soon" "served.max_age" config set served.max_age soon
"$MNEMO" config set served.max_rows 5 >/dev/null || fail "config set served.max_rows 5"
for i in $(seq 1 12); do "$MNEMO" search "migrations question $i" >/dev/null 2>&1; done
n=$(sql .mnemo/mnemo.db "SELECT count(*) FROM served")
[ "$n" = 5 ] || fail "served.max_rows 5: $n rows kept"
[ "$(sql .mnemo/mnemo.db "SELECT count(*) FROM served WHERE query = 'migrations question 12'")" = 1 ] ||
    fail "the newest question is kept"
[ "$(sql .mnemo/mnemo.db "SELECT count(*) FROM served WHERE query = 'migrations question 7'")" = 0 ] ||
    fail "an old question is forgotten"
old=$(sql .mnemo/mnemo.db "SELECT min(id) FROM served")
"$MNEMO" --json search "migrations" >"$tmp/out" 2>/dev/null
id=$(node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).items[0].id)" <"$tmp/out")
"$MNEMO" feedback used --items "$id" --served "$(node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).served)" <"$tmp/out")" >/dev/null ||
    fail "feedback on a kept answer"
for i in $(seq 1 6); do "$MNEMO" search "more questions $i" >/dev/null 2>&1; done
[ "$(sql .mnemo/mnemo.db "SELECT count(*) FROM feedback WHERE served_id IS NULL")" = 1 ] ||
    fail "feedback stays when its answer is forgotten"
refused "feedback on a forgotten answer" "answer $old was not served here" feedback used --items "$id" --served "$old"
# by age: a day later, with served.max_age 1d, only the newest question stays
"$MNEMO" config set served.max_age 1d >/dev/null || fail "config set served.max_age 1d"
MNEMO_NOW_MS=$(($(date +%s) * 1000 + 2 * 86400000)) "$MNEMO" search "two days later" >/dev/null 2>&1
[ "$(sql .mnemo/mnemo.db "SELECT count(*) FROM served")" = 1 ] || fail "served.max_age 1d: older questions kept"

[ "$failures" = 0 ] || {
    echo "$failures check(s) failed"
    exit 1
}
echo "store_files: all checks passed"
