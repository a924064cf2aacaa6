#!/usr/bin/env bash
# cli_setup.sh - `mnemo setup CLIENT [--global] [--remove]` in a temporary
# HOME and project: each client's file gets mnemo's server (Claude Code also
# its two hooks) next to entries that were there, which keep their bytes;
# a second run changes nothing; --remove gives back the original bytes, and
# deletes only files setup created; a file that is not valid JSON is
# refused with one error and left as it was; Codex's TOML keeps its other
# tables and comments; the command written is this mnemo (absolute path
# when PATH finds another or none, "mnemo" when PATH finds this one); a
# program named otherwise (mnemo2) finds its own hooks again (no second
# set, and --remove takes them); a config that is a link to a dotfile stays
# a link, its target losing mnemo's entry.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
: "${MNEMO:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config
unset MNEMO_DB CLAUDE_CONFIG_DIR CODEX_HOME
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
js() { node -e "let d=JSON.parse(require('fs').readFileSync('$1','utf8')); if(!($2)){console.error(JSON.stringify(d).slice(0,600)); process.exit(1)}" || fail "$3"; }
same() { cmp -s "$1" "$2" || { fail "$3"; diff "$1" "$2" | head -20 || true; }; }
mnemo=$(readlink -f "$MNEMO")

mkdir -p "$HOME" "$tmp/proj/sub"
cd "$tmp/proj"
git init -q
cd sub # setup finds the repository around the current directory

# --- Claude Code, project scope, next to other servers and hooks ---
cat >../.mcp.json <<'EOF'
{
  "mcpServers": {
    "other": { "command": "npx", "args": ["-y", "other@1.2.3"], "env": { "N": 1.50 } }
  }
}
EOF
mkdir -p ../.claude
cat >../.claude/settings.json <<'EOF'
{
  "permissions": { "allow": ["Bash(make:*)"] },
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "./check.sh" } ] }
    ]
  }
}
EOF
cp ../.mcp.json "$tmp/mcp.orig"
cp ../.claude/settings.json "$tmp/settings.orig"
out=$("$MNEMO" setup claude-code)
echo "$out" | grep -q "updated .*/proj/.mcp.json" || fail "setup says what it changed: $out"
js ../.mcp.json "d.mcpServers.other.env.N===1.5 && d.mcpServers.mnemo.command==='$mnemo' && d.mcpServers.mnemo.args.join()==='mcp'" "claude .mcp.json server"
js ../.claude/settings.json "d.permissions.allow[0]==='Bash(make:*)' && d.hooks.PreToolUse.length===2 && d.hooks.PreToolUse[0].hooks[0].command==='./check.sh' && d.hooks.PreToolUse[1].matcher==='Task|Agent' && d.hooks.PreToolUse[1].hooks[0].command==='$mnemo hook claude-code' && d.hooks.UserPromptSubmit[0].hooks[0].type==='command' && d.hooks.PostToolUse[0].matcher==='Read|Edit|MultiEdit|Write|NotebookEdit' && d.hooks.PostToolUse[0].hooks[0].command==='$mnemo hook claude-code' && d.hooks.Stop[0].hooks[0].command==='$mnemo hook claude-code' && d.hooks.SessionEnd[0].hooks[0].command==='$mnemo hook claude-code'" "claude hooks"
grep -q '"N": 1.50' ../.mcp.json || fail "other server's bytes kept (1.50)"
cp ../.mcp.json "$tmp/mcp.once"
cp ../.claude/settings.json "$tmp/settings.once"
out=$("$MNEMO" setup claude-code)
same ../.mcp.json "$tmp/mcp.once" "second setup changes .mcp.json"
same ../.claude/settings.json "$tmp/settings.once" "second setup changes settings.json"
[ "$(echo "$out" | grep -c '^unchanged')" = 2 ] || fail "second run says unchanged: $out"
"$MNEMO" setup claude-code --remove >/dev/null
same ../.mcp.json "$tmp/mcp.orig" "remove restores .mcp.json"
same ../.claude/settings.json "$tmp/settings.orig" "remove restores settings.json"
out=$("$MNEMO" setup claude-code --remove)
echo "$out" | grep -q "^absent" || fail "remove twice: nothing to remove: $out"

# a hook the user put in our group stays; only our hook goes
"$MNEMO" setup claude-code >/dev/null
node -e "const f='../.claude/settings.json',fs=require('fs');let d=JSON.parse(fs.readFileSync(f));d.hooks.UserPromptSubmit[0].hooks.push({type:'command',command:'./mine.sh'});fs.writeFileSync(f,JSON.stringify(d,null,2))"
"$MNEMO" setup claude-code --remove >/dev/null
js ../.claude/settings.json "d.hooks.UserPromptSubmit.length===1 && d.hooks.UserPromptSubmit[0].hooks.length===1 && d.hooks.UserPromptSubmit[0].hooks[0].command==='./mine.sh' && d.hooks.PreToolUse.length===1" "remove keeps the user's hook in our group"
cp "$tmp/settings.orig" ../.claude/settings.json

# files that did not exist are created, and deleted by --remove
rm ../.mcp.json
rm -r ../.claude
"$MNEMO" setup claude-code >/dev/null
[ -f ../.mcp.json ] && [ -f ../.claude/settings.json ] || fail "setup creates the files"
"$MNEMO" setup claude-code --remove >/dev/null
[ ! -e ../.mcp.json ] && [ ! -e ../.claude ] || fail "remove deletes the files setup created"

# a created file someone added to since: kept, only mnemo's entry goes
"$MNEMO" setup cursor >/dev/null
node -e "const f='../.cursor/mcp.json',fs=require('fs');let d=JSON.parse(fs.readFileSync(f));d.mcpServers.x={command:'x'};fs.writeFileSync(f,JSON.stringify(d,null,2))"
"$MNEMO" setup cursor --remove >/dev/null
js ../.cursor/mcp.json "d.mcpServers.x.command==='x' && !d.mcpServers.mnemo" "remove keeps a file with other content"
rm -r ../.cursor

# --- invalid JSON: one error, nothing written anywhere ---
printf '{\n  "mcpServers": {\n    "a": 1,,\n  }\n}\n' >../.mcp.json
cp ../.mcp.json "$tmp/bad.orig"
set +e
err=$("$MNEMO" setup claude-code 2>&1 >/dev/null)
rc=$?
set -e
[ "$rc" != 0 ] || fail "invalid JSON: setup fails"
[ "$(echo "$err" | wc -l)" = 1 ] && echo "$err" | grep -q "mcp.json.*line 3" || fail "one clear error: $err"
same ../.mcp.json "$tmp/bad.orig" "invalid JSON left untouched"
[ ! -e ../.claude ] || fail "invalid .mcp.json: settings.json not written either"
rm ../.mcp.json

# --- Cursor and VS Code: JSONC with comments, workspace variable ---
mkdir -p ../.vscode
cat >../.vscode/mcp.json <<'EOF'
{
	// my servers
	"servers": {
		"gh": { "type": "http", "url": "https://api.example/mcp" }, /* keep */
	},
	"inputs": []
}
EOF
cp ../.vscode/mcp.json "$tmp/vscode.orig"
"$MNEMO" setup vscode >/dev/null
grep -q '// my servers' ../.vscode/mcp.json && grep -q '/\* keep \*/' ../.vscode/mcp.json || fail "vscode comments kept"
grep -q "\"MNEMO_DB\": \"\${workspaceFolder}/.mnemo/mnemo.db\"" ../.vscode/mcp.json || fail "vscode server gets the workspace store"
grep -q '^		"mnemo": {$' ../.vscode/mcp.json || fail "vscode entry indented with the file's tabs"
"$MNEMO" setup vscode --remove >/dev/null
same ../.vscode/mcp.json "$tmp/vscode.orig" "vscode remove restores the JSONC file"

"$MNEMO" setup cursor >/dev/null
js ../.cursor/mcp.json "d.mcpServers.mnemo.command==='$mnemo' && d.mcpServers.mnemo.env.MNEMO_DB.startsWith('\${workspaceFolder}')" "cursor project file"
"$MNEMO" setup cursor --global >/dev/null
js "$HOME/.cursor/mcp.json" "d.mcpServers.mnemo.args[0]==='mcp'" "cursor global file"
"$MNEMO" setup vscode --global >/dev/null
js "$XDG_CONFIG_HOME/Code/User/mcp.json" "d.servers.mnemo.type==='stdio'" "vscode user profile file"

# --- an entry of ours with the user's env: only MNEMO_DB in it is ours ---
printf '{"mcpServers": {"mnemo": {"command": "/old/mnemo", "args": ["mcp"], "env": {"MNEMO_LOG": "info", "OPENAI_KEY": "sk-1"}}}}\n' >../.cursor/mcp.json
"$MNEMO" setup cursor >/dev/null
js ../.cursor/mcp.json "d.mcpServers.mnemo.command==='$mnemo' && d.mcpServers.mnemo.env.MNEMO_LOG==='info' && d.mcpServers.mnemo.env.OPENAI_KEY==='sk-1' && d.mcpServers.mnemo.env.MNEMO_DB.startsWith('\${workspaceFolder}')" "cursor: the user's env kept, MNEMO_DB set"
# a comment about the next server stays; an empty servers object that was there stays
cat >../.cursor/mcp.json <<'EOF'
{
  "mcpServers": {
    "mnemo": { "command": "m" },
    // my other server
    "x": { "command": "x" }
  }
}
EOF
"$MNEMO" setup cursor --remove >/dev/null
printf '{\n  "mcpServers": {\n    // my other server\n    "x": { "command": "x" }\n  }\n}\n' >"$tmp/cursor.want"
same ../.cursor/mcp.json "$tmp/cursor.want" "cursor remove keeps the comment before the next server"
printf '{"mcpServers": {}}\n' >../.cursor/mcp.json
cp ../.cursor/mcp.json "$tmp/cursor.empty"
"$MNEMO" setup cursor >/dev/null
"$MNEMO" setup cursor --remove >/dev/null
same ../.cursor/mcp.json "$tmp/cursor.empty" "cursor remove keeps the user's empty mcpServers"

# --- Claude Code user scope: ~/.claude.json keeps everything else ---
printf '{"numStartups": 12, "projects": {"/x": {"mcpServers": {}}}, "mcpServers": {"keep": {"command": "k"}}}' >"$HOME/.claude.json"
chmod 600 "$HOME/.claude.json"
cp "$HOME/.claude.json" "$tmp/claudejson.orig"
"$MNEMO" setup claude-code --global >/dev/null
js "$HOME/.claude.json" "d.numStartups===12 && d.mcpServers.keep.command==='k' && d.mcpServers.mnemo.command==='$mnemo'" "claude user scope"
js "$HOME/.claude/settings.json" "d.hooks.UserPromptSubmit[0].hooks[0].command==='$mnemo hook claude-code'" "claude user hooks"
[ "$(stat -c %a "$HOME/.claude.json")" = 600 ] || fail "~/.claude.json keeps its mode"
"$MNEMO" setup claude-code --global --remove >/dev/null
same "$HOME/.claude.json" "$tmp/claudejson.orig" "claude user scope restored"
[ ! -e "$HOME/.claude/settings.json" ] || fail "created user settings removed"

# --- Codex: TOML with other tables and comments ---
mkdir -p "$HOME/.codex"
cat >"$HOME/.codex/config.toml" <<'EOF'
# Codex settings
model = "gpt-5"   # default model

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[profiles.fast]
model = "o4-mini"
notes = """
[mcp_servers.mnemo] inside a string is not a table
"""
EOF
cp "$HOME/.codex/config.toml" "$tmp/codex.orig"
"$MNEMO" setup codex --global >/dev/null
head -c "$(stat -c %s "$tmp/codex.orig")" "$HOME/.codex/config.toml" | cmp -s - "$tmp/codex.orig" || fail "codex: the rest of the file kept"
tail -3 "$HOME/.codex/config.toml" | grep -qx "command = \"$mnemo\"" || fail "codex table written"
[ "$(grep -cx '\[mcp_servers.mnemo\]' "$HOME/.codex/config.toml")" = 1 ] || fail "codex: one table"
cp "$HOME/.codex/config.toml" "$tmp/codex.once"
"$MNEMO" setup codex --global >/dev/null
same "$HOME/.codex/config.toml" "$tmp/codex.once" "codex second setup"
"$MNEMO" setup codex --global --remove >/dev/null
same "$HOME/.codex/config.toml" "$tmp/codex.orig" "codex remove restores"
# our table with the user's keys and comments: setup updates only command
# and args; --remove refuses rather than lose them
cat >"$HOME/.codex/config.toml" <<'EOF'
[mcp_servers.mnemo]
# give indexing time
command = "/old/mnemo"
args = ["mcp"]
startup_timeout_sec = 60
env = { MNEMO_LOG = "info" }

[tools]
x = 1
EOF
sed "s|/old/mnemo|$mnemo|" "$HOME/.codex/config.toml" >"$tmp/codex.want"
"$MNEMO" setup codex --global >/dev/null
same "$HOME/.codex/config.toml" "$tmp/codex.want" "codex: the user's lines in our table kept"
"$MNEMO" setup codex --global --remove >/dev/null 2>&1 && fail "codex: remove of a table holding the user's lines refused"
same "$HOME/.codex/config.toml" "$tmp/codex.want" "codex: refused remove leaves the file"
# a "[" starting a line inside a multi-line array is not a table header
cat >"$HOME/.codex/config.toml" <<'EOF'
[tools]
matrix = [
  ["mcp_servers.mnemo"],
]
EOF
cp "$HOME/.codex/config.toml" "$tmp/codex.arr"
"$MNEMO" setup codex --global >/dev/null
head -c "$(stat -c %s "$tmp/codex.arr")" "$HOME/.codex/config.toml" | cmp -s - "$tmp/codex.arr" || fail "codex: multi-line array kept"
[ "$(grep -cx '\[mcp_servers.mnemo\]' "$HOME/.codex/config.toml")" = 1 ] || fail "codex: table appended after the array"
"$MNEMO" setup codex --global --remove >/dev/null
same "$HOME/.codex/config.toml" "$tmp/codex.arr" "codex: remove after a multi-line array restores"
printf 'mcp_servers.mnemo.command = "x"\n' >"$tmp/proj/.codex-bad"
mkdir -p ../.codex && cp "$tmp/proj/.codex-bad" ../.codex/config.toml
"$MNEMO" setup codex >/dev/null 2>&1 && fail "codex: dotted-key definition refused"
same ../.codex/config.toml "$tmp/proj/.codex-bad" "codex refused file untouched"

# --- the command: "mnemo" when PATH finds this very binary ---
mkdir -p "$tmp/bin"
ln -s "$mnemo" "$tmp/bin/mnemo"
rm -rf ../.cursor
PATH=$tmp/bin:$PATH "$MNEMO" setup cursor >/dev/null
js ../.cursor/mcp.json "d.mcpServers.mnemo.command==='mnemo'" "PATH's mnemo is this one: plain name"
"$MNEMO" setup cursor >/dev/null # run from elsewhere: the entry is brought up to date
js ../.cursor/mcp.json "d.mcpServers.mnemo.command==='$mnemo'" "command updated to this binary"

# --- usage errors ---
"$MNEMO" setup nope >/dev/null 2>&1 && fail "unknown client refused"
"$MNEMO" setup >/dev/null 2>&1 && fail "no client refused"
"$MNEMO" setup cursor --bogus >/dev/null 2>&1 && fail "unknown option refused"

# --- a copy of mnemo named otherwise finds the hooks it wrote ---
mkdir -p "$tmp/other/bin" "$tmp/named"
cp "$MNEMO" "$tmp/other/bin/mnemo2"
(cd "$tmp/named" && git init -q &&
    for _ in 1 2 3; do "$tmp/other/bin/mnemo2" setup claude-code >/dev/null; done) || fail "setup by mnemo2"
n=$(grep -c 'hook claude-code' "$tmp/named/.claude/settings.json" || true)
[ "$n" = 5 ] || fail "three runs of mnemo2's setup left $n hooks, not 5"
(cd "$tmp/named" && "$tmp/other/bin/mnemo2" setup claude-code --remove >/dev/null) || fail "remove by mnemo2"
[ ! -e "$tmp/named/.claude/settings.json" ] || fail "mnemo2's --remove left its hooks: $(grep -c 'hook claude-code' "$tmp/named/.claude/settings.json")"

# --- a config that is a link to a dotfile stays a link ---
mkdir -p "$tmp/dotfiles" "$HOME/.cursor"
printf '{}\n' >"$tmp/dotfiles/cursor-mcp.json"
rm -f "$HOME/.cursor/mcp.json"
ln -s "$tmp/dotfiles/cursor-mcp.json" "$HOME/.cursor/mcp.json"
"$MNEMO" setup cursor --global >/dev/null || fail "setup through a link"
grep -q '"mnemo"' "$tmp/dotfiles/cursor-mcp.json" || fail "setup did not write through the link"
"$MNEMO" setup cursor --global --remove >/dev/null || fail "remove through a link"
[ -L "$HOME/.cursor/mcp.json" ] || fail "--remove deleted the user's link"
grep -q '"mnemo"' "$tmp/dotfiles/cursor-mcp.json" && fail "--remove left mnemo's entry in the link's target"

[ "$fails" = 0 ] && echo "cli_setup: all passed"
exit "$fails"
