/*
 * config.c - the per-project configuration keys, their types and defaults.
 *
 * Only keys listed here can be set, and each value is checked when it is
 * set, so a typo is an error now rather than a silent default later.
 * Values are stored as text in the store's config table.
 *
 * Who may change what (cli_only): the settings that decide where the
 * project's text is sent (embed.url, embed.provider http), the key sent
 * with it (embed.key), who can reach the store (serve.*) and what an agent
 * may call (mcp.tools) change only from the mnemo command line
 * (MN_FRONT_LOCAL_CLI, set by src/cli/main.c alone). An agent told by a
 * poisoned file to point embed.url at a listener would otherwise have
 * every later save and search post memory text there. Reading is open to
 * every front end; a key is never shown.
 *
 * embed.key holds a reference, never the key: env:NAME or file:PATH, read
 * when the embedder is made (mn_embed_key_resolve). A literal key stored by
 * an older mnemo keeps working; list and get show it masked with a note
 * saying how to move it.
 */
#include "common.h"
#include <pwd.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "retrieve/embed.h"

typedef enum { KEY_INT, KEY_RATIO, KEY_BOOL, KEY_TEXT, KEY_DURATION } key_type;

static const struct config_key {
    const char *key;
    key_type type;
    const char *def;
    int64_t max; /* KEY_INT upper bound; KEY_TEXT max length */
    const char *description;
} keys[] = {
    {"capture.auto_approve", KEY_RATIO, "0.85", 0,
     "What the git, conversation and issue ingests find (ingest git, the post-commit hook, "
     "capture) is saved active at or above this confidence; below, it waits in the review queue "
     "(status pending). docs/internals/ingest.md says how candidates are scored."},
    {"context.tokenizer", KEY_TEXT, "o200k_base", 40,
     "The encoding context budgets are counted in: o200k_base or cl100k_base."},
    {"discovery.max_age", KEY_DURATION, "7d", 0,
     "Refresh the discovery facts at the next index when they are older than this "
     "(90m, 12h, 7d, 2w; 0: never by age)."},
    {"embed.batch", KEY_INT, "32", 2048, "Texts per request to the embeddings server (embed.url)."},
    {"embed.document_prefix", KEY_TEXT, "", 200,
     "Text put before each document sent to embed.url, for models trained with one "
     "(\"search_document: \" for nomic-embed-text)."},
    {"embed.key", KEY_TEXT, "", 4000,
     "Where the bearer token sent to embed.url is, never the token itself: env:NAME ($NAME) "
     "or file:PATH (a file only you can read, mode 0600), read when used. Command line only."},
    {"embed.model", KEY_TEXT, "", 200,
     "Embedding model asked of embed.url (nomic-embed-text, text-embedding-3-small); "
     "a new model re-embeds everything."},
    {"embed.provider", KEY_TEXT, "builtin", 16,
     "Semantic search: builtin (learned from this project's own text, nothing to download), "
     "http (an OpenAI-compatible server: embed.url, embed.model, embed.key) or off."},
    {"embed.query_prefix", KEY_TEXT, "", 200,
     "Text put before each query sent to embed.url (\"search_query: \" for nomic-embed-text)."},
    {"embed.retries", KEY_INT, "2", 10,
     "Attempts after the first when embed.url cannot be reached, is busy (429) or fails (5xx); "
     "each waits twice as long as the one before."},
    {"embed.timeout", KEY_DURATION, "30s", 0,
     "Longest wait for one request to embed.url (10s, 2m; 0: 30s)."},
    {"embed.url", KEY_TEXT, "", 2000,
     "Base URL of an OpenAI-compatible embeddings API, used when embed.provider is http "
     "(http://localhost:11434/v1 for Ollama); requests go to <url>/embeddings. Command line only."},
    {"hook.max_tokens", KEY_INT, "1800", 200000,
     "Token budget of the project memory `mnemo hook claude-code` adds to a prompt "
     "(0: add nothing)."},
    {"index.history", KEY_BOOL, "true", 0,
     "Read the repository's git history when indexing (the newest 5,000 commits' subjects and "
     "the files they changed), which ranks files for issues like past fixes; false: not read, "
     "and what was read is left out of rankings."},
    {"index.refresh_age", KEY_DURATION, "1m", 0,
     "Before answering context or recall, index again when the last index is older than "
     "this (30s, 5m; 0: only when nothing is indexed yet)."},
    {"mcp.tools", KEY_TEXT, "default", 2000,
     "Operations offered as MCP tools: default (context, recall, save, search, search_code, "
     "feedback, forget), all, or op names separated by commas. Command line only."},
    {"memory.body_cap", KEY_INT, "2000", 1000000,
     "Characters a memory's body may have (0: no cap). Over it a person's or an agent's save is "
     "refused; an automatic capture is cut at a sentence with a note. Episodes and document "
     "parts are not capped."},
    {"memory.dedup", KEY_BOOL, "true", 0,
     "Merge a save into the live memory that says the same: the same kind, title and body, or a "
     "near-duplicate by the verdict of docs/internals/neardup.md."},
    {"memory.excerpt_cap", KEY_INT, "32768", 1048576,
     "Bytes kept of a conversation excerpt (stored zlib-compressed)."},
    {"memory.gc.superseded_after", KEY_DURATION, "90d", 0,
     "`mnemo gc` archives a superseded memory this long after it was superseded (30d, 90d; "
     "0: never). Superseded memories are never served as current either way."},
    {"memory.review_threshold", KEY_RATIO, "0.5", 0,
     "Saves with a confidence below this wait in the review queue (status pending)."},
    /* memory.ttl.<kind>: lifecycle.c, docs/internals/memory.md "Life cycle" */
    {"memory.ttl.decision", KEY_DURATION, "0", 0,
     "A decision not saved, changed or served for this long expires: no longer served, archived by "
     "`mnemo gc` (90d, 52w; 0: never). A memory's own ttl (save --ttl) applies too."},
    {"memory.ttl.doc_link", KEY_DURATION, "0", 0,
     "Time to live of doc_link memories since last saved, changed or served (0: never)."},
    {"memory.ttl.episode", KEY_DURATION, "180d", 0,
     "Time to live of episodes (a session's turns) since last saved, changed or served: then "
     "they are no longer served and `mnemo gc` archives them (0: never)."},
    {"memory.ttl.fact", KEY_DURATION, "0", 0,
     "Time to live of facts since last saved, changed or served (0: never, the default)."},
    {"memory.ttl.fewshot", KEY_DURATION, "0", 0,
     "Time to live of fewshot examples since last saved, changed or served (0: never)."},
    {"memory.ttl.gotcha", KEY_DURATION, "0", 0,
     "Time to live of gotchas since last saved, changed or served (0: never)."},
    {"memory.ttl.pattern", KEY_DURATION, "0", 0,
     "Time to live of patterns since last saved, changed or served (0: never)."},
    {"memory.ttl.rule", KEY_DURATION, "0", 0,
     "Time to live of rules since last saved, changed or served (0: never)."},
    /* plan.*: the graph-first file plan (src/retrieve/plan.c, docs/internals/plan.md) */
    {"plan.candidate_cap", KEY_INT, "60", 1000,
     "Graph candidates a plan keeps at most, tiers A, B and C together (0: 60)."},
    {"plan.fail_open", KEY_BOOL, "true", 0,
     "When the graph-first plan fails, answer with the plain lexical plan (legacy_v0) and say "
     "why; false: the plan fails with the error."},
    {"plan.graph_first", KEY_BOOL, "true", 0,
     "`plan` (and the Claude Code hook of sub-agents) uses the graph-first pipeline; false: the "
     "plain lexical plan (legacy_v0), as --legacy asks."},
    {"plan.min_final_score", KEY_RATIO, "0.12", 0,
     "A plan's candidate without semantic evidence and a final score under this is dropped."},
    {"plan.semantic_cap", KEY_INT, "30", 200,
     "Graph candidates the semantic stage of a plan scores, the best first (0: 30)."},
    {"plan.semantic_weight", KEY_RATIO, "0", 0,
     "A plan's final score: (1 - this) x graph + this x semantic, for files with semantic "
     "evidence (0: the graph order alone; docs/internals/plan.md measures both)."},
    {"remote.timeout_ms", KEY_INT, "2000", 60000,
     "Longest wait, in ms, for each team server of `mnemo remote` when context asks it for "
     "memories (0: 2000); one that takes longer is left out of that answer with a note."},
    {"scan.pii", KEY_TEXT, "redact", 16,
     "Personal data (e-mail, phone, card, IBAN, national ids) in what is saved or indexed: "
     "redact (replaced by [REDACTED:<rule>]), quarantine (kept, the memory waits for review "
     "and is never served) or off. Secrets are always redacted (docs/internals/scan.md)."},
    /* serve.*: `mnemo serve` (src/http/); docs/http.md */
    {"serve.allowed_origins", KEY_TEXT, "", 4000,
     "Origins besides http(s)://localhost, 127.0.0.1 and [::1] (any port) whose browser pages may "
     "call /mcp, comma separated (https://app.example.com); others get 403."},
    {"serve.auth", KEY_TEXT, "local", 8,
     "Who `mnemo serve` answers without a token: local (a server bound to loopback serves this "
     "machine's user as the store's admin; a Bearer token is still honoured) or token (every "
     "request but /healthz needs `Authorization: Bearer` from `mnemo token create`). A server "
     "bound to any other address always demands a token (docs/http.md)."},
    {"serve.behind_proxy", KEY_BOOL, "false", 0,
     "true when `mnemo serve` on a non-loopback address sits behind a reverse proxy that "
     "terminates TLS: the warning about tokens crossing the network in clear text is not "
     "printed."},
    {"serve.host", KEY_TEXT, "127.0.0.1", 255,
     "Address `mnemo serve` listens on (--host overrides); anything but a loopback address "
     "exposes the store to the network. Command line only, as every serve.* key."},
    {"serve.max_connections_per_address", KEY_INT, "32", 512,
     "Connections one client address may hold open at once; more are closed as soon as they are "
     "accepted (0: 32). Behind a reverse proxy every client has its address: raise it, up to the "
     "server's 512 (docs/http.md)."},
    {"serve.max_sessions", KEY_INT, "100", 10000,
     "MCP sessions kept at once; a new one then ends the one idle longest (0: 100)."},
    {"serve.max_sessions_per_address", KEY_INT, "16", 10000,
     "MCP sessions one client address keeps; its next initialize ends its own session idle "
     "longest, never another address's (0: 16)."},
    {"serve.poll", KEY_DURATION, "0", 0,
     "How often `mnemo serve` fetches serve.repo into its own clone and indexes what changed "
     "(at least 30s; 10m, 1h; 0: only on the push webhook)."},
    {"serve.port", KEY_INT, "7077", 65535,
     "TCP port of `mnemo serve` (--port overrides; 0: any free port)."},
    {"serve.repo", KEY_TEXT, "", 2000,
     "The repository `mnemo serve` keeps its own clone of for this project, under its data "
     "directory: an https:// or file:// URL or an absolute path, without credentials; fetched on "
     "the push webhook and every serve.poll, its default branch indexed and its history ingested "
     "(empty: none; docs/http.md)."},
    {"serve.repo_max_mb", KEY_INT, "1024", 1048576,
     "Largest clone of serve.repo, in MB: a fetch that would pass it is stopped and the clone "
     "refused (0: 1024)."},
    {"serve.request_deadline", KEY_DURATION, "30s", 0,
     "Time a client has to send a whole request (headers and body) from when it connects or its "
     "previous reply ends; trickled bytes do not extend it. The answer may take longer "
     "(10s, 1m; 0: 30s)."},
    {"serve.session_idle", KEY_DURATION, "1h", 0,
     "An MCP session unused this long ends; its client must initialize again (30m, 1h; 0: 1h)."},
    {"serve.threads", KEY_INT, "8", 64,
     "Threads of `mnemo serve`, each with its own store connection (0: 8)."},
    {"serve.webhook_secret", KEY_TEXT, "", 4000,
     "Where the secret of the push webhook (POST /v1/ingest/git) is, never the secret itself: "
     "env:NAME or file:PATH (mode 0600), read when `mnemo serve` starts; empty: the webhook "
     "is off. The same secret goes into the GitHub or GitLab hook."},
    /* served.*: how long what was asked and answered is kept (op_search.c) */
    {"served.max_age", KEY_DURATION, "30d", 0,
     "Keep each question asked (context, recall, search, a hook's prompt) and what it was "
     "answered with this long, for feedback, and the audit rows of reads (7d, 30d; 0: no age "
     "limit)."},
    {"served.max_rows", KEY_INT, "10000", 100000000,
     "Keep at most this many of the newest questions and their answers, and of the audit "
     "rows of reads (0: no limit)."},
    {"user.name", KEY_TEXT, "", 200, "Author recorded on saves (default: $USER)."},
};

static const struct config_key *find_key(const char *key)
{
    for (size_t i = 0; i < MN_ARRAY_SIZE(keys); i++)
        if (strcmp(keys[i].key, key) == 0)
            return &keys[i];
    return NULL;
}

static int unknown_key(const char *key)
{
    mn_buf names = MN_BUF_INIT;
    for (size_t i = 0; i < MN_ARRAY_SIZE(keys); i++)
        mn_buf_printf(&names, "%s%s", i ? ", " : "", keys[i].key);
    mn_error_set(MN_EINVAL, "unknown config key '%.60s' (known: %s)", key, names.ptr);
    mn_buf_release(&names);
    return MN_EINVAL;
}

/* A duration: "0", or a whole number with s, m, h, d or w; in ms. */
static int parse_duration(int64_t *out, const char *key, const char *v)
{
    static const struct {
        char unit;
        int64_t ms;
    } units[] = {{'s', 1000}, {'m', 60000}, {'h', 3600000}, {'d', 86400000}, {'w', 604800000}};
    char *end;
    if (!strcmp(v, "0")) {
        *out = 0;
        return 0;
    }
    errno = 0;
    long long n = strtoll(v, &end, 10);
    for (size_t i = 0; i < MN_ARRAY_SIZE(units); i++)
        if (end != v && !errno && n > 0 && n <= 100000 && v[0] >= '0' && v[0] <= '9' &&
            end[0] == units[i].unit && !end[1]) {
            *out = n * units[i].ms;
            return 0;
        }
    return mn_error_set(MN_EINVAL,
                        "%s must be a duration such as 90m, 12h, 7d or 2w, or 0 "
                        "(got '%.40s')",
                        key, v);
}

int mn_api_tools_select(bool *selected, const char *spec)
{
    size_t n;
    const mn_op *ops = mn_api_ops(&n);
    bool all = strcmp(spec, "all") == 0, dflt = strcmp(spec, "default") == 0 || !*spec;
    for (size_t i = 0; i < n; i++)
        selected[i] = all || (dflt && (ops[i].flags & MN_OP_MCP_DEFAULT));
    if (all || dflt)
        return 0;
    /* a list of names: each must be an op, so a typo is refused when set rather than ignored */
    for (const char *p = spec; *p;) {
        size_t len;
        while (*p == ' ' || *p == ',')
            p++;
        len = strcspn(p, ", ");
        if (len) {
            size_t i;
            for (i = 0; i < n; i++)
                if (strlen(ops[i].name) == len && !strncmp(ops[i].name, p, len))
                    break;
            if (i == n)
                return mn_error_set(MN_EINVAL,
                                    "mcp.tools: no operation '%.*s' (give default, all, or op "
                                    "names separated by commas; 'mnemo call' lists them)",
                                    (int)(len > 60 ? 60 : len), p);
            selected[i] = true;
        }
        p += len;
    }
    return 0;
}

#define KEY_FORMS                                                                                \
    "env:NAME (read from $NAME when used) or file:PATH (a file only you can read, mode 0600 or " \
    "0400, read when used), e.g. 'mnemo config set embed.key env:OPENAI_API_KEY'"

/*
 * embed.key and serve.webhook_secret: empty, env:NAME or file:PATH (the
 * file is checked now as when used, so a mistake shows at once). Anything
 * else is refused, without repeating it: it may well be a key.
 */
static int check_key_ref(const char *what, const char *v)
{
    if (!*v)
        return 0;
    if (strncmp(v, "env:", 4) == 0) {
        const char *name = v + 4;
        bool ok = (*name >= 'A' && *name <= 'Z') || (*name >= 'a' && *name <= 'z') || *name == '_';
        for (const char *p = name; ok && *p; p++)
            ok = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
                 *p == '_';
        if (!ok)
            return mn_error_set(MN_EINVAL,
                                "%s: '%.80s' is no environment variable name (letters, "
                                "digits and _)",
                                what, name);
        return 0;
    }
    if (strncmp(v, "file:", 5) == 0) {
        char *key = NULL;
        int rc = mn_embed_key_resolve(&key, v);
        if (key) {
            memset(key, 0, strlen(key));
            free(key);
        }
        return rc;
    }
    return mn_error_set(MN_EINVAL,
                        "%s takes where the key is, never the key itself (not stored): " KEY_FORMS,
                        what);
}

/* A stored embed.key that is a key itself (set by an older mnemo), not a reference. */
static bool is_literal_key(const struct config_key *k, const char *v)
{
    return v && *v && strcmp(k->key, "embed.key") == 0 && strncmp(v, "env:", 4) != 0 &&
           strncmp(v, "file:", 5) != 0;
}

#define LITERAL_KEY_NOTE                                                                         \
    "embed.key holds the key itself, stored by an older mnemo; it still works, but keep it out " \
    "of the store: put it in a file only you can read, or an environment variable, then "        \
    "'mnemo config set embed.key file:PATH' (or env:NAME)"

/*
 * True for the settings only the mnemo command line may change (see the
 * top of this file): network destinations, keys, the server, the tools.
 * value is the new value (NULL for unset: back to a default that is safe).
 */
static bool cli_only(const struct config_key *k, const char *value)
{
    if (!strcmp(k->key, "embed.url") || !strcmp(k->key, "embed.key") ||
        !strcmp(k->key, "mcp.tools") || !strncmp(k->key, "serve.", 6))
        return true;
    return !strcmp(k->key, "embed.provider") && value && !strcmp(value, "http");
}

/* The text keys that have a shape (embed.provider, embed.url, embed.key, mcp.tools). */
static int check_text_shape(const char *key, const char *v)
{
    if (strcmp(key, "embed.provider") == 0 && strcmp(v, "builtin") != 0 && strcmp(v, "http") != 0 &&
        strcmp(v, "off") != 0)
        return mn_error_set(MN_EINVAL, "embed.provider must be builtin, http or off (got '%.40s')",
                            v);
    if (strcmp(key, "scan.pii") == 0 && strcmp(v, "redact") != 0 && strcmp(v, "quarantine") != 0 &&
        strcmp(v, "off") != 0)
        return mn_error_set(MN_EINVAL, "scan.pii must be redact, quarantine or off (got '%.40s')",
                            v);
    if (strcmp(key, "embed.url") == 0 && *v && strncmp(v, "http://", 7) != 0 &&
        strncmp(v, "https://", 8) != 0)
        return mn_error_set(MN_EINVAL,
                            "embed.url must start with http:// or https:// (got '%.80s')", v);
    if (strcmp(key, "mcp.tools") == 0) {
        size_t n;
        mn_api_ops(&n);
        bool *sel = mn_calloc(n, sizeof(bool));
        int rc = mn_api_tools_select(sel, v);
        free(sel);
        return rc;
    }
    if (strcmp(key, "embed.key") == 0 || strcmp(key, "serve.webhook_secret") == 0)
        return check_key_ref(key, v);
    return 0;
}

/* serve.host: one address or name; serve.allowed_origins: scheme://host[:port], comma separated. */
static int check_serve_text(const char *key, const char *v)
{
    if (strcmp(key, "serve.host") == 0 && (!*v || strcspn(v, " \t\r\n,/") != strlen(v)))
        return mn_error_set(MN_EINVAL,
                            "serve.host must be an address or host name such as 127.0.0.1 "
                            "(got '%.80s')",
                            v);
    if (strcmp(key, "serve.auth") == 0 && strcmp(v, "local") != 0 && strcmp(v, "token") != 0)
        return mn_error_set(MN_EINVAL, "serve.auth must be local or token (got '%.40s')", v);
    if (strcmp(key, "serve.repo") == 0 && *v) {
        /* a network destination the server reaches on its own: a plain https or file URL or an
         * absolute path; credentials would be stored and shown, so none in the URL */
        const char *rest = !strncmp(v, "https://", 8)  ? v + 8
                           : !strncmp(v, "file://", 7) ? v + 7
                           : *v == '/'                 ? v
                                                       : NULL;
        for (const char *c = v; rest && *c; c++)
            if ((unsigned char)*c <= ' ' || *c == 0x7f)
                rest = NULL;
        if (!rest || !*rest)
            return mn_error_set(MN_EINVAL,
                                "serve.repo must be an https:// or file:// URL or an absolute "
                                "path of a git repository (got '%.80s')",
                                v);
        size_t host_len = strcspn(rest, "/");
        if (rest != v && memchr(rest, '@', host_len))
            return mn_error_set(MN_EINVAL,
                                "serve.repo must not carry credentials (user@ or user:password@): "
                                "they would be stored and shown; give a URL the server can fetch "
                                "as it is");
    }
    if (strcmp(key, "serve.allowed_origins") == 0)
        for (const char *p = v; *p;) {
            size_t n = strcspn(p, ",");
            const char *item = p, *host = NULL;
            size_t len = n;
            while (len && *item == ' ')
                item++, len--;
            while (len && item[len - 1] == ' ')
                len--;
            if (len && item[len - 1] == '/') /* "https://a.example/" is the same origin */
                len--;
            if (len > 7 && strncmp(item, "http://", 7) == 0)
                host = item + 7;
            else if (len > 8 && strncmp(item, "https://", 8) == 0)
                host = item + 8;
            if (!host || memchr(host, '/', len - (size_t)(host - item)) || memchr(item, ' ', len))
                return mn_error_set(MN_EINVAL,
                                    "serve.allowed_origins must be origins such as "
                                    "https://app.example.com, comma separated (got '%.*s')",
                                    (int)(n > 80 ? 80 : n), p);
            p += n + (p[n] == ',');
        }
    return 0;
}

/*
 * What config shows of a secret value: never the value itself (config list
 * and get print it, and the audit log keeps every set). An "env:NAME" or
 * "file:PATH" reference is not a secret and shows as is; a key (stored by
 * an older mnemo) shows its last four characters when it is long enough
 * that they give nothing away.
 */
static bool is_secret(const struct config_key *k)
{
    return strcmp(k->key, "embed.key") == 0;
}

static char *shown_value(const struct config_key *k, const char *v)
{
    if (!v || !is_secret(k) || !*v || strncmp(v, "env:", 4) == 0 || strncmp(v, "file:", 5) == 0)
        return v ? mn_strdup(v) : NULL;
    size_t len = strlen(v);
    mn_buf b = MN_BUF_INIT;
    mn_buf_puts(&b, "****");
    if (len >= 16)
        mn_buf_puts(&b, v + len - 4);
    return mn_buf_detach(&b);
}

/*
 * A setting is stored and shown as it is (config list and get print it, the audit row keeps
 * it), so a text value holding a secret, or a URL carrying credentials, is refused rather than
 * redacted into a value that no longer works: a key belongs in the environment (embed.key
 * takes env:NAME or file:PATH, and shows only its last characters).
 */
static int check_not_secret(mn_ctx *ctx, const struct config_key *k, const char *v)
{
    const mn_scanner *sc = NULL;
    if (k->type != KEY_TEXT || is_secret(k))
        return 0;
    const char *scheme = strstr(v, "://");
    if (scheme) {
        const char *host = scheme + 3;
        if (memchr(host, '@', strcspn(host, "/?#")))
            return mn_error_set(MN_EINVAL,
                                "%s must not carry credentials (user@ or user:password@): a "
                                "setting is stored and shown as it is",
                                k->key);
    }
    int rc = mn_api__scanner(ctx, &sc);
    if (rc)
        return rc;
    mn_scan_hit *hits = NULL;
    size_t n = 0;
    if ((rc = mn_scan_find(&hits, &n, sc, v, strlen(v), MN_SCAN_SECRET)) == 0 && n)
        rc = mn_error_set(MN_EINVAL,
                          "%s would hold a secret (rule '%s'): a setting is stored and shown as "
                          "it is; keep the secret in the environment",
                          k->key, hits[0].rule);
    free(hits);
    return rc;
}

/* Check a value and return its canonical text form (malloc'd). */
static int check_value(char **out, const struct config_key *k, const char *v)
{
    int64_t i;
    double d;
    int rc = 0;
    switch (k->type) {
    case KEY_INT:
        if ((rc = mn_parse_int64(&i, v, 0, k->max, k->key)) == 0) {
            mn_buf b = MN_BUF_INIT;
            mn_buf_printf(&b, "%lld", (long long)i);
            *out = mn_buf_detach(&b);
        }
        return rc;
    case KEY_RATIO:
        if ((rc = mn_parse_double(&d, v, 0, 1, k->key)) == 0) {
            mn_buf b = MN_BUF_INIT;
            mn_buf_printf(&b, "%g", d);
            *out = mn_buf_detach(&b);
        }
        return rc;
    case KEY_BOOL:
        if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on") || !strcmp(v, "1"))
            *out = mn_strdup("true");
        else if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "off") || !strcmp(v, "0"))
            *out = mn_strdup("false");
        else
            return mn_error_set(MN_EINVAL, "%s must be true or false (got '%.40s')", k->key, v);
        return 0;
    case KEY_DURATION: {
        int64_t ms;
        if ((rc = parse_duration(&ms, k->key, v)) == 0 && strcmp(k->key, "serve.poll") == 0 &&
            ms > 0 && ms < 30000)
            return mn_error_set(MN_EINVAL,
                                "serve.poll must be 0 (off) or at least 30s: every poll "
                                "asks the remote (got '%.40s')",
                                v);
        if (rc == 0)
            *out = mn_strdup(v);
        return rc;
    }
    case KEY_TEXT:
        if ((int64_t)strlen(v) > k->max)
            return mn_error_set(MN_EINVAL, "%s is longer than %lld bytes", k->key,
                                (long long)k->max);
        if ((rc = check_text_shape(k->key, v)) != 0)
            return rc;
        if ((rc = check_serve_text(k->key, v)) != 0)
            return rc;
        *out = mn_strdup(v);
        return 0;
    }
    return MN_EINTERNAL;
}

void mn_api__config_changed(mn_ctx *ctx)
{
    json_decref(ctx->config_rows);
    ctx->config_rows = NULL;
}

/*
 * The effective value of a key: stored, else the default. Caller frees.
 * An operation reads a dozen to thirty settings (a search: the embedder's ten,
 * the nine memory.ttl.*, served.*, scan.pii...). Each was a statement of its
 * own, a round trip on PostgreSQL (20 of the 129 statements of a search there):
 * the project's rows are read in one and kept until the operation ends
 * (mn_api_call) or a setting is written (mn_api__config_changed).
 */
static int effective(mn_ctx *ctx, char **out, const struct config_key *k, bool *is_set)
{
    /* NULL on failure: a caller that frees *out must not free what it kept before */
    *out = NULL;
    if (!ctx->config_rows) {
        int rc = mn_store_config_all(ctx->store, &ctx->config_rows);
        if (rc) {
            ctx->config_rows = NULL;
            return rc;
        }
    }
    const char *v = json_string_value(json_object_get(ctx->config_rows, k->key));
    if (is_set)
        *is_set = v != NULL;
    *out = mn_strdup(v ? v : k->def);
    return 0;
}

int mn_api__settings(mn_ctx *ctx, const mn_memory_settings **out)
{
    if (!ctx->settings_loaded) {
        char *v;
        int rc;
        if ((rc = effective(ctx, &v, find_key("memory.excerpt_cap"), NULL)) != 0)
            return rc;
        ctx->settings.excerpt_cap = (size_t)strtoull(v, NULL, 10);
        free(v);
        if ((rc = effective(ctx, &v, find_key("memory.review_threshold"), NULL)) != 0)
            return rc;
        ctx->settings.review_threshold = strtod(v, NULL);
        free(v);
        if ((rc = effective(ctx, &v, find_key("memory.dedup"), NULL)) != 0)
            return rc;
        ctx->settings.dedup = strcmp(v, "true") == 0;
        free(v);
        if ((rc = effective(ctx, &v, find_key("memory.body_cap"), NULL)) != 0)
            return rc;
        ctx->settings.body_cap = (size_t)strtoull(v, NULL, 10);
        free(v);
        if ((rc = effective(ctx, &v, find_key("user.name"), NULL)) != 0)
            return rc;
        if (!*v) {
            free(v);
            const char *user = getenv("USER");
            /* getpwuid_r: a server's request threads load their settings at once, and
             * getpwuid's static record is shared (ThreadSanitizer caught two of them) */
            struct passwd pw, *res = NULL;
            char buf[4096];
            if (!(user && *user) && getpwuid_r(getuid(), &pw, buf, sizeof(buf), &res) == 0 && res)
                user = res->pw_name;
            v = mn_strdup(user ? user : "");
        }
        char *author = v;
        if ((rc = effective(ctx, &v, find_key("scan.pii"), NULL)) != 0) {
            free(author);
            return rc;
        }
        ctx->settings.redact = MN_SCAN_SECRET | (strcmp(v, "redact") == 0 ? MN_SCAN_PII : 0);
        ctx->settings.quarantine_pii = strcmp(v, "quarantine") == 0;
        free(v);
        if ((rc = mn_api__scanner(ctx, &ctx->settings.scanner)) != 0) {
            free(author);
            return rc;
        }
        /* the author every save gets by default is stored text like the rest: a user.name
         * (or $USER) holding a token is redacted as a given author is */
        if ((rc = mn_scan_redact_str(&author, ctx->settings.scanner, ctx->settings.redact)) != 0) {
            free(author);
            return rc;
        }
        free(ctx->author);
        ctx->author = author;
        mn_api__settings_author(ctx);
        ctx->settings.actor = ctx->actor;
        /* what reaches the store other than through the mnemo command (MCP, HTTP, hooks),
         * an agent saves, whatever provenance it claims */
        ctx->settings.agent = !ctx->local_cli;
        ctx->settings_loaded = true;
    }
    *out = &ctx->settings;
    return 0;
}

int mn_api__config_bool(mn_ctx *ctx, bool *out, const char *key)
{
    const struct config_key *k = find_key(key);
    char *v = NULL;
    MN_ASSERT_OR(k && k->type == KEY_BOOL, MN_EINTERNAL);
    int rc = effective(ctx, &v, k, NULL);
    if (rc == 0)
        *out = strcmp(v, "true") == 0;
    free(v);
    return rc;
}

int mn_api__config_number(mn_ctx *ctx, double *out, const char *key)
{
    const struct config_key *k = find_key(key);
    char *v = NULL;
    MN_ASSERT_OR(k && (k->type == KEY_INT || k->type == KEY_RATIO), MN_EINTERNAL);
    int rc = effective(ctx, &v, k, NULL);
    if (rc == 0)
        *out = strtod(v, NULL);
    free(v);
    return rc;
}

int mn_api__config_duration(mn_ctx *ctx, int64_t *out, const char *key)
{
    const struct config_key *k = find_key(key);
    char *v = NULL;
    MN_ASSERT_OR(k && k->type == KEY_DURATION, MN_EINTERNAL);
    int rc = effective(ctx, &v, k, NULL);
    if (rc == 0)
        rc = parse_duration(out, key, v);
    free(v);
    return rc;
}

int mn_api__served_limits(mn_ctx *ctx, int64_t *max_age_ms, int64_t *max_rows)
{
    char *v = NULL;
    int rc = mn_api__config_duration(ctx, max_age_ms, "served.max_age");
    if (rc == 0 && (rc = effective(ctx, &v, find_key("served.max_rows"), NULL)) == 0)
        rc = mn_parse_int64(max_rows, v, 0, INT64_MAX, "served.max_rows");
    free(v);
    return rc;
}

int mn_op_config(mn_ctx *ctx, const json_t *args, json_t **out)
{
    const char *action = json_string_value(json_object_get(args, "action"));
    const char *key = json_string_value(json_object_get(args, "key"));
    const char *value = json_string_value(json_object_get(args, "value"));
    const struct config_key *k = key ? find_key(key) : NULL;
    char *v = NULL;
    int rc = 0;

    if (strcmp(action, "list") == 0) {
        json_t *arr = json_array();
        for (size_t i = 0; i < MN_ARRAY_SIZE(keys) && rc == 0; i++) {
            bool is_set;
            if ((rc = effective(ctx, &v, &keys[i], &is_set)) == 0) {
                char *shown = shown_value(&keys[i], v);
                json_t *item = json_pack("{s:s,s:s,s:s,s:b,s:s}", "key", keys[i].key, "value",
                                         shown, "default", keys[i].def, "set", is_set,
                                         "description", keys[i].description);
                if (is_literal_key(&keys[i], v))
                    json_object_set_new(item, "note", json_string(LITERAL_KEY_NOTE));
                json_array_append_new(arr, item);
                free(shown);
            }
            free(v);
            v = NULL;
        }
        if (rc) {
            json_decref(arr);
            return rc;
        }
        *out = json_pack("{s:o}", "settings", arr);
        return 0;
    }
    if (!key)
        return mn_error_set(MN_EINVAL, "config %s needs a key", action);
    if (!k)
        return unknown_key(key);
    if (strcmp(action, "get") == 0) {
        if ((rc = effective(ctx, &v, k, NULL)) == 0) {
            char *shown = shown_value(k, v);
            *out = json_pack("{s:s,s:s}", "key", key, "value", shown);
            if (is_literal_key(k, v))
                json_object_set_new(*out, "note", json_string(LITERAL_KEY_NOTE));
            free(shown);
        }
        free(v);
        return rc;
    }
    if (strcmp(action, "set") == 0 && !value)
        return mn_error_set(MN_EINVAL, "config set %s needs a value", key);
    if (strcmp(action, "unset") == 0 && value)
        return mn_error_set(MN_EINVAL, "config unset takes no value");
    if (!ctx->local_cli && cli_only(k, value))
        return mn_error_set(MN_ERROR,
                            "%s can be changed only from the mnemo command line, by the user "
                            "('mnemo config %s %s%s'): it decides where the project's text is "
                            "sent, with which key, or who can reach the store",
                            key, action, key, value ? " VALUE" : "");
    if (value && (rc = check_value(&v, k, value)) != 0)
        return rc;
    if (v && (rc = check_not_secret(ctx, k, v)) != 0) {
        free(v);
        return rc;
    }
    char *shown = shown_value(k, v);
    if ((rc = mn_store_begin(ctx->store)) == 0) {
        json_t *detail = json_pack("{s:s,s:s?}", "key", key, "value", shown);
        rc = mn_store_config_set(ctx->store, key, v);
        if (rc == 0)
            rc = mn_store_audit(ctx->store, ctx->actor, "config", key, detail);
        json_decref(detail);
        if (rc == 0)
            rc = mn_store_commit(ctx->store);
        else
            mn_store_rollback(ctx->store);
    }
    mn_api__config_changed(ctx);
    if (rc == 0) {
        ctx->settings_loaded = false;
        ctx->lifecycle_loaded = false; /* memory.ttl.* (op_lifecycle.c) */
        /* scan.pii changes what answers are scrubbed of: load the scanner again */
        mn_scanner_free(ctx->scanner);
        ctx->scanner = NULL;
        ctx->scanner_used = NULL;
        *out = json_pack("{s:s,s:s?}", "key", key, "value", shown);
    }
    free(shown);
    free(v);
    return rc;
}

/*
 * The embedding settings (the embed.* keys) as mn_embed_options; the
 * strings are malloc'd (mn_embed_options_release). Declared in
 * api_internal.h.
 */
int mn_api__embed_options(mn_ctx *ctx, mn_embed_options *out)
{
    static const struct {
        const char *key;
        size_t offset;
    } texts[] = {
        {"embed.provider", offsetof(mn_embed_options, provider)},
        {"embed.url", offsetof(mn_embed_options, url)},
        {"embed.model", offsetof(mn_embed_options, model)},
        {"embed.key", offsetof(mn_embed_options, key)},
        {"embed.query_prefix", offsetof(mn_embed_options, query_prefix)},
        {"embed.document_prefix", offsetof(mn_embed_options, document_prefix)},
    };
    mn_embed_options o = MN_EMBED_OPTIONS_INIT;
    char *v = NULL;
    int64_t n;
    int rc = 0;
    for (size_t i = 0; i < MN_ARRAY_SIZE(texts) && rc == 0; i++)
        if ((rc = effective(ctx, &v, find_key(texts[i].key), NULL)) == 0) {
            *(char **)((char *)&o + texts[i].offset) = v;
            v = NULL; /* o owns it now */
        }
    if (rc == 0 && (rc = effective(ctx, &v, find_key("embed.batch"), NULL)) == 0 &&
        (rc = mn_parse_int64(&n, v, 0, 2048, "embed.batch")) == 0 && n > 0)
        o.batch = (size_t)n;
    free(v);
    v = NULL;
    if (rc == 0 && (rc = effective(ctx, &v, find_key("embed.retries"), NULL)) == 0 &&
        (rc = mn_parse_int64(&n, v, 0, 10, "embed.retries")) == 0)
        o.retries = (int)n;
    free(v);
    if (rc == 0 && (rc = mn_api__config_duration(ctx, &n, "embed.timeout")) == 0 && n > 0)
        o.timeout_ms = n;
    if (rc) {
        mn_embed_options_release(&o);
        return rc;
    }
    *out = o;
    return 0;
}
