/*
 * webhook.c - the signature check of a push webhook (POST /v1/ingest/git).
 *
 * GitHub signs each delivery: X-Hub-Signature-256 is "sha256=" and the
 * HMAC-SHA-256 of the raw body under the hook's secret, in hex. GitLab
 * sends the secret itself in X-Gitlab-Token (over TLS). Either is checked
 * against serve.webhook_secret in constant time (mn_equal_const_time): the
 * GitHub digest as 64 hex digits; the GitLab token through SHA-256 of both
 * sides, so that neither its length nor its first bytes show in the time a
 * refusal takes. When both headers come, GitHub's signature decides.
 *
 * Then the event: X-GitHub-Event push, X-Gitlab-Event "Push Hook" or "Tag
 * Push Hook" are pushes; GitHub's ping (sent when a hook is made) is
 * answered and nothing runs; any other event is acknowledged and ignored.
 * A delivery without an event header is refused: it came from no forge.
 * Pure (no I/O); rest.c runs what a push asks for.
 */
#include "common.h"
#include <ctype.h>
#include <strings.h>

#include "http/rest.h"
#include "util/digest.h"

#define SIG_PREFIX "sha256="

/* A GitHub signature header: "sha256=" and 64 hex digits, lower-cased into hex. */
static bool read_signature(char hex[MN_SHA256_HEX], const char *header)
{
    size_t plen = strlen(SIG_PREFIX);
    if (strncmp(header, SIG_PREFIX, plen) != 0 || strlen(header + plen) != 2 * MN_SHA256_LEN)
        return false;
    for (size_t i = 0; i < 2 * MN_SHA256_LEN; i++) {
        unsigned char c = (unsigned char)header[plen + i];
        if (!isxdigit(c))
            return false;
        hex[i] = (char)tolower(c);
    }
    hex[2 * MN_SHA256_LEN] = '\0';
    return true;
}

static int event_of(mn_webhook_event *event, const mn_webhook_headers *h, bool github)
{
    const char *name = github ? h->github_event : h->gitlab_event;
    if (!name || !*name)
        return mn_error_set(MN_EINVAL, "webhook delivery without an event header (%s)",
                            github ? "X-GitHub-Event" : "X-Gitlab-Event");
    if (github)
        *event = strcmp(name, "push") == 0   ? MN_WEBHOOK_PUSH
                 : strcmp(name, "ping") == 0 ? MN_WEBHOOK_PING
                                             : MN_WEBHOOK_IGNORED;
    else
        *event = strcasecmp(name, "Push Hook") == 0 || strcasecmp(name, "Tag Push Hook") == 0
                     ? MN_WEBHOOK_PUSH
                     : MN_WEBHOOK_IGNORED;
    return 0;
}

int mn_http__webhook_check(mn_webhook_event *event, const char *secret, size_t secret_len,
                           const mn_webhook_headers *h, const char *body, size_t len)
{
    *event = MN_WEBHOOK_IGNORED;
    if (!secret || !secret_len)
        return mn_error_set(MN_EAUTH, "no webhook secret is configured (serve.webhook_secret)");
    if (h->hub_signature) {
        uint8_t mac[MN_SHA256_LEN];
        char want[MN_SHA256_HEX], got[MN_SHA256_HEX];
        if (!read_signature(got, h->hub_signature))
            return mn_error_set(MN_EAUTH, "malformed X-Hub-Signature-256: expected sha256= and "
                                          "64 hex digits");
        mn_hmac_sha256(mac, secret, secret_len, body ? body : "", len);
        mn_hex(want, mac, MN_SHA256_LEN);
        if (!mn_equal_const_time(want, got, 2 * MN_SHA256_LEN))
            return mn_error_set(MN_EAUTH, "X-Hub-Signature-256 does not match the body under "
                                          "serve.webhook_secret; check the hook's secret");
        return event_of(event, h, true);
    }
    if (h->gitlab_token) {
        uint8_t want[MN_SHA256_LEN], got[MN_SHA256_LEN];
        mn_sha256(want, secret, secret_len);
        mn_sha256(got, h->gitlab_token, strlen(h->gitlab_token));
        if (!mn_equal_const_time(want, got, MN_SHA256_LEN))
            return mn_error_set(MN_EAUTH, "X-Gitlab-Token is not serve.webhook_secret; check the "
                                          "hook's secret token");
        return event_of(event, h, false);
    }
    return mn_error_set(MN_EAUTH, "unsigned webhook delivery: GitHub's X-Hub-Signature-256 or "
                                  "GitLab's X-Gitlab-Token is required");
}
