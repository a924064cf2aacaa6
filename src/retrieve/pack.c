/*
 * pack.c - context and recall (pack.h): choose what a search found, under
 * a token budget, and write it for an agent.
 *
 * Candidates come from one search (retrieve.h) over memories, code chunks
 * and files, plus the project's L0 facts. Each becomes an entry: a section
 * (project, knowledge, decisions, code), a score, one Markdown line (or
 * two, for a decision and its chain) and the reason it is there. Entries
 * are chosen greedily: L0 facts first, up to OVERVIEW_SHARE of the budget
 * (they are what every task needs and they are short), then every other
 * entry by descending score while it fits, a section's heading charged
 * with its first entry. Then the chosen entries are written grouped by
 * section, so the text reads as a briefing, not as a ranked list.
 *
 * The floor: an entry is relevant when its lexical signal reaches
 * LEXICAL_FLOOR of the best match's and its text holds enough of the
 * question's distinct terms (covers: at least min(3, ceil(0.3 n)) of n, as
 * the index tokenizes them: search scores are relative to the best match,
 * so one shared uncommon word must not pass for an answer), or its
 * semantic signal reaches SEMANTIC_FLOOR, or it is in the scope the caller
 * named (files, symbols). Without one relevant memory or code entry, the
 * text says there is no relevant project memory, after the overview,
 * instead of serving weak matches.
 *
 * Token accounting: each line's estimate (tokens.h) is added up; an
 * estimate of a concatenation never exceeds the sum of its parts' (the
 * pieces never straddle a newline, and the margin is subadditive), so the
 * whole text stays within max_tokens; `tokens` reports its own estimate.
 */
#include "common.h"

#include "retrieve/pack.h"
#include "retrieve/retrieve.h"
#include "retrieve/tokens.h"
#include "text/tokenize.h"
#include "util/map.h"
#include "util/buf.h"
#include "util/vec.h"

#define OVERVIEW_SHARE 0.35 /* of the budget, at most, for L0 facts */
#define OVERVIEW_MAX   16   /* L0 facts considered */
#define SEARCH_K       40   /* search items considered */
/*
 * Code rows ranked by the words for the files to look at: 4,000, not the
 * 12,000 of a file search. The context lists several files, and on the
 * SWE-bench dev set (bench_swebench --stores, same indexes) 4,000 rows
 * keep file Acc@3 and Acc@5 (0.734, 0.797) and lose 2 of 64 at Acc@1
 * (0.516 -> 0.484), for a third of the ranking: 11 -> 7 ms of a context on
 * sympy, which the prompt hook waits for.
 */
#define CONTEXT_FILE_ROWS 4000
#define LEXICAL_FLOOR     0.15
#define SEMANTIC_FLOOR    0.5
#define FACT_CHARS        300 /* a fact's text, at most (recall says so too) */
#define EVIDENCE_CHARS    160 /* a line of evidence for code */
#define CHAIN_MAX         3   /* links of a decision's chain shown under it (Markdown) */
#define CHAIN_DATA_MAX    8   /* ... given with it (recall) */
#define CHAIN_DEPTH       3   /* links followed from a decision, at most */
#define MIN_TOKENS        64  /* smaller budgets are refused by the schema too */

typedef enum { SEC_PROJECT, SEC_KNOWLEDGE, SEC_DECISIONS, SEC_CODE, SEC_COUNT } section;

static const char *const section_title[SEC_COUNT] = {
    "## Project", "## Relevant knowledge", "## Decisions and their reasons", "## Where to look"};
static const char *const section_name[SEC_COUNT] = {"project", "knowledge", "decisions", "code"};

typedef struct {
    section sec;
    double score;
    bool relevant;
    char *line; /* Markdown, ending in '\n' */
    json_t *item;
    size_t tokens;
    bool chosen;
    size_t order; /* position among the search's items, for a stable output */
} entry;

typedef MN_VEC(entry) entry_vec;

/* Append at most max characters (whole UTF-8 characters) of text, on one line. */
static void put_clipped(mn_buf *b, const char *text, size_t max)
{
    /* chars counts what is written, the single spaces that stand for runs
       of whitespace included, so the clip holds at most max characters and
       "…" (the schemas allow max + 1). */
    size_t chars = 0, i = 0, n = strlen(text);
    bool space = false;
    while (i < n) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
            space = true;
            i++;
            continue;
        }
        bool sep = space && b->len && b->ptr[b->len - 1] != ' ';
        if (chars + sep >= max)
            break;
        if (sep) {
            mn_buf_putc(b, ' ');
            chars++;
        }
        space = false;
        size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
        if (len > n - i)
            len = n - i;
        mn_buf_put(b, text + i, len);
        i += len;
        chars++;
    }
    if (i < n)
        mn_buf_puts(b, "…");
}

static const char *jstr(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* Add a note unless it is there already. */
static void note_once(json_t *notes, const char *note)
{
    size_t i;
    const json_t *n;
    json_array_foreach(notes, i, n) if (!strcmp(json_string_value(n), note)) return;
    json_array_append_new(notes, json_string(note));
}

/* ---- how much of the question an item's text covers ---- */

typedef struct {
    mn_map terms; /* distinct terms of the question */
    size_t need;  /* how many of them a text must hold */
} question;

typedef struct {
    const mn_map *query; /* NULL: collecting the question's terms */
    mn_map seen;
    size_t n;
} term_count;

static int count_term(void *payload, const char *tok, size_t len, size_t start, size_t end,
                      int colocated)
{
    term_count *c = payload;
    char key[MN_TOK_MAX_BYTES + 1];
    (void)start;
    (void)end;
    if (colocated != MN_TOK_COLOC_NONE || len > MN_TOK_MAX_BYTES)
        return 0; /* the pieces of an identifier count, its whole is the same words again */
    memcpy(key, tok, len);
    key[len] = '\0';
    if ((c->query && !mn_map_has(c->query, key)) || mn_map_has(&c->seen, key))
        return 0;
    mn_map_set(&c->seen, key, (void *)1);
    c->n++;
    return 0;
}

static void question_init(question *q, const char *text)
{
    term_count c = {NULL, MN_MAP_INIT, 0};
    mn_tokenize(text, strlen(text), MN_LANG_UNKNOWN, 0, count_term, &c);
    q->terms = c.seen;
    q->need = (3 * c.n + 9) / 10; /* ceil(0.3 n) */
    if (q->need > 3)
        q->need = 3;
}

/* Whether text holds enough of the question's terms. */
static bool covers(const question *q, const char *text)
{
    term_count c = {&q->terms, MN_MAP_INIT, 0};
    mn_tokenize(text, strlen(text), MN_LANG_UNKNOWN, 0, count_term, &c);
    mn_map_release(&c.seen);
    return c.n >= q->need;
}

/* The text a memory is matched on (title, body, context, keywords). */
static char *memory_text(const json_t *mem)
{
    mn_buf b = MN_BUF_INIT;
    const json_t *ctx = json_object_get(mem, "context");
    mn_buf_printf(&b, "%s\n%s", jstr(mem, "title"), jstr(mem, "body"));
    for (const char *const *f = (const char *const[]){"situation", "solution", "what_failed", NULL};
         *f; f++)
        mn_buf_printf(&b, "\n%s", jstr(ctx, *f));
    size_t i;
    const json_t *k;
    json_array_foreach(json_object_get(ctx, "trigger_keywords"), i, k)
        mn_buf_printf(&b, " %s", json_string_value(k));
    return mn_buf_detach(&b);
}

/* The text a code item is matched on (path, symbol, evidence). */
static char *code_text(const mn_search_item *it)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b, "%s\n%s\n%s", it->path ? it->path : "", it->title ? it->title : "",
                  it->snippet ? it->snippet : "");
    return mn_buf_detach(&b);
}

static const char *why_of(const mn_search_item *it, bool in_scope, bool lexical)
{
    if (in_scope)
        return "in the files or symbols you named";
    if (lexical)
        return it->type == MN_ITEM_MEMORY ? "its words match the question"
                                          : "its code matches the question's words and names";
    if ((it->sig.has & MN_SIG_SEMANTIC) && it->sig.semantic >= SEMANTIC_FLOOR)
        return "close in meaning to the question";
    if ((it->sig.has & MN_SIG_WHEN) && it->sig.when > 0)
        return "from the time the question names";
    if ((it->sig.has & MN_SIG_GRAPH) && it->sig.graph > 0)
        return "imports or calls code that matches";
    return "weak match";
}

/* The lexical half of the floor: a strong enough match whose text covers the question. */
static bool lexical_ok(const mn_search_item *it, const question *q, const char *text)
{
    return (it->sig.has & MN_SIG_LEXICAL) && it->sig.lexical >= LEXICAL_FLOOR && covers(q, text);
}

static bool relevant(const mn_search_item *it, bool lexical)
{
    return lexical || ((it->sig.has & MN_SIG_SEMANTIC) && it->sig.semantic >= SEMANTIC_FLOOR) ||
           ((it->sig.has & MN_SIG_SCOPE) && it->sig.scope > 0) ||
           ((it->sig.has & MN_SIG_WHEN) && it->sig.when > 0);
}

static json_t *item_json(const mn_search_item *it, section sec, const char *why)
{
    json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:f,s:s}", "section", section_name[sec], "type",
                          it->type == MN_ITEM_MEMORY ? "memory"
                          : it->type == MN_ITEM_CODE ? "code"
                                                     : "file",
                          "id", it->id ? it->id : "", "title", it->title ? it->title : "", "score",
                          it->score, "why", why);
    if (it->path)
        json_object_set_new(o, "path", json_string(it->path));
    if (it->start_line > 0) {
        json_object_set_new(o, "start_line", json_integer(it->start_line));
        json_object_set_new(o, "end_line", json_integer(it->end_line));
    }
    if (it->status && strcmp(it->status, "active") != 0)
        json_object_set_new(o, "status", json_string(it->status));
    return o;
}

/* " (pending review)" and the like, for a memory that is not plainly active. */
static void put_status(mn_buf *b, const char *status)
{
    if (!status || !strcmp(status, "active"))
        return;
    if (!strcmp(status, "stale"))
        mn_buf_puts(b, " [stale: the code it cites changed]");
    else if (!strcmp(status, "pending"))
        mn_buf_puts(b, " [pending review]");
    else
        mn_buf_printf(b, " [%s]", status);
}

/*
 * A decision's chain: the memories it supersedes or was caused by, what
 * those supersede or were caused by, and so on, breadth first (the direct
 * links first), CHAIN_DEPTH links deep at most, each memory once (links
 * may form a cycle). Forgotten memories and links to things that are not
 * memories (files, commits: "kind:...") are not followed.
 */
typedef struct {
    int depth;        /* 1: a link of the decision itself */
    const char *kind; /* supersedes, caused_by */
    const char *from; /* the memory linking (the decision's or a previous link's id) */
    json_t *mem;      /* the memory linked to, read once: its id, title and links */
} chain_link;

static bool causal(const char *kind)
{
    return !strcmp(kind, "supersedes") || !strcmp(kind, "caused_by");
}

static size_t chain_walk(mn_store *s, const json_t *mem, chain_link *out, size_t max)
{
    size_t n = 0;
    const json_t *at = mem;
    int depth = 1;
    /* breadth first: out[] is the queue, each memory's links read from the copy fetched */
    for (size_t next = 0;; next++) {
        const json_t *l;
        size_t i;
        json_array_foreach(json_object_get(at, "links"), i, l)
        {
            const char *kind = jstr(l, "kind"), *to = jstr(l, "to");
            bool seen = !strcmp(to, jstr(mem, "id"));
            for (size_t j = 0; j < n && !seen; j++)
                seen = !strcmp(jstr(out[j].mem, "id"), to);
            json_t *other = NULL;
            if (n >= max || seen || !causal(kind) || strchr(to, ':') ||
                mn_store_memory_get(s, &other, to) != 0) {
                mn_error_clear();
                continue;
            }
            out[n].depth = depth;
            out[n].kind = !strcmp(kind, "supersedes") ? "supersedes" : "caused_by";
            out[n].from = jstr(at, "id");
            out[n++].mem = other;
        }
        while (next < n && out[next].depth >= CHAIN_DEPTH)
            next++;
        if (next >= n)
            return n;
        at = out[next].mem;
        depth = out[next].depth + 1;
    }
}

static void chain_release(chain_link *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        json_decref(c[i].mem);
}

/* The chain under a decision's line, one line a link, indented by depth. */
static void put_chain(mn_store *s, mn_buf *b, const json_t *mem)
{
    chain_link c[CHAIN_MAX];
    size_t n = chain_walk(s, mem, c, CHAIN_MAX);
    for (size_t i = 0; i < n; i++) {
        mn_buf_printf(b, "%*s- %s: ", 2 * c[i].depth, "",
                      !strcmp(c[i].kind, "supersedes") ? "supersedes" : "caused by");
        put_clipped(b, jstr(c[i].mem, "title"), 120);
        mn_buf_printf(b, " (%.12s)\n", jstr(c[i].mem, "id"));
    }
    chain_release(c, n);
}

/* The Markdown line(s) of a memory found by the search. */
static void memory_line(mn_store *s, mn_buf *b, const mn_search_item *it, const json_t *mem,
                        bool causal)
{
    const char *kind = jstr(mem, "kind"), *title = jstr(mem, "title"), *body = jstr(mem, "body");
    const json_t *ctx = json_object_get(mem, "context");
    bool decision = !strcmp(kind, "decision");
    mn_buf text = MN_BUF_INIT;
    /* the body, unless it only repeats the title; a decision's situation is its reason */
    if (*body && strncmp(body, title, strlen(body)) != 0)
        mn_buf_printf(&text, "%s: %s", title, body);
    else
        mn_buf_puts(&text, title);
    const char *situation = jstr(ctx, "situation"), *solution = jstr(ctx, "solution");
    if (*situation)
        mn_buf_printf(&text, decision ? " Because: %s" : " When: %s", situation);
    if (*solution)
        mn_buf_printf(&text, " Fix: %s", solution);
    if (decision)
        mn_buf_puts(b, "- ");
    else
        mn_buf_printf(b, "- **%s** ", kind);
    put_clipped(b, text.ptr ? text.ptr : "", FACT_CHARS);
    put_status(b, it->status);
    mn_buf_printf(b, " (%.12s)\n", it->id);
    if (decision && causal)
        put_chain(s, b, mem);
    mn_buf_release(&text);
}

static void code_line(mn_buf *b, const mn_search_item *it)
{
    mn_buf_printf(b, "- `%s", it->path ? it->path : it->title);
    if (it->start_line > 0)
        mn_buf_printf(b, ":%lld-%lld", (long long)it->start_line, (long long)it->end_line);
    mn_buf_puts(b, "`");
    if (it->type == MN_ITEM_CODE && it->title && it->path && strcmp(it->title, it->path) != 0) {
        mn_buf_puts(b, " ");
        put_clipped(b, it->title, 80);
    }
    if (it->snippet && *it->snippet) {
        mn_buf_puts(b, ": ");
        put_clipped(b, it->snippet, EVIDENCE_CHARS);
    }
    mn_buf_puts(b, "\n");
}

static void entry_add(entry_vec *v, section sec, double score, bool rel, mn_buf *line, json_t *item,
                      size_t order)
{
    entry e = {sec, score, rel, mn_buf_detach(line), item, 0, false, order};
    e.tokens = mn_tokens_estimate(e.line, strlen(e.line));
    json_object_set_new(item, "tokens", json_integer((json_int_t)e.tokens));
    mn_vec_push(v, e);
}

static int collect_overview(void *payload, json_t *mem)
{
    json_array_append(payload, mem);
    return 0;
}

/* The project's L0 facts: one line each. */
static int add_overview(mn_store *s, entry_vec *v)
{
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    f.level = 0;
    f.status = "active";
    f.limit = OVERVIEW_MAX;
    json_t *rows = json_array();
    int rc = mn_store_memory_list(s, &f, collect_overview, rows);
    size_t i;
    const json_t *r;
    json_array_foreach(rows, i, r)
    {
        mn_buf line = MN_BUF_INIT;
        mn_buf_puts(&line, "- ");
        put_clipped(&line, jstr(r, "title"), FACT_CHARS);
        mn_buf_puts(&line, "\n");
        json_t *item = json_pack("{s:s,s:s,s:s,s:s,s:f,s:s}", "section", "project", "type",
                                 "memory", "id", jstr(r, "id"), "title", jstr(r, "title"), "score",
                                 1.0, "why", "project overview (L0): always included");
        /* scores above any search score: chosen first, in their stored order */
        entry_add(v, SEC_PROJECT, 2.0 - (double)i / 1000.0, false, &line, item, i);
    }
    json_decref(rows);
    return rc;
}

static bool in_scope(const mn_context_request *req, const mn_search_item *it)
{
    for (size_t i = 0; it->path && i < req->nfiles; i++)
        if (!strcmp(req->files[i], it->path))
            return true;
    for (size_t i = 0; it->title && i < req->nsymbols; i++)
        if (strstr(it->title, req->symbols[i]))
            return true;
    return (it->sig.has & MN_SIG_SCOPE) && it->sig.scope > 0;
}

/* Search and turn what it found into entries. *any: whether one is relevant. */
static int add_found(mn_store *s, const mn_context_request *req, const question *q, entry_vec *v,
                     bool *any, json_t *notes)
{
    mn_search_request sr;
    mn_search_result res;
    memset(&sr, 0, sizeof(sr));
    sr.query = req->query;
    sr.kinds = MN_SEARCH_MEMORY | MN_SEARCH_CODE | MN_SEARCH_FILE;
    sr.k = SEARCH_K;
    sr.files = req->files;
    sr.nfiles = req->nfiles;
    sr.now_ms = req->now_ms;
    sr.embedder = req->embedder;
    sr.semantic_note = req->semantic_note;
    sr.file_rows = CONTEXT_FILE_ROWS;
    sr.branch = req->branch;
    int rc = mn_search_run(s, &sr, &res);
    if (rc)
        return rc;
    /* a file and a chunk of it both found: the chunk says more, keep one line per place */
    for (size_t i = 0; i < res.n; i++) {
        const mn_search_item *it = &res.items[i];
        if (it->type == MN_ITEM_MEMORY && it->level == 0)
            continue; /* in the overview already */
        if (it->type == MN_ITEM_FILE) {
            bool dup = false;
            for (size_t j = 0; j < res.n && !dup; j++)
                dup = res.items[j].type == MN_ITEM_CODE && res.items[j].path && it->path &&
                      !strcmp(res.items[j].path, it->path);
            if (dup)
                continue;
        }
        bool scope = in_scope(req, it), lex = false;
        mn_buf line = MN_BUF_INIT;
        section sec = SEC_CODE;
        if (it->type == MN_ITEM_MEMORY) {
            json_t *mem = NULL;
            if (mn_store_memory_get(s, &mem, it->id) != 0) {
                mn_error_clear();
                continue;
            }
            char *text = memory_text(mem);
            lex = lexical_ok(it, q, text);
            free(text);
            sec = !strcmp(jstr(mem, "kind"), "decision") ? SEC_DECISIONS : SEC_KNOWLEDGE;
            memory_line(s, &line, it, mem, req->include_causal);
            json_decref(mem);
        } else {
            char *text = code_text(it);
            lex = lexical_ok(it, q, text);
            free(text);
            code_line(&line, it);
        }
        bool rel = scope || relevant(it, lex);
        const char *why = why_of(it, scope, lex);
        *any |= rel;
        entry_add(v, sec, it->score, rel, &line, item_json(it, sec, why), i);
    }
    for (size_t i = 0; i < res.nnotes; i++)
        note_once(notes, res.notes[i]);
    mn_search_result_release(&res);
    return 0;
}

static int cmp_choice(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_output(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->sec != y->sec)
        return x->sec < y->sec ? -1 : 1;
    return cmp_choice(a, b);
}

/* Choose entries under the budget; write the chosen, grouped by section. */
static json_t *pack(entry_vec *v, const mn_context_request *req, const char *intro,
                    const char *none)
{
    size_t budget = req->max_tokens, used = 0;
    bool heading[SEC_COUNT] = {false};
    mn_buf md = MN_BUF_INIT;
    used += mn_tokens_estimate(intro, strlen(intro));
    size_t none_cost = none ? mn_tokens_estimate(none, strlen(none)) : 0;
    used += none_cost;
    size_t overview_cap = (size_t)((double)budget * OVERVIEW_SHARE);
    if (v->len > 1)
        qsort(v->items, v->len, sizeof(entry), cmp_choice);
    for (int pass = 0; pass < 2; pass++) {
        size_t overview_used = 0;
        for (size_t i = 0; i < v->len; i++) {
            entry *e = &v->items[i];
            if (e->chosen || (pass == 0) != (e->sec == SEC_PROJECT))
                continue;
            if (e->sec != SEC_PROJECT && !e->relevant)
                continue; /* under the floor: never padding */
            size_t cost = e->tokens;
            if (!heading[e->sec])
                cost += mn_tokens_estimate(section_title[e->sec], strlen(section_title[e->sec])) +
                        1; /* and the blank line before it */
            if (used + cost > budget)
                continue;
            if (pass == 0 && overview_used + cost > overview_cap)
                continue;
            e->chosen = true;
            heading[e->sec] = true;
            used += cost;
            if (pass == 0)
                overview_used += cost;
        }
    }
    if (v->len > 1)
        qsort(v->items, v->len, sizeof(entry), cmp_output);
    json_t *items = json_array();
    mn_buf_puts(&md, intro);
    int last = -1;
    for (size_t i = 0; i < v->len; i++) {
        entry *e = &v->items[i];
        if (!e->chosen)
            continue;
        if ((int)e->sec != last) {
            mn_buf_printf(&md, "\n%s\n", section_title[e->sec]);
            last = (int)e->sec;
        }
        mn_buf_puts(&md, e->line);
        json_array_append(items, e->item);
    }
    if (none)
        mn_buf_puts(&md, none);
    size_t tokens = mn_tokens_estimate(md.ptr ? md.ptr : "", md.len);
    if (tokens > budget) { /* cannot happen (see the top of the file); never send it anyway */
        mn_buf_release(&md);
        json_decref(items);
        return NULL;
    }
    json_t *out =
        json_pack("{s:s%,s:I,s:I,s:o}", "markdown", md.ptr ? md.ptr : "", md.len, "tokens",
                  (json_int_t)tokens, "max_tokens", (json_int_t)budget, "items", items);
    mn_buf_release(&md);
    return out;
}

static void entries_release(entry_vec *v)
{
    for (size_t i = 0; i < v->len; i++) {
        free(v->items[i].line);
        json_decref(v->items[i].item);
    }
    mn_vec_release(v);
}

static const char *mode_name(mn_context_mode m)
{
    return m == MN_CONTEXT_DISCOVERY ? "discovery" : m == MN_CONTEXT_ROUTE ? "route" : "auto";
}

int mn_context_build(mn_store *s, const mn_context_request *req, json_t **out)
{
    entry_vec v = MN_VEC_INIT;
    bool any = false;
    const char *q = req->query ? req->query : "";
    mn_context_mode mode = req->mode;
    if (mode == MN_CONTEXT_AUTO)
        mode = *q || req->nfiles || req->nsymbols ? MN_CONTEXT_ROUTE : MN_CONTEXT_DISCOVERY;
    if (req->max_tokens < MIN_TOKENS)
        return mn_error_set(MN_EINVAL, "max_tokens must be at least %d", MIN_TOKENS);
    json_t *notes = json_array();
    int rc = add_overview(s, &v);
    question qn;
    question_init(&qn, q);
    if (rc == 0 && mode == MN_CONTEXT_ROUTE)
        rc = add_found(s, req, &qn, &v, &any, notes);
    mn_map_release(&qn.terms);
    if (rc) {
        entries_release(&v);
        json_decref(notes);
        return rc;
    }
    mn_buf intro = MN_BUF_INIT;
    if (*q) {
        mn_buf_puts(&intro, "# Project memory for: ");
        put_clipped(&intro, q, 120);
        mn_buf_puts(&intro, "\n");
    } else {
        mn_buf_puts(&intro, "# Project memory: overview\n");
    }
    const char *none = mode == MN_CONTEXT_ROUTE && !any
                           ? "\nNo relevant project memory was found for this question: "
                             "nothing in the memories or the code index matches it well "
                             "enough to be worth reading.\n"
                           : NULL;
    *out = pack(&v, req, intro.ptr, none);
    mn_buf_release(&intro);
    entries_release(&v);
    if (!*out) {
        json_decref(notes);
        return mn_error_set(MN_EINTERNAL, "context: the budget could not be kept");
    }
    json_object_set_new(*out, "mode", json_string(mode_name(mode)));
    json_object_set_new(*out, "relevant", json_boolean(any));
    json_object_set_new(*out, "notes", notes);
    return 0;
}

/* A memory's text for recall: title and body (and its fix), at most FACT_CHARS characters. */
static char *fact_text(const json_t *mem)
{
    mn_buf t = MN_BUF_INIT, out = MN_BUF_INIT;
    const char *title = jstr(mem, "title"), *body = jstr(mem, "body");
    if (*body && strncmp(body, title, strlen(body)) != 0)
        mn_buf_printf(&t, "%s: %s", title, body);
    else
        mn_buf_puts(&t, title);
    const char *solution = jstr(json_object_get(mem, "context"), "solution");
    if (*solution)
        mn_buf_printf(&t, " Fix: %s", solution);
    put_clipped(&out, t.ptr ? t.ptr : "", FACT_CHARS);
    mn_buf_release(&t);
    return out.ptr ? mn_buf_detach(&out) : mn_strdup("");
}

/*
 * A decision's links as data: every direct link (any kind: relates_to,
 * about a file, ...) with the linked memory's title when it is one, then
 * the rest of its causal chain (chain_walk) with the memory each link
 * comes from.
 */
static json_t *chain_of(mn_store *s, const json_t *mem)
{
    json_t *chain = json_array();
    const json_t *l;
    size_t i;
    json_array_foreach(json_object_get(mem, "links"), i, l)
    {
        const char *kind = jstr(l, "kind"), *to = jstr(l, "to");
        json_t *other = NULL;
        if (strchr(to, ':') || mn_store_memory_get(s, &other, to) != 0) {
            mn_error_clear();
            json_array_append_new(chain,
                                  json_pack("{s:s,s:s,s:i}", "kind", kind, "to", to, "depth", 1));
            continue;
        }
        json_array_append_new(chain, json_pack("{s:s,s:s,s:s,s:i}", "kind", kind, "to", to, "title",
                                               jstr(other, "title"), "depth", 1));
        json_decref(other);
    }
    chain_link c[CHAIN_DATA_MAX];
    size_t n = chain_walk(s, mem, c, CHAIN_DATA_MAX);
    for (i = 0; i < n; i++)
        if (c[i].depth > 1)
            json_array_append_new(chain,
                                  json_pack("{s:s,s:s,s:s,s:i,s:s}", "kind", c[i].kind, "to",
                                            jstr(c[i].mem, "id"), "title", jstr(c[i].mem, "title"),
                                            "depth", c[i].depth, "from", c[i].from));
    chain_release(c, n);
    return chain;
}

int mn_recall_build(mn_store *s, const mn_context_request *req, json_t **out)
{
    mn_search_request sr;
    mn_search_result res;
    memset(&sr, 0, sizeof(sr));
    sr.query = req->query ? req->query : "";
    sr.kinds = MN_SEARCH_MEMORY | MN_SEARCH_CODE;
    sr.k = SEARCH_K;
    sr.files = req->files;
    sr.nfiles = req->nfiles;
    sr.now_ms = req->now_ms;
    sr.embedder = req->embedder;
    sr.semantic_note = req->semantic_note;
    sr.branch = req->branch;
    if (req->max_tokens < MIN_TOKENS)
        return mn_error_set(MN_EINVAL, "limit_tokens must be at least %d", MIN_TOKENS);
    int rc = mn_search_run(s, &sr, &res);
    if (rc)
        return rc;
    json_t *facts = json_array(), *shots = json_array(), *decisions = json_array(),
           *links = json_array(), *notes = json_array();
    size_t used = 0;
    double confidence = 0;
    question qn;
    question_init(&qn, sr.query);
    for (size_t i = 0; i < res.n; i++) {
        const mn_search_item *it = &res.items[i];
        bool scope = in_scope(req, it);
        json_t *mem = NULL;
        if (it->type == MN_ITEM_MEMORY && mn_store_memory_get(s, &mem, it->id) != 0) {
            mn_error_clear();
            continue;
        }
        char *matched = mem ? memory_text(mem) : code_text(it);
        bool lex = lexical_ok(it, &qn, matched);
        free(matched);
        if (!scope && !relevant(it, lex)) {
            json_decref(mem);
            continue;
        }
        double strength = scope ? 1.0 : 0;
        if (lex && it->sig.lexical > strength)
            strength = it->sig.lexical;
        if ((it->sig.has & MN_SIG_SEMANTIC) && it->sig.semantic > strength)
            strength = it->sig.semantic;
        const char *why = why_of(it, scope, lex);
        json_t *row = NULL;
        json_t *into = links;
        if (mem) {
            const char *kind = jstr(mem, "kind");
            const json_t *ctx = json_object_get(mem, "context");
            char *text = fact_text(mem);
            if (!strcmp(kind, "decision")) {
                into = decisions;
                row = json_pack(
                    "{s:s,s:s,s:s,s:o}", "id", it->id, "title", jstr(mem, "title"), "reason",
                    *jstr(ctx, "situation") ? jstr(ctx, "situation") : jstr(mem, "body"), "chain",
                    chain_of(s, mem));
            } else if (!strcmp(kind, "fewshot") || !strcmp(kind, "episode")) {
                into = shots;
                row = json_pack("{s:s,s:s,s:s,s:s,s:s}", "id", it->id, "text", text, "situation",
                                jstr(ctx, "situation"), "solution", jstr(ctx, "solution"),
                                "what_failed", jstr(ctx, "what_failed"));
            } else {
                into = facts;
                row = json_pack("{s:s,s:s,s:s}", "id", it->id, "kind", kind, "text", text);
            }
            free(text);
            json_decref(mem);
            if (strength > confidence)
                confidence = strength;
        } else {
            row = json_pack("{s:s,s:s}", "type", "code", "path", it->path ? it->path : "");
            if (it->title)
                json_object_set_new(row, "symbol", json_string(it->title));
            if (it->start_line > 0) {
                json_object_set_new(row, "start_line", json_integer(it->start_line));
                json_object_set_new(row, "end_line", json_integer(it->end_line));
            }
        }
        json_object_set_new(row, "score", json_real(it->score));
        json_object_set_new(row, "why", json_string(why));
        if (it->status && strcmp(it->status, "active") != 0)
            json_object_set_new(row, "status", json_string(it->status));
        char *dump = json_dumps(row, JSON_COMPACT);
        size_t cost = mn_tokens_estimate(dump, strlen(dump));
        free(dump);
        if (used + cost > req->max_tokens) {
            json_decref(row);
            continue;
        }
        used += cost;
        json_array_append_new(into, row);
    }
    mn_map_release(&qn.terms);
    for (size_t i = 0; i < res.nnotes; i++)
        note_once(notes, res.notes[i]);
    mn_search_result_release(&res);
    *out = json_pack("{s:o,s:o,s:o,s:o,s:f,s:I,s:o}", "facts", facts, "few_shots", shots,
                     "decisions", decisions, "links", links, "confidence", confidence, "tokens",
                     (json_int_t)used, "notes", notes);
    return 0;
}
