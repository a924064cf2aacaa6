# shellcheck shell=bash
# fixture.sh - sourced by tests/integration/mcp_*.sh and bench/bench_mcp.sh:
# the pinned MCP client tools and a small project for mnemo's MCP server to
# serve.
#
#   mcp_setup            $tmp (scratch dir, removed on exit), a private HOME,
#                        $NM = the node_modules scripts/deps.sh installed
#                        from tests/mcp/package-lock.json, and $tmp/run/ holding
#                        copies of tests/mcp/*.mjs next to a node_modules link
#                        (ES modules resolve packages from their own directory,
#                        not NODE_PATH).
#   mcp_fixture          $tmp/repo: a git repository of a few Python files,
#                        indexed, with four memories saved (one forgotten);
#                        their ids and words go to $tmp/fixture.json, which
#                        the Node scripts read ($MCP_FIXTURE).
#   mcp_serve_start [WRAPPER...]
#                        `mnemo serve --port 0` in the repository, in the
#                        background (under WRAPPER, e.g. valgrind, if given);
#                        $MCP_URL is the URL it prints on stderr.
#   mcp_serve_stop       SIGTERM, and check it exits 0 with nothing from a
#                        sanitizer on stderr.
#   mcp_is_asan          true when $MNEMO is built with ASan; then every
#                        sanitizer report goes to $tmp/sanitizer.* and fails
#                        the test at exit.
# Needs: $MNEMO (the binary), $MNEMO_SOURCE_DIR, $MNEMO_DEPS_DIR (optional).

: "${MNEMO:?}" "${MNEMO_SOURCE_DIR:?}"

mcp_is_asan() {
    # -c reads all the input: no SIGPIPE under pipefail
    [ "$(nm "$MNEMO" 2>/dev/null | grep -c __asan_init)" != 0 ]
}

mcp_setup() {
    NM=${MNEMO_DEPS_DIR:-$MNEMO_SOURCE_DIR/.deps}/node/node_modules
    if [ ! -f "$NM/@modelcontextprotocol/sdk/package.json" ]; then
        echo "the MCP test tools are not installed in $NM: run scripts/deps.sh (make deps)" >&2
        exit 1
    fi
    command -v node >/dev/null || {
        echo "node is not installed (deps/debian.txt)" >&2
        exit 1
    }
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-mcp.XXXXXX")
    MCP_SERVE_PID=
    trap 'mcp_cleanup' EXIT
    if mcp_is_asan; then
        # every report, from whichever process, lands in $tmp/sanitizer.<pid>
        export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$tmp/sanitizer"
        export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$tmp/sanitizer"
    fi
    export HOME=$tmp/home XDG_DATA_HOME=$tmp/home/.local/share XDG_CONFIG_HOME=$tmp/home/.config
    mkdir -p "$HOME"
    unset MNEMO_DB MNEMO_PROJECT
    mkdir -p "$tmp/run"
    ln -s "$NM" "$tmp/run/node_modules"
    cp "$MNEMO_SOURCE_DIR"/tests/mcp/*.mjs "$tmp/run/"
    export MCP_FIXTURE=$tmp/fixture.json
}

# On exit: stop a server left running, fail when any mnemo process wrote a
# sanitizer report (servers the Inspector starts and stops included).
mcp_cleanup() {
    local rc=$?
    if [ -n "${MCP_SERVE_PID:-}" ]; then
        kill "$MCP_SERVE_PID" 2>/dev/null || true
        wait "$MCP_SERVE_PID" 2>/dev/null || true
    fi
    if compgen -G "$tmp/sanitizer.*" >/dev/null; then
        echo "sanitizer reports:" >&2
        cat "$tmp"/sanitizer.* >&2
        rc=1
    fi
    rm -rf "$tmp"
    exit $rc
}

mcp_fixture() {
    local repo=$tmp/repo
    mkdir -p "$repo/ledger" "$repo/tests"
    (
        cd "$repo" || exit 1
        git init -q
        : >ledger/__init__.py
        cat >ledger/reconcile.py <<'PY'
"""Match bank statement lines with ledger entries."""
from decimal import Decimal, ROUND_HALF_EVEN

from .store import load_entries


def reconcile_statement(statement, account):
    """Pair each statement line with the ledger entry of the same amount."""
    entries = load_entries(account)
    unmatched = []
    for line in statement:
        amount = quantize_amount(line.amount)
        if not entries.pop(amount, None):
            unmatched.append(line)
    return unmatched


def quantize_amount(value):
    """Round to cents the way the bank does: half to even."""
    return Decimal(value).quantize(Decimal("0.01"), ROUND_HALF_EVEN)
PY
        cat >ledger/store.py <<'PY'
def load_entries(account):
    """Read the open ledger entries of an account, keyed by amount."""
    return {e.amount: e for e in db.query("entries", account=account)}
PY
        cat >tests/test_reconcile.py <<'PY'
from ledger.reconcile import quantize_amount


def test_half_even():
    assert str(quantize_amount("0.125")) == "0.12"
PY
        git add -A
        git -c user.name=t -c user.email=t@t commit -qm init
        "$MNEMO" init >/dev/null
        "$MNEMO" index >/dev/null
    )
    local rounding gotcha scoped gone
    rounding=$(mcp_save --kind decision --title "Statement amounts round half to even" \
        --keyword rounding,banker "The bank rounds statement amounts half to even (banker's rounding), so reconcile_statement must quantize with ROUND_HALF_EVEN or pennies stay unmatched.")
    gotcha=$(mcp_save --kind gotcha --title "Ledger entries collide on equal amounts" \
        --keyword duplicate "Two open entries of the same amount overwrite each other in load_entries; the second one is never reconciled.")
    scoped=$(mcp_save --kind pattern --title "Only the store module queries the database" \
        --path ledger/store.py "Nothing but ledger/store.py talks to db.")
    gone=$(mcp_save --kind fact --title "Reconciliation ran nightly at zorblat time" "An old rule, forgotten.")
    (cd "$repo" && "$MNEMO" forget "$gone" >/dev/null)
    node -e 'const [repo, rounding, gotcha, scoped, gone] = process.argv.slice(1);
        console.log(JSON.stringify({repo, mnemo: process.env.MNEMO,
            ids: {rounding, gotcha, scoped, gone}}, null, 1))' \
        "$repo" "$rounding" "$gotcha" "$scoped" "$gone" >"$MCP_FIXTURE"
}

# mcp_save ARGS...: `mnemo save` in the fixture repository; prints the id.
mcp_save() {
    (cd "$tmp/repo" && "$MNEMO" --json save "$@") |
        node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).id)"
}

# shellcheck disable=SC2120 # the wrapper is optional
mcp_serve_start() {
    local err=$tmp/serve.err _
    (cd "$tmp/repo" && exec "$@" "$MNEMO" serve --port 0 2>"$err") &
    MCP_SERVE_PID=$!
    MCP_URL=
    for _ in $(seq 1 300); do
        MCP_URL=$(grep -o 'http://[^ ]*' "$err" 2>/dev/null | head -1 || true)
        [ -n "$MCP_URL" ] && break
        kill -0 "$MCP_SERVE_PID" 2>/dev/null || break
        sleep 0.1
    done
    if [ -z "$MCP_URL" ]; then
        echo "mnemo serve printed no URL on stderr:" >&2
        cat "$err" >&2
        exit 1
    fi
    # the server may print its base URL or the endpoint's
    case $MCP_URL in
    */mcp) ;;
    *) MCP_URL=${MCP_URL%/}/mcp ;;
    esac
    export MCP_URL
}

mcp_serve_stop() {
    local rc=0
    kill -TERM "$MCP_SERVE_PID"
    wait "$MCP_SERVE_PID" || rc=$?
    MCP_SERVE_PID=
    if [ "$rc" != 0 ] || grep -q 'Sanitizer\|runtime error\|==[0-9][0-9]*==' "$tmp/serve.err"; then
        echo "mnemo serve did not exit cleanly on SIGTERM (exit $rc; 99: valgrind found errors):" >&2
        cat "$tmp/serve.err" >&2
        return 1
    fi
}
