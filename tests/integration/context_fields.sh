#!/usr/bin/env bash
# context_fields.sh - every field of a memory given at save time is in the
# Markdown of `context` for a question that matches it, at the default
# budget: title, body, each field of context (situation, solution,
# trigger keywords, what failed, error messages, files modified, the
# conversation excerpt), each of scope (paths, symbols, tags, branch) and
# of provenance (source, author, commit, task, dialog, session), the links
# and the citations; for a gotcha, a decision (its reason whole, under
# "Because:") and a rule and a pattern (which say who saved them in their
# first line). Bodies keep their line breaks, and a quoted string or code
# span is never cut (the issue's "Fix: set app.config['SEC…"). Every item's
# ref names it alone: the project's facts, which discovery writes in one
# millisecond, are not given one ref.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
: "${MNEMO:?}"
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_DATA_HOME=$tmp/xdg
unset MNEMO_DB
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
repo=$tmp/repo
mkdir -p "$repo/app"
cd "$repo"
git init -q
cat >app/config.py <<'PY'
def load_config(app):
    """Read the secret key and the session settings."""
    app.config["SECRET_KEY"] = read_secret()
    return app
PY
git add -A
git -c user.name=t -c user.email=t@example.com commit -qm init
branch=$(git rev-parse --abbrev-ref HEAD)
"$MNEMO" init >/dev/null
"$MNEMO" index >/dev/null 2>&1
other=$("$MNEMO" save --json --kind fact --title "Secrets live in the vault" "The vault holds every secret." |
    node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).id)")

save() { "$MNEMO" call save --json "$1" | node -e "console.log(JSON.parse(require('fs').readFileSync(0,'utf8')).id)"; }
cat >"$tmp/gotcha.json" <<JSON
{"kind":"gotcha","title":"Sessions break when SECRET_KEY is unset",
 "body":"Flask signs the session cookie with app.config['SECRET_KEY']. Without it, every request/response cycle drops the session.\nIt happens after a fresh deploy.",
 "context":{"situation":"a fresh deploy without the vault mounted",
   "solution":"set app.config['SECRET_KEY'] = os.environ[\"FLASK_SECRET\"] before the first request",
   "trigger_keywords":["secret_key","session cookie"],
   "what_failed":"setting SESSION_COOKIE_SECURE alone",
   "error_messages":["RuntimeError: The session is unavailable because no secret key was set.","KeyError: 'FLASK_SECRET'"],
   "files_modified":["app/config.py"],
   "conversation_excerpt":"user: why do sessions vanish?\nagent: the secret key was never set"},
 "scope":{"paths":["app/"],"symbols":["load_config"],"tags":["deploy","sessions"],"branch":"$branch"},
 "provenance":{"source":"agent","author":"alice","commit":"3f2a9c1d","task":"SHOP-142","dialog":"dlg-7","session":"sess-42"},
 "citations":[{"path":"app/config.py","symbol":"load_config","start_line":1,"end_line":4}],
 "links":[{"kind":"relates_to","to":"$other"},{"kind":"about","to":"file:app/config.py"}]}
JSON
gotcha=$(save "$(cat "$tmp/gotcha.json")")
decision=$(save '{"kind":"decision","title":"Sessions are signed with a key from the environment","body":"The secret key comes from FLASK_SECRET, never from the repository.","context":{"situation":"keys committed to the repository leaked twice; a key in the environment rotates without a deploy of the code, and the request/response cycle never reads the repository"}}')
rule=$(save '{"kind":"rule","title":"Never commit the session secret key","body":"The session secret key stays out of the repository.","provenance":{"source":"manual","author":"bob"}}')
pattern=$(save '{"kind":"pattern","title":"Session secret key from the environment","body":"Read the session secret key with os.environ in load_config.","provenance":{"source":"document","author":"carol"}}')

"$MNEMO" context --json "sessions break: the secret key of the session cookie is unset after a deploy" >"$tmp/c.json"
md() { node -e "process.stdout.write(JSON.parse(require('fs').readFileSync(0,'utf8')).markdown)" <"$tmp/c.json"; }
md >"$tmp/c.md"
# every value given to the gotcha, as written
node -e '
const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")), md = require("fs").readFileSync(process.argv[2], "utf8");
const values = [];
const walk = (v, where) => {
  if (typeof v === "string") values.push([where, v]);
  else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${where}[${i}]`));
  else if (v && typeof v === "object") for (const k of Object.keys(v)) if (!["kind", "start_line", "end_line"].includes(k)) walk(v[k], `${where}.${k}`);
};
walk(m, "memory");
let missing = 0;
for (const [where, v] of values) {
  // each line of the value is in the item (a body a sentence a line, further lines indented)
  const flat = md.replace(/\s+/g, " ");
  const found = v.split("\n").every(l => flat.includes(l.replace(/\s+/g, " ").trim()));
  if (!found) { missing++; console.error(`FAIL: ${where} is not in the context: ${JSON.stringify(v)}`); }
}
if (!md.includes("**gotcha**")) { missing++; console.error("FAIL: the kind is not said"); }
if (/SEC…|respo…/.test(md)) { missing++; console.error("FAIL: a value is cut"); }
console.log(`${values.length} values given, ${values.length - missing} found`);
process.exit(missing ? 1 : 0);
' "$tmp/gotcha.json" "$tmp/c.md" || fail "every field of the gotcha is in the context (see above)"
node -e "
const d = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const item = id => d.items.find(i => i.id === id);
if (!(item('$gotcha') && item('$gotcha').whole)) { console.error('the gotcha is not whole'); process.exit(1); }
" <"$tmp/c.json" || fail "the gotcha is served whole at the default budget"
grep -q "Because: keys committed to the repository leaked twice; a key in the environment rotates without a deploy of the code, and the request/response cycle never reads the repository" "$tmp/c.md" ||
    fail "the decision's reason, whole"
"$MNEMO" context "never commit the session secret key to the repository" >"$tmp/rule.md" 2>/dev/null
grep -q "^- \*\*rule\*\* Never commit the session secret key (${rule:0:12}[0-9A-Z]*) -- .*saved by bob (manual)$" "$tmp/rule.md" ||
    fail "a rule says who saved it: $(grep -n rule "$tmp/rule.md")"
"$MNEMO" context "read the session secret key from the environment in load_config" >"$tmp/pattern.md" 2>/dev/null
grep -q "^- \*\*pattern\*\* Session secret key from the environment (${pattern:0:12}[0-9A-Z]*) -- .*saved by carol (document)$" "$tmp/pattern.md" ||
    fail "a pattern says who saved it: $(grep -n pattern "$tmp/pattern.md")"
grep -q "^  It happens after a fresh deploy.$" "$tmp/c.md" || fail "the body keeps its line break"
grep -q "${decision:0:12}" "$tmp/c.md" || fail "the decision is there"

# every ref of an answer names one item; a memory's is a prefix `show` takes
"$MNEMO" discover >/dev/null 2>&1 || fail "discover"
"$MNEMO" --json context "read the session secret key from the environment in load_config" >"$tmp/refs.json" 2>/dev/null
node -e "const d = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const mem = d.items.filter(i => i.type === 'memory');
const refs = d.items.map(i => i.ref), dup = refs.filter((r, k) => refs.indexOf(r) !== k);
if (mem.length < 4 || dup.length) { console.error('memories ' + mem.length + ', refs given twice: ' + dup); process.exit(1) }
console.log(mem.map(i => i.ref).join('\n'))" <"$tmp/refs.json" >"$tmp/refs.txt" || fail "every item has a ref of its own"
while read -r ref; do
    "$MNEMO" show "$ref" >/dev/null 2>"$tmp/err" || fail "show $ref: $(cat "$tmp/err")"
done <"$tmp/refs.txt"

[ "$fails" = 0 ] && echo "context_fields: all passed"
exit "$fails"
