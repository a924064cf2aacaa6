/*
 * ini.c - INI text read into JSON (ini.h says what comes out).
 *
 * One pass over the lines: each is a comment, a [section] header, a
 * continuation of the previous key (indented), or key = value / key: value;
 * anything else is skipped. Invariants: `sec` is always an object of the
 * root, the one values go into; `last_key` names the key a continuation
 * extends, and is cleared by a section header, so a continuation never
 * lands in another section.
 */
#include "common.h"

#include "util/buf.h"
#include "util/ini.h"
#include "util/util.h"

json_t *mn_ini_parse(const char *text, size_t len)
{
    json_t *root = json_object(), *sec = json_object();
    const char *s = text, *end = text + len;
    char *last_key = NULL;
    json_object_set_new(root, "", sec);
    /* a key or section jansson refuses would leave `sec` dangling: no such text is read */
    if (memchr(text, '\0', len) || !mn_utf8_valid(text, len))
        return root;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end, *p = s;
        s = nl ? nl + 1 : end;
        const char *e = le;
        while (e > p && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
            e--;
        bool indented = p < e && (*p == ' ' || *p == '\t');
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        if (p == e || *p == '#' || *p == ';')
            continue;
        if (indented && last_key) {
            json_t *old = json_object_get(sec, last_key);
            mn_buf b = MN_BUF_INIT;
            mn_buf_printf(&b, "%s%s%.*s", json_string_value(old),
                          json_string_length(old) ? "\n" : "", (int)(e - p), p);
            json_object_set_new(sec, last_key, json_string(b.ptr));
            mn_buf_release(&b);
            continue;
        }
        if (*p == '[') {
            const char *c = memchr(p, ']', (size_t)(e - p));
            if (!c)
                continue;
            char *name = mn_strndup(p + 1, (size_t)(c - p - 1));
            sec = json_object_get(root, name);
            if (!sec) {
                sec = json_object();
                json_object_set_new(root, name, sec);
            }
            free(name);
            free(last_key);
            last_key = NULL;
            continue;
        }
        const char *eq = p;
        while (eq < e && *eq != '=' && *eq != ':')
            eq++;
        if (eq == e || eq == p)
            continue;
        const char *ke = eq, *v = eq + 1;
        while (ke > p && (ke[-1] == ' ' || ke[-1] == '\t'))
            ke--;
        while (v < e && (*v == ' ' || *v == '\t'))
            v++;
        free(last_key);
        last_key = mn_strndup(p, (size_t)(ke - p));
        json_object_set_new(sec, last_key, json_stringn(v, (size_t)(e - v)));
    }
    free(last_key);
    return root;
}
