#!/usr/bin/env bash
# cli_basics.sh - the mnemo command line as a person and a script use it.
#
#   init       creates .mnemo/mnemo.db at the repository root and keeps it out
#              of git through .git/info/exclude, exactly once however often
#              it runs;
#   discovery  finds the store as git finds its repository: from any
#              subdirectory, the nearest .mnemo/ first; --db and MNEMO_DB
#              override (--db winning); outside any repository the per-user
#              store under $XDG_DATA_HOME/mnemo/ (else ~/.local/share/mnemo/);
#   help       every command's --help (and -h, and `mnemo help CMD`) exits 0
#              and names its options, and every option it shows is accepted;
#   flows      save, show, list, edit, forget (undo, purge), link, config,
#              export/import and call, checking what is printed for people
#              and the --json output field by field;
#   exit codes 0 ok, 1 failure (not found, exists), 2 usage.
# A failed check is reported and the script goes on, so one run lists every
# failure; it exits 1 if there was any.
# shellcheck disable=SC2015,SC2154 # A && B || fail is meant; new_id assigns by name
set -euo pipefail

: "${MNEMO:?MNEMO must name the mnemo binary}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-basics.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home XDG_DATA_HOME=$tmp/xdg TMPDIR=$tmp/tmp
mkdir -p "$HOME" "$TMPDIR"
unset MNEMO_DB MNEMO_PROJECT MNEMO_NOW_MS VISUAL EDITOR
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
failures=0
ID_RE='[0-9A-HJKMNP-TV-Z]{26}'

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

dump() {
    echo "    exit code: $rc" >&2
    echo "    stdout: $(head -c 600 "$tmp/out")" >&2
    echo "    stderr: $(head -c 600 "$tmp/err")" >&2
}

# run ARGS...: mnemo; stdout in $tmp/out, stderr in $tmp/err, exit code in $rc.
run() {
    set +e
    "$MNEMO" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    set -e
}

# ok WHAT ARGS...: run, which must exit 0 and print nothing on stderr.
ok() {
    local what=$1
    shift
    run "$@"
    if [ "$rc" -ne 0 ] || [ -s "$tmp/err" ]; then
        fail "$what: expected exit 0 and a quiet stderr"
        dump
    fi
}

# refused CODE REGEX WHAT ARGS...: run, which must exit CODE with one stderr
# line matching REGEX and nothing on stdout.
refused() {
    local code=$1 re=$2 what=$3
    shift 3
    run "$@"
    if [ "$rc" -ne "$code" ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] ||
        ! grep -Eq "$re" "$tmp/err"; then
        fail "$what: expected exit $code and one stderr line matching /$re/"
        dump
    fi
}

# out_is WHAT TEXT: stdout is exactly TEXT (plus the final newline).
out_is() {
    if [ "$(cat "$tmp/out")" != "$2" ]; then
        fail "$1: stdout is not '$2'"
        dump
    fi
}

# out_has WHAT REGEX...: each extended regex matches a whole line of stdout.
out_has() {
    local what=$1
    shift
    for re in "$@"; do
        grep -Eqx -- "$re" "$tmp/out" || { fail "$what: no stdout line matches /$re/"; dump; }
    done
}

# js WHAT EXPR: the JavaScript EXPR is true of d, the JSON on stdout.
js() {
    if ! node -e '
        const fs = require("fs");
        let d;
        try { d = JSON.parse(fs.readFileSync(process.argv[1], "utf8")); }
        catch (e) { console.error("stdout is not JSON: " + e.message); process.exit(1); }
        if (!(0, eval)("(d) => (" + process.argv[2] + ")")(d)) {
            console.error("not true: " + process.argv[2].trim().replace(/\s+/g, " "));
            console.error("of: " + JSON.stringify(d).slice(0, 1500));
            process.exit(1);
        }
    ' "$tmp/out" "$2"; then
        fail "$1"
    fi
}

# get EXPR: the value of a JavaScript expression of d, the JSON on stdout.
get() {
    node -e '
        const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        const v = (0, eval)("(d) => (" + process.argv[2] + ")")(d);
        process.stdout.write(typeof v === "string" ? v : JSON.stringify(v));
    ' "$tmp/out" "$1"
}

# new_id VAR WHAT ARGS...: run `mnemo --json ARGS` (a save); VAR = the id it created.
new_id() {
    local var=$1 what=$2 id
    shift 2
    ok "$what" --json "$@"
    id=$(get 'd.id' 2>/dev/null || true)
    [[ $id =~ ^$ID_RE$ ]] || { fail "$what: no id in the result"; dump; }
    printf -v "$var" '%s' "$id"
}

# ==== init ====================================================================
repo=$tmp/repo
git init -q "$repo"
cd "$repo"
ok "init" init
out_is "init" "mnemo store ready at $repo/.mnemo/mnemo.db"
[ -f .mnemo/mnemo.db ] || fail "init did not create .mnemo/mnemo.db"
[ "$(grep -cx '/.mnemo/' .git/info/exclude)" -eq 1 ] || fail "init did not add /.mnemo/ to .git/info/exclude once"
ok "init again" init
out_is "init again" "mnemo store ready at $repo/.mnemo/mnemo.db"
[ "$(grep -cx '/.mnemo/' .git/info/exclude)" -eq 1 ] || fail "a second init added /.mnemo/ to .git/info/exclude again"
[ -z "$(git status --porcelain --untracked-files=all)" ] || fail "git sees the store: $(git status --porcelain)"
ok "init --json" --json init
js "init --json names the database" "d.db === '$repo/.mnemo/mnemo.db'"
mkdir -p sub/dir
cd sub/dir
ok "init from a subdirectory" init
out_is "init from a subdirectory" "mnemo store ready at $repo/.mnemo/mnemo.db"
[ ! -e .mnemo ] && [ ! -e "$repo/sub/.mnemo" ] || fail "init from a subdirectory made a store there"
# MNEMO_DB says where commands look, not where init creates: still the repository's store.
MNEMO_DB=$tmp/elsewhere.db ok "init with MNEMO_DB set" init
out_is "init with MNEMO_DB set" "mnemo store ready at $repo/.mnemo/mnemo.db"
[ ! -e .mnemo ] || fail "init with MNEMO_DB set made a store in the current directory"
cd "$repo"

# An exclude file without a final newline keeps its last line whole.
git init -q "$tmp/repo2"
printf 'build' >"$tmp/repo2/.git/info/exclude"
ok "init DIR" init "$tmp/repo2"
out_is "init DIR" "mnemo store ready at $tmp/repo2/.mnemo/mnemo.db"
[ "$(cat "$tmp/repo2/.git/info/exclude")" = $'build\n/.mnemo/' ] ||
    fail "init broke .git/info/exclude: $(cat -A "$tmp/repo2/.git/info/exclude")"
# A repository made without the template has no .git/info: init makes it.
git init -q --template= "$tmp/repo3"
ok "init in a repository without .git/info" init "$tmp/repo3"
[ "$(grep -cx '/.mnemo/' "$tmp/repo3/.git/info/exclude" 2>/dev/null)" = 1 ] ||
    fail "init did not create .git/info/exclude with /.mnemo/"
[ -z "$(git -C "$tmp/repo3" status --porcelain --untracked-files=all)" ] ||
    fail "git sees the store of repo3: $(git -C "$tmp/repo3" status --porcelain)"
# When .git is a file, the exclude goes where git reads it. A linked work
# tree: the common dir of its repository (git has no per-work-tree exclude).
git init -q "$tmp/main"
git -C "$tmp/main" -c user.name=t -c user.email=t@t commit -q --allow-empty -m first
git -C "$tmp/main" worktree add -q "$tmp/linked" 2>/dev/null
[ -f "$tmp/linked/.git" ] || fail "git worktree add made no .git file"
ok "init in a linked work tree" init "$tmp/linked"
[ -f "$tmp/linked/.mnemo/mnemo.db" ] || fail "init in a linked work tree made no store"
[ -z "$(git -C "$tmp/linked" status --porcelain --untracked-files=all)" ] ||
    fail "git sees the store of a linked work tree: $(git -C "$tmp/linked" status --porcelain)"
[ "$(grep -cx '/.mnemo/' "$tmp/main/.git/info/exclude")" = 1 ] ||
    fail "the linked work tree's init wrote /.mnemo/ to the common exclude not once"
# A git dir elsewhere (git init --separate-git-dir, as submodules have), named by a relative path.
git init -q --separate-git-dir="$tmp/sep.git" "$tmp/sepwt"
printf 'gitdir: ../sep.git\n' >"$tmp/sepwt/.git"
ok "init with .git a relative gitdir file" init "$tmp/sepwt"
[ "$(grep -cx '/.mnemo/' "$tmp/sep.git/info/exclude")" = 1 ] ||
    fail "init did not add /.mnemo/ to the exclude of the separate git dir"
[ -z "$(git -C "$tmp/sepwt" status --porcelain --untracked-files=all)" ] ||
    fail "git sees the store of sepwt: $(git -C "$tmp/sepwt" status --porcelain)"
# A .git file that names nothing: the store is made, nothing is written outside it.
mkdir "$tmp/dangling" && printf 'gitdir: %s/missing.git\n' "$tmp" >"$tmp/dangling/.git"
ok "init with a .git file naming no directory" init "$tmp/dangling"
[ -f "$tmp/dangling/.mnemo/mnemo.db" ] && [ ! -e "$tmp/missing.git" ] ||
    fail "init with a dangling .git file"
# A directory that is not a repository: a store, and no .git appears.
mkdir "$tmp/plain"
ok "init a plain directory" init "$tmp/plain"
[ -f "$tmp/plain/.mnemo/mnemo.db" ] && [ ! -e "$tmp/plain/.git" ] || fail "init of a plain directory"
refused 2 "^mnemo: error: init: takes at most one directory" "init with two directories" init a b
refused 2 "^mnemo: error: init: .*--db does not apply" "init with --db" --db "$tmp/x.db" init

# ==== discovery ===============================================================
cd "$repo/sub/dir"
new_id id_sub "save from a subdirectory" save --title "From a subdirectory" "saved below the root"
cd "$repo"
ok "list at the root" --json list
js "the root sees the memory saved in a subdirectory" "d.total === 1 && d.memories[0].id === '$id_sub'"
[ ! -e "$XDG_DATA_HOME/mnemo" ] || fail "a command inside a repository created the per-user store"
# A repository that never ran init gets its store (and the exclude line) on first use.
git init -q "$tmp/repo4"
cd "$tmp/repo4"
new_id _ "first save in a repository without init" save "first"
[ -f .mnemo/mnemo.db ] && [ "$(grep -cx '/.mnemo/' .git/info/exclude)" -eq 1 ] ||
    fail "the first save did not create the repository's store and exclude it"
# The nearest .mnemo/ wins: a store initialised in a subdirectory serves below it.
ok "init a nested store" init "$repo/nested"
mkdir -p "$repo/nested/deeper"
cd "$repo/nested/deeper"
ok "list in the nested store" --json list
js "the nested store is empty" "d.total === 0"
new_id id_nested "save in the nested store" save "nested memory"
cd "$repo"
ok "list at the root again" --json list
js "the root store does not see the nested one" "d.total === 1 && d.memories[0].id === '$id_sub'"

# --db, --db=, MNEMO_DB, and --db over MNEMO_DB
new_id id_x "save with --db" --db "$tmp/x.db" save "only in x"
[ -f "$tmp/x.db" ] || fail "--db did not create its store"
ok "list with --db" --db "$tmp/x.db" --json list
js "--db uses that store" "d.total === 1 && d.memories[0].id === '$id_x'"
ok "list with --db=" --db="$tmp/x.db" --json list
js "--db=PATH works too" "d.total === 1 && d.memories[0].id === '$id_x'"
ok "list with --db after the command" list --db "$tmp/x.db" --json
js "global flags may follow the command" "d.total === 1 && d.memories[0].id === '$id_x'"
export MNEMO_DB=$tmp/env.db
new_id id_env "save with MNEMO_DB" save "only in env"
ok "list with MNEMO_DB" --json list
js "MNEMO_DB overrides the repository" "d.total === 1 && d.memories[0].id === '$id_env'"
ok "list with MNEMO_DB and --db" --db "$tmp/x.db" --json list
js "--db overrides MNEMO_DB" "d.total === 1 && d.memories[0].id === '$id_x'"
unset MNEMO_DB
ok "list without MNEMO_DB" --json list
js "back to the repository's store" "d.total === 1 && d.memories[0].id === '$id_sub'"
cd "$tmp"
new_id _ "save with a relative --db" --db rel.db save "relative"
[ -f "$tmp/rel.db" ] || fail "a relative --db is not relative to the current directory"

# Outside any repository: the per-user store.
outside=$tmp/outside/a/b
mkdir -p "$outside"
cd "$outside"
above=""
d=$outside
while [ "$d" != / ]; do
    d=$(dirname "$d")
    if [ -e "$d/.git" ] || [ -e "$d/.mnemo" ]; then above=$d; fi
done
if [ -n "$above" ]; then
    echo "note: $above holds a .git or .mnemo, so the per-user store cannot be tested here"
else
    new_id id_user "save outside any repository" save "per-user memory"
    [ -f "$XDG_DATA_HOME/mnemo/mnemo.db" ] || fail "outside a repository the store is not \$XDG_DATA_HOME/mnemo/mnemo.db"
    cd "$tmp/outside"
    ok "list outside any repository" --json list
    js "the per-user store is shared outside repositories" "d.total === 1 && d.memories[0].id === '$id_user'"
    XDG_DATA_HOME="" new_id _ "save without XDG_DATA_HOME" save "home memory"
    [ -f "$HOME/.local/share/mnemo/mnemo.db" ] || fail "without XDG_DATA_HOME the store is not ~/.local/share/mnemo/mnemo.db"
fi
cd "$repo"

# ==== help and exit codes =====================================================
declare -A opts=(
    [init]="DIR --json --db --help"
    [save]="--kind --level --title --situation --solution --keyword --what-failed --error --file --conversation-excerpt --context-json --path --symbol --tag --branch --scope-json --source --author --commit --task --dialog --session --provenance-json --confidence --quality --ttl --citations --links"
    [show]="ID --json"
    [list]="--kind --level --status --tag --path --source --since --deleted --limit --offset"
    [edit]="ID EDITOR --kind --level --title --body --situation --solution --keyword --status --confidence --quality --ttl --citations --add-tags --remove-tags"
    [forget]="ID --purge --undo"
    [link]="FROM KIND TO --note --remove caused_by supersedes relates_to contradicts derived_from about"
    [export]="--kind --level --status --tag --path --source --since --deleted -o --format yaml"
    [import]="FILE --on-conflict --format"
    [config]="list get set unset KEY VALUE"
    [call]="OPERATION JSON"
)
for cmd in init save show list edit forget link export import config call; do
    ok "$cmd --help" "$cmd" --help
    head -n 1 "$tmp/out" | grep -q "^usage: mnemo $cmd" || fail "$cmd --help does not start with its usage"
    for o in ${opts[$cmd]}; do
        grep -q -- "$o" "$tmp/out" || fail "$cmd --help does not mention $o"
    done
    cp "$tmp/out" "$tmp/help.$cmd"
    ok "$cmd -h" "$cmd" -h
    cmp -s "$tmp/out" "$tmp/help.$cmd" || fail "$cmd -h differs from $cmd --help"
    ok "help $cmd" help "$cmd"
    cmp -s "$tmp/out" "$tmp/help.$cmd" || fail "mnemo help $cmd differs from $cmd --help"
    # Every --flag the help shows is taken (a wrong value may be refused, an unknown flag not).
    sed -n 's/^  \(--[a-z-]*\)\( [A-Z]*\)\{0,1\} .*/\1\2/p; s/^  \(--[a-z-]*\)\( [A-Z]*\)\{0,1\}$/\1\2/p' "$tmp/help.$cmd" |
        while read -r flag meta; do
            case $flag in --help | --db | --json) continue ;; esac
            case $meta in
            "") value=() ;;
            JSON) value=("{}") ;;
            N) value=("1") ;;
            *) value=("x") ;;
            esac
            run --db "$tmp/probe.db" "$cmd" "$flag" "${value[@]}"
            if grep -q "unknown option '$flag'" "$tmp/err"; then
                fail "$cmd --help shows $flag, which $cmd refuses as unknown"
            fi
        done
done
ok "--help" --help
for cmd in init save show list edit forget link export import config call; do
    grep -Eq "^  $cmd +[A-Z]" "$tmp/out" || fail "mnemo --help does not list $cmd"
done
grep -q "Exit codes: 0 ok, 1 failure, 2 usage" "$tmp/out" || fail "mnemo --help does not explain the exit codes"
run
[ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q "^usage: mnemo" "$tmp/err" ||
    { fail "mnemo with no command: expected exit 2 and the usage on stderr"; dump; }
ok "--version" --version
grep -Eqx "mnemo [0-9]+\.[0-9]+\.[0-9]+" "$tmp/out" || fail "--version printed: $(cat "$tmp/out")"
refused 2 "^mnemo: error: no command 'frobnicate' \(see 'mnemo --help'\)$" "an unknown command" frobnicate
refused 2 "^mnemo: error: no command 'frobnicate'" "help for an unknown command" help frobnicate
ok "--help after options" --db "$tmp/help.db" save --title "not saved" --help
[ ! -e "$tmp/help.db" ] || fail "save --help opened (and created) the store"

# ==== save and show ===========================================================
db=$tmp/flow.db
# mn ARGS...: mnemo on the flow store, which must succeed (stderr may carry a notice, not a sanitizer report).
mn() {
    run --db "$db" "$@"
    if [ "$rc" -ne 0 ] || grep -Eq "Sanitizer|runtime error:" "$tmp/err"; then
        fail "mnemo $*: expected success"
        dump
    fi
}
run --db "$db" save --kind gotcha --title "Cart sessions expire" --situation "checkout returned 401 after idle" \
    --solution "default delay to 30s" --what-failed "retrying the request" \
    --error "SessionExpired: delay=None" --error "HTTP 401, twice" --file cart/session.py,cart/views.py \
    --keyword cart,session --keyword delay --conversation-excerpt $'user: why?\nassistant: the delay' \
    --path cart/session.py --symbol Cart.expire --tag cart,sessions --branch main --author alice \
    --commit abc123 --task PROJ-12 --dialog d-1 --session s-1 --confidence 0.8 --quality 0.6 \
    --ttl 30d --citations '{"path":"cart/session.py","symbol":"Cart.expire","start_line":10,"end_line":20}' \
    "The session" "expired at once."
[ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ] || { fail "save with every flag"; dump; }
out_has "save with every flag" "created $ID_RE \(gotcha, L3, active\): Cart sessions expire"
[ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "save printed more than one line"
G=$(sed -E -n 's/^created ([0-9A-Z]{26}) .*/\1/p' "$tmp/out")
mn --json show "$G"
js "show --json has every field saved" "
    d.memory.id === '$G' && d.memory.kind === 'gotcha' && d.memory.level === 'L3' &&
    d.memory.title === 'Cart sessions expire' && d.memory.body === 'The session expired at once.' &&
    JSON.stringify(d.memory.context) === JSON.stringify({
        situation: 'checkout returned 401 after idle', solution: 'default delay to 30s',
        trigger_keywords: ['cart', 'session', 'delay'], what_failed: 'retrying the request',
        error_messages: ['SessionExpired: delay=None', 'HTTP 401, twice'],
        files_modified: ['cart/session.py', 'cart/views.py'],
        conversation_excerpt: 'user: why?\nassistant: the delay'}) &&
    JSON.stringify(d.memory.scope) === JSON.stringify({paths: ['cart/session.py'],
        symbols: ['Cart.expire'], tags: ['cart', 'sessions'], branch: 'main'}) &&
    JSON.stringify(d.memory.provenance) === JSON.stringify({source: 'manual', author: 'alice',
        commit: 'abc123', task: 'PROJ-12', dialog: 'd-1', session: 's-1', extraction_method: 'manual'}) &&
    d.memory.status === 'active' && d.memory.confidence === 0.8 && d.memory.quality === 0.6 &&
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(d.memory.created_at) &&
    d.memory.updated_at === d.memory.created_at &&
    Date.parse(d.memory.expires_at) - Date.parse(d.memory.created_at) === 30 * 86400000 &&
    JSON.stringify(d.memory.counters) === '{\"hits\":0,\"used\":0,\"ignored\":0}' &&
    JSON.stringify(d.memory.citations) === JSON.stringify([{path: 'cart/session.py',
        symbol: 'Cart.expire', start_line: 10, end_line: 20}]) &&
    Array.isArray(d.linked_from) && d.linked_from.length === 0"
js "a memory's keys come in the canonical order" "JSON.stringify(Object.keys(d.memory)) === JSON.stringify(
    ['id','kind','level','title','body','context','scope','provenance','status','confidence',
     'quality','judgement','expires_at','created_at','updated_at','counters','citations'])"
mn show "$G"
out_has "show prints YAML" "kind: gotcha" "title: Cart sessions expire" "  situation: checkout returned 401 after idle" \
    "confidence: 0.8" "  - 'SessionExpired: delay=None'" "  tags:" "  conversation_excerpt: \|-"
mn show "${G:0:8}"
out_has "show takes a unique id prefix" "title: Cart sessions expire"

# The clock (MNEMO_NOW_MS) fixes every time a save writes.
MNEMO_NOW_MS=1767225600000 mn --json save --ttl 12h --title "Timed" "at a known time"
T=$(get d.id)
mn --json show "$T"
js "times come from the clock, with milliseconds" "d.memory.created_at === '2026-01-01T00:00:00.000Z' &&
    d.memory.updated_at === '2026-01-01T00:00:00.000Z' && d.memory.expires_at === '2026-01-01T12:00:00.000Z'"

# Defaults: kind fact, level from the scope, title from the body, confidence by source.
new_id P "save with only words" --db "$db" save "Just" "a body line"
mn --json show "$P"
js "defaults of a manual save" "d.memory.kind === 'fact' && d.memory.level === 'L1' &&
    d.memory.title === 'Just a body line' && d.memory.body === 'Just a body line' &&
    d.memory.provenance.source === 'manual' && d.memory.confidence === 0.9 && d.memory.status === 'active' &&
    !('quality' in d.memory) && !('expires_at' in d.memory) && d.memory.context.trigger_keywords.join() === 'body,line'"
new_id P "save with a path" --db "$db" save --path src/store "Scoped to a directory"
mn --json show "$P"
js "a path makes it L2" "d.memory.level === 'L2' && d.memory.scope.paths[0] === 'src/store'"
long=$(printf 'word%02d ' $(seq 1 40))
new_id P "save with a long first line" --db "$db" save "$long" $'\nsecond line'
mn --json show "$P"
js "a title derived from a long first line is cut at a word, to 100 characters" "
    d.memory.title.length <= 100 && d.memory.title.length > 90 && d.memory.body.startsWith(d.memory.title) &&
    !d.memory.title.endsWith(' ') && d.memory.body.startsWith(d.memory.title + ' ')"
new_id A "agent save" --db "$db" save --source agent --keyword a,b,c --situation "reading the docs" \
    --solution "look in the agent notes" --title "Agent fact" "found by an agent"
mn --json show "$A"
js "an agent save's confidence is its 0.7 weighed by the judge" "
    d.memory.confidence === Math.round(0.7 * (0.5 + 0.5 * d.memory.judgement.score) * 100) / 100 &&
    d.memory.status === 'active' && d.memory.provenance.source === 'agent' &&
    d.memory.provenance.extraction_method === 'agent'"
refused 2 "^mnemo: error: save: missing required fields context.situation, context.solution, context.trigger_keywords: an agent saving a fact must give" \
    "agent save without its context" --db "$db" save --source agent "no keywords"
refused 2 "^mnemo: error: save: needs a title or a body" "save with neither title nor body" --db "$db" save --tag x

# An exact duplicate merges into the live memory (lists united).
mn save --kind gotcha --title "Cart  sessions EXPIRE" --tag extra --keyword timeout "The session" "expired at once."
out_is "duplicate save" "merged $G (gotcha, L3, active): Cart sessions expire"
mn --json show "$G"
js "the merge united the lists and kept the rest" "JSON.stringify(d.memory.scope.tags) === '[\"cart\",\"sessions\",\"extra\"]' &&
    JSON.stringify(d.memory.context.trigger_keywords) === '[\"cart\",\"session\",\"delay\",\"timeout\"]' &&
    d.memory.title === 'Cart sessions expire' && d.memory.confidence === 0.9"

# Low confidence waits for review.
mn save --confidence 0.3 --title "Unsure" "maybe"
L=$(sed -E -n 's/^created ([0-9A-Z]{26}) \(fact, L1, pending\): Unsure$/\1/p' "$tmp/out")
[ -n "$L" ] || { fail "a low-confidence save is not pending"; dump; }
out_has "low-confidence save" "\(low confidence: it waits in the review queue; approve with: mnemo review approve $L\)"
mn --json save --confidence 0.3 --title "Unsure about the cache" "perhaps the cache layer is slow"
js "--json save" "d.action === 'created' && d.status === 'pending' && d.kind === 'fact' && d.title === 'Unsure about the cache' &&
    JSON.stringify(Object.keys(d)) === '[\"id\",\"action\",\"kind\",\"level\",\"status\",\"title\"]'"

# ==== list ====================================================================
ldb=$tmp/list.db
# a command that only reads finds a store, and makes none
refused 1 "no mnemo store at '.*list.db'" "list where no store is" --db "$ldb" list
[ -e "$ldb" ] && fail "list made a store"
ok "config makes a store" --db "$ldb" config set memory.dedup true
ok "list an empty store" --db "$ldb" list
out_is "list an empty store" "no memories"
new_id l1 "save l1" --db "$ldb" save --kind decision --tag a,b --path src/x.c --title "First decision" "d"
new_id l2 "save l2" --db "$ldb" save --kind fact --tag b --path lib --source agent --keyword k1,k2,k3 \
    --situation "s" --solution "x" --title "Second fact" "f"
new_id l3 "save l3" --db "$ldb" save --kind gotcha --title "Third gotcha" "g"
ok "list" --db "$ldb" list
out_has "list" "${l1}  decision L2  active   First decision  \[a, b\]" \
    "${l2}  fact     L2  active   Second fact  \[b\]" "${l3}  gotcha   L1  active   Third gotcha"
[ "$(wc -l <"$tmp/out")" -eq 3 ] || fail "list printed more than the three memories"
ok "list --json" --db "$ldb" --json list
js "list --json: newest first, the summary fields" "d.total === 3 && d.limit === 50 && d.offset === 0 &&
    d.memories.map(m => m.id).join() === ['$l3', '$l2', '$l1'].join() &&
    d.memories.every(m => m.id < 'Z' && typeof m.confidence === 'number' && m.updated_at && !m.body) &&
    JSON.stringify(d.memories[2].tags) === '[\"a\",\"b\"]'"
ok "list --limit" --db "$ldb" list --limit 2
[ "$(wc -l <"$tmp/out")" -eq 3 ] && out_has "list --limit" "-- 2 of 3 \(more with --offset 2\)" ||
    fail "list --limit 2 does not show two memories and the footer"
ok "list --offset" --db "$ldb" --json list --limit 2 --offset 2
js "list --limit --offset" "d.total === 3 && d.limit === 2 && d.offset === 2 && d.memories.length === 1 &&
    d.memories[0].id === '$l1'"
for f in "--kind decision:$l1" "--tag b:$l2,$l1" "--tag a:$l1" "--path src:$l1" "--path lib/deep/y.c:$l2" \
    "--level L1:$l3" "--source agent:$l2" "--status active:$l3,$l2,$l1" "--since 1h:$l3,$l2,$l1" \
    "--since 2999-01-01:" "--kind rule:"; do
    read -r -a filter <<<"${f%%:*}"
    ok "list ${f%%:*}" --db "$ldb" --json list "${filter[@]}"
    js "list ${f%%:*} finds exactly ${f#*:}" "d.memories.map(m => m.id).join() === '${f#*:}' && d.total === d.memories.length"
done

# ==== edit with options =======================================================
mn edit "$G" --title "Cart sessions expire when delay is nil" --add-tags hot --remove-tags sessions \
    --no-situation --solution "default the delay to 30 s"
out_has "edit" "updated $G \(gotcha, L3, active\): Cart sessions expire when delay is nil; changed .*"
mn --json show "$G"
js "edit changed those fields and kept the others" "
    d.memory.title === 'Cart sessions expire when delay is nil' && !('situation' in d.memory.context) &&
    d.memory.context.solution === 'default the delay to 30 s' && d.memory.context.what_failed === 'retrying the request' &&
    JSON.stringify(d.memory.scope.tags) === '[\"cart\",\"extra\",\"hot\"]' && d.memory.body === 'The session expired at once.' &&
    d.memory.updated_at >= d.memory.created_at"
mn --json edit "${G:0:10}" --title "Cart sessions expire when delay is nil"
js "an edit that changes nothing" "d.action === 'unchanged' && d.id === '$G' && d.changed.length === 0"
mn --json edit "$G" --no-ttl --kind decision --quality 0.25 --citations '[]' --status archived
js "edit --json lists what changed" "d.action === 'updated' && d.kind === 'decision' && d.status === 'archived' &&
    ['kind', 'status', 'quality', 'citations', 'expires_at'].every(k => d.changed.includes(k))"
mn --json show "$G"
js "--no-ttl removed the expiry, --citations [] the citations" "!('expires_at' in d.memory) && !('citations' in d.memory) &&
    d.memory.quality === 0.25 && d.memory.kind === 'decision'"
mn edit "$L" --status active
out_is "approving a pending memory" "updated $L (fact, L1, active): Unsure; changed status"
refused 2 "^mnemo: error: update: field 'title': must not be empty" "edit to an empty title" --db "$db" edit "$G" --title ""
refused 1 "^mnemo: error: update: memory '7ZZZZZZZZZZZZZZZZZZZZZZZZZ' not found$" "edit of an unknown id" \
    --db "$db" edit 7ZZZZZZZZZZZZZZZZZZZZZZZZZ --title x

# ==== link ====================================================================
new_id B "save B" --db "$db" save --kind decision --title "Default the delay to 30 s" "because"
mn link "$G" caused_by "$B" --note "the default"
out_is "link" "linked $G -[caused_by]-> $B"
mn link "${G:0:12}" relates_to "${B:0:12}"
out_is "link with id prefixes" "linked $G -[relates_to]-> $B"
for ref in file:cart/session.py symbol:Cart.expire task:PROJ-12 doc:docs/adr/0001.md commit:abc123 \
    url:https://example.com/x issue:42; do
    mn link "$G" about "$ref"
    out_is "link to $ref" "linked $G -[about]-> $ref"
done
mn --json show "$G"
js "the links, in order, with their notes and times" "d.memory.links.length === 9 &&
    d.memory.links[0].kind === 'caused_by' && d.memory.links[0].to === '$B' && d.memory.links[0].note === 'the default' &&
    d.memory.links[1].kind === 'relates_to' && !('note' in d.memory.links[1]) &&
    d.memory.links[2].to === 'file:cart/session.py' && d.memory.links[8].to === 'issue:42' &&
    d.memory.links.every(l => /Z$/.test(l.created_at))"
mn --json show "$B"
js "the target lists what links to it" "d.linked_from.length === 2 && d.linked_from[0].from === '$G' &&
    d.linked_from[0].kind === 'caused_by' && d.linked_from[0].note === 'the default' && d.linked_from[1].kind === 'relates_to'"
mn show "$B"
out_has "show lists linked_from" "linked_from:" "- kind: caused_by"
mn link "$G" caused_by "$B" --note "another note"
out_is "a link made twice is left as it is" "unchanged $G -[caused_by]-> $B"
mn --json show "$G"
js "linking twice changed nothing" "d.memory.links.length === 9 && d.memory.links[0].note === 'the default'"
refused 2 "^mnemo: error: link: a memory cannot link to itself$" "a link to itself" --db "$db" link "$G" relates_to "$G"
mn --json link "$G" caused_by "$B" --remove
js "link --remove --json" "d.action === 'unlinked' && d.from === '$G' && d.to === '$B' && d.kind === 'caused_by'"
mn link "$G" caused_by "$B" --remove
out_is "removing a link that is gone changes nothing" "unchanged $G -[caused_by]-> $B"
new_id S "save with --links" --db "$db" save --links "{\"kind\":\"derived_from\",\"to\":\"$B\",\"note\":\"n\"}" \
    --links '[{"kind":"about","to":"file:x.c"}]' "linked at birth"
mn --json show "$S"
js "save --links links at once" "d.memory.links.length === 2 && d.memory.links[0].to === '$B' &&
    d.memory.links[0].kind === 'derived_from' && d.memory.links[1].to === 'file:x.c'"

# ==== forget, undo, purge =====================================================
new_id F "save F" --db "$db" save --title "To forget" "soon gone"
mn link "$S" relates_to "$F"
mn forget "$F"
out_is "forget" "forgotten $F
(bring it back with: mnemo forget --undo $F)"
mn --json list
js "list hides a forgotten memory" "!d.memories.some(m => m.id === '$F')"
mn list --deleted only
out_has "list --deleted only" "${F}  fact     L1  active   To forget  \(forgotten\)"
mn --json show "$F"
js "show still finds it, with deleted_at" "/Z$/.test(d.memory.deleted_at)"
mn export
grep -q "\"id\":\"$F\".*\"deleted_at\":" "$tmp/out" || fail "export (a full backup) lacks the forgotten memory"
mn export --deleted exclude
grep -q "\"id\":\"$F\"" "$tmp/out" && fail "export --deleted exclude has the forgotten memory"
mn forget --undo "$F"
out_is "forget --undo" "restored $F"
mn --json show "$F"
js "undo removed deleted_at" "!('deleted_at' in d.memory)"
mn --json forget "${F:0:12}"
js "forget --json" "d.id === '$F' && d.action === 'forgotten'"
mn forget --purge "$F"
out_is "forget --purge" "purged $F"
refused 1 "^mnemo: error: get: memory '$F' not found$" "show after purge" --db "$db" show "$F"
mn --json show "$S"
js "purging removed the links to it" "!d.memory.links.some(l => l.to === '$F')"
refused 1 "^mnemo: error: forget: memory '$F' not found$" "undo after purge" --db "$db" forget --undo "$F"
refused 2 "^mnemo: error: forget: give either purge or undo, not both$" "forget --purge --undo" --db "$db" forget --purge --undo "$S"

# ==== config ==================================================================
mn config list
out_has "config list" "memory.dedup = true  \(default\)" "memory.excerpt_cap = 32768  \(default\)" \
    "memory.review_threshold = 0.5  \(default\)" "user.name =   \(default\)" "    Author recorded on saves.*"
mn --json config list
js "config list --json" "d.settings.length === 55 && d.settings.every(s => s.set === false && s.description) &&
    d.settings.map(s => s.key).join() === 'capture.auto_approve,context.tokenizer,discovery.max_age,embed.batch,embed.document_prefix,embed.key,embed.model,embed.provider,embed.query_prefix,embed.retries,embed.timeout,embed.url,hook.max_tokens,index.history,index.refresh_age,mcp.tools,memory.body_cap,memory.dedup,memory.excerpt_cap,memory.gc.superseded_after,memory.review_threshold,memory.ttl.decision,memory.ttl.doc_link,memory.ttl.episode,memory.ttl.fact,memory.ttl.fewshot,memory.ttl.gotcha,memory.ttl.pattern,memory.ttl.rule,plan.candidate_cap,plan.fail_open,plan.graph_first,plan.min_final_score,plan.semantic_cap,plan.semantic_weight,remote.timeout_ms,scan.pii,serve.allowed_origins,serve.auth,serve.behind_proxy,serve.host,serve.max_connections_per_address,serve.max_sessions,serve.max_sessions_per_address,serve.poll,serve.port,serve.repo,serve.repo_max_mb,serve.request_deadline,serve.session_idle,serve.threads,serve.webhook_secret,served.max_age,served.max_rows,user.name'"
mn config set user.name alice-config
out_is "config set" "alice-config"
mn config get user.name
out_is "config get" "alice-config"
mn --json config get user.name
js "config get --json" "d.key === 'user.name' && d.value === 'alice-config'"
new_id U "save after user.name" --db "$db" save "authored"
mn --json show "$U"
js "user.name is the default author" "d.memory.provenance.author === 'alice-config'"
mn --json config list
js "config list marks what is set" "d.settings.find(s => s.key === 'user.name').set === true"
mn config unset user.name
out_is "config unset" "user.name unset"
mn config set memory.review_threshold 0.95
out_is "config set a ratio" "0.95"
mn save --title "Now pending" "0.9 < 0.95"
out_has "a manual save under a higher threshold" "created $ID_RE \(fact, L1, pending\): Now pending"
mn config unset memory.review_threshold
mn config set memory.dedup no
out_is "config set a boolean keeps its canonical form" "false"
mn save --title "Twice" "same"
mn save --title "Twice" "same"
out_has "no merge with dedup off" "created $ID_RE \(fact, L1, active\): Twice"
mn config unset memory.dedup
mn config set memory.excerpt_cap 0009
out_is "config set a number keeps its canonical form" "9"
new_id E "save with an excerpt over the cap" --db "$db" save --conversation-excerpt "ééééééé" "capped"
mn --json show "$E"
js "the excerpt is cut to the cap on a character boundary" "d.memory.context.conversation_excerpt === 'éééé'"
mn config unset memory.excerpt_cap
refused 2 "^mnemo: error: config: unknown config key 'nope'" "config get of an unknown key" --db "$db" config get nope

# ==== export and import =======================================================
mn export
cp "$tmp/out" "$tmp/flow.jsonl"
n=$(wc -l <"$tmp/flow.jsonl")
mn export -o "$tmp/flow-o.jsonl"
[ "$rc" -eq 0 ] && [ ! -s "$tmp/out" ] && grep -qx "exported $n memories to $tmp/flow-o.jsonl" "$tmp/err" ||
    { fail "export -o"; dump; }
cmp -s "$tmp/flow.jsonl" "$tmp/flow-o.jsonl" || fail "export -o wrote other bytes than export"
mn export -o "$tmp/flow.yaml" 2>/dev/null
[ "$(grep -c '^---' "$tmp/flow.yaml")" -eq "$n" ] || fail "export -o FILE.yaml did not write YAML"
mn export --format json
js "export --format json is an array of the memories" "Array.isArray(d) && d.length === $n"
mn export --kind gotcha
[ ! -s "$tmp/out" ] || fail "export --kind gotcha: the only gotcha became a decision"
set +e
"$MNEMO" --db "$tmp/imported.db" import - <"$tmp/flow.jsonl" >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
[ "$rc" -eq 0 ] && grep -Eqx "imported $n, replaced 0, skipped 0 memories; [0-9]+ links" "$tmp/out" ||
    { fail "import - from stdin"; dump; }
run --db "$tmp/imported.db" --json import --format yaml "$tmp/flow.yaml"
js "import --json of the same memories skips them all" "d.imported === 0 && d.skipped === $n && d.replaced === 0"
run --db "$tmp/imported.db" export
cmp -s "$tmp/out" "$tmp/flow.jsonl" || fail "the imported store does not export the same bytes"

# ==== call ====================================================================
mn call
for op in save get list update forget link export import config; do
    grep -Eq "^$op +[A-Z]" "$tmp/out" || fail "mnemo call does not list $op"
done
mn call get "{\"id\":\"$B\"}"
js "call get" "d.memory.id === '$B' && Array.isArray(d.linked_from)"
set +e
printf '{"kind":"rule","title":"From call","body":"b","scope":{"tags":["c"]}}' |
    "$MNEMO" --db "$db" call save - >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e
[ "$rc" -eq 0 ] || { fail "call save -"; dump; }
js "call save - reads the input from stdin" "d.action === 'created' && d.kind === 'rule' && d.title === 'From call'"
mn call list '{"kind":"rule"}'
js "call list" "d.total === 1 && d.memories[0].title === 'From call'"
mn call update "{\"id\":\"$B\",\"context\":{\"situation\":\"set by call\"}}"
js "call update" "d.action === 'updated' && d.changed.join() === 'context.situation'"
refused 2 "^mnemo: error: call: unknown operation 'frobnicate'" "call of an unknown operation" --db "$db" call frobnicate

# ==== exit codes ===============================================================
refused 1 "not found" "exit 1 for a missing memory" --db "$db" show 7ZZZZZZZZZZZZZZZZZZZZZZZZZ
refused 2 "unknown option" "exit 2 for a bad option" --db "$db" list --frobnicate
ok "exit 0" --db "$db" list

if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)" >&2
    exit 1
fi
echo "ok: init, discovery, help, save/show/list/edit/forget/link/config/export/import/call"
