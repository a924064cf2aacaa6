/*
 * url.c - what a remote's URL and token variable may be (remote.h): one
 * check for `mnemo remote add` and `mnemo setup --remote` alike.
 *
 * A bearer token must not cross a network in clear text, so http:// is
 * for a loopback host only; credentials in the URL would be stored (give
 * the variable instead); a $, quote or space would be expanded or split
 * by the clients setup writes for.
 */
#include "common.h"
#include <ctype.h>
#include <strings.h>

#include "remote/remote.h"
#include "text/scan.h"

/* localhost, 127.0.0.0/8 or [::1]: the host part of a URL, up to its port or path */
static bool host_is_loopback(const char *h, size_t n)
{
    if (n == 9 && !strncasecmp(h, "localhost", 9))
        return true;
    if (n == 5 && !memcmp(h, "[::1]", 5))
        return true;
    if (n < 4 || memcmp(h, "127.", 4) != 0)
        return false;
    return strspn(h, "0123456789.") >= n;
}

int mn_remote_url_check(const char *url, const char *var, bool *loopback)
{
    size_t n = strlen(url), skip;
    if (!strncmp(url, "https://", 8))
        skip = 8;
    else if (!strncmp(url, "http://", 7))
        skip = 7;
    else
        return mn_error_set(MN_EINVAL,
                            "remote URL '%.80s' must start with https:// (or http:// "
                            "for localhost)",
                            url);
    if (n > 2048)
        return mn_error_set(MN_EINVAL, "remote URL is longer than 2048 bytes");
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)url[i] <= ' ' || url[i] == 0x7f || url[i] == '"' || url[i] == '\\' ||
            url[i] == '$')
            return mn_error_set(MN_EINVAL,
                                "remote URL '%.80s' holds a space, quote, $ or control character "
                                "(clients would expand ${...})",
                                url);
    const char *host = url + skip;
    size_t hn = strcspn(host, "/?#");
    /* the URL is stored and shown (config, remote list, a client's config file a project
     * commits): no credentials in it, and the message does not repeat them */
    if (memchr(host, '@', hn))
        return mn_error_set(MN_EINVAL, "remote URL holds credentials (user@): give the token "
                                       "with --token-env VAR");
    const mn_scanner *sc = NULL;
    if (mn_scanner_builtin(&sc) == 0 && mn_scan_any(sc, url, n, MN_SCAN_SECRET))
        return mn_error_set(MN_EINVAL, "remote URL holds a secret (a token in its query, say): "
                                       "give the token with --token-env VAR");
    size_t name = host[0] == '[' ? strcspn(host, "]") + 1 : strcspn(host, ":/?#");
    if (name > hn || !name || (host[0] == '[' && host[name - 1] != ']'))
        return mn_error_set(MN_EINVAL, "remote URL '%.80s' names no host", url);
    *loopback = host_is_loopback(host, name);
    if (skip == 7 && !*loopback)
        return mn_error_set(MN_EINVAL,
                            "remote URL '%.80s' must use https:// (http:// only for "
                            "localhost, 127.0.0.1 or [::1])",
                            url);
    if (var) {
        if (!*var || strlen(var) > 128 || isdigit((unsigned char)var[0]) ||
            strspn(var, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") !=
                strlen(var))
            return mn_error_set(MN_EINVAL,
                                "--token-env '%.40s' is not an environment variable "
                                "name (letters, digits, _; not a digit first)",
                                var);
    } else if (!*loopback) {
        return mn_error_set(MN_EINVAL,
                            "remote URL '%.80s' is not on this machine: give "
                            "--token-env VAR, the variable holding its token",
                            url);
    }
    return 0;
}

int mn_remote_name_check(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > MN_REMOTE_NAME_MAX ||
        strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_-") != n)
        return mn_error_set(MN_EINVAL,
                            "remote name '%.40s' must be 1 to 32 of a-z, 0-9, _ and - "
                            "(such as team)",
                            name ? name : "");
    return 0;
}
