/*
 * gen_memories.c - memories with every field set, as `mnemo export` writes
 * them, for the round-trip tests (cli_roundtrip.sh, slow_roundtrip.sh).
 *
 *   gen_memories N [SEED]      N memories as JSON Lines on stdout
 *
 * The output is a pure function of N and SEED (a splitmix64 stream), and
 * is written in the canonical shape of src/api/schemas/memory.json with the
 * keys in the order the store exports them (src/store/fields.c, then
 * citations and links), so an import followed by an export must give these
 * very bytes back.
 *
 * Every memory has every field of the schema, deleted_at excepted: every
 * third memory is live, so that live and forgotten memories both travel.
 * Ids are valid ULIDs (26 Crockford base32 characters, the first 0-7) whose
 * time part strictly increases, so they are unique and sorted as export
 * sorts them. Links point to other generated memories (earlier and later
 * ones, never the memory itself) and to file:, task:, symbol:, doc:,
 * commit:, url: and issue: references, each (kind, to) once per memory.
 *
 * Text is built to break YAML and JSON writers: YAML 1.1/1.2 keywords and
 * numbers ('yes', 'null', '0755', '2024-01-02'), indicators ('- x', ': y',
 * '#z', '&a', '*a', '!t', '|', '>'), quotes and backslashes, leading and
 * trailing spaces and blank lines, tabs, CR, control characters, NEL,
 * U+2028, BOM, non-breaking space, combining marks, right-to-left scripts,
 * emoji (ZWJ sequences and flags) and private-use characters (the YAML
 * emitter swaps emoji for private-use placeholders, so both in one value
 * must not collide). The first memories carry the limits: a body of
 * exactly 100,000 code points, a title of exactly 200 code points with
 * emoji, 32 tags and keywords, 64 citations and links, counters past 2^53,
 * times at the epoch, before it, on a leap day and in year 9999.
 */
#include "common.h"

#include <jansson.h>

#include "mnemo/format.h"
#include "util/util.h"

static uint64_t rng_state;

static uint64_t next(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static size_t below(size_t n)
{
    return n ? (size_t)(next() % n) : 0;
}

#define PICK(arr) (arr)[below(MN_ARRAY_SIZE(arr))]

static const char *const kinds[] = {"fact", "decision", "gotcha",  "pattern",
                                    "rule", "fewshot",  "episode", "doc_link"};
static const char *const levels[] = {"L0", "L1", "L2", "L3"};
static const char *const statuses[] = {"active", "pending", "quarantined", "superseded",
                                       "archived"};
static const char *const sources[] = {"manual", "agent",     "git",   "document",
                                      "issue",  "discovery", "import"};
static const char *const link_kinds[] = {"caused_by",   "supersedes",   "relates_to",
                                         "contradicts", "derived_from", "about"};

static const char *const words[] = {"store", "lock",    "commit", "rollback", "writer", "reader",
                                    "WAL",   "page",    "index",  "memory",   "save",   "export",
                                    "agent", "session", "retry",  "cart",     "delay",  "nil",
                                    "401",   "timeout", "fixed",  "BEGIN",    "schema", "yaml"};

/* Tokens that YAML or JSON writers get wrong; none is empty. */
static const char *const hostile[] = {
    "yes",
    "no",
    "on",
    "off",
    "y",
    "n",
    "True",
    "FALSE",
    "null",
    "Null",
    "~",
    "- x",
    ": y",
    "#z",
    "a #b",
    "a: b",
    "? q",
    "-",
    "---",
    "...",
    "|",
    ">",
    "|-",
    ">+",
    "'",
    "\"",
    "''",
    "\"\"",
    "`tick`",
    "@at",
    "!tag",
    "!!str x",
    "&anchor",
    "*alias",
    "%YAML 1.2",
    "{a: 1}",
    "[1, 2]",
    "0x1F",
    "0o17",
    "0755",
    "1_000",
    "12:30:00",
    "2024-01-02",
    "2024-01-02 10:00:00",
    "1e3",
    ".5",
    "-.inf",
    ".NaN",
    "+1",
    "-0",
    "1.0",
    "3.14159",
    "<<",
    "=",
    " leading",
    "trailing ",
    "  both  ",
    "\ttab",
    "back\\slash",
    "C:\\path\\x",
    "\\n not a newline",
    "caf\xc3\xa9",
    "e\xcc\x81",                                                        /* e + combining acute */
    "\xe4\xb8\xad\xe6\x96\x87",                                         /* Chinese */
    "\xce\x95\xce\xbb\xce\xbb\xce\xb7\xce\xbd\xce\xb9\xce\xba\xce\xac", /* Greek */
    "\xd7\xa2\xd7\x91\xd7\xa8\xd7\x99\xd7\xaa",                         /* Hebrew */
    "\xd8\xa7\xd9\x84\xd8\xb9\xd8\xb1\xd8\xa8\xd9\x8a\xd8\xa9",         /* Arabic */
    "\xf0\x9f\x98\x80",                                                 /* grinning face */
    "\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x92\xbb", /* woman technologist (ZWJ) */
    "\xf0\x9f\x87\xab\xf0\x9f\x87\xb7",             /* flag */
    "\xf4\x8f\xbf\xbf",                             /* U+10FFFF */
    "\xee\x80\x80",                                 /* U+E000, first placeholder */
    "\xee\x80\x81",                                 /* U+E001 */
    "\xef\xa3\xbf",                                 /* U+F8FF */
    "\xc2\x85",                                     /* NEL */
    "\xe2\x80\xa8",                                 /* line separator */
    "\xef\xbb\xbf",                                 /* byte order mark */
    "a\xc2\xa0"
    "b", /* no-break space */
    "\x01"
    "ctl",
    "del\x7f",
    "cr\r",
    "crlf\r\n",
    "x\x1b[0m",
};

/* Link targets that are references, not memories. */
static const char *const ref_kinds[] = {"file:src/",      "task:PROJ-",
                                        "symbol:ns::fn_", "doc:docs/adr/",
                                        "commit:",        "url:https://example.com/a?b=",
                                        "issue:#"};

/* One line of n tokens separated by spaces (never a newline inside). */
static void put_line(mn_buf *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            mn_buf_putc(b, ' ');
        const char *t = below(3) == 0 ? PICK(hostile) : PICK(words);
        for (; *t; t++) /* CR and LF belong to put_text's line structure */
            mn_buf_putc(b, *t == '\n' ? ' ' : *t);
    }
}

/* A single-line string of 1..max_tokens tokens; sometimes a lone hostile token. */
static json_t *line_str(size_t max_tokens)
{
    mn_buf b = MN_BUF_INIT;
    if (below(4) == 0)
        mn_buf_puts(&b, PICK(hostile));
    else
        put_line(&b, 1 + below(max_tokens));
    json_t *s = json_stringn(b.ptr, b.len);
    mn_buf_release(&b);
    return s;
}

/* Multi-line text: blank lines, indented lines, trailing spaces, CRLF, and
 * every ending (none, one newline, several). */
static json_t *text_str(size_t max_lines)
{
    mn_buf b = MN_BUF_INIT;
    size_t lines = 1 + below(max_lines);
    if (below(5) == 0)
        mn_buf_puts(&b, below(2) ? "\n" : "   indented first line\n");
    for (size_t i = 0; i < lines; i++) {
        switch (below(8)) {
        case 0:
            break; /* a blank line */
        case 1:
            mn_buf_puts(&b, "    ");
            put_line(&b, 1 + below(6));
            break;
        case 2:
            put_line(&b, 1 + below(6));
            mn_buf_puts(&b, "  ");
            break;
        default:
            put_line(&b, 1 + below(10));
        }
        if (i + 1 < lines)
            mn_buf_puts(&b, below(10) == 0 ? "\r\n" : "\n");
    }
    if (b.len == 0) /* an empty excerpt is not stored: text is never empty */
        put_line(&b, 1);
    switch (below(4)) {
    case 0:
        mn_buf_puts(&b, "\n");
        break;
    case 1:
        mn_buf_puts(&b, "\n\n");
        break;
    default:
        break;
    }
    json_t *s = json_stringn(b.ptr, b.len);
    mn_buf_release(&b);
    return s;
}

/* n distinct single-line strings of at most 64 code points. */
static json_t *str_list(size_t n, const char *prefix)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        char s[200];
        if (below(2))
            snprintf(s, sizeof(s), "%s%zu", prefix, i);
        else
            snprintf(s, sizeof(s), "%s%zu %s", prefix, i, PICK(hostile));
        json_array_append_new(arr, json_string(s));
    }
    return arr;
}

static json_t *time_str(int64_t ms)
{
    char t[32];
    mn_time_format(t, ms);
    return json_string(t);
}

#define MAX_TIME_MS 253402300799999LL /* 9999-12-31T23:59:59.999Z, the last RFC 3339 time */

/* The time `delta` ms after t, but not past year 9999. */
static json_t *later(int64_t t, int64_t delta)
{
    return time_str(t > MAX_TIME_MS - delta ? MAX_TIME_MS : t + delta);
}

/* A time between 2001 and 2037, in ms. */
static int64_t some_time(void)
{
    return 978307200000LL + (int64_t)below((size_t)1157000000000ULL);
}

static json_t *ratio(void)
{
    return json_real((double)below(1001) / 1000.0);
}

static void ulid(char out[MN_ID_LEN + 1], int64_t ms)
{
    static const char crockford[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    uint8_t bytes[16];
    for (int i = 0; i < 6; i++)
        bytes[i] = (uint8_t)((uint64_t)ms >> (40 - 8 * i));
    for (int i = 6; i < 16; i++)
        bytes[i] = (uint8_t)next();
    int bit = -2;
    for (int c = 0; c < MN_ID_LEN; c++) {
        int v = 0;
        for (int k = 0; k < 5; k++, bit++) {
            v <<= 1;
            if (bit >= 0)
                v |= (bytes[bit / 8] >> (7 - bit % 8)) & 1;
        }
        out[c] = crockford[v];
    }
    out[MN_ID_LEN] = '\0';
}

/* A string of exactly n code points cycling through `unit` (whole characters). */
static json_t *repeat_cp(const char *const *unit, size_t units, size_t n)
{
    mn_buf b = MN_BUF_INIT;
    for (size_t i = 0; i < n; i++)
        mn_buf_puts(&b, unit[i % units]);
    json_t *s = json_stringn(b.ptr, b.len);
    mn_buf_release(&b);
    return s;
}

static json_t *make_memory(char ids[][MN_ID_LEN + 1], size_t n, size_t i)
{
    json_t *m = json_object();
    bool big = i == 3; /* the memory with every list at its limit */

    json_object_set_new(m, "id", json_string(ids[i]));
    json_object_set_new(m, "kind", json_string(kinds[i % MN_ARRAY_SIZE(kinds)]));
    json_object_set_new(m, "level", json_string(levels[i % MN_ARRAY_SIZE(levels)]));
    if (i == 2) {
        static const char *const unit[] = {"T", "\xc3\xa9", "\xf0\x9f\x98\x80", " ",
                                           "\xe4\xb8\xad"};
        json_object_set_new(m, "title", repeat_cp(unit, MN_ARRAY_SIZE(unit), 200));
    } else {
        json_object_set_new(m, "title", line_str(8));
    }
    if (i == 1) {
        static const char *const unit[] = {"\xc3\xa9", "a", "\n", "\xf0\x9f\x91\x8d", " "};
        json_object_set_new(m, "body", repeat_cp(unit, MN_ARRAY_SIZE(unit), 100000));
    } else {
        json_object_set_new(m, "body", text_str(12));
    }

    json_t *ctx = json_object();
    json_object_set_new(ctx, "situation", text_str(3));
    json_object_set_new(ctx, "solution", text_str(3));
    json_object_set_new(ctx, "trigger_keywords", str_list(big ? 32 : 1 + below(8), "kw"));
    json_object_set_new(ctx, "what_failed", line_str(10));
    json_object_set_new(ctx, "error_messages", str_list(big ? 32 : 1 + below(3), "Error E"));
    json_object_set_new(ctx, "files_modified", str_list(1 + below(4), "src/mod/file_"));
    json_object_set_new(ctx, "conversation_excerpt", text_str(20));
    json_object_set_new(m, "context", ctx);

    json_t *scope = json_object();
    json_object_set_new(scope, "paths", str_list(1 + below(3), "src/dir/"));
    json_object_set_new(scope, "symbols", str_list(1 + below(3), "mn_sym_"));
    json_object_set_new(scope, "tags", str_list(big ? 32 : 1 + below(5), "tag"));
    json_object_set_new(scope, "branch", line_str(2));
    json_object_set_new(m, "scope", scope);

    json_t *prov = json_object();
    char hex[41];
    for (int k = 0; k < 40; k++)
        hex[k] = "0123456789abcdef"[below(16)];
    hex[40] = '\0';
    json_object_set_new(prov, "source", json_string(sources[i % MN_ARRAY_SIZE(sources)]));
    json_object_set_new(prov, "author", line_str(3));
    json_object_set_new(prov, "commit", json_string(hex));
    json_object_set_new(prov, "task", line_str(2));
    json_object_set_new(prov, "dialog", line_str(2));
    json_object_set_new(prov, "session", line_str(2));
    static const char *const methods[] = {"manual", "agent", "auto", "hybrid"};
    json_object_set_new(prov, "extraction_method", json_string(methods[below(4)]));
    json_object_set_new(m, "provenance", prov);

    json_object_set_new(m, "status", json_string(statuses[i % MN_ARRAY_SIZE(statuses)]));
    json_object_set_new(m, "confidence",
                        i == 0   ? json_real(0.0)
                        : i == 4 ? json_real(1.0)
                                 : ratio());
    json_object_set_new(m, "quality", i == 0 ? json_real(1.0) : ratio());
    json_t *reasons = json_array();
    for (size_t k = below(4); k > 0; k--)
        json_array_append_new(reasons, line_str(4));
    json_t *judgement =
        json_pack("{s:o,s:o,s:o,s:o,s:o,s:o}", "score", ratio(), "novelty", ratio(), "specificity",
                  ratio(), "evidence", ratio(), "length", ratio(), "reasons", reasons);
    /* every field in every memory (the round trip checks each one): reviewed, as review.c
     * writes it, and held by a later save */
    static const char *const decisions[] = {"approved", "rejected", "merged"};
    json_object_set_new(judgement, "review",
                        json_pack("{s:s,s:o,s:o,s:o,s:o,s:s}", "decision", decisions[below(3)],
                                  "by", line_str(2), "via", line_str(1), "at",
                                  time_str(some_time()), "note", line_str(6), "into",
                                  ids[below(n)]));
    json_object_set_new(judgement, "held_by", json_string(ids[below(n)]));
    json_object_set_new(m, "judgement", judgement);

    int64_t created = some_time();
    static const int64_t edges[] = {
        0,               /* the epoch */
        -14182940000LL,  /* 1969-07-20T20:17:40.000Z, before it */
        1709208000001LL, /* 2024-02-29T12:00:00.001Z, a leap day */
        MAX_TIME_MS,     /* the last one */
    };
    if (i < MN_ARRAY_SIZE(edges))
        created = edges[i];
    json_object_set_new(m, "expires_at", later(created, 86400000LL * (int64_t)below(400)));
    json_object_set_new(m, "created_at", time_str(created));
    json_object_set_new(m, "updated_at", later(created, (int64_t)below(1000000000)));
    json_object_set_new(m, "accessed_at", later(created, (int64_t)below(2000000000)));
    if (i % 3 != 0)
        json_object_set_new(m, "deleted_at", later(created, (int64_t)below(3000000000U)));

    json_t *counters = json_object();
    json_object_set_new(
        counters, "hits",
        json_integer(i == 4 ? (json_int_t)9007199254740993LL : (json_int_t)below(1000000)));
    json_object_set_new(counters, "used",
                        json_integer(i == 4 ? (json_int_t)INT64_MAX : (json_int_t)below(1000)));
    json_object_set_new(counters, "ignored", json_integer(i == 0 ? 0 : (json_int_t)below(1000)));
    json_object_set_new(m, "counters", counters);

    json_t *cits = json_array();
    size_t ncit = big ? 64 : 1 + below(3);
    for (size_t k = 0; k < ncit; k++) {
        char path[64], sym[64], h[17];
        snprintf(path, sizeof(path), "src/mod%zu/f%zu.c", below(50), k);
        snprintf(sym, sizeof(sym), "fn_%zu_%zu", i, k);
        snprintf(h, sizeof(h), "%016llx", (unsigned long long)next());
        json_int_t start = k == 0 && i == 0 ? 1 : 1 + (json_int_t)below(5000);
        json_int_t end = k == 0 && i == 0 ? 100000000 : start + (json_int_t)below(80);
        json_t *c = json_object();
        json_object_set_new(c, "path", json_string(path));
        json_object_set_new(c, "symbol", json_string(sym));
        json_object_set_new(c, "start_line", json_integer(start));
        json_object_set_new(c, "end_line", json_integer(end));
        json_object_set_new(c, "hash", json_string(h));
        /* what mnemo keeps of a cited span (docs/memory-format.md, "Citations"): its text when
         * cited, whether it is stale, when it was checked; import takes them as they are */
        char text[128];
        snprintf(text, sizeof(text), "int %s(void)\n{\n\treturn %zu; /* \"é\" */\n}\n", sym,
                 below(1000));
        json_object_set_new(c, "text", json_string(text));
        json_object_set_new(c, "stale", json_string(below(2) ? "changed" : "gone"));
        json_object_set_new(c, "checked_at", later(created, (int64_t)below(100000000)));
        json_array_append_new(cits, c);
    }
    json_object_set_new(m, "citations", cits);

    /* Links: distinct (kind, to) pairs, to other memories and to references. */
    json_t *links = json_array();
    size_t nlinks = big ? 64 : 1 + below(4);
    for (size_t k = 0; k < nlinks; k++) {
        char to[128];
        const char *kind = link_kinds[k % MN_ARRAY_SIZE(link_kinds)];
        if (n > 1 && k % 2 == 0) {
            size_t j = (i + 1 + k / 2 + below(n - 1)) % n;
            if (j == i)
                j = (j + 1) % n;
            snprintf(to, sizeof(to), "%s", ids[j]);
            size_t l;
            json_t *prev;
            bool dup = false;
            json_array_foreach(links, l, prev)
            {
                dup |= !strcmp(json_string_value(json_object_get(prev, "kind")), kind) &&
                       !strcmp(json_string_value(json_object_get(prev, "to")), to);
            }
            if (dup)
                continue;
        } else {
            snprintf(to, sizeof(to), "%s%zu-%zu", PICK(ref_kinds), i, k);
        }
        json_t *l = json_object();
        json_object_set_new(l, "kind", json_string(kind));
        json_object_set_new(l, "to", json_string(to));
        json_object_set_new(l, "note", line_str(6));
        json_object_set_new(l, "created_at", later(created, (int64_t)below(100000000)));
        json_array_append_new(links, l);
    }
    json_object_set_new(m, "links", links);
    return m;
}

int main(int argc, char **argv)
{
    int64_t n = 0, seed = 1;
    if (argc < 2 || argc > 3 || mn_parse_int64(&n, argv[1], 1, 10000000, "N") != 0 ||
        (argc == 3 && mn_parse_int64(&seed, argv[2], 0, INT64_MAX, "SEED") != 0)) {
        fprintf(stderr, "usage: gen_memories N [SEED]\n");
        return 2;
    }
    rng_state = (uint64_t)seed;

    char(*ids)[MN_ID_LEN + 1] = mn_calloc((size_t)n, sizeof(*ids));
    int64_t ms = 1500000000000LL; /* 2017: the time part of the ids only */
    for (int64_t i = 0; i < n; i++) {
        ms += 1 + (int64_t)below(1000);
        ulid(ids[i], ms);
    }
    for (int64_t i = 0; i < n; i++) {
        json_t *m = make_memory(ids, (size_t)n, (size_t)i);
        char *line = json_dumps(m, MN_JSON_DUMP_FLAGS);
        if (!line) {
            fprintf(stderr, "gen_memories: memory %lld cannot be written\n", (long long)i);
            return 1;
        }
        fputs(line, stdout);
        fputc('\n', stdout);
        free(line);
        json_decref(m);
    }
    free(ids);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "gen_memories: cannot write stdout\n");
        return 1;
    }
    return 0;
}
