#!/usr/bin/env bash
# cli_bad_input.sh - every way of giving mnemo bad input is refused the same
# way: the documented exit code (1 failure, 2 usage), exactly one line on
# stderr that starts "mnemo: error: " and says what is wrong, nothing on
# stdout, and the store exactly as it was.
#
# The cases are data: tests/data/bad_input/cases.tsv (its header explains
# the columns). Each runs in a git repository whose store was filled from
# tests/data/bad_input/store.jsonl; `mnemo export` and `mnemo config list
# --json` before and after each case must be byte-identical (a case that
# changes the store is reported, and the store is restored for the next).
# Every error line must also be valid UTF-8 without control characters, so
# that it prints as one line whatever bytes the input held.
set -euo pipefail

: "${MNEMO:?MNEMO must name the mnemo binary}"
DATA=${MNEMO_TEST_DATA:?MNEMO_TEST_DATA must name tests/data}/bad_input
[ -f "$DATA/cases.tsv" ] || { echo "FAIL: no $DATA/cases.tsv" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-bad-input.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg TMPDIR=$tmp/tmp
mkdir -p "$HOME" "$TMPDIR"
unset MNEMO_DB MNEMO_PROJECT VISUAL EDITOR
export DATA

repo=$tmp/repo
git init -q "$repo"
cd "$repo"
"$MNEMO" init >/dev/null
"$MNEMO" import "$DATA/store.jsonl" >/dev/null
"$MNEMO" config set user.name fixture >/dev/null
"$MNEMO" export >"$tmp/export.before"
"$MNEMO" --json config list >"$tmp/config.before"
cmp -s "$tmp/export.before" "$DATA/store.jsonl" ||
    { echo "FAIL: the store does not export store.jsonl as it was imported" >&2; exit 1; }
cp .mnemo/mnemo.db "$tmp/pristine.db"

# Turn each case into files: case.N.rc, case.N.re, case.N.args (NUL-separated
# arguments), case.N.stdin (the command, if any), case.N.line.
mkdir "$tmp/cases"
node - "$DATA/cases.tsv" "$DATA" "$tmp/cases" <<'EOF'
const fs = require("fs"), path = require("path");
const [file, data, out] = process.argv.slice(2);
const bytes = (e) => {
    if (typeof e === "string") return Buffer.from(e, "utf8");
    if (e.hex !== undefined) return Buffer.from(e.hex, "hex");
    if (e.repeat !== undefined) return Buffer.concat(Array(e.times).fill(bytes(e.repeat)));
    if (e.concat !== undefined) return Buffer.concat(e.concat.map(bytes));
    if (e.seq !== undefined)
        return Buffer.from(Array.from({length: e.seq}, (_, i) => e.prefix + (i + 1)).join(e.sep));
    if (e.file !== undefined) return Buffer.from(path.join(data, e.file));
    throw new Error("unknown argument builder " + JSON.stringify(e));
};
let n = 0;
fs.readFileSync(file, "utf8").split("\n").forEach((line, i) => {
    if (!line.trim() || line.startsWith("#")) return;
    const cols = line.split("\t");
    const where = `${file}:${i + 1}`;
    if (cols.length < 3 || cols.length > 4 || !/^[12]$/.test(cols[0]))
        throw new Error(`${where}: expected EXIT<TAB>REGEX<TAB>ARGS[<TAB>STDIN]`);
    const args = JSON.parse(cols[2]);
    if (!Array.isArray(args)) throw new Error(`${where}: the arguments are not a JSON array`);
    n++;
    const p = (ext) => path.join(out, `case.${n}.${ext}`);
    fs.writeFileSync(p("rc"), cols[0]);
    fs.writeFileSync(p("re"), cols[1]);
    fs.writeFileSync(p("args"), Buffer.concat(args.map((a) => Buffer.concat([bytes(a), Buffer.from([0])]))));
    if (cols[3] !== undefined) fs.writeFileSync(p("stdin"), cols[3]);
    fs.writeFileSync(p("line"), `${i + 1}: ${cols[2].slice(0, 100)}`);
});
fs.writeFileSync(path.join(out, "count"), String(n));
EOF

count=$(cat "$tmp/cases/count")
[ "$count" -ge 100 ] || { echo "FAIL: only $count cases in cases.tsv" >&2; exit 1; }
failures=0
start=$SECONDS
for ((i = 1; i <= count; i++)); do
    c=$tmp/cases/case.$i
    want=$(cat "$c.rc")
    re=$(cat "$c.re")
    mapfile -d '' args <"$c.args"
    if [ -f "$c.stdin" ]; then
        bash -c "$(cat "$c.stdin")" >"$tmp/stdin" 2>/dev/null || true
    else
        : >"$tmp/stdin"
    fi
    set +e
    "$MNEMO" "${args[@]}" <"$tmp/stdin" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    set -e
    cp "$tmp/err" "$tmp/cases/case.$i.stderr"
    problems=()
    [ "$rc" -eq "$want" ] || problems+=("exit code $rc, expected $want")
    # exactly one line: one newline, and it is the last byte
    lines=$(wc -l <"$tmp/err")
    if [ "$lines" -ne 1 ] || [ "$(tail -c 1 "$tmp/err" | wc -l)" -ne 1 ]; then
        problems+=("stderr has $lines newlines, expected exactly one line")
    fi
    line=$(head -n 1 "$tmp/err")
    [[ $line == "mnemo: error: "* ]] || problems+=("stderr does not start with 'mnemo: error: '")
    [[ $line =~ $re ]] || problems+=("stderr does not match /$re/")
    [ -s "$tmp/out" ] && problems+=("stdout is not empty: $(head -c 200 "$tmp/out")")
    "$MNEMO" export >"$tmp/export.after" 2>&1 || true
    "$MNEMO" --json config list >"$tmp/config.after" 2>&1 || true
    if ! cmp -s "$tmp/export.before" "$tmp/export.after" ||
        ! cmp -s "$tmp/config.before" "$tmp/config.after"; then
        problems+=("the store changed")
        cp "$tmp/pristine.db" .mnemo/mnemo.db
        rm -f .mnemo/mnemo.db-wal .mnemo/mnemo.db-shm
    fi
    if [ "${#problems[@]}" -ne 0 ]; then
        failures=$((failures + 1))
        echo "FAIL: cases.tsv line $(cat "$c.line")" >&2
        for p in "${problems[@]}"; do echo "    $p" >&2; done
        echo "    stderr: $(head -c 400 "$tmp/err")" >&2
    fi
done

# One error line each, as UTF-8 a terminal can print: no invalid bytes, no controls.
node - "$tmp/cases" "$count" <<'EOF' || failures=$((failures + 1))
const fs = require("fs"), path = require("path");
const [dir, count] = process.argv.slice(2);
const dec = new TextDecoder("utf-8", {fatal: true});
let bad = 0;
for (let i = 1; i <= +count; i++) {
    const raw = fs.readFileSync(path.join(dir, `case.${i}.stderr`));
    let text;
    try { text = dec.decode(raw); } catch (e) {
        console.error(`FAIL: cases.tsv line ${fs.readFileSync(path.join(dir, `case.${i}.line`))}: stderr is not valid UTF-8`);
        bad++;
        continue;
    }
    if (/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/.test(text)) {
        console.error(`FAIL: cases.tsv line ${fs.readFileSync(path.join(dir, `case.${i}.line`))}: stderr holds control characters: ${JSON.stringify(text)}`);
        bad++;
    }
}
process.exit(bad ? 1 : 0);
EOF

echo "$count cases in $((SECONDS - start)) s"
if [ "$failures" -ne 0 ]; then
    echo "$failures failing case(s)" >&2
    exit 1
fi
echo "ok: every bad input refused with one error line and the store unchanged"
