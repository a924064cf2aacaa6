# lib/db.sh - the set-up the tests/pg scripts on a database of their own share
# (sourced; CTest registers tests/pg/*.sh only, not this directory).
#
# db_setup NAME [NAME2]  a temp dir $tmp (HOME, XDG dirs and TMPDIR inside it),
#                      git set for the commits a test makes (no system or user
#                      config, a fixed author), MNEMO_DB, MNEMO_PROJECT and
#                      MNEMO_NOW_MS unset; a new database mnemo_NAME_<pid> in
#                      the test cluster, $DB its conninfo (NAME2: a second one,
#                      $DB2). On exit the databases and $tmp are removed and
#                      the server whose pid is in $server_pid is stopped.
# fail MESSAGE         reports a failed check and goes on ($failures counts)
# db_finish            exits 1 with the count when a check failed, else "ok"
# sql SQL              runs SQL on $DB, unaligned, tuples only
# m ARGS...            mnemo --db "$DB" ARGS...
# shellcheck shell=bash disable=SC2034 # what it sets is read by the tests that source it

: "${MNEMO:?MNEMO must name the mnemo binary}"
: "${MNEMO_TEST_PG:?MNEMO_TEST_PG must name the test cluster (tests/CMakeLists.txt)}"

failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

db_finish() {
    if [ "$failures" -gt 0 ]; then
        echo "$failures check(s) failed"
        exit 1
    fi
    echo "ok"
}

psql_admin() { psql -X -q -v ON_ERROR_STOP=1 "$MNEMO_TEST_PG" -c "$1" >/dev/null; }
sql() { psql -X -tA "$DB" -c "$1"; }
m() { "$MNEMO" --db "$DB" "$@"; }

server_pid=
db_names=()
db_cleanup() {
    local d
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
    wait 2>/dev/null || true
    for d in "${db_names[@]}"; do
        psql_admin "DROP DATABASE IF EXISTS $d WITH (FORCE)" || true
    done
    rm -rf "$tmp"
}

db_setup() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-pg-$1.XXXXXX")
    trap db_cleanup EXIT
    export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg XDG_CONFIG_HOME=$tmp/config TMPDIR=$tmp/tmp
    mkdir -p "$HOME" "$TMPDIR"
    export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
    export GIT_AUTHOR_NAME=Ada GIT_AUTHOR_EMAIL=ada@example.com
    export GIT_COMMITTER_NAME=Ada GIT_COMMITTER_EMAIL=ada@example.com
    unset MNEMO_DB MNEMO_NOW_MS MNEMO_PROJECT
    local name
    for name in "$@"; do
        db_names+=("mnemo_${name}_$$")
        psql_admin "CREATE DATABASE mnemo_${name}_$$"
    done
    DB="$MNEMO_TEST_PG dbname=${db_names[0]}"
    if [ "$#" -gt 1 ]; then DB2="$MNEMO_TEST_PG dbname=${db_names[1]}"; fi
}
