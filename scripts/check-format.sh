#!/usr/bin/env bash
# check-format.sh - check (or with --fix, apply) clang-format on our C sources.
#
# The files are the *.c and *.h under src/ include/ tests/ bench/ fuzz/ that
# git tracks or would track (untracked but not ignored); outside a git work
# tree, every such file found. The style is the repository's .clang-format.
# Prints one summary line; exits 1 listing the files that need formatting.
#   make check-format   = scripts/check-format.sh
#   make format         = scripts/check-format.sh --fix
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

fix=0
case ${1:-} in
--fix) fix=1 ;;
"") ;;
*)
    echo "usage: scripts/check-format.sh [--fix]" >&2
    exit 2
    ;;
esac

command -v clang-format >/dev/null 2>&1 || {
    echo "check-format: clang-format not found: run scripts/deps.sh" >&2
    exit 1
}

dirs=(src include tests bench fuzz)
files=()
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    while IFS= read -r -d '' f; do
        # --others lists files deleted from the work tree but still cached.
        [ -f "$f" ] && files+=("$f")
    done < <(git ls-files -z --cached --others --exclude-standard -- \
        "${dirs[@]/%//*.c}" "${dirs[@]/%//*.h}" | sort -zu)
else
    existing=()
    for d in "${dirs[@]}"; do
        [ -d "$d" ] && existing+=("$d")
    done
    if [ ${#existing[@]} -gt 0 ]; then
        while IFS= read -r -d '' f; do
            files+=("$f")
        done < <(find "${existing[@]}" -type f \( -name '*.c' -o -name '*.h' \) -print0 | sort -z)
    fi
fi

if [ ${#files[@]} -eq 0 ]; then
    echo "check-format: no C files"
    exit 0
fi

if [ $fix -eq 1 ]; then
    clang-format -i --style=file "${files[@]}"
    echo "check-format: formatted ${#files[@]} files"
    exit 0
fi

# One clang-format run; it reports each violation as "FILE:LINE:COL: error: ...".
if out=$(clang-format --dry-run --Werror --style=file "${files[@]}" 2>&1); then
    echo "check-format: ${#files[@]} files ok"
    exit 0
fi
bad=()
while IFS= read -r f; do
    bad+=("$f")
done < <(printf '%s\n' "$out" | sed -n 's/^\(.*\):[0-9][0-9]*:[0-9][0-9]*: error: .*/\1/p' | sort -u)
if [ ${#bad[@]} -eq 0 ]; then
    printf 'check-format: clang-format failed:\n%s\n' "$out" >&2
    exit 1
fi
echo "check-format: ${#bad[@]} of ${#files[@]} files need formatting (run make format):" >&2
printf '  %s\n' "${bad[@]}" >&2
exit 1
