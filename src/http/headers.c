/*
 * headers.c - checks of the request headers that /mcp relies on.
 *
 * Origin and Host are the defence against DNS rebinding: a page of
 * evil.example whose name was made to resolve to 127.0.0.1 sends its own
 * origin (browsers send Origin with every POST and DELETE) and its own name
 * as Host, so refusing both unless they name a loopback host (or an origin
 * the user allowed) keeps web pages away from a server bound to localhost.
 * Accept and Content-Type follow RFC 9110 (media ranges, q values, no Accept
 * meaning anything). All of these are pure functions over the header text,
 * tested in tests/unit/http/test_headers.c.
 */
#include "common.h"
#include <strings.h>

#include "http/http_internal.h"

static const char *const loopback_names[] = {"localhost", "127.0.0.1", "[::1]"};

static bool is_loopback_name(const char *host)
{
    for (size_t i = 0; i < MN_ARRAY_SIZE(loopback_names); i++)
        if (strcasecmp(host, loopback_names[i]) == 0)
            return true;
    return false;
}

/* ":" and 1..5 digits, or nothing. */
static bool is_port_or_empty(const char *p)
{
    if (!*p)
        return true;
    if (*p++ != ':')
        return false;
    size_t n = strspn(p, "0123456789");
    return n >= 1 && n <= 5 && !p[n];
}

bool mn_http__host_part(char *out, size_t size, const char *hostport)
{
    size_t n;
    if (hostport[0] == '[') {
        const char *end = strchr(hostport, ']');
        if (!end)
            return false;
        n = (size_t)(end - hostport) + 1;
    } else {
        n = strcspn(hostport, ":");
    }
    if (n == 0 || n >= size || !is_port_or_empty(hostport + n))
        return false;
    memcpy(out, hostport, n);
    out[n] = '\0';
    return true;
}

bool mn_http__host_is_loopback(const char *host)
{
    char name[256];
    return mn_http__host_part(name, sizeof(name), host) && is_loopback_name(name);
}

bool mn_http__origin_allowed(const char *origin, const char *extra)
{
    const char *rest = NULL;
    char host[256];

    if (strncasecmp(origin, "http://", 7) == 0)
        rest = origin + 7;
    else if (strncasecmp(origin, "https://", 8) == 0)
        rest = origin + 8;
    if (rest && mn_http__host_part(host, sizeof(host), rest) && is_loopback_name(host))
        return true;
    for (const char *p = extra ? extra : ""; *p;) {
        size_t n = strcspn(p, ",");
        const char *item = p;
        size_t len = n;
        while (len && *item == ' ')
            item++, len--;
        while (len && (item[len - 1] == ' ' || item[len - 1] == '/'))
            len--;
        if (len && strlen(origin) == len && strncasecmp(origin, item, len) == 0)
            return true;
        p += n + (p[n] == ',');
    }
    return false;
}

/* Skip spaces and tabs (HTTP's optional white space). */
static const char *ows(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Length of [p, end) without trailing white space. */
static size_t trimmed(const char *p, const char *end)
{
    while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    return (size_t)(end - p);
}

static bool range_is(const char *p, size_t n, const char *what)
{
    return strlen(what) == n && strncasecmp(p, what, n) == 0;
}

/*
 * How specifically the range [p, p+n) names `type`/`sub`: 3 exactly,
 * 2 as type/x, 1 as x/x, 0 not at all (RFC 9110 12.5.1: the most specific
 * range sets the quality).
 */
static int specificity(const char *p, size_t n, const char *type, const char *exact)
{
    char star[64];
    if (range_is(p, n, exact))
        return 3;
    snprintf(star, sizeof(star), "%s/*", type);
    if (range_is(p, n, star))
        return 2;
    return range_is(p, n, "*/*") ? 1 : 0;
}

void mn_http__accept_parse(mn_http_accept *out, const char *accept)
{
    int json_spec = 0, sse_spec = 0;
    double json_q = 0, sse_q = 0;

    if (!accept || !*ows(accept)) {
        out->json = out->sse = true;
        out->prefer_sse = false;
        return;
    }
    for (const char *p = accept; *p;) {
        size_t n = strcspn(p, ",");
        const char *elem = ows(p), *end = p + n;
        const char *semi = memchr(elem, ';', (size_t)(end - elem));
        size_t tlen = trimmed(elem, semi ? semi : end);
        double q = 1;
        /* parameters: only q matters here */
        for (const char *a = semi; a && a < end;) {
            const char *param = ows(a + 1);
            const char *next = memchr(param, ';', (size_t)(end - param));
            if ((param[0] == 'q' || param[0] == 'Q') && param[1] == '=') {
                char num[16];
                size_t len = trimmed(param + 2, next ? next : end);
                char *stop;
                if (len < sizeof(num)) {
                    memcpy(num, param + 2, len);
                    num[len] = '\0';
                    q = strtod(num, &stop);
                    if (stop == num || *stop || q < 0 || q > 1)
                        q = 0; /* a malformed weight accepts nothing */
                } else {
                    q = 0;
                }
            }
            a = next;
        }
        int s = specificity(elem, tlen, "application", "application/json");
        if (s > json_spec || (s && s == json_spec && q > json_q))
            json_spec = s, json_q = q;
        s = specificity(elem, tlen, "text", "text/event-stream");
        if (s > sse_spec || (s && s == sse_spec && q > sse_q))
            sse_spec = s, sse_q = q;
        p += n + (p[n] == ',');
    }
    out->json = json_q > 0;
    out->sse = sse_q > 0;
    out->prefer_sse = sse_q > json_q;
}

bool mn_http__content_type_is_json(const char *ct)
{
    if (!ct)
        return false;
    const char *p = ows(ct);
    size_t n = strcspn(p, ";");
    if (!range_is(p, trimmed(p, p + n), "application/json"))
        return false;
    for (p += n; *p == ';';) {
        const char *param = ows(p + 1);
        size_t len = strcspn(param, ";");
        size_t plen = trimmed(param, param + len);
        if (plen >= 8 && strncasecmp(param, "charset=", 8) == 0) {
            const char *v = param + 8;
            size_t vlen = plen - 8;
            if (vlen >= 2 && v[0] == '"' && v[vlen - 1] == '"')
                v++, vlen -= 2;
            if (!range_is(v, vlen, "utf-8") && !range_is(v, vlen, "utf8"))
                return false;
        }
        p = param + len;
    }
    return true;
}

bool mn_http__session_id_valid(const char *id)
{
    size_t n = 0;
    for (; id[n]; n++)
        if ((unsigned char)id[n] < 0x21 || (unsigned char)id[n] > 0x7e ||
            n >= MN_HTTP_SESSION_ID_MAX)
            return false;
    return n > 0;
}
