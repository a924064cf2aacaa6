#!/usr/bin/env bash
# cli_setup_remote.sh - `mnemo setup CLIENT --remote URL --token-env VAR`:
# the HTTP MCP entry each client documents (Claude Code's .mcp.json
# {"type":"http","url","headers":{"Authorization":"Bearer ${VAR}"}},
# Cursor's "${env:VAR}", Codex's url + bearer_token_env_var) is written
# exactly, next to other entries that keep their bytes; a second run changes
# nothing; no hooks; the token's value is in no file even while VAR is set;
# switching between stdio and remote leaves no key of the other kind;
# --remove gives back the original bytes; a bad URL or VAR, vscode, and a
# non-loopback URL without --token-env are refused with one line and
# nothing written.
set -euo pipefail
shopt -s lastpipe
: "${MNEMO:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config
unset MNEMO_DB CLAUDE_CONFIG_DIR CODEX_HOME
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
same() { cmp -s "$1" "$2" || { fail "$3"; diff "$1" "$2" | head -20 || true; }; }
# the JSON of a file equals the expected JSON (any spacing)
json_is() { node -e "const a=JSON.parse(require('fs').readFileSync('$1','utf8')), b=JSON.parse(process.argv[1]); if(JSON.stringify(a)!==JSON.stringify(b)){console.error(JSON.stringify(a)); process.exit(1)}" "$2" || fail "$3"; }

secret=mnemo_s3cr3t_value_never_written
export TEAM_TOKEN=$secret
url=https://mem.example.com:8443/mcp
no_secret() { ! grep -rq "$secret" "$tmp/proj" "$HOME" || fail "token value written to a file ($1)"; }

mkdir -p "$HOME" "$tmp/proj"
cd "$tmp/proj"
git init -q

# --- Claude Code: merged next to another server, exact entry, no hooks ---
cat >.mcp.json <<'EOF'
{
  "mcpServers": {
    "other": { "command": "npx", "args": ["-y", "other@1.2.3"], "env": { "N": 1.50 } }
  }
}
EOF
cp .mcp.json "$tmp/mcp.orig"
out=$("$MNEMO" setup claude-code --remote "$url" --token-env TEAM_TOKEN)
echo "$out" | grep -q "updated .*/proj/.mcp.json" || fail "setup says what it changed: $out"
echo "$out" | grep -q "connects to: $url with the token in \$TEAM_TOKEN" || fail "says where: $out"
json_is .mcp.json '{"mcpServers":{"other":{"command":"npx","args":["-y","other@1.2.3"],"env":{"N":1.5}},"mnemo":{"type":"http","url":"'"$url"'","headers":{"Authorization":"Bearer ${TEAM_TOKEN}"}}}}' "claude remote entry"
grep -q '"N": 1.50' .mcp.json || fail "other server's bytes kept (1.50)"
[ -e .claude/settings.json ] && fail "--remote writes no hooks"
no_secret claude
cp .mcp.json "$tmp/mcp.once"
out=$("$MNEMO" setup claude-code --remote "$url" --token-env TEAM_TOKEN)
same .mcp.json "$tmp/mcp.once" "second remote setup changes .mcp.json"
echo "$out" | grep -q '^unchanged' || fail "second run says unchanged: $out"

# another variable: our header updated, a header of the user's stays
node -e "const f='.mcp.json',fs=require('fs'),d=JSON.parse(fs.readFileSync(f,'utf8')); d.mcpServers.mnemo.headers['X-Team']='a'; fs.writeFileSync(f, JSON.stringify(d,null,2))"
"$MNEMO" setup claude-code --remote "$url" --token-env OTHER_TOKEN | grep '^updated' >/dev/null || fail "new variable updates"
json_is .mcp.json '{"mcpServers":{"other":{"command":"npx","args":["-y","other@1.2.3"],"env":{"N":1.5}},"mnemo":{"type":"http","url":"'"$url"'","headers":{"Authorization":"Bearer ${OTHER_TOKEN}","X-Team":"a"}}}}' "user's header kept, ours updated"
"$MNEMO" setup claude-code --remove >/dev/null
cp "$tmp/mcp.orig" .mcp.json

# stdio -> remote -> stdio: no key of the other kind stays
"$MNEMO" setup claude-code --remove >/dev/null
same .mcp.json "$tmp/mcp.orig" "remove gives back the original .mcp.json"
"$MNEMO" setup claude-code >/dev/null
"$MNEMO" setup claude-code --remote "$url" --token-env TEAM_TOKEN >/dev/null
json_is .mcp.json '{"mcpServers":{"other":{"command":"npx","args":["-y","other@1.2.3"],"env":{"N":1.5}},"mnemo":{"type":"http","url":"'"$url"'","headers":{"Authorization":"Bearer ${TEAM_TOKEN}"}}}}' "stdio entry replaced by the remote one"
# a loopback server without a token: our header goes
"$MNEMO" setup claude-code --remote http://127.0.0.1:7777/mcp >/dev/null ||
    fail "loopback http without --token-env allowed"
json_is .mcp.json '{"mcpServers":{"other":{"command":"npx","args":["-y","other@1.2.3"],"env":{"N":1.5}},"mnemo":{"type":"http","url":"http://127.0.0.1:7777/mcp"}}}' "loopback entry without header"
mnemo=$(readlink -f "$MNEMO")
"$MNEMO" setup claude-code >/dev/null
json_is .mcp.json '{"mcpServers":{"other":{"command":"npx","args":["-y","other@1.2.3"],"env":{"N":1.5}},"mnemo":{"type":"stdio","command":"'"$mnemo"'","args":["mcp"]}}}' "remote entry replaced by the stdio one"
"$MNEMO" setup claude-code --remove >/dev/null
same .mcp.json "$tmp/mcp.orig" "remove of a remote entry gives back the original"
rm -rf .claude

# a new file setup created is deleted by --remove
rm .mcp.json
"$MNEMO" setup claude-code --remote "$url" --token-env TEAM_TOKEN >/dev/null
"$MNEMO" setup claude-code --remove --remote "$url" --token-env TEAM_TOKEN | grep '^deleted' >/dev/null ||
    fail "remove deletes the file setup created"
[ -e .mcp.json ] && fail ".mcp.json still there"

# --- Cursor: ${env:VAR} ---
"$MNEMO" setup cursor --remote "$url" --token-env TEAM_TOKEN >/dev/null
json_is .cursor/mcp.json '{"mcpServers":{"mnemo":{"url":"'"$url"'","headers":{"Authorization":"Bearer ${env:TEAM_TOKEN}"}}}}' "cursor remote entry"
no_secret cursor
"$MNEMO" setup cursor --remove >/dev/null
[ -e .cursor ] && fail "cursor remove deletes what it created"

# --- Codex: url + bearer_token_env_var, next to another table ---
mkdir -p .codex
printf '# mine\n[mcp_servers.other]\ncommand = "x"\n' >.codex/config.toml
cp .codex/config.toml "$tmp/codex.orig"
"$MNEMO" setup codex >/dev/null
"$MNEMO" setup codex --remote "$url" --token-env TEAM_TOKEN >/dev/null
printf '# mine\n[mcp_servers.other]\ncommand = "x"\n\n[mcp_servers.mnemo]\nurl = "%s"\nbearer_token_env_var = "TEAM_TOKEN"\n' "$url" >"$tmp/codex.want"
same .codex/config.toml "$tmp/codex.want" "codex remote table (stdio keys gone)"
cp .codex/config.toml "$tmp/codex.once"
"$MNEMO" setup codex --remote "$url" --token-env TEAM_TOKEN >/dev/null
same .codex/config.toml "$tmp/codex.once" "second codex setup changes config.toml"
no_secret codex
"$MNEMO" setup codex --remove >/dev/null
same .codex/config.toml "$tmp/codex.orig" "codex remove gives back the original"

# --- refusals: one line on stderr, nothing written ---
rm -rf .codex .cursor .mcp.json .claude .vscode
refused() {
    local err
    if err=$("$MNEMO" setup "$@" 2>&1 >/dev/null); then
        fail "accepted: $*"
        return
    fi
    [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "one line for '$*': $err"
    printf '%s' "$err" | grep -q -- "$REASON" || fail "reason '$REASON' for '$*': $err"
    [ -z "$(ls -A | grep -v '^.git$')" ] || fail "nothing written for '$*': $(ls -A)"
}
REASON="https://" refused claude-code --remote http://mem.example.com/mcp --token-env TEAM_TOKEN
REASON="https://" refused claude-code --remote ftp://mem.example.com/ --token-env TEAM_TOKEN
REASON="https://" refused claude-code --remote http://127.0.0.1.evil.com/mcp --token-env TEAM_TOKEN
REASON="https://" refused claude-code --remote http://localhost.evil.com/ --token-env TEAM_TOKEN
REASON="--token-env" refused claude-code --remote "$url"
REASON="credentials" refused claude-code --remote "https://me:$secret@mem.example.com/" --token-env TEAM_TOKEN
REASON="no host" refused codex --remote https:///mcp --token-env TEAM_TOKEN
REASON="quote" refused cursor --remote 'https://mem.example.com/"x' --token-env TEAM_TOKEN
REASON="expand" refused claude-code --remote 'https://mem.example.com/${HOME}' --token-env TEAM_TOKEN
REASON="environment variable name" refused claude-code --remote "$url" --token-env 1TOKEN
REASON="environment variable name" refused claude-code --remote "$url" --token-env 'A}B'
REASON="environment variable name" refused claude-code --remote "$url" --token-env "$secret-x"
REASON="vscode" refused vscode --remote "$url" --token-env TEAM_TOKEN
REASON="--remote" refused claude-code --token-env TEAM_TOKEN
REASON="needs a value" refused claude-code --remote
no_secret refusals

[ "$fails" = 0 ] && echo "cli_setup_remote: all passed"
exit "$fails"
