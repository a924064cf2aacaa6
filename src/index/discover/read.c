/*
 * read.c - reading the files discovery looks at: manifests and config
 * files, from disk, bounded and safe, then parsed or scanned.
 *
 * A file is read only when the index lists it (so .gitignore, .mnemoignore,
 * the size cap and the symlink rule of the walk apply to it too), except a
 * few root manifests a scanner probes (dx_load with probe: package.json,
 * pyproject.toml, Cargo.toml, composer.json) because the walk skips files
 * over 1 MiB; their first MN_DISCOVER_READ_MAX bytes are read, which the
 * TOML reader can still use and the JSON parser cannot (then the file
 * counts as broken). At most MAX_READS files and MAX_READ_TOTAL bytes are
 * read per run. Symlinks are never followed (O_NOFOLLOW), only regular files
 * are read, and a file that is not UTF-8 or holds a NUL byte is skipped. JSON
 * goes through jansson, YAML through util/yaml.c, TOML and INI through the
 * lenient readers of util/toml.c and util/ini.c (a TOML syntax error keeps
 * what came before it); Makefiles, go.mod, Gemfiles, Gradle and XML files
 * are scanned as text by their scanners, with the line and tag helpers
 * here. A file that cannot be read or parsed is skipped and counted in
 * stats.broken, never an error.
 */
#include "common.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index/discover/discover_internal.h"
#include "util/ini.h"
#include "util/toml.h"
#include "util/util.h"
#include "util/yaml.h"

#define MAX_READS      400
#define MAX_READ_TOTAL ((size_t)24 << 20)

/*
 * Read up to MN_DISCOVER_READ_MAX bytes of root/rel into out: 0, or -1
 * when it is absent, not a regular file, a link, unreadable, over the
 * budget, or not UTF-8 text (those count as broken). *cut says the file
 * was longer than what was read.
 */
static int read_rel(dx_ctx *d, const char *rel, mn_buf *out, bool *cut)
{
    mn_buf path = MN_BUF_INIT;
    int fd, rc = -1;
    struct stat sb;
    *cut = false;
    mn_buf_clear(out);
    if (d->st->manifests >= MAX_READS || d->read_total >= MAX_READ_TOTAL)
        return -1;
    mn_buf_printf(&path, "%s/%s", d->root, rel);
    fd = open(path.ptr, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    mn_buf_release(&path);
    if (fd < 0)
        return -1;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        goto out;
    d->st->manifests++;
    size_t want =
        (size_t)sb.st_size < MN_DISCOVER_READ_MAX ? (size_t)sb.st_size : MN_DISCOVER_READ_MAX;
    mn_buf_grow(out, want + 1);
    while (out->len < want) {
        ssize_t n = read(fd, out->ptr + out->len, want - out->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        out->len += (size_t)n;
    }
    out->ptr[out->len] = '\0';
    d->read_total += out->len;
    *cut = (size_t)sb.st_size > out->len;
    if (*cut) {
        /* drop a code point the cap cut in two */
        size_t i = out->len, back = 0;
        while (i > 0 && back < 4 && ((unsigned char)out->ptr[i - 1] & 0xC0) == 0x80)
            i--, back++;
        if (i > 0 && (unsigned char)out->ptr[i - 1] >= 0xC0) {
            unsigned char c = (unsigned char)out->ptr[i - 1];
            size_t need = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
            if (back < need)
                out->len = i - 1;
        }
        out->ptr[out->len] = '\0';
    }
    /* a UTF-8 byte order mark says nothing */
    if (out->len >= 3 && !memcmp(out->ptr, "\xEF\xBB\xBF", 3)) {
        memmove(out->ptr, out->ptr + 3, out->len - 2);
        out->len -= 3;
    }
    if (!mn_utf8_valid(out->ptr, out->len)) {
        d->st->broken++;
        goto out;
    }
    rc = 0;
out:
    close(fd);
    if (rc)
        mn_buf_clear(out);
    return rc;
}

/* Read a file the index lists (or, with probe, one that exists on disk). */
static int read_known(dx_ctx *d, const char *rel, mn_buf *out, bool *cut, bool probe)
{
    if (!dx_have(d, rel) && !probe)
        return -1;
    return read_rel(d, rel, out, cut);
}

/* ---- loading manifests ---- */

json_t *dx_load(dx_ctx *d, const char *rel, dx_fmt f, bool probe)
{
    mn_buf b = MN_BUF_INIT;
    bool cut, broken = false;
    json_t *v = NULL;
    if (read_known(d, rel, &b, &cut, probe) != 0) {
        mn_buf_release(&b);
        return NULL;
    }
    if (memchr(b.ptr, '\0', b.len)) {
        broken = true;
    } else if (f == FMT_JSON) {
        json_error_t err;
        v = json_loadb(b.ptr, b.len, 0, &err);
        broken = !json_is_object(v);
        if (broken) {
            json_decref(v);
            v = NULL;
        }
    } else if (f == FMT_TOML) {
        /* lenient: on a syntax error, what came before it is used (and the file counts as broken)
         */
        broken = mn_toml_parse(&v, b.ptr, b.len) != 0;
        if (broken)
            mn_error_clear();
    } else if (f == FMT_INI) {
        v = mn_ini_parse(b.ptr, b.len);
    } else {
        json_t *docs = NULL;
        if (mn_yaml_parse_docs(&docs, b.ptr, b.len) == 0) {
            v = json_incref(json_array_get(docs, 0));
            json_decref(docs);
        } else {
            mn_error_clear();
        }
        broken = !json_is_object(v);
        if (broken) {
            json_decref(v);
            v = NULL;
        }
    }
    if (broken || cut)
        d->st->broken++;
    mn_buf_release(&b);
    return v;
}

bool dx_load_text(dx_ctx *d, const char *rel, mn_buf *out)
{
    bool cut;
    if (read_known(d, rel, out, &cut, false) != 0 || memchr(out->ptr, '\0', out->len)) {
        mn_buf_clear(out);
        return false;
    }
    if (cut)
        d->st->broken++;
    return true;
}

bool dx_next_line(const char **p, const char *end, const char **line, size_t *len)
{
    if (*p >= end)
        return false;
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    const char *le = nl ? nl : end;
    *line = *p;
    *len = (size_t)(le - *p);
    if (*len && (*line)[*len - 1] == '\r')
        (*len)--;
    *p = nl ? nl + 1 : end;
    return true;
}

/* ---- scanning text ---- */

char *dx_kwarg(const char *text, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = strstr(text, key); p; p = strstr(p + 1, key)) {
        if (p > text && (dx_name_char(p[-1]) || p[-1] == '.'))
            continue;
        const char *q = p + kl;
        while (*q == ' ')
            q++;
        if (*q != '=' || q[1] == '=')
            continue;
        q++;
        while (*q == ' ')
            q++;
        if (*q != '"' && *q != '\'')
            continue;
        const char *e = strchr(q + 1, *q);
        if (!e || memchr(q + 1, '\n', (size_t)(e - q - 1)))
            continue;
        return mn_strndup(q + 1, (size_t)(e - q - 1));
    }
    return NULL;
}

/* ---- XML (pom.xml, *.csproj): plain tag scanning ---- */

char *dx_xml_text(const char *s, const char *end, const char *tag)
{
    char open[64], close[64];
    snprintf(open, sizeof(open), "<%s>", tag);
    snprintf(close, sizeof(close), "</%s>", tag);
    const char *a = memmem(s, (size_t)(end - s), open, strlen(open));
    if (!a)
        return NULL;
    a += strlen(open);
    const char *b = memmem(a, (size_t)(end - a), close, strlen(close));
    if (!b)
        return NULL;
    while (a < b && (*a == ' ' || *a == '\n' || *a == '\r' || *a == '\t'))
        a++;
    while (b > a && (b[-1] == ' ' || b[-1] == '\n' || b[-1] == '\r' || b[-1] == '\t'))
        b--;
    return b > a && !memchr(a, '<', (size_t)(b - a)) ? mn_strndup(a, (size_t)(b - a)) : NULL;
}

void dx_xml_blank(char *s, const char *tag)
{
    char open[64], close[64];
    snprintf(open, sizeof(open), "<%s>", tag);
    snprintf(close, sizeof(close), "</%s>", tag);
    for (char *a = strstr(s, open); a; a = strstr(a, open)) {
        char *b = strstr(a, close);
        if (!b)
            break;
        memset(a, ' ', (size_t)(b + strlen(close) - a));
    }
}

json_t *dx_xml_all(const char *s, const char *end, const char *tag)
{
    json_t *out = json_array();
    char open[64];
    snprintf(open, sizeof(open), "<%s>", tag);
    for (const char *a = memmem(s, (size_t)(end - s), open, strlen(open)); a;
         a = memmem(a + 1, (size_t)(end - a - 1), open, strlen(open))) {
        char *v = dx_xml_text(a, end, tag);
        if (v)
            dx_add_unique(out, v);
        free(v);
    }
    return out;
}

char *dx_xml_attr(const char *at, const char *attr)
{
    const char *gt = strchr(at, '>');
    char pat[64];
    snprintf(pat, sizeof(pat), "%s=\"", attr);
    const char *a = strstr(at, pat);
    if (!a || (gt && a > gt))
        return NULL;
    a += strlen(pat);
    const char *b = strchr(a, '"');
    return b ? mn_strndup(a, (size_t)(b - a)) : NULL;
}
