#!/usr/bin/env bash
# http_pg_uid.sh - tests/integration/http_uid.sh on PostgreSQL (CTest
# pg/http_pg_uid, label pg, on the cluster MNEMO_TEST_PG names): a memory id
# is unique per project, not per database (postgres/schema_v3.sql); an id
# of project B answers from A's token as one that exists nowhere, and B's
# export imports whole into A. The database is made here and dropped after.
set -euo pipefail
: "${MNEMO:?MNEMO must name the mnemo binary}"
: "${MNEMO_TEST_PG:?MNEMO_TEST_PG must name the test cluster (tests/CMakeLists.txt)}"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
db=mnemo_uid_$$
psql_admin() { psql -X -q -v ON_ERROR_STOP=1 "$MNEMO_TEST_PG" -c "$1" >/dev/null; }
trap 'psql_admin "DROP DATABASE IF EXISTS $db WITH (FORCE)" || true' EXIT
psql_admin "CREATE DATABASE $db"
rc=0
MNEMO_UID_DB="$MNEMO_TEST_PG dbname=$db" bash "$here/../integration/http_uid.sh" || rc=$?
exit "$rc"
