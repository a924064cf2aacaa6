#!/usr/bin/env bash
# cli_roundtrip.sh - export -> import -> export gives the same bytes, through
# JSON Lines, through YAML, across the two, and through JSON.
#
# tests/integration/gen_memories.c ($MNEMO_GEN_MEMORIES) writes
# ROUNDTRIP_N memories (default 300; slow_roundtrip.sh runs 10,000) with
# every field of src/api/schemas/memory.json set, in the shape and key
# order export writes, with text made to break YAML and JSON writers. Then:
#   import gen.jsonl into store A; export A -> a.jsonl, which must equal
#     gen.jsonl memory by memory (parsed, so number formatting aside) and
#     byte for byte (the generator writes export's canonical form);
#   import a.jsonl into an empty store B; export -> b.jsonl == a.jsonl;
#   export A as YAML -> a.yaml; import into C; export as YAML -> c.yaml == a.yaml;
#   import a.yaml into D; export as JSON Lines -> d.jsonl == a.jsonl;
#   export A as JSON -> a.json; import into E; export -> e.jsonl == a.jsonl;
#   import a.jsonl again into A: all skipped, and with --on-conflict
#     replace all replaced; A's export is unchanged by both;
#   a.yaml as one YAML list, and behind a byte order mark, imports into F
#     and G as the same memories (F's and G's exports == a.jsonl).
# Every field name of the schema must appear in every exported memory
# (deleted_at in some, as the generator leaves every third memory live).
set -euo pipefail

: "${MNEMO:?MNEMO must name the mnemo binary}"
GEN=${MNEMO_GEN_MEMORIES:?MNEMO_GEN_MEMORIES must name the gen_memories helper}
SRC=${MNEMO_SOURCE_DIR:?MNEMO_SOURCE_DIR must name the source tree}
N=${ROUNDTRIP_N:-300}
SEED=${ROUNDTRIP_SEED:-20261121}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-roundtrip.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg
unset MNEMO_DB MNEMO_PROJECT
cd "$tmp"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

t0=$(date +%s.%N)
step() { # step NAME: print the time since the previous step
    local t1
    t1=$(date +%s.%N)
    awk -v name="$1" -v a="$t0" -v b="$t1" 'BEGIN { printf "%-44s %6.2f s\n", name, b - a }'
    t0=$t1
}

# m STORE ARGS...: mnemo on store STORE (a file in $tmp), failing the test on any error.
m() {
    local store=$1
    shift
    "$MNEMO" --db "$tmp/$store.db" "$@" || fail "mnemo --db $store.db $* exited $?"
}

same() { # same A B: byte-identical files
    cmp "$1" "$2" >&2 || fail "$1 and $2 differ"
}

imported() { # imported FILE N: the import summary says N imported, none skipped or replaced
    grep -qx "imported $2, replaced 0, skipped 0 memories; [0-9]* links" "$1" ||
        fail "import summary: $(cat "$1")"
}

"$GEN" "$N" "$SEED" >gen.jsonl
[ "$(wc -l <gen.jsonl)" -eq "$N" ] || fail "gen_memories wrote $(wc -l <gen.jsonl) lines, not $N"
step "generate $N memories ($(du -k gen.jsonl | cut -f1) KB)"

# Every byte must come back, so personal-data redaction is off: the generated
# text is dense with number groups ("401 401 0755") that are phone numbers in
# form. Secrets are redacted whatever the setting (none are generated), and
# redaction itself is tested by cli_secrets.sh and secrets_corpus.sh.
for store in A B C D E F G; do m "$store" config set scan.pii off >/dev/null; done

# ---- JSON Lines -------------------------------------------------------------
m A import gen.jsonl >import_a.out
imported import_a.out "$N"
m A export >a.jsonl
step "import into A, export a.jsonl"

# a.jsonl holds what was generated, memory by memory, and every field of the schema.
node - "$SRC/src/api/schemas/memory.json" gen.jsonl a.jsonl <<'EOF' || fail "a.jsonl is not what was generated"
const fs = require("fs");
const [schemaFile, genFile, aFile] = process.argv.slice(2);
const lines = (f) => fs.readFileSync(f, "utf8").split("\n").filter((l) => l.length);
const gen = lines(genFile).map((l) => JSON.parse(l));
const exp = lines(aFile).map((l) => JSON.parse(l));
let bad = 0;
const complain = (msg) => { if (bad++ < 10) console.error(msg); };
if (gen.length !== exp.length) complain(`generated ${gen.length} memories, exported ${exp.length}`);
for (let i = 0; i < Math.min(gen.length, exp.length); i++) {
    const a = JSON.stringify(gen[i]), b = JSON.stringify(exp[i]);
    if (a !== b) {
        let k = 0;
        while (k < a.length && a[k] === b[k]) k++;
        complain(`memory ${i} (${gen[i].id}) differs at: ${JSON.stringify(a.slice(k, k + 80))}` +
                 ` vs ${JSON.stringify(b.slice(k, k + 80))}`);
    }
}
// Every property of the schema, nested objects and list items included.
const schema = JSON.parse(fs.readFileSync(schemaFile, "utf8"));
const paths = [];
(function walk(s, prefix) {
    for (const [k, v] of Object.entries(s.properties || {})) {
        const p = prefix + k;
        paths.push(p);
        if (v.type === "object") walk(v, p + ".");
        if (v.type === "array" && v.items && v.items.type === "object") walk(v.items, p + "[].");
    }
})(schema, "");
const has = (m, path) => {
    let vals = [m];
    for (const part of path.split(".")) {
        const list = part.endsWith("[]");
        const key = list ? part.slice(0, -2) : part;
        vals = vals.map((v) => v[key]);
        if (vals.some((v) => v === undefined)) return false;
        if (list) vals = vals.flat();
        if (vals.length === 0) return false;
    }
    return true;
};
for (const p of paths) {
    const n = exp.filter((m) => has(m, p)).length;
    if (p === "deleted_at" ? n === 0 || n === exp.length : n !== exp.length)
        complain(`field ${p} is in ${n} of ${exp.length} exported memories`);
}
if (paths.length < 40) complain(`only ${paths.length} fields found in the schema`);
process.exit(bad ? 1 : 0);
EOF
same gen.jsonl a.jsonl
step "check a.jsonl against the generated memories"

m B import a.jsonl >import_b.out
imported import_b.out "$N"
m B export >b.jsonl
same a.jsonl b.jsonl
step "import a.jsonl into B, export: same bytes"

# ---- YAML --------------------------------------------------------------------
m A export --format yaml >a.yaml
[ "$(grep -c '^---' a.yaml)" -eq "$N" ] || fail "a.yaml does not hold $N documents"
"$MNEMO" --db "$tmp/A.db" export -o a2.yaml 2>export_o.err || fail "export -o: $(cat export_o.err)"
same a.yaml a2.yaml
grep -qx "exported $N memories to a2.yaml" export_o.err || fail "export -o said: $(cat export_o.err)"
m C import a.yaml >import_c.out
imported import_c.out "$N"
m C export --format yaml >c.yaml
same a.yaml c.yaml
step "YAML: export A, import into C, export: same"

m D import a.yaml >import_d.out
imported import_d.out "$N"
m D export >d.jsonl
same a.jsonl d.jsonl
step "YAML into D, export as JSON Lines: same"

# ---- JSON --------------------------------------------------------------------
m A export --format json >a.json
m E import a.json >import_e.out
imported import_e.out "$N"
m E export >e.jsonl
same a.jsonl e.jsonl
step "JSON into E, export as JSON Lines: same"

# ---- into a store that has them already ------------------------------------
m A import a.jsonl >again.out
grep -qx "imported 0, replaced 0, skipped $N memories; 0 links" again.out ||
    fail "importing the same memories again: $(cat again.out)"
m A import --on-conflict replace a.yaml >replace.out
grep -qx "imported 0, replaced $N, skipped 0 memories; 0 links" replace.out ||
    fail "import --on-conflict replace: $(cat replace.out)"
m A export >a_again.jsonl
same a.jsonl a_again.jsonl
step "import again (skip, replace): A unchanged"

# ---- YAML as people write it: one list of memories, a byte order mark -------
# each document of a.yaml an item of one list (its lines indented under "- ", its end
# marker "..." dropped)
awk '/^---$/ { first = 1; next } /^\.\.\.$/ { next } { if (first) { print "- " $0; first = 0 } else print "  " $0 }' a.yaml >list.yaml
m F import list.yaml >import_f.out
m F export >f.jsonl
same a.jsonl f.jsonl
printf '\xef\xbb\xbf' | cat - a.yaml >bom.yaml
m G import bom.yaml >import_g.out
m G export >g.jsonl
same a.jsonl g.jsonl
step "a YAML list, a byte order mark: same"

echo "ok: $N memories round-trip through JSON Lines, YAML and JSON"
