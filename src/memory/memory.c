/*
 * memory.c - save, update, forget, link and import; see memory.h.
 *
 * Defaults, and why:
 *  - level: L3 when the memory names symbols or cites code, L2 when it is
 *    scoped to paths, else L1 (a domain-wide fact); L0 is for the project
 *    overview that discovery writes.
 *  - confidence by source: manual 0.9 (a person said so), document 0.8,
 *    discovery 0.8, agent 0.7, issue 0.7, git 0.6 (inferred from a diff).
 *  - the title, when omitted, is the body's first line cut at a word
 *    boundary to 100 characters.
 * Every operation runs in one store transaction: it all happens or none.
 */
#include "common.h"

#include "memory/distill.h"
#include "memory/judge.h"
#include "memory/memory.h"
#include "memory/citations.h"
#include "memory/lifecycle.h"
#include "memory/memory_internal.h"
#include "memory/scrub.h"
#include "store/store_terms.h"
#include "text/keywords.h"
#include "util/map.h"
#include "util/util.h"

#define TITLE_FROM_BODY_MAX 100
#define AUTO_KEYWORDS       6 /* keywords given to a memory saved without any */
#define CREATED_SKEW_MS \
    (5 * 60 * 1000) /* clocks of two machines differ: created_at a little ahead is now */

static const char *const ref_prefixes[] = {
    "file:", "symbol:", "task:", "doc:", "commit:", "url:", "issue:"};

static const char *str(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

static double default_confidence(const char *source)
{
    static const struct {
        const char *source;
        double confidence;
    } table[] = {{"manual", 0.9}, {"document", 0.8}, {"discovery", 0.8}, {"agent", 0.7},
                 {"issue", 0.7},  {"git", 0.6},      {"import", 0.7}};
    for (size_t i = 0; i < MN_ARRAY_SIZE(table); i++)
        if (strcmp(table[i].source, source) == 0)
            return table[i].confidence;
    return 0.7;
}

static int parse_duration(int64_t *out, const char *s)
{
    char *end;
    errno = 0;
    long long n = strtoll(s, &end, 10);
    int64_t unit = 0;
    if (end != s && !errno && n > 0 && n <= 100000 && end[0] && !end[1]) {
        switch (*end) {
        case 's':
            unit = 1000;
            break;
        case 'm':
            unit = 60000;
            break;
        case 'h':
            unit = 3600000;
            break;
        case 'd':
            unit = 86400000;
            break;
        case 'w':
            unit = 7 * 86400000LL;
            break;
        }
    }
    if (!unit)
        return mn_error_set(MN_EINVAL, "ttl '%.20s' is not a duration: use e.g. 90m, 12h, 30d, 2w",
                            s);
    *out = n * unit;
    return 0;
}

static void set_time(json_t *mem, const char *key, int64_t ms)
{
    char t[32];
    mn_time_format(t, ms);
    json_object_set_new(mem, key, json_string(t));
}

/* Drop empty strings, empty arrays and nulls from a group object. */
static void prune_group(json_t *mem, const char *group)
{
    json_t *g = json_object_get(mem, group);
    const char *key;
    json_t *v;
    void *tmp;
    if (!json_is_object(g))
        return;
    json_object_foreach_safe(g, tmp, key, v)
    {
        if (json_is_null(v) || (json_is_string(v) && json_string_length(v) == 0) ||
            (json_is_array(v) && json_array_size(v) == 0))
            json_object_del(g, key);
    }
    if (json_object_size(g) == 0)
        json_object_del(mem, group);
}

/* Keep at most cap bytes of the conversation excerpt, on a UTF-8 boundary. */
static void cap_excerpt(json_t *mem, size_t cap)
{
    json_t *ctx = json_object_get(mem, "context");
    json_t *ex = json_object_get(ctx, "conversation_excerpt");
    if (!json_is_string(ex) || json_string_length(ex) <= cap)
        return;
    const char *s = json_string_value(ex);
    size_t n = mn_utf8_floor(s, json_string_length(ex), cap);
    json_object_set_new(ctx, "conversation_excerpt", json_stringn(s, n));
}

static const char *default_level(const json_t *mem)
{
    const json_t *scope = json_object_get(mem, "scope");
    if (json_array_size(json_object_get(scope, "symbols")) ||
        json_array_size(json_object_get(mem, "citations")))
        return "L3";
    if (json_array_size(json_object_get(scope, "paths")))
        return "L2";
    return "L1";
}

static json_t *title_from_body(const char *body)
{
    while (*body == ' ' || *body == '\t' || *body == '\n' || *body == '\r' || *body == '#')
        body++;
    size_t len = strcspn(body, "\r\n");
    while (len && (body[len - 1] == ' ' || body[len - 1] == '\t'))
        len--;
    if (mn_utf8_len(body, len) > TITLE_FROM_BODY_MAX) {
        /* cut at the last space before the limit, else at a code point */
        size_t cp = 0, cut = 0, last_space = 0;
        for (size_t i = 0; i < len && cp < TITLE_FROM_BODY_MAX; i++) {
            if (((unsigned char)body[i] & 0xC0) != 0x80) {
                cp++;
                cut = i;
                if (body[i] == ' ')
                    last_space = i;
            }
        }
        len = last_space > cut / 2 ? last_space : cut;
    }
    return json_stringn(body, len);
}

/* A reference link target ("file:a.c"): 0 when its prefix is known. */
static int check_ref(const char *to)
{
    for (size_t i = 0; i < MN_ARRAY_SIZE(ref_prefixes); i++) {
        size_t n = strlen(ref_prefixes[i]);
        if (strncmp(to, ref_prefixes[i], n) == 0) {
            if (!to[n])
                return mn_error_set(MN_EINVAL, "link target '%s' names nothing after '%s'", to,
                                    ref_prefixes[i]);
            return 0;
        }
    }
    return mn_error_set(MN_EINVAL,
                        "link target '%.60s' must be a memory id or start with file:, "
                        "symbol:, task:, doc:, commit:, url: or issue:",
                        to);
}

/* A full memory id: 26 Crockford characters, upper case, the first at most
 * '7' (a ULID's 48-bit time). */
static bool is_full_id(const char *id)
{
    if (!mn_id_is_prefix(id) || strlen(id) != MN_ID_LEN || id[0] > '7')
        return false;
    for (const char *p = id; *p; p++)
        if (*p >= 'a' && *p <= 'z')
            return false;
    return true;
}

/* A link target: a reference with a known prefix, or a memory id (prefix). */
static int resolve_target(char **out, mn_store *s, const char *to)
{
    if (strchr(to, ':')) {
        int rc = check_ref(to);
        if (rc == 0)
            *out = mn_strdup(to);
        return rc;
    }
    char id[MN_ID_LEN + 1];
    int rc = mn_store_memory_resolve(s, id, to);
    if (rc)
        return rc;
    *out = mn_strdup(id);
    return 0;
}

static int add_links(mn_store *s, const char *id, const json_t *links, int64_t now)
{
    size_t i;
    json_t *l;
    json_array_foreach(links, i, l)
    {
        char *to = NULL;
        int rc = resolve_target(&to, s, str(l, "to"));
        if (rc == 0 && strcmp(to, id) == 0)
            rc = mn_error_set(MN_EINVAL, "a memory cannot link to itself");
        if (rc == 0) {
            rc = mn_store_link_add(s, id, str(l, "kind"), to, str(l, "note"), now);
            if (rc == MN_EEXISTS) {
                mn_error_clear();
                rc = 0;
            }
        }
        free(to);
        if (rc)
            return mn_error_prefix("links[%zu]", i);
    }
    return 0;
}

/* a := a ∪ b for arrays of strings, keeping a's order. */
static void strv_union(json_t *group, const char *key, const json_t *add)
{
    json_t *cur = json_object_get(group, key);
    size_t i, j;
    json_t *v, *w;
    if (!json_array_size(add))
        return;
    if (!cur) {
        json_object_set_new(group, key, json_deep_copy(add));
        return;
    }
    json_array_foreach(add, i, v)
    {
        bool seen = false;
        json_array_foreach(cur, j, w) if (json_equal(v, w)) seen = true;
        if (!seen)
            json_array_append(cur, v);
    }
}

static json_t *ensure_group(json_t *mem, const char *group)
{
    json_t *g = json_object_get(mem, group);
    if (!g) {
        g = json_object();
        json_object_set_new(mem, group, g);
    }
    return g;
}

/*
 * Merge a new save into the live duplicate `old` (modified in place): lists
 * united (keywords, errors, files, paths, symbols, tags), a text field the
 * old one lacks taken, citations united, the higher confidence kept, the
 * more complete wording kept (the new title and body when its body is a
 * fifth longer: a duplicate that says more replaces one that says less),
 * a hit counted and the time it was seen again made its recency.
 */
void mn_memory__merge_into(json_t *old, const json_t *mem, double threshold, int64_t now)
{
    static const char *const lists[][2] = {
        {"context", "trigger_keywords"},
        {"context", "error_messages"},
        {"context", "files_modified"},
        {"scope", "paths"},
        {"scope", "symbols"},
        {"scope", "tags"},
    };
    static const char *const texts[][2] = {
        {"context", "situation"},   {"context", "solution"},
        {"context", "what_failed"}, {"context", "conversation_excerpt"},
        {"scope", "branch"},
    };
    for (size_t i = 0; i < MN_ARRAY_SIZE(lists); i++)
        strv_union(ensure_group(old, lists[i][0]), lists[i][1],
                   json_object_get(json_object_get(mem, lists[i][0]), lists[i][1]));
    for (size_t i = 0; i < MN_ARRAY_SIZE(texts); i++) {
        json_t *g = ensure_group(old, texts[i][0]);
        json_t *nv = json_object_get(json_object_get(mem, texts[i][0]), texts[i][1]);
        if (nv && !json_object_get(g, texts[i][1]))
            json_object_set(g, texts[i][1], nv);
    }
    json_t *cits = json_object_get(old, "citations");
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(mem, "citations"), i, c)
    {
        if (!cits) {
            cits = json_array();
            json_object_set_new(old, "citations", cits);
        }
        size_t j;
        json_t *d;
        bool seen = false;
        json_array_foreach(cits, j, d) if (json_equal(c, d)) seen = true;
        if (!seen && json_array_size(cits) < 64)
            json_array_append(cits, c);
    }
    double oc = json_number_value(json_object_get(old, "confidence"));
    double nc = json_number_value(json_object_get(mem, "confidence"));
    if (nc > oc) {
        json_object_set_new(old, "confidence", json_real(nc));
        if (strcmp(str(old, "status"), "pending") == 0 && nc >= threshold)
            json_object_set_new(old, "status", json_string("active"));
    }
    size_t old_body = json_string_length(json_object_get(old, "body")),
           new_body = json_string_length(json_object_get(mem, "body"));
    if (new_body * 5 > old_body * 6) {
        json_object_set(old, "title", json_object_get(mem, "title"));
        json_object_set(old, "body", json_object_get(mem, "body"));
    }
    json_t *counters = ensure_group(old, "counters");
    json_object_set_new(counters, "hits",
                        json_integer(json_integer_value(json_object_get(counters, "hits")) + 1));
    set_time(old, "accessed_at", now);
    json_object_set(old, "updated_at", json_object_get(mem, "updated_at"));
    prune_group(old, "context");
    prune_group(old, "scope");
}

static json_t *result(const char *id, const char *action, const json_t *mem)
{
    json_t *r = json_object();
    json_object_set_new(r, "id", json_string(id));
    json_object_set_new(r, "action", json_string(action));
    if (mem) {
        json_object_set(r, "kind", json_object_get(mem, "kind"));
        json_object_set(r, "level", json_object_get(mem, "level"));
        json_object_set(r, "status", json_object_get(mem, "status"));
        json_object_set(r, "title", json_object_get(mem, "title"));
    }
    return r;
}

/* Document frequency of an index term among the project's code chunks (0 on error). */
static int64_t chunk_df(void *payload, const char *term, size_t len)
{
    int64_t df = 0;
    if (mn_store_chunk_term_df(payload, term, len, &df) != 0) {
        mn_error_clear();
        df = 0;
    }
    return df;
}

/*
 * A memory saved without trigger keywords gets the words of its own text
 * that a later question is likely to use: by TF-IDF (text/keywords.h)
 * against the project's code, the corpus every project has (its memories
 * may be few). They go where given keywords go (context.trigger_keywords),
 * so search weighs them the same.
 */
static int add_keywords(mn_store *s, json_t *mem)
{
    const json_t *ctx = json_object_get(mem, "context");
    mn_buf text = MN_BUF_INIT;
    mn_buf_printf(&text, "%s\n%s", str(mem, "title") ? str(mem, "title") : "",
                  str(mem, "body") ? str(mem, "body") : "");
    for (const char *const *f = (const char *const[]){"situation", "solution", "what_failed", NULL};
         *f; f++)
        if (str(ctx, *f))
            mn_buf_printf(&text, "\n%s", str(ctx, *f));
    mn_df_source src = {0, chunk_df, s};
    if (mn_store_chunk_count(s, &src.n_docs) != 0) {
        mn_error_clear();
        src.n_docs = 0;
    }
    mn_keyword *kw = NULL;
    size_t n = 0;
    int rc = mn_keywords_extract(&kw, &n, text.ptr, text.len, MN_LANG_UNKNOWN,
                                 src.n_docs ? &src : NULL, AUTO_KEYWORDS);
    mn_buf_release(&text);
    if (rc || n == 0) {
        mn_error_clear();
        return 0; /* nothing worth a keyword: the memory is found by its text alone */
    }
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(list, json_string(kw[i].text));
    json_object_set_new(ensure_group(mem, "context"), "trigger_keywords", list);
    mn_keywords_free(kw, n);
    return 0;
}

/*
 * A copy of a save's (or an update's, or an imported memory's) input with
 * every secret, and personal data unless the project quarantines it,
 * redacted in every field (scope, provenance, links' notes, citations too).
 * A memory whose words (title, body, context) were mostly secrets is refused,
 * naming the rule, rather than kept as a row of markers: "my key: <the key>"
 * says nothing once the key is gone, while a note that says what a key is
 * for and quotes it keeps its words. *rep says what was found.
 */
#define SCRUB_MIN_LEFT 12 /* bytes of words a memory must keep */

static size_t words_bytes(const json_t *mem, size_t *markers)
{
    static const char *const texts[] = {"title", "body", "context"};
    size_t total = 0, m = 0;
    for (size_t i = 0; i < MN_ARRAY_SIZE(texts); i++) {
        const json_t *v = json_object_get(mem, texts[i]);
        if (v)
            m += mn_scrub_marker_bytes(v, &total);
    }
    if (markers)
        *markers = m;
    return total;
}

static int scrub_input(json_t **out, const json_t *in, const mn_memory_settings *cfg,
                       mn_scrub_report *rep)
{
    json_t *copy = json_deep_copy(in);
    int rc = 0;
    *out = NULL;
    if (cfg->scanner && cfg->redact) {
        size_t before = words_bytes(copy, NULL), markers;
        rc = mn_scrub_json(copy, cfg->scanner, cfg->redact, rep);
        size_t after = words_bytes(copy, &markers), left = after - markers;
        if (rc == 0 && rep->rules && markers && (left * 5 < before || left < SCRUB_MIN_LEFT))
            rc = mn_error_set(MN_EINVAL,
                              "the memory is mostly a secret or personal data (rule '%s'): "
                              "nothing was saved; say what it is for without the value itself",
                              json_string_value(json_array_get(rep->rules, 0)));
    }
    if (rc)
        json_decref(copy);
    else
        *out = copy;
    return rc;
}

/* The audit row of a redaction: which rules hit which memory, never the text. */
static int audit_redaction(mn_store *s, const mn_memory_settings *cfg, const char *id,
                           const mn_scrub_report *rep)
{
    if (!rep->rules)
        return 0;
    json_t *detail = json_pack("{s:O,s:I,s:I}", "rules", rep->rules, "secrets",
                               (json_int_t)rep->secrets, "pii", (json_int_t)rep->pii);
    int rc = mn_store_audit(s, cfg->actor, "redact", id, detail);
    json_decref(detail);
    return rc;
}

/* Personal data kept under the quarantine policy: the memory waits for a person. */
static bool holds_pii(const json_t *mem, const mn_memory_settings *cfg)
{
    return cfg->scanner && cfg->quarantine_pii && mn_scrub_json_any(mem, cfg->scanner, MN_SCAN_PII);
}

/*
 * Evidence behind a rule or pattern: a citation of code, a commit, an issue
 * or task, or a link to one of those. An agent's rule without any is an
 * instruction to every other agent that nobody checked ("curl ... | sh"),
 * so it waits for review.
 */
static bool has_evidence(const json_t *mem, const json_t *in)
{
    const json_t *prov = json_object_get(mem, "provenance");
    if (json_array_size(json_object_get(mem, "citations")) || str(prov, "commit") ||
        str(prov, "task"))
        return true;
    size_t i;
    json_t *l;
    json_array_foreach(json_object_get(in, "links"), i, l)
    {
        const char *to = str(l, "to");
        if (to &&
            (!strncmp(to, "commit:", 7) || !strncmp(to, "issue:", 6) || !strncmp(to, "task:", 5)))
            return true;
    }
    return false;
}

static bool is_instruction(const char *kind)
{
    return !strcmp(kind, "rule") || !strcmp(kind, "pattern");
}

/*
 * What an agent must say for a memory to be worth recalling (the structured
 * context of the seed Rekall): when it applies, what to do, and the words a
 * future question will use. A person saving from the command line is not
 * held to it; an agent (any caller but the mnemo command) saving a gotcha,
 * fact, pattern or few-shot is, and the error shows a complete example.
 */
static int check_agent_context(const json_t *mem, const mn_memory_settings *cfg)
{
    const char *kind = str(mem, "kind");
    const json_t *ctx = json_object_get(mem, "context");
    const json_t *prov = json_object_get(mem, "provenance");
    const char *source = str(prov, "source"), *method = str(prov, "extraction_method");
    /* a conversation's words an extractor picked (capture: extraction_method auto, saved by the
     * ingest, not by an agent) were not written as a memory: the judge and review weigh them */
    bool written = !method || strcmp(method, "auto") != 0;
    if (!(cfg->agent || (!strcmp(source, "agent") && written)) ||
        (strcmp(kind, "fact") && strcmp(kind, "gotcha") && strcmp(kind, "fewshot") &&
         strcmp(kind, "pattern")))
        return 0;
    mn_buf missing = MN_BUF_INIT;
    if (!json_string_length(json_object_get(ctx, "situation")))
        mn_buf_puts(&missing, "context.situation");
    if (!json_string_length(json_object_get(ctx, "solution")))
        mn_buf_printf(&missing, "%scontext.solution", missing.len ? ", " : "");
    if (!json_array_size(json_object_get(ctx, "trigger_keywords")))
        mn_buf_printf(&missing, "%scontext.trigger_keywords", missing.len ? ", " : "");
    int rc = 0;
    if (missing.len)
        rc = mn_error_set(
            MN_EINVAL,
            "missing required field%s %s: an agent saving a %s must give context.situation "
            "(when it applies), context.solution (what to do) and context.trigger_keywords "
            "(3-8 words or identifiers a future question would use). Example: "
            "{\"kind\":\"%s\",\"title\":\"Cart sessions expire at once when delay is None\","
            "\"body\":\"Session.refresh() treats delay=None as 0.\",\"context\":{\"situation\":"
            "\"checkout returned 401 after the cart was idle\",\"solution\":\"default delay to 30s "
            "in cart/session.py\",\"trigger_keywords\":[\"cart\",\"session\",\"delay\",\"401\"]}}",
            strchr(missing.ptr, ',') ? "s" : "", missing.ptr, kind, kind);
    mn_buf_release(&missing);
    return rc;
}

/* How a memory's text came to be, when the save does not say. */
static const char *extraction_of(const char *source)
{
    if (!strcmp(source, "manual"))
        return "manual";
    if (!strcmp(source, "agent"))
        return "agent";
    return "auto";
}

/* Captured without a person or an agent choosing the words: git, documents, issues, discovery. */
static bool automatic(const char *source)
{
    return strcmp(source, "manual") && strcmp(source, "agent") && strcmp(source, "import");
}

/* An episode is a turn of a conversation and a doc_link a document's part: their length is the
 * source's, not a memory's. */
static bool kind_capped(const char *kind)
{
    return strcmp(kind, "episode") && strcmp(kind, "doc_link");
}

/*
 * The confidence of a save that does not give one: the source's prior
 * (default_confidence) weighed by the judge, prior * (0.5 + 0.5 score): a
 * judged-perfect memory keeps its prior, the weakest (score 0.15) keeps
 * 57% of it. A person's save is trusted: its prior stands.
 */
static double judged_confidence(const char *source, const json_t *judgement)
{
    double prior = default_confidence(source);
    if (!strcmp(source, "manual"))
        return prior;
    double score = json_number_value(json_object_get(judgement, "score"));
    return (double)(int)(prior * (0.5 + 0.5 * score) * 100 + 0.5) / 100;
}

/* The audit detail of a merge: how near, and why, for a near-duplicate; the new provenance. */
static json_t *merge_detail(const json_t *mem, const mn_nearby *near)
{
    json_t *d = json_pack("{s:s,s:O?}", "match", near ? "near" : "exact", "provenance",
                          json_object_get(mem, "provenance"));
    if (near) {
        json_object_set_new(d, "similarity", json_real(near->similarity));
        if (near->reasons)
            json_object_set(d, "reasons", near->reasons);
    }
    return d;
}

/*
 * Both provenances are kept: the merged memory keeps its own, and the
 * commit and task of the save it absorbed become links (commit:SHA,
 * task:ID) when they differ from its own; the audit row keeps the rest.
 */
int mn_memory__keep_provenance(mn_store *s, const char *id, const json_t *old, const json_t *mem,
                               int64_t now)
{
    static const struct {
        const char *key, *prefix;
    } refs[] = {{"commit", "commit:"}, {"task", "task:"}};
    const json_t *np = json_object_get(mem, "provenance"), *op = json_object_get(old, "provenance");
    for (size_t i = 0; i < MN_ARRAY_SIZE(refs); i++) {
        const char *v = str(np, refs[i].key);
        if (!v || (str(op, refs[i].key) && !strcmp(str(op, refs[i].key), v)))
            continue;
        mn_buf to = MN_BUF_INIT;
        mn_buf_printf(&to, "%s%s", refs[i].prefix, v);
        int rc = mn_store_link_add(s, id, "relates_to", to.ptr, "provenance of a merged save", now);
        mn_buf_release(&to);
        if (rc == MN_EEXISTS)
            mn_error_clear();
        else if (rc)
            return rc;
    }
    return 0;
}

/*
 * A save that conflicts with a stored memory: linked to it (supersedes when
 * its words say it is the newer, contradicts otherwise) and the other one
 * sent to review too; the person who reviews them decides which holds.
 */
static int link_conflict(mn_store *s, const mn_memory_settings *cfg, const char *id,
                         const mn_nearby *near, int64_t now)
{
    const char *kind = near->newer == MN_NEWER_A ? "supersedes" : "contradicts";
    json_t *old = NULL;
    int rc = mn_store_link_add(s, id, kind, near->id, "found by the near-duplicate check", now);
    if (rc == MN_EEXISTS) {
        mn_error_clear();
        rc = 0;
    }
    if (rc == 0 && (rc = mn_store_memory_get(s, &old, near->id)) == 0 &&
        !strcmp(str(old, "status"), "active")) {
        json_object_set_new(old, "status", json_string("pending"));
        mn_review__hold(old, id); /* back to active if the newcomer is rejected (review.c) */
        rc = mn_store_memory_replace(s, old);
    }
    if (rc == 0) {
        json_t *detail = json_pack("{s:s,s:s,s:f,s:O?}", "conflicts_with", id, "link", kind,
                                   "similarity", near->similarity, "reasons", near->reasons);
        rc = mn_store_audit(s, cfg->actor, "review", near->id, detail);
        json_decref(detail);
    }
    json_decref(old);
    return rc;
}

/*
 * Whether the save itself says it supersedes the memory id (a `supersedes`
 * link in its links): then a near-duplicate with another conclusion is what
 * the caller meant to replace, not a conflict to review (the life cycle's
 * supersession decides: memory/lifecycle.h).
 */
static bool says_supersedes(const json_t *in, const char *id)
{
    size_t i;
    json_t *l;
    json_array_foreach(json_object_get(in, "links"), i, l)
    {
        if (!strcmp(str(l, "kind") ? str(l, "kind") : "", "supersedes") && str(l, "to") &&
            !strcmp(str(l, "to"), id))
            return true;
    }
    return false;
}

/*
 * The links of a save merged into dup, without those to dup itself: the
 * duplicate of a memory the save says it supersedes (an ingest's later
 * fact worded as the one it replaces) is that memory said again, and a
 * memory cannot link to itself. *kept owns the filtered copy (NULL when
 * nothing was left out).
 */
static const json_t *links_not_to(const json_t *links, const char *dup, json_t **kept)
{
    size_t i;
    json_t *l;
    *kept = NULL;
    json_array_foreach(links, i, l)
    {
        if (str(l, "to") && !strcmp(str(l, "to"), dup)) {
            *kept = json_array();
            break;
        }
    }
    if (!*kept)
        return links;
    json_array_foreach(links, i, l)
    {
        if (!str(l, "to") || strcmp(str(l, "to"), dup))
            json_array_append(*kept, l);
    }
    return *kept;
}

int mn_memory_save(json_t **out, mn_store *s, const mn_memory_settings *cfg, const json_t *in)
{
    json_t *mem = json_object(), *old = NULL, *kept = NULL;
    char id[MN_ID_LEN + 1], dup[MN_ID_LEN + 1], hash[17];
    int64_t now = mn_time_now_ms();
    int rc = 0;
    bool in_tx = false;
    mn_scrub_report scrubbed = MN_SCRUB_REPORT_INIT;
    json_t *clean = NULL;
    mn_nearby near = {0};

    if ((rc = scrub_input(&clean, in, cfg, &scrubbed)) != 0)
        goto out;
    in = clean;
    mn_id_new(id);
    json_object_set_new(mem, "id", json_string(id));
    json_object_set_new(mem, "kind", json_string(str(in, "kind") ? str(in, "kind") : "fact"));
    const char *body = str(in, "body") ? str(in, "body") : "";
    const char *title = str(in, "title");
    json_t *t = title && *title ? json_string(title) : title_from_body(body);
    json_object_set_new(mem, "title", t);
    if (json_string_length(t) == 0) {
        rc = mn_error_set(MN_EINVAL, "a memory needs a title or a body");
        goto out;
    }
    json_object_set_new(mem, "body", json_string(body));
    for (const char *const *g = (const char *const[]){"context", "scope", "provenance", NULL}; *g;
         g++) {
        json_t *v = json_object_get(in, *g);
        if (v)
            json_object_set_new(mem, *g, json_deep_copy(v));
    }
    prune_group(mem, "context");
    prune_group(mem, "scope");
    cap_excerpt(mem, cfg->excerpt_cap);
    json_t *prov = ensure_group(mem, "provenance");
    if (!str(prov, "source"))
        json_object_set_new(prov, "source", json_string("manual"));
    if (!str(prov, "author") && cfg->author && *cfg->author)
        json_object_set_new(prov, "author", json_string(cfg->author));
    const char *source = str(prov, "source");
    const char *kind = str(mem, "kind");

    if ((rc = check_agent_context(mem, cfg)) != 0)
        goto out;
    if (!str(prov, "extraction_method"))
        json_object_set_new(prov, "extraction_method", json_string(extraction_of(source)));
    mn_memory_normalise(mem);
    if ((rc = mn_memory_cap_body(mem, kind_capped(kind) ? cfg->body_cap : 0, automatic(source))) !=
        0)
        goto out;
    if (!json_array_size(json_object_get(json_object_get(mem, "context"), "trigger_keywords")) &&
        (rc = add_keywords(s, mem)) != 0)
        goto out;
    if (json_object_get(in, "citations"))
        json_object_set_new(mem, "citations", json_deep_copy(json_object_get(in, "citations")));
    json_object_set_new(mem, "level",
                        json_string(str(in, "level") ? str(in, "level") : default_level(mem)));
    if ((rc = mn_store_begin(s)) != 0)
        goto out;
    in_tx = true;
    /* near-duplicates first: the judge's novelty is the distance to the nearest */
    if (cfg->dedup && (rc = mn_memory__nearby(&near, s, mem)) != 0)
        goto out;
    json_t *judgement = mn_memory_judge(mem, json_object_get(in, "links"), near.nearest);
    double confidence = json_is_number(json_object_get(in, "confidence"))
                            ? json_number_value(json_object_get(in, "confidence"))
                            : judged_confidence(source, judgement);
    json_object_set_new(mem, "judgement", judgement);
    json_object_set_new(mem, "confidence", json_real(confidence));
    if (json_object_get(in, "quality"))
        json_object_set_new(mem, "quality",
                            json_real(json_number_value(json_object_get(in, "quality"))));
    const char *status = confidence < cfg->review_threshold ? "pending" : "active";
    const char *note = NULL;
    if ((cfg->agent || !strcmp(source, "agent")) && is_instruction(kind) &&
        !has_evidence(mem, in) && strcmp(status, "active") == 0) {
        status = "pending";
        note = "an agent's rule or pattern waits for review (mnemo review) unless "
               "it cites evidence: a commit (provenance.commit), code (citations) or an issue "
               "(provenance.task)";
    }
    if (holds_pii(mem, cfg)) {
        status = "quarantined";
        note = "it holds personal data and the project quarantines such memories (config "
               "scan.pii): a person must review it before it is served";
    }
    json_object_set_new(mem, "status", json_string(status));
    if (str(in, "ttl")) {
        int64_t ttl;
        if ((rc = parse_duration(&ttl, str(in, "ttl"))) != 0)
            goto out;
        set_time(mem, "expires_at", now + ttl);
    }
    /* history written down later (a chat log, a commit) keeps the time it happened */
    int64_t created = now;
    if (str(in, "created_at")) {
        if ((rc = mn_time_parse(&created, str(in, "created_at"))) != 0)
            goto out;
        if (created > now + CREATED_SKEW_MS) {
            rc = mn_error_set(MN_EINVAL, "created_at %s is in the future", str(in, "created_at"));
            goto out;
        }
    }
    set_time(mem, "created_at", created);
    set_time(mem, "updated_at", created);

    /* life cycle (memory/citations.h): the code it cites and names, with hashes and text;
     * after the status, which only the citations the caller gave can earn */
    if ((rc = mn_citations_fill(s, mem, now)) != 0)
        goto out;
    mn_store_content_hash(hash, mem);
    bool exact = cfg->dedup && mn_store_memory_find_hash(s, dup, hash) == 0;
    mn_error_clear();
    /* what a reviewer rejected is not proposed again (review.c) */
    if ((rc = mn_review__skip_rejected(out, s, cfg, mem, exact ? dup : NULL, &near)) != 0) {
        if (rc < 0 || (rc = mn_store_commit(s)) != 0) {
            json_decref(*out);
            *out = NULL;
            goto out;
        }
        in_tx = false;
        goto done;
    }
    if (exact || near.kind == MN_NEARDUP_DUPLICATE) {
        /* said before: merged into the memory that says it */
        if (!exact)
            snprintf(dup, sizeof(dup), "%s", near.id);
        if ((rc = mn_store_memory_get(s, &old, dup)) != 0)
            goto out;
        mn_memory__merge_into(old, mem, cfg->review_threshold, now);
        json_t *detail = merge_detail(mem, exact ? NULL : &near);
        rc = mn_citations_fill(s, old, now); /* life cycle: duplicates out */
        if (rc == 0)
            rc = mn_store_memory_replace(s, old);
        if (rc == 0)
            rc = add_links(s, dup, links_not_to(json_object_get(in, "links"), dup, &kept), now);
        if (rc == 0)
            rc = mn_lifecycle_apply(s, cfg->actor, dup); /* life cycle: supersedes */
        if (rc == 0)
            rc = mn_memory__keep_provenance(s, dup, old, mem, now);
        if (rc == 0)
            rc = mn_store_audit(s, cfg->actor, "merge", dup, detail);
        json_decref(detail);
        if (rc || (rc = audit_redaction(s, cfg, dup, &scrubbed)) != 0 ||
            (rc = mn_store_commit(s)) != 0)
            goto out;
        in_tx = false;
        *out = result(dup, "merged", old);
        json_object_set_new(*out, "merged_into", json_string(dup));
        if (!exact)
            json_object_set_new(*out, "similarity", json_real(near.similarity));
        goto done;
    }
    if (near.kind == MN_NEARDUP_CONFLICTING && says_supersedes(in, near.id))
        near.kind = MN_NEARDUP_DISTINCT; /* replaced on purpose: no conflict to review */
    if (near.kind == MN_NEARDUP_CONFLICTING) {
        /* the same subject, another conclusion: both wait for a person */
        json_object_set_new(mem, "status", json_string("pending"));
        note = "it conflicts with a memory that says otherwise: both wait for review";
    }
    if ((rc = mn_store_memory_insert(s, mem)) != 0 ||
        (rc = add_links(s, id, json_object_get(in, "links"), now)) != 0 ||
        (rc = mn_lifecycle_apply(s, cfg->actor, id)) != 0 || /* life cycle: supersedes */
        (rc = mn_store_audit(s, cfg->actor, "save", id, NULL)) != 0 ||
        (near.kind == MN_NEARDUP_CONFLICTING &&
         (rc = link_conflict(s, cfg, id, &near, now)) != 0) ||
        (rc = audit_redaction(s, cfg, id, &scrubbed)) != 0 || (rc = mn_store_commit(s)) != 0)
        goto out;
    in_tx = false;
    *out = result(id, "created", mem);
    if (note)
        json_object_set_new(*out, "note", json_string(note));
    if (near.kind == MN_NEARDUP_CONFLICTING)
        json_object_set_new(*out, "conflicts_with",
                            json_pack("{s:s,s:s,s:O}", "id", near.id, "link",
                                      near.newer == MN_NEWER_A ? "supersedes" : "contradicts",
                                      "reasons", near.reasons ? near.reasons : json_null()));
done:
    if (scrubbed.rules)
        json_object_set_new(*out, "redacted",
                            json_pack("{s:O,s:I}", "rules", scrubbed.rules, "count",
                                      (json_int_t)(scrubbed.secrets + scrubbed.pii)));
out:
    if (in_tx)
        mn_store_rollback(s);
    json_decref(old);
    json_decref(mem);
    json_decref(clean);
    json_decref(kept);
    mn_scrub_report_release(&scrubbed);
    mn_memory__nearby_release(&near);
    return rc;
}

static bool group_apply(json_t *mem, const char *group, const json_t *changes, json_t *changed)
{
    json_t *g = json_object_get(changes, group);
    const char *key;
    json_t *v;
    bool any = false;
    if (!json_is_object(g))
        return false;
    json_t *cur = ensure_group(mem, group);
    json_object_foreach(g, key, v)
    {
        json_t *old = json_object_get(cur, key);
        if (json_is_null(v)) {
            if (old) {
                json_object_del(cur, key);
                any = true;
            }
        } else if (!old || !json_equal(old, v)) {
            json_object_set(cur, key, v);
            any = true;
        }
        if (any)
            json_array_append_new(changed, json_sprintf("%s.%s", group, key));
        any = false;
    }
    prune_group(mem, group);
    return json_array_size(changed) > 0;
}

int mn_memory_update(json_t **out, mn_store *s, const mn_memory_settings *cfg, const json_t *in)
{
    static const char *const plain[] = {"kind",   "level",      "title",  "body",
                                        "status", "confidence", "quality"};
    char id[MN_ID_LEN + 1];
    json_t *mem = NULL, *changed = json_array(), *clean = NULL;
    int rc;
    bool in_tx = false;
    int64_t now = mn_time_now_ms();
    mn_scrub_report scrubbed = MN_SCRUB_REPORT_INIT;

    if ((rc = scrub_input(&clean, in, cfg, &scrubbed)) != 0)
        goto out;
    in = clean;
    if ((rc = mn_store_begin(s)) != 0)
        goto out;
    in_tx = true;
    if ((rc = mn_store_memory_resolve(s, id, str(in, "id"))) != 0 ||
        (rc = mn_store_memory_get(s, &mem, id)) != 0)
        goto out;
    for (size_t i = 0; i < MN_ARRAY_SIZE(plain); i++) {
        json_t *v = json_object_get(in, plain[i]);
        if (v && !json_equal(v, json_object_get(mem, plain[i]))) {
            if (json_is_number(v))
                json_object_set_new(mem, plain[i], json_real(json_number_value(v)));
            else
                json_object_set(mem, plain[i], v);
            json_array_append_new(changed, json_string(plain[i]));
        }
    }
    if (json_string_length(json_object_get(mem, "title")) == 0) {
        rc = mn_error_set(MN_EINVAL, "field 'title': must not be empty");
        goto out;
    }
    group_apply(mem, "context", in, changed);
    group_apply(mem, "scope", in, changed);
    group_apply(mem, "provenance", in, changed);
    if (!str(json_object_get(mem, "provenance"), "source")) {
        rc = mn_error_set(MN_EINVAL, "field 'provenance.source': cannot be removed");
        goto out;
    }
    cap_excerpt(mem, cfg->excerpt_cap);
    json_t *tags_add = json_object_get(in, "add_tags"),
           *tags_rm = json_object_get(in, "remove_tags");
    if (json_array_size(tags_add) || json_array_size(tags_rm)) {
        json_t *scope = ensure_group(mem, "scope");
        json_t *before = json_deep_copy(json_object_get(scope, "tags"));
        strv_union(scope, "tags", tags_add);
        json_t *tags = json_object_get(scope, "tags");
        size_t i, j;
        json_t *v, *w;
        json_array_foreach(tags_rm, i, v)
        {
            json_array_foreach(tags, j, w) if (json_equal(v, w))
            {
                json_array_remove(tags, j);
                break;
            }
        }
        /* only a real change counts, so that the update stays idempotent */
        bool same = json_array_size(before) == json_array_size(tags) &&
                    (!before || json_equal(before, tags));
        json_decref(before);
        if (json_array_size(tags) > 32) {
            rc = mn_error_set(MN_EINVAL, "field 'scope.tags': must have at most 32 items");
            goto out;
        }
        prune_group(mem, "scope");
        if (!same)
            json_array_append_new(changed, json_string("scope.tags"));
    }
    if (json_object_get(in, "citations")) {
        json_t *c = json_object_get(in, "citations"), *cur = json_object_get(mem, "citations");
        bool same = json_array_size(c) == json_array_size(cur) && (!cur || json_equal(c, cur));
        if (json_array_size(c))
            json_object_set(mem, "citations", c);
        else
            json_object_del(mem, "citations");
        if (!same)
            json_array_append_new(changed, json_string("citations"));
    }
    json_t *ttl = json_object_get(in, "ttl");
    if (json_is_null(ttl)) {
        if (json_object_get(mem, "expires_at")) {
            json_object_del(mem, "expires_at");
            json_array_append_new(changed, json_string("expires_at"));
        }
    } else if (json_is_string(ttl)) {
        int64_t d;
        if ((rc = parse_duration(&d, json_string_value(ttl))) != 0)
            goto out;
        set_time(mem, "expires_at", now + d);
        json_array_append_new(changed, json_string("expires_at"));
    }
    if (json_array_size(changed) && holds_pii(mem, cfg) &&
        strcmp(str(mem, "status"), "quarantined") != 0) {
        json_object_set_new(mem, "status", json_string("quarantined"));
        json_array_append_new(changed, json_string("status"));
    }
    if (json_array_size(changed)) {
        set_time(mem, "updated_at", now);
        json_t *detail = json_pack("{s:O}", "changed", changed);
        size_t ci;
        const json_t *cv;
        json_array_foreach(changed, ci, cv) /* a review decision: the status it came to */
            if (!strcmp(json_string_value(cv), "status"))
                json_object_set_new(detail, "status", json_string(str(mem, "status")));
        rc = mn_citations_fill(s, mem, now); /* life cycle: new citations, new names */
        if (rc == 0)
            rc = mn_store_memory_replace(s, mem);
        if (rc == 0) /* life cycle: approved, its supersedes links take effect */
            rc = mn_lifecycle_apply(s, cfg->actor, id);
        if (rc == 0)
            rc = mn_store_audit(s, cfg->actor, "update", id, detail);
        if (rc == 0)
            rc = audit_redaction(s, cfg, id, &scrubbed);
        json_decref(detail);
        if (rc)
            goto out;
    }
    if ((rc = mn_store_commit(s)) != 0)
        goto out;
    in_tx = false;
    *out = result(id, json_array_size(changed) ? "updated" : "unchanged", mem);
    json_object_set(*out, "changed", changed);
    if (scrubbed.rules)
        json_object_set_new(*out, "redacted",
                            json_pack("{s:O,s:I}", "rules", scrubbed.rules, "count",
                                      (json_int_t)(scrubbed.secrets + scrubbed.pii)));
out:
    if (in_tx)
        mn_store_rollback(s);
    json_decref(mem);
    json_decref(changed);
    json_decref(clean);
    mn_scrub_report_release(&scrubbed);
    return rc;
}

int mn_memory_forget(json_t **out, mn_store *s, const mn_memory_settings *cfg, const json_t *in)
{
    char id[MN_ID_LEN + 1];
    int rc;
    bool purge = json_is_true(json_object_get(in, "purge"));
    bool undo = json_is_true(json_object_get(in, "undo"));
    const char *action = purge ? "purged" : undo ? "restored" : "forgotten";
    if (purge && undo)
        return mn_error_set(MN_EINVAL, "give either purge or undo, not both");
    if ((rc = mn_store_begin(s)) != 0)
        return rc;
    if ((rc = mn_store_memory_resolve(s, id, str(in, "id"))) != 0)
        goto fail;
    rc = mn_store_memory_set_deleted(s, id, undo ? 0 : mn_time_now_ms());
    /* life cycle: what it superseded may come back; undone, its links hold again */
    if (rc == 0)
        rc = undo ? mn_lifecycle_apply(s, cfg->actor, id)
                  : mn_lifecycle_forgotten(s, cfg->actor, id);
    if (rc == 0 && purge)
        rc = mn_store_memory_purge(s, id);
    if (rc || (rc = mn_store_audit(s, cfg->actor,
                                   purge  ? "purge"
                                   : undo ? "restore"
                                          : "forget",
                                   id, NULL)) != 0)
        goto fail;
    if ((rc = mn_store_commit(s)) != 0)
        return rc;
    *out = result(id, action, NULL);
    return 0;
fail:
    mn_store_rollback(s);
    return rc;
}

int mn_memory_link(json_t **out, mn_store *s, const mn_memory_settings *cfg, const json_t *raw)
{
    char from[MN_ID_LEN + 1];
    char *to = NULL;
    json_t *in = NULL;
    mn_scrub_report scrubbed = MN_SCRUB_REPORT_INIT;
    int rc;
    bool remove = json_is_true(json_object_get(raw, "remove"));
    /* a link's target and note are stored text like a memory's: a token in a url: target or
     * a note passes the same scrub (and the audit row, which names the target, after it) */
    if ((rc = scrub_input(&in, raw, cfg, &scrubbed)) != 0)
        return rc;
    if ((rc = mn_store_begin(s)) != 0) {
        json_decref(in);
        mn_scrub_report_release(&scrubbed);
        return rc;
    }
    if ((rc = mn_store_memory_resolve(s, from, str(in, "from"))) != 0 ||
        (rc = resolve_target(&to, s, str(in, "to"))) != 0)
        goto fail;
    if (strcmp(from, to) == 0) {
        rc = mn_error_set(MN_EINVAL, "a memory cannot link to itself");
        goto fail;
    }
    if (remove)
        rc = mn_store_link_remove(s, from, str(in, "kind"), to);
    else
        rc = mn_store_link_add(s, from, str(in, "kind"), to, str(in, "note"), mn_time_now_ms());
    if (rc == MN_EEXISTS || (remove && rc == MN_ENOTFOUND)) {
        /* idempotent: the link is there (or gone), as asked */
        mn_error_clear();
        mn_store_rollback(s);
        *out = json_pack("{s:s,s:s,s:s,s:s}", "from", from, "to", to, "kind", str(in, "kind"),
                         "action", "unchanged");
        rc = 0;
        goto done;
    }
    /* life cycle: a supersedes link retires its target, removed it brings it back */
    if (rc == 0 && !strcmp(str(in, "kind"), "supersedes") && !strchr(to, ':'))
        rc = remove ? mn_lifecycle_release(s, cfg->actor, to)
                    : mn_lifecycle_apply(s, cfg->actor, from);
    if (rc)
        goto fail;
    json_t *detail = json_pack("{s:s,s:s}", "kind", str(in, "kind"), "to", to);
    rc = mn_store_audit(s, cfg->actor, remove ? "unlink" : "link", from, detail);
    json_decref(detail);
    if (rc || (rc = audit_redaction(s, cfg, from, &scrubbed)) != 0 ||
        (rc = mn_store_commit(s)) != 0)
        goto fail;
    *out = json_pack("{s:s,s:s,s:s,s:s}", "from", from, "to", to, "kind", str(in, "kind"), "action",
                     remove ? "unlinked" : "linked");
    goto done;
fail:
    mn_store_rollback(s);
done:
    free(to);
    json_decref(in);
    mn_scrub_report_release(&scrubbed);
    return rc;
}

/* Checks the schema cannot make, all before anything is written: full ids, each once. */
static int check_ids(const json_t *mems)
{
    mn_map seen = MN_MAP_INIT;
    const json_t *m;
    size_t i;
    int rc = 0;
    json_array_foreach(mems, i, m)
    {
        const char *id = str(m, "id");
        if (!is_full_id(id)) {
            rc = mn_error_set(MN_EINVAL, "memories[%zu]: '%s' is not a memory id", i, id);
            break;
        }
        if (mn_map_has(&seen, id)) {
            rc = mn_error_set(MN_EINVAL, "memories[%zu]: id '%s' appears twice", i, id);
            break;
        }
        mn_map_set(&seen, id, NULL);
    }
    mn_map_release(&seen);
    return rc;
}

int mn_memory_import_rows(mn_memory_import_counts *c, mn_store *s, const mn_memory_settings *cfg,
                          const json_t *mems, const char *on_conflict, size_t first,
                          unsigned char *written)
{
    const char *mode = on_conflict ? on_conflict : "skip";
    size_t i;
    json_t *m;
    int rc;
    if ((rc = check_ids(mems)) != 0)
        return rc;
    json_array_foreach(mems, i, m)
    {
        /* what is imported passes the same scrub as a save */
        json_t *one = NULL;
        mn_scrub_report scrubbed = MN_SCRUB_REPORT_INIT;
        written[i] = 0;
        rc = scrub_input(&one, m, cfg, &scrubbed);
        if (rc == 0 && holds_pii(one, cfg))
            json_object_set_new(one, "status", json_string("quarantined"));
        if (rc == 0 && scrubbed.rules)
            rc = audit_redaction(s, cfg, str(m, "id"), &scrubbed);
        c->redacted += scrubbed.secrets + scrubbed.pii;
        mn_scrub_report_release(&scrubbed);
        if (rc) {
            json_decref(one);
            return mn_error_prefix("memories[%zu]", first + i);
        }
        /* body is optional in the memory shape; stored, it is "" (NOT NULL) */
        if (!json_object_get(one, "body"))
            json_object_set_new(one, "body", json_string(""));
        rc = mn_store_memory_insert(s, one);
        if (rc == MN_EEXISTS && strcmp(mode, "skip") == 0) {
            json_decref(one);
            c->skipped++;
            mn_error_clear();
            continue;
        }
        if (rc == MN_EEXISTS && strcmp(mode, "replace") == 0) {
            rc = mn_store_memory_replace(s, one);
            c->replaced++;
        } else {
            c->imported++;
        }
        json_decref(one);
        if (rc)
            return mn_error_prefix("memories[%zu]", first + i);
        written[i] = 1;
    }
    return 0;
}

/* One link of an imported memory m, its text scrubbed: 0, or an error not yet prefixed. */
static int import_link(mn_memory_import_counts *c, mn_store *s, const json_t *m, const json_t *l)
{
    int64_t ms = mn_time_now_ms();
    int rc = 0;
    if (str(l, "created_at") && (rc = mn_time_parse(&ms, str(l, "created_at"))) != 0)
        return rc;
    const char *to = str(l, "to");
    if (strchr(to, ':') ? (rc = check_ref(to)) != 0 : !is_full_id(to))
        return rc ? rc : mn_error_set(MN_EINVAL, "'%.60s' is not a memory id or a reference", to);
    if (strcmp(to, str(m, "id")) == 0)
        return mn_error_set(MN_EINVAL, "a memory cannot link to itself");
    rc = mn_store_link_add(s, str(m, "id"), str(l, "kind"), to, str(l, "note"), ms);
    if (rc == MN_EEXISTS) {
        mn_error_clear();
        return 0;
    }
    if (rc == 0)
        c->links++;
    return rc;
}

int mn_memory_import_links(mn_memory_import_counts *c, mn_store *s, const mn_memory_settings *cfg,
                           const json_t *mems, size_t first, const unsigned char *written)
{
    size_t i;
    const json_t *m;
    int rc = 0;
    json_array_foreach(mems, i, m)
    {
        size_t j;
        json_t *raw;
        if (!written[i])
            continue;
        json_array_foreach(json_object_get(m, "links"), j, raw)
        {
            /* the scrub of a link op's target and note (mn_memory_link) */
            json_t *l = NULL;
            mn_scrub_report scrubbed = MN_SCRUB_REPORT_INIT;
            if ((rc = scrub_input(&l, raw, cfg, &scrubbed)) == 0 && scrubbed.rules) {
                rc = audit_redaction(s, cfg, str(m, "id"), &scrubbed);
                c->redacted += scrubbed.secrets + scrubbed.pii;
            }
            mn_scrub_report_release(&scrubbed);
            if (rc)
                goto fail;
            rc = import_link(c, s, m, l);
            json_decref(l);
            if (rc)
                goto fail;
            continue;
        fail:
            return mn_error_prefix("memories[%zu].links[%zu]", first + i, j);
        }
    }
    return 0;
}

json_t *mn_memory_import_counts_json(const mn_memory_import_counts *c)
{
    return json_pack("{s:I,s:I,s:I,s:I,s:I}", "imported", (json_int_t)c->imported, "replaced",
                     (json_int_t)c->replaced, "skipped", (json_int_t)c->skipped, "links",
                     (json_int_t)c->links, "redacted", (json_int_t)c->redacted);
}

/*
 * The import itself, inside the caller's transaction: checks, inserts,
 * then links (a link may point to a memory later in the input); the counts
 * into *out ({imported, replaced, skipped, links, redacted}). On failure
 * the caller rolls back.
 */
int mn_memory_import_within(json_t **out, mn_store *s, const mn_memory_settings *cfg,
                            const json_t *in)
{
    const json_t *mems = json_object_get(in, "memories");
    size_t n = json_array_size(mems);
    mn_memory_import_counts c = {0};
    unsigned char *written = mn_calloc(n ? n : 1, 1);
    int rc = mn_memory_import_rows(&c, s, cfg, mems, str(in, "on_conflict"), 0, written);
    if (rc == 0)
        rc = mn_memory_import_links(&c, s, cfg, mems, 0, written);
    *out = rc ? NULL : mn_memory_import_counts_json(&c);
    free(written);
    return rc;
}

int mn_memory_import(json_t **out, mn_store *s, const mn_memory_settings *cfg, const json_t *in)
{
    json_t *detail = NULL;
    int rc;
    /* the ids are checked before the transaction too: a bad file costs no lock */
    if ((rc = check_ids(json_object_get(in, "memories"))) != 0)
        return rc;
    if ((rc = mn_store_begin(s)) != 0)
        return rc;
    if ((rc = mn_memory_import_within(&detail, s, cfg, in)) == 0)
        rc = mn_store_audit(s, cfg->actor, "import", NULL, detail);
    if (rc == 0)
        rc = mn_store_commit(s);
    if (rc) {
        json_decref(detail);
        mn_store_rollback(s);
        return rc;
    }
    *out = detail;
    return 0;
}

int mn_memory_filter_from_json(mn_memory_filter *f, const json_t *in, const char *deleted_default)
{
    const char *deleted = str(in, "deleted") ? str(in, "deleted") : deleted_default;
    f->kind = str(in, "kind");
    f->status = str(in, "status");
    f->tag = str(in, "tag");
    f->path = str(in, "path");
    f->source = str(in, "source");
    f->level = str(in, "level") ? str(in, "level")[1] - '0' : -1;
    f->include_deleted = strcmp(deleted, "include") == 0;
    f->only_deleted = strcmp(deleted, "only") == 0;
    if (str(in, "since")) {
        int rc = mn_time_parse(&f->since, str(in, "since"));
        if (rc)
            return mn_error_prefix("field 'since'");
    }
    return 0;
}
