#!/usr/bin/env bash
# pg_cluster.sh - a throwaway PostgreSQL cluster for the tests of the
# PostgreSQL store back end.
#
#   scripts/pg_cluster.sh start DIR   # prints the conninfo on stdout
#   scripts/pg_cluster.sh stop DIR    # stops the server, removes DIR
#   scripts/pg_cluster.sh conninfo DIR
#
# How: initdb into DIR/data (trust authentication, superuser "mnemo", no
# fsync: the data is thrown away), then pg_ctl start with the server
# listening on no TCP address at all, only on a unix socket in DIR/sock.
# Two clusters therefore never collide on a port, and nothing outside the
# machine can reach one; the "port" is only the socket's file name
# (DIR/sock/.s.PGSQL.5432). A database "mnemo_test" is created; tests make
# their own databases beside it (tests/test_store.h).
#
# As root (PostgreSQL refuses to run as root) the server binaries run as an
# unprivileged user through setpriv: "postgres" when it exists, else
# "nobody"; DIR is given to that user. Not as root they run as the caller.
# Clients connect as the role "mnemo" whatever their operating-system user.
#
# Invariants: start is idempotent for a DIR whose server is running (prints
# the conninfo again); stop leaves no process and no DIR; the conninfo is
# also written to DIR/conninfo. PG_BINDIR overrides the binaries' directory
# (default: /usr/lib/postgresql/15/bin, else the newest installed).
set -euo pipefail

die() {
    printf 'pg_cluster: error: %s\n' "$*" >&2
    exit 1
}

bindir() {
    if [ -n "${PG_BINDIR:-}" ]; then
        printf '%s\n' "$PG_BINDIR"
        return
    fi
    if [ -x /usr/lib/postgresql/15/bin/initdb ]; then
        printf '%s\n' /usr/lib/postgresql/15/bin
        return
    fi
    local d
    d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [ -n "$d" ] && [ -x "$d/initdb" ] || die "PostgreSQL server binaries not found (install the Debian package postgresql: make deps)"
    printf '%s\n' "$d"
}

# The command prefix that runs a server binary: setpriv to an unprivileged
# user as root, nothing otherwise.
as_owner() {
    if [ "$(id -u)" -ne 0 ]; then
        "$@"
        return
    fi
    setpriv --reuid="$OWNER" --regid="$OWNER_GID" --clear-groups "$@"
}

pick_owner() {
    OWNER=
    if [ "$(id -u)" -eq 0 ]; then
        local u
        for u in postgres nobody; do
            if id -u "$u" >/dev/null 2>&1; then
                OWNER=$u
                break
            fi
        done
        [ -n "$OWNER" ] || die "running as root and neither user 'postgres' nor 'nobody' exists to run the server as"
        OWNER_GID=$(id -g "$OWNER")
    fi
}

conninfo_of() { printf 'host=%s port=5432 user=mnemo dbname=mnemo_test\n' "$1/sock"; }

start() {
    local dir=$1 bin
    bin=$(bindir)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    # A unix socket path holds at most 107 bytes.
    [ ${#dir} -le 80 ] || die "directory '$dir' is too long for a unix socket path (at most 80 characters)"
    pick_owner
    if [ -f "$dir/data/postmaster.pid" ] && as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
        conninfo_of "$dir"
        return
    fi
    rm -rf "$dir/data" "$dir/sock"
    mkdir -p "$dir/sock"
    [ -z "$OWNER" ] || chown -R "$OWNER:$OWNER_GID" "$dir"
    chmod 0700 "$dir"
    # initdb -N: no fsync of the new files; the cluster is thrown away.
    as_owner "$bin/initdb" -D "$dir/data" -U mnemo -A trust -E UTF8 --locale=C -N >"$dir/initdb.log" 2>&1 ||
        die "initdb failed: $(tail -n 5 "$dir/initdb.log")"
    cat >>"$dir/data/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$dir/sock'
unix_socket_permissions = 0700
port = 5432
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 32MB
max_connections = 100
EOF
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 start >/dev/null 2>&1 ||
        die "the server did not start: $(tail -n 5 "$dir/server.log" 2>/dev/null)"
    # The server's own client binary, connecting as its owner through the socket.
    as_owner "$bin/psql" -X -q -h "$dir/sock" -p 5432 -U mnemo -d postgres -c 'CREATE DATABASE mnemo_test' >/dev/null ||
        die "could not create the database mnemo_test"
    conninfo_of "$dir" >"$dir/conninfo"
    conninfo_of "$dir"
}

stop() {
    local dir=$1 bin
    [ -d "$dir" ] || return 0
    dir=$(cd "$dir" && pwd)
    bin=$(bindir)
    pick_owner
    if [ -f "$dir/data/postmaster.pid" ]; then
        # fast: terminate the sessions, no checkpoint worth waiting for.
        as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
}

[ $# -eq 2 ] || die "usage: pg_cluster.sh start|stop|conninfo DIR"
case $1 in
start) start "$2" ;;
stop) stop "$2" ;;
conninfo) conninfo_of "$(cd "$2" && pwd)" ;;
*) die "unknown command '$1' (start, stop or conninfo)" ;;
esac
