#!/usr/bin/env bash
# build_banned.sh - src/banned.h turns each banned function into a compile
# error, and the allowed replacements still compile.
set -euo pipefail
# a check on the right of a pipe (cmd | js ...) runs in this shell, so that its fail counts
shopt -s lastpipe
src=${MNEMO_SOURCE_DIR:?}
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
compile() { # compile CODE: 0 when a file including common.h with CODE compiles
    printf '#include "common.h"\nvoid f(char *a, const char *b);\nvoid f(char *a, const char *b)\n{\n%s\n}\n' "$1" >"$tmp/t.c"
    "$cc" -std=c11 -Werror -fsyntax-only -I"$src/src" -I"$src/include" "$tmp/t.c" 2>"$tmp/err"
}
fails=0
for code in 'strcpy(a, b);' 'strcat(a, b);' 'strncpy(a, b, 1);' 'strncat(a, b, 1);' \
    'sprintf(a, "%s", b);' 'a[0] = (char)atoi(b);' 'a[0] = (char)atol(b);' \
    'a[0] = (char)atof(b);' 'strtok(a, b);' 'struct tm *t = gmtime(0); (void)t;' \
    'struct tm *t = localtime(0); (void)t;'; do
    if compile "$code"; then
        echo "banned code compiled: $code"
        fails=$((fails + 1))
    elif ! grep -q "is_banned_in_mnemo" "$tmp/err"; then
        echo "banned code failed for another reason: $code"
        cat "$tmp/err"
        fails=$((fails + 1))
    fi
done
for code in 'snprintf(a, 4, "%s", b);' 'char *s = NULL; (void)strtok_r(a, b, &s);' \
    'memcpy(a, b, 1);'; do
    compile "$code" || {
        echo "allowed code did not compile: $code"
        cat "$tmp/err"
        fails=$((fails + 1))
    }
done
[ "$fails" -eq 0 ] || exit 1
echo "banned.h: 11 banned calls refused, 3 allowed ones compile"
