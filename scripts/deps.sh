#!/usr/bin/env bash
# deps.sh - install what mnemo needs to build and test; run by `make deps`.
#
# Two kinds of dependency:
#   - Debian packages, listed in deps/debian.txt. One dpkg-query call finds
#     the missing ones (a package counts as present when an installed package
#     Provides it, e.g. NodeSource's nodejs provides npm); they are installed
#     with apt-get as root, through `sudo -n` otherwise, or the script stops
#     and prints the command to run.
#   - npm tarballs (tree-sitter runtime and grammars), pinned in deps/npm.lock
#     as "name version sha256". Each is fetched with `npm pack` (no install
#     scripts run), checked against its SHA-256, and unpacked into
#     $MNEMO_DEPS_DIR/npm/NAME@VERSION/ (default <repo>/.deps). A stamp file
#     .mnemo-sha256 in that directory, holding the hash, marks it complete;
#     cmake/treesitter.cmake checks the same stamp.
#   - npm test tools (the MCP client SDK and Inspector that test the MCP
#     server), pinned by tests/mcp/package.json + package-lock.json (exact
#     versions, integrity hashes). They are installed with `npm ci
#     --ignore-scripts` into $MNEMO_DEPS_DIR/node/node_modules; the stamp
#     $MNEMO_DEPS_DIR/node/.mnemo-sha256 holds the SHA-256 of package.json
#     followed by the lock, so editing either reinstalls. Never linked into
#     mnemo; tests/integration/mcp_*.sh find them there.
#
# Invariant: when everything is present the script prints nothing, touches no
# network and finishes in well under a second.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEPS_DIR=${MNEMO_DEPS_DIR:-$ROOT/.deps}
case $DEPS_DIR in
/*) ;;
*) DEPS_DIR=$PWD/$DEPS_DIR ;;
esac
cd "$ROOT"

say() { printf 'deps: %s\n' "$*"; }
die() {
    printf 'deps: error: %s\n' "$*" >&2
    exit 1
}

# Print the non-comment words of a manifest, one line per entry.
manifest() { sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' "$1" | grep -v '^$' || true; }

# --- Debian packages -------------------------------------------------------

debian_packages() {
    local wanted missing
    wanted=$(manifest deps/debian.txt)
    [ -n "$wanted" ] || return 0
    if ! command -v dpkg-query >/dev/null 2>&1; then
        say "dpkg-query not found (not Debian?): not checking deps/debian.txt"
        return 0
    fi
    # Installed package names plus the names they provide, then the wanted
    # names that are not among them.
    missing=$(
        dpkg-query -W -f='${db:Status-Abbrev}|${Package}|${Provides}\n' 2>/dev/null |
            awk -F'|' '
                NR == FNR { if ($1 ~ /^ii/) {
                        have[$2] = 1
                        n = split($3, p, ",")
                        for (i = 1; i <= n; i++) { sub(/^ +/, "", p[i]); sub(/[ (].*/, "", p[i]); have[p[i]] = 1 }
                    }
                    next }
                !($1 in have) { printf "%s ", $1 }' - <(printf '%s\n' "$wanted")
    )
    missing=${missing% }
    [ -n "$missing" ] || return 0

    local -a sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
            sudo=(sudo -n)
        else
            die "missing Debian packages: $missing; run: sudo apt-get update && sudo apt-get install -y --no-install-recommends $missing"
        fi
    fi
    say "installing Debian packages: $missing"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    # shellcheck disable=SC2086 # $missing is a list of package names
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
}

# --- npm tarballs ------------------------------------------------------------

# npm pack names the tarball after the package: @scope/name -> scope-name.
tarball_name() {
    local name=${1#@}
    printf '%s-%s.tgz' "${name//\//-}" "$2"
}

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

npm_package() {
    local name=$1 version=$2 sha=$3
    local dest=$DEPS_DIR/npm/$name@$version
    local stamp=$dest/.mnemo-sha256
    if [ -f "$stamp" ] && [ "$(<"$stamp")" = "$sha" ]; then
        return 0
    fi

    local cache=$DEPS_DIR/cache
    local tgz
    tgz=$cache/$(tarball_name "$name" "$version")
    mkdir -p "$cache"
    if [ ! -f "$tgz" ] || [ "$(sha256_of "$tgz")" != "$sha" ]; then
        command -v npm >/dev/null 2>&1 || die "npm not found: it is needed to fetch $name@$version (install Debian's npm or nodejs)"
        rm -f "$tgz"
        say "fetching $name@$version"
        # Run from the cache dir so no project package.json is involved.
        (cd "$cache" && npm pack "$name@$version" --pack-destination "$cache" \
            --ignore-scripts --loglevel=error >/dev/null) ||
            die "npm pack $name@$version failed (network? registry?)"
        [ -f "$tgz" ] || die "npm pack $name@$version did not produce '$tgz'"
        local got
        got=$(sha256_of "$tgz")
        if [ "$got" != "$sha" ]; then
            rm -f "$tgz"
            die "sha256 mismatch for $name@$version: deps/npm.lock says $sha, the registry served $got; tarball deleted"
        fi
    fi

    # Unpack next to the destination, then swap it in, so an interrupted run
    # never leaves a directory that looks complete.
    mkdir -p "$(dirname "$dest")"
    local tmp
    tmp=$(mktemp -d "$DEPS_DIR/npm/.unpack.XXXXXX")
    if ! tar -xzf "$tgz" -C "$tmp" --no-same-owner; then
        rm -rf "$tmp"
        die "cannot unpack '$tgz'"
    fi
    if [ ! -d "$tmp/package" ]; then
        rm -rf "$tmp"
        die "'$tgz' has no package/ directory"
    fi
    rm -rf "$dest"
    mv "$tmp/package" "$dest"
    rm -rf "$tmp"
    printf '%s\n' "$sha" >"$stamp"
    say "unpacked $name@$version into $dest"
}

npm_packages() {
    local name version sha extra
    while read -r name version sha extra; do
        if [ -z "$sha" ] || [ -n "$extra" ]; then
            die "deps/npm.lock: bad line for '$name' (want: name version sha256)"
        fi
        [[ $sha =~ ^[0-9a-f]{64}$ ]] || die "deps/npm.lock: '$sha' for $name is not a sha256"
        npm_package "$name" "$version" "$sha"
    done < <(manifest deps/npm.lock)
}

debian_packages
mkdir -p "$DEPS_DIR/npm"
# One run at a time per deps dir (make -j may start two).
exec 9>"$DEPS_DIR/.lock"
if command -v flock >/dev/null 2>&1; then
    flock 9
fi
# --- npm test tools (npm ci from a committed lock) --------------------------

node_tools() {
    local src=tests/mcp
    [ -f "$src/package-lock.json" ] || return 0
    local dest=$DEPS_DIR/node
    local stamp=$dest/.mnemo-sha256
    local sha
    sha=$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -d' ' -f1)
    if [ -f "$stamp" ] && [ "$(<"$stamp")" = "$sha" ] && [ -d "$dest/node_modules" ]; then
        return 0
    fi
    command -v npm >/dev/null 2>&1 || die "npm not found: it is needed for the MCP test tools in $src (install Debian's npm or nodejs)"
    say "installing the MCP test tools ($src/package-lock.json) into $dest"
    # Install next to the destination, then swap it in, so an interrupted run
    # never leaves a tree that looks complete. npm ci installs exactly the
    # lock (and fails if package.json disagrees with it); --ignore-scripts:
    # no package runs code at install time.
    local tmp
    tmp=$(mktemp -d "$DEPS_DIR/.node.XXXXXX")
    cp "$src/package.json" "$src/package-lock.json" "$tmp/"
    if ! (cd "$tmp" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null); then
        rm -rf "$tmp"
        die "npm ci of $src/package-lock.json failed (network? registry?)"
    fi
    printf '%s\n' "$sha" >"$tmp/.mnemo-sha256"
    rm -rf "$dest"
    mv "$tmp" "$dest"
    say "installed the MCP test tools into $dest"
}

npm_packages
node_tools
