/*
 * gen_memory.c - see gen_memory.h.
 */
#include "common.h"

#include "eval/gen_memory.h"

uint64_t gen_splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

size_t gen_pick(uint64_t *s, size_t n)
{
    return (size_t)(gen_splitmix(s) % n);
}

static const char *const words[] = {
    "the",      "a",         "when",        "after",      "before",   "because",    "request",
    "response", "handler",   "timeout",     "retry",      "cache",    "session",    "token",
    "expires",  "returns",   "fails",       "succeeds",   "database", "migration",  "schema",
    "index",    "query",     "transaction", "lock",       "deadlock", "connection", "pool",
    "thread",   "worker",    "queue",       "message",    "event",    "callback",   "promise",
    "future",   "buffer",    "stream",      "socket",     "header",   "payload",    "json",
    "parser",   "encoder",   "decoder",     "config",     "setting",  "default",    "value",
    "field",    "column",    "row",         "table",      "key",      "map",        "list",
    "array",    "string",    "integer",     "pointer",    "null",     "empty",      "missing",
    "invalid",  "stale",     "fresh",       "build",      "test",     "fixture",    "mock",
    "deploy",   "release",   "branch",      "commit",     "merge",    "rebase",     "review",
    "patch",    "function",  "method",      "class",      "module",   "package",    "import",
    "export",   "interface", "type",        "generic",    "trait",    "struct",     "error",
    "warning",  "panic",     "exception",   "stack",      "trace",    "log",        "metric",
    "alert",    "dashboard", "latency",     "throughput", "memory",   "leak",       "allocation",
    "garbage",  "collector", "heap",        "user",       "account",  "permission", "role",
    "admin",    "login",     "cart",        "checkout",   "payment",  "invoice",    "order",
    "shipping", "is",        "was",         "should",     "must",     "never",      "always",
    "only",     "also",      "then",        "so",         "but",      "not",        "set",
    "read",     "write",     "update",      "delete",     "create",   "call",       "wrap",
    "guard",    "check",     "validate",    "normalize",  "in",       "on",         "of",
    "to",       "for",       "with",        "and",        "or",       "if",         "unless",
    "until",    "while",
};

static const char *const idents[] = {
    "SessionStore", "refresh_token", "CartService", "parse_header", "max_retries",   "pool_size",
    "ETIMEDOUT",    "SQLITE_BUSY",   "UserRepo",    "OrderQueue",   "retry_backoff", "JWT",
    "utf8",         "null_pointer",  "race",        "flaky",        "migration_07",  "webhook",
    "idempotency",  "rate_limit",    "cursor",      "pagination",   "N+1",           "deadlock",
    "tz_offset",    "locale",        "csrf",        "cors",         "gzip",          "keepalive",
    "oom",          "segfault",      "mutex",       "goroutine",    "asyncio",       "borrowck",
    "lifetime",     "serde",         "protobuf",    "grpc",
};

static const char *const tags[] = {"auth",   "db",    "api",      "perf",  "security",
                                   "build",  "ci",    "frontend", "infra", "testing",
                                   "config", "cache", "payments", "queue", "logging"};

static const char *const dirs[] = {"src/api",   "src/auth",  "src/cart",    "src/db",
                                   "src/queue", "src/util",  "lib/payment", "lib/http",
                                   "web/app",   "web/views", "cmd/server",  "internal/store"};

static const char *const files[] = {"session", "handler", "client", "store",  "models",
                                    "routes",  "config",  "worker", "parser", "cache"};

static const char *const exts[] = {".c", ".py", ".go", ".ts", ".rs"};

static const char *const kinds[] = {"fact", "gotcha", "decision", "pattern"};

/* Words until the text reaches at least len bytes, as sentences. */
void gen_put_text(mn_buf *b, uint64_t *s, size_t len)
{
    size_t start = b->len, in_sentence = 0;
    while (b->len - start < len) {
        const char *w = words[gen_pick(s, MN_ARRAY_SIZE(words))];
        if (gen_pick(s, 9) == 0)
            w = idents[gen_pick(s, MN_ARRAY_SIZE(idents))];
        if (in_sentence == 0) {
            mn_buf_putc(b, (char)(w[0] >= 'a' && w[0] <= 'z' ? w[0] - 'a' + 'A' : w[0]));
            mn_buf_puts(b, w + 1);
        } else {
            mn_buf_putc(b, ' ');
            mn_buf_puts(b, w);
        }
        if (++in_sentence > 6 + gen_pick(s, 10)) {
            mn_buf_puts(b, ". ");
            in_sentence = 0;
        }
    }
    if (in_sentence)
        mn_buf_putc(b, '.');
}

/* Comma-separated, JSON-quoted strings (the generated text needs no escaping). */
static void put_json_str(mn_buf *b, const char *v)
{
    mn_buf_printf(b, "%s\"%s\"", b->len > 1 ? "," : "", v);
}

void memory_text_release(memory_text *m)
{
    mn_buf *bufs[] = {&m->title,    &m->body,     &m->situation,     &m->solution,  &m->session,
                      &m->paths[0], &m->paths[1], &m->keywords_json, &m->tags_json, &m->paths_json};
    for (size_t i = 0; i < MN_ARRAY_SIZE(bufs); i++)
        mn_buf_release(bufs[i]);
}

void memory_text_make(memory_text *m, size_t index)
{
    uint64_t s = GEN_SEED ^ ((uint64_t)index * 0xd1b54a32d192ed03ULL);
    memory_text_release(m);
    m->kind = kinds[gen_pick(&s, MN_ARRAY_SIZE(kinds))];
    gen_put_text(&m->title, &s, 30 + gen_pick(&s, 50));
    mn_buf_truncate(&m->title, m->title.len > 120 ? 120 : m->title.len);
    gen_put_text(&m->body, &s, 200 + gen_pick(&s, 400));
    mn_buf_truncate(&m->body, m->body.len > 600 ? 600 : m->body.len);
    gen_put_text(&m->situation, &s, 60 + gen_pick(&s, 100));
    gen_put_text(&m->solution, &s, 60 + gen_pick(&s, 140));
    mn_buf_printf(&m->session, "sess-%016llx", (unsigned long long)gen_splitmix(&s));

    m->nkeywords = 3 + gen_pick(&s, 4);
    mn_buf_putc(&m->keywords_json, '[');
    for (size_t i = 0; i < m->nkeywords; i++) {
        m->keywords[i] = gen_pick(&s, 2) ? idents[gen_pick(&s, MN_ARRAY_SIZE(idents))]
                                         : words[6 + gen_pick(&s, MN_ARRAY_SIZE(words) - 6)];
        put_json_str(&m->keywords_json, m->keywords[i]);
    }
    mn_buf_putc(&m->keywords_json, ']');

    m->ntags = 1 + gen_pick(&s, 3);
    size_t t0 = gen_pick(&s, MN_ARRAY_SIZE(tags));
    mn_buf_putc(&m->tags_json, '[');
    for (size_t i = 0; i < m->ntags; i++) {
        m->tags[i] = tags[(t0 + i * 4) % MN_ARRAY_SIZE(tags)]; /* distinct */
        put_json_str(&m->tags_json, m->tags[i]);
    }
    mn_buf_putc(&m->tags_json, ']');

    m->npaths = 1 + gen_pick(&s, 2);
    mn_buf_putc(&m->paths_json, '[');
    for (size_t i = 0; i < m->npaths; i++) {
        mn_buf_printf(&m->paths[i], "%s/%s%zu%s", dirs[gen_pick(&s, MN_ARRAY_SIZE(dirs))],
                      files[gen_pick(&s, MN_ARRAY_SIZE(files))], i,
                      exts[gen_pick(&s, MN_ARRAY_SIZE(exts))]);
        put_json_str(&m->paths_json, m->paths[i].ptr);
    }
    mn_buf_putc(&m->paths_json, ']');
}

json_t *memory_text_json(const memory_text *m)
{
    json_t *kw = json_array(), *tg = json_array(), *pa = json_array();
    for (size_t i = 0; i < m->nkeywords; i++)
        json_array_append_new(kw, json_string(m->keywords[i]));
    for (size_t i = 0; i < m->ntags; i++)
        json_array_append_new(tg, json_string(m->tags[i]));
    for (size_t i = 0; i < m->npaths; i++)
        json_array_append_new(pa, json_string(m->paths[i].ptr));
    return json_pack("{s:s,s:s,s:s,s:{s:s,s:s,s:o},s:{s:o,s:o},s:{s:s,s:s}}", "kind", m->kind,
                     "title", m->title.ptr, "body", m->body.ptr, "context", "situation",
                     m->situation.ptr, "solution", m->solution.ptr, "trigger_keywords", kw, "scope",
                     "tags", tg, "paths", pa, "provenance", "source", "agent", "session",
                     m->session.ptr);
}
