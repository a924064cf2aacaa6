/*
 * pack.c - context and recall (pack.h): choose what a search found, under
 * a token budget, and write it for an agent.
 *
 * Candidates come from one search (retrieve.h) over memories, code chunks
 * and files, plus the project's L0 facts. Each becomes an entry
 * (pack_internal.h: a head line and units, written by pack_item.c) with a
 * section (project, knowledge, decisions, code), a score, the reason it is
 * there, and whether it is relevant; a file's best chunk takes the file's
 * rank when the file ranked higher (place_score).
 *
 * The floor: an entry is relevant when its lexical signal reaches
 * LEXICAL_FLOOR of the best match's and its text holds enough of the
 * question's distinct terms (covers: at least min(3, ceil(0.3 n)) of n, as
 * the index tokenizes them: search scores are relative to the best match,
 * so one shared uncommon word must not pass for an answer), or its
 * semantic signal reaches SEMANTIC_FLOOR, or it is in the scope the caller
 * named (files, symbols). Code that is one line naming other code (an
 * alias, an import, a re-export: pack_item.c) is never relevant. Without
 * one relevant memory or code entry, the text says there is no relevant
 * project memory, after the overview, instead of serving weak matches.
 *
 * Tokens are counted exactly (tokens.h: the reader's encoding, config
 * context.tokenizer), unit by unit, when first needed; a form's cost is the
 * sum of its units' (pack_internal.h says why that is exact). The choice,
 * for a budget B less what the title, the "nothing relevant" line and the
 * footer (the served answer's id, written by mn_context_footer) take:
 *  0. the overview: L0 lines ranked by how many of the question's terms
 *     they hold (then in their stored order), each whole, up to
 *     OVERVIEW_SHARE of B with its heading; with overview "matching" (the
 *     hook, after the first prompt of an agent session) only lines holding
 *     one of the terms, with "none" no line;
 *  1. breadth: every relevant entry by descending score gets its largest
 *     form that fits both what is left and BREADTH_SHARE of B (or, when
 *     even its smallest is larger than that share, its smallest if it
 *     fits), a section's heading charged with its first entry;
 *  2. depth: the chosen entries, by score, grow to their largest form that
 *     fits what is left;
 *  3. an entry of 1 that did not fit gets its smallest form if it fits now.
 * So the answer fills the budget when there is enough relevant material
 * (whatever is left is smaller than any form not taken) and never passes
 * it: the text is counted again, whole, at the end, and an entry is taken
 * out should it pass (it cannot: the whole never costs more than the sum
 * of its parts).
 * `complete` says whether every relevant entry was given whole.
 *
 * The chosen entries are written grouped by section (Project, Relevant
 * knowledge, Decisions and their reasons, Where to look, May be out of
 * date), by score within a section, so the text reads as a briefing, not
 * as a ranked list.
 *
 * The life cycle (docs/internals/memory.md, "Life cycle"): expired
 * memories are not served (req->expiry, the search's and the overview's
 * filter); a stale memory (a span it cites changed) is not served as
 * current: it goes to "May be out of date" as one line, kind, title and
 * id (pk_stale_entry), chosen like any entry, and is not a relevant
 * finding (`relevant` and `complete` leave it out); recall lists it in
 * `stale`, outside facts, few_shots and decisions, and it adds nothing to
 * the confidence.
 */
#include "common.h"
#include <inttypes.h>

#include "retrieve/pack.h"
#include "retrieve/pack_internal.h"
#include "retrieve/retrieve.h"
#include "retrieve/tokens.h"
#include "store/store_search.h"
#include "text/tokenize.h"
#include "util/buf.h"
#include "util/map.h"
#include "util/vec.h"

#define OVERVIEW_SHARE 0.15 /* of the budget, at most, for L0 lines */
#define OVERVIEW_MAX   16   /* L0 facts considered */
/*
 * Pass 1 gives no entry more than this share of the budget, so that more
 * places are named before the best grow (pass 2). On the prompt set of
 * bench_hook (30 SWE-bench tasks, budget 1800) 0.10 and 0.30 name a gold
 * file equally often (27/30; 32/34 on the other dev instances); 0.10
 * names more files in an answer.
 */
#define BREADTH_SHARE 0.10
#define SEARCH_K      40 /* search items considered */
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
#define FACT_CHARS        300 /* recall: a fact's text, at most (its schema says so too) */
#define CHAIN_MAX         3   /* links of a decision's chain shown under it (Markdown) */
#define CHAIN_DATA_MAX    8   /* ... given with it (recall) */
#define CHAIN_DEPTH       3   /* links followed from a decision, at most */
#define MIN_TOKENS        64  /* smaller budgets are refused by the schema too */
#define FOOTER_MIN_BUDGET 400 /* smaller budgets have no room for the footer */
#define FOOTER_ID_MAX     "999999999999" /* the footer is reserved at this many digits */

static const char *const section_title[SEC_COUNT] = {
    "\n## Project\n", "\n## Relevant knowledge\n", "\n## Decisions and their reasons\n",
    "\n## Where to look\n", "\n## May be out of date (the code they cite changed)\n"};
static const char *const section_name[SEC_COUNT] = {"project", "knowledge", "decisions", "code",
                                                    "stale"};

static const char *const none_text =
    "\nNo relevant project memory was found for this question: nothing in the memories or the "
    "code index matches it well enough to be worth reading.\n";

typedef MN_VEC(pk_entry) entry_vec;

/* Append at most max characters (whole UTF-8 characters) of text, on one line (recall). */
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

/* How many of the question's distinct terms text holds. */
static size_t coverage(const question *q, const char *text)
{
    if (!q->terms.len)
        return 0;
    term_count c = {&q->terms, MN_MAP_INIT, 0};
    mn_tokenize(text, strlen(text), MN_LANG_UNKNOWN, 0, count_term, &c);
    mn_map_release(&c.seen);
    return c.n;
}

/* Whether text holds enough of the question's terms. */
static bool covers(const question *q, const char *text)
{
    return coverage(q, text) >= q->need;
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
    json_array_foreach(json_object_get(ctx, "error_messages"), i, k)
        mn_buf_printf(&b, "\n%s", json_string_value(k));
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

/*
 * Why an item is there, in a few words: the question's words it matches
 * when its words matched, else the signal that brought it; for code, also
 * the memory that cites its file ("cited by the gotcha 01AB..."). Malloc'd.
 */
static char *why_of(const pk_ctx *c, const mn_search_item *it, bool in_scope, bool lexical,
                    const char *text)
{
    mn_buf b = MN_BUF_INIT;
    const char *cited =
        it->type != MN_ITEM_MEMORY && it->path ? mn_map_get(&c->cited, it->path) : NULL;
    if (in_scope) {
        mn_buf_puts(&b, "in the files or symbols you named");
    } else if (lexical) {
        char *m = pk_matches(c, text);
        mn_buf_puts(&b, m                            ? m
                        : it->type == MN_ITEM_MEMORY ? "its words match the question"
                                                     : "its code matches the question's words");
        free(m);
    } else if ((it->sig.has & MN_SIG_SEMANTIC) && it->sig.semantic >= SEMANTIC_FLOOR) {
        mn_buf_puts(&b, "close in meaning to the question");
    } else if ((it->sig.has & MN_SIG_WHEN) && it->sig.when > 0) {
        mn_buf_puts(&b, "from the time the question names");
    } else if (!cited && (it->sig.has & MN_SIG_NAMES) && it->sig.names > 0) {
        mn_buf_puts(&b, "defines a name the question uses");
    } else if (!cited && (it->sig.has & MN_SIG_GRAPH) && it->sig.graph > 0) {
        mn_buf_puts(&b, "imports or calls code that matches");
    } else if (!cited) {
        mn_buf_puts(&b, "weak match");
    }
    if (cited)
        mn_buf_printf(&b, "%s%s", b.len ? "; " : "", cited);
    return mn_buf_detach(&b);
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

static json_t *item_json(const mn_search_item *it, pk_section sec, const char *why)
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

void pk_chain_units(pk_ctx *c, pk_entry *e, const json_t *mem, int place)
{
    chain_link l[CHAIN_MAX];
    size_t n = chain_walk(c->store, mem, l, CHAIN_MAX);
    for (size_t i = 0; i < n; i++) {
        mn_buf b = MN_BUF_INIT;
        mn_buf_printf(&b, "%*s- %s: ", 2 * l[i].depth, "",
                      !strcmp(l[i].kind, "supersedes") ? "supersedes" : "caused by");
        for (const char *t = jstr(l[i].mem, "title"); *t; t++)
            mn_buf_putc(&b, *t == '\n' || *t == '\r' || *t == '\t' ? ' ' : *t);
        mn_buf_printf(&b, " (%.12s)\n", jstr(l[i].mem, "id"));
        pk_unit_add(e, mn_buf_detach(&b), place + (int)i);
    }
    chain_release(l, n);
}

static void entry_push(entry_vec *v, pk_entry *e)
{
    e->chosen = PK_UNCOUNTED;
    mn_vec_push(v, *e);
}

static int collect_overview(void *payload, json_t *mem)
{
    json_array_append(payload, mem);
    return 0;
}

/* The project's L0 facts: one whole line each, ranked by the question's terms they hold. */
static int add_overview(mn_store *s, entry_vec *v, const question *q, mn_overview_mode mode,
                        const mn_expiry *expiry)
{
    mn_memory_filter f = MN_MEMORY_FILTER_INIT;
    f.expiry = *expiry; /* what expired is not served */
    f.level = 0;
    f.status = "active";
    f.limit = OVERVIEW_MAX;
    if (mode == MN_OVERVIEW_NONE)
        return 0;
    json_t *rows = json_array();
    int rc = mn_store_memory_list(s, &f, collect_overview, rows);
    size_t i;
    const json_t *r;
    json_array_foreach(rows, i, r)
    {
        const char *title = jstr(r, "title");
        size_t cov = coverage(q, title);
        if (mode == MN_OVERVIEW_MATCHING && cov == 0)
            continue;
        pk_entry e;
        memset(&e, 0, sizeof(e));
        mn_buf line = MN_BUF_INIT;
        mn_buf_puts(&line, "- ");
        for (const char *t = title; *t; t++)
            mn_buf_putc(&line, *t == '\n' || *t == '\r' || *t == '\t' ? ' ' : *t);
        mn_buf_puts(&line, "\n");
        e.sec = SEC_PROJECT;
        /* above any search score: the overview is chosen first, the lines holding most of
           the question's terms first, then in their stored order */
        e.score = 2.0 + (double)cov - (double)i / 1000.0;
        e.order = i;
        e.head = mn_buf_detach(&line);
        e.head_tokens = PK_UNCOUNTED;
        e.item = json_pack("{s:s,s:s,s:s,s:s,s:f,s:s}", "section", "project", "type", "memory",
                           "id", jstr(r, "id"), "title", title, "score", 1.0, "why",
                           cov ? "project overview (L0), holds the question's words"
                               : "project overview (L0)");
        entry_push(v, &e);
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

/* Whether a file item has a chunk of its own among the items (the chunk says more). */
static bool file_shown_by_chunk(const mn_search_result *res, const mn_search_item *it)
{
    for (size_t j = 0; j < res->n; j++)
        if (res->items[j].type == MN_ITEM_CODE && res->items[j].path && it->path &&
            !strcmp(res->items[j].path, it->path))
            return true;
    return false;
}

/*
 * A code item's place in the choice: its score, or, for the best chunk of
 * a file that ranked higher as a file, the file's - the file item is left
 * out for its chunk (the chunk says more), and must not take the file's
 * rank down with it. On bench_hook's prompt set, the hook's answer named a
 * gold file for 24 of 30 tasks without this, 27 with it (the file ranked
 * second, its best chunk 20th: pydata__xarray-3677); giving every chunk
 * of the file its rank instead crowds the answer with one file (21).
 */
static double place_score(const mn_search_result *res, const mn_search_item *it)
{
    double score = it->score;
    if (it->type != MN_ITEM_CODE || !it->path)
        return score;
    for (size_t j = 0; j < res->n; j++) {
        const mn_search_item *o = &res->items[j];
        if (o == it)
            break;
        if (o->type == MN_ITEM_CODE && o->path && !strcmp(o->path, it->path))
            return score; /* not the file's best chunk */
    }
    for (size_t j = 0; j < res->n; j++) {
        const mn_search_item *f = &res->items[j];
        if (f->type == MN_ITEM_FILE && f->path && !strcmp(f->path, it->path) && f->score > score)
            score = f->score;
    }
    return score;
}

/*
 * How many characters of a memory's id the answer shows: SHORT_ID, or
 * more when another memory among the candidates starts the same (ids made
 * in the same millisecond share their first 12 or more: ULIDs count up
 * within one), so that each printed id names one item for feedback.
 */
#define SHORT_ID 12

/* len, or more: the characters of id that tell it from other */
static int longer_than_shared(int len, const char *id, const char *other)
{
    int same = 0;
    while (id[same] && id[same] == other[same])
        same++;
    return same + 1 > len ? same + 1 : len;
}

static int id_length(const mn_search_result *res, const char *id)
{
    int len = SHORT_ID, full = (int)strlen(id);
    for (size_t j = 0; j < res->n; j++) {
        const mn_search_item *o = &res->items[j];
        if (o->type == MN_ITEM_MEMORY && o->id && strcmp(o->id, id) != 0)
            len = longer_than_shared(len, id, o->id);
    }
    return len < full ? len : full;
}

/* Search and turn what it found into entries: memories first (their files are cited), then code. */
static int add_found(pk_ctx *c, const mn_context_request *req, const question *q, entry_vec *v,
                     json_t *notes, mn_search_result *res)
{
    mn_search_request sr;
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
    sr.filter.expiry = req->expiry;
    sr.branch = req->branch;
    int rc = mn_search_run(c->store, &sr, res);
    if (rc)
        return rc;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < res->n; i++) {
            const mn_search_item *it = &res->items[i];
            if ((it->type == MN_ITEM_MEMORY) != (pass == 0))
                continue;
            if (it->type == MN_ITEM_MEMORY && it->level == 0)
                continue; /* in the overview already */
            if (it->type == MN_ITEM_FILE && file_shown_by_chunk(res, it))
                continue;
            bool scope = in_scope(req, it), lex = false;
            pk_entry e;
            memset(&e, 0, sizeof(e));
            e.sec = SEC_CODE;
            e.score = it->score;
            e.order = i;
            char *why = NULL;
            if (it->type == MN_ITEM_MEMORY) {
                json_t *mem = NULL;
                if (mn_store_memory_get(c->store, &mem, it->id) != 0) {
                    mn_error_clear();
                    continue;
                }
                char *text = memory_text(mem);
                lex = lexical_ok(it, q, text);
                why = why_of(c, it, scope, lex, text);
                free(text);
                e.sec = !strcmp(jstr(mem, "kind"), "decision") ? SEC_DECISIONS : SEC_KNOWLEDGE;
                e.relevant = scope || relevant(it, lex);
                int idlen = id_length(res, it->id);
                if (it->status && !strcmp(it->status, "stale")) {
                    e.sec = SEC_STALE; /* not served as current: named apart */
                    pk_stale_entry(&e, mem, idlen);
                } else {
                    pk_memory_entry(c, &e, mem, it->status, why, req->include_causal, idlen);
                    if (e.relevant)
                        pk_cite_paths(c, mem);
                }
                json_decref(mem);
            } else {
                char *text = code_text(it);
                lex = lexical_ok(it, q, text);
                why = why_of(c, it, scope, lex, text);
                free(text);
                e.relevant = scope || relevant(it, lex);
                e.score = place_score(res, it);
                pk_code_entry(&e, it, why);
            }
            e.item = item_json(it, e.sec, why);
            if (it->type == MN_ITEM_MEMORY)
                json_object_set_new(e.item, "ref",
                                    json_stringn(it->id, (size_t)id_length(res, it->id)));
            free(why);
            entry_push(v, &e);
        }
    }
    for (size_t i = 0; i < res->nnotes; i++)
        note_once(notes, res->notes[i]);
    return 0;
}

static int cmp_choice(const void *a, const void *b)
{
    const pk_entry *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_output(const void *a, const void *b)
{
    const pk_entry *x = a, *y = b;
    if (x->sec != y->sec)
        return x->sec < y->sec ? -1 : 1;
    return cmp_choice(a, b);
}

/*
 * The largest k (min_units <= k <= nunits) whose form costs at most limit,
 * or PK_UNCOUNTED. Units are counted only as far as they could fit: a
 * form's cost never falls below its head and units, so the walk stops
 * once those alone pass the limit.
 */
static size_t largest_form(pk_ctx *c, pk_entry *e, size_t limit, size_t *cost)
{
    size_t best = PK_UNCOUNTED;
    for (size_t k = e->min_units; k <= e->nunits; k++) {
        size_t t = pk_form_tokens(c, e, k);
        size_t bare = t - (k < e->nunits && e->pointer ? e->pointer_tokens : 0);
        if (t <= limit) {
            best = k;
            *cost = t;
        }
        if (bare > limit)
            break;
    }
    return best;
}

typedef struct {
    size_t budget, used;
    bool heading[SEC_COUNT];
    size_t heading_tokens[SEC_COUNT];
} plan;

static size_t heading_cost(pk_ctx *c, plan *p, pk_section sec)
{
    if (p->heading[sec])
        return 0;
    if (!p->heading_tokens[sec])
        p->heading_tokens[sec] = pk_count(c, section_title[sec]);
    return p->heading_tokens[sec];
}

/* Take the form of e with k units, costing cost (its heading included). */
static void take(plan *p, pk_entry *e, size_t k, size_t cost)
{
    e->chosen = k;
    p->heading[e->sec] = true;
    p->used += cost;
}

/* Whether a code entry can be shown (its lines read); false: an alias, never relevant. */
static bool ready(pk_ctx *c, pk_entry *e)
{
    if (e->fenced && !e->built && !pk_code_build(c, e)) {
        e->relevant = false;
        return false;
    }
    return true;
}

static void choose(pk_ctx *c, entry_vec *v, plan *p, size_t overview_budget)
{
    if (v->len > 1)
        qsort(v->items, v->len, sizeof(pk_entry), cmp_choice);
    /* 0: the overview */
    size_t overview_used = 0;
    for (size_t i = 0; i < v->len; i++) {
        pk_entry *e = &v->items[i];
        if (e->sec != SEC_PROJECT)
            continue;
        size_t cost = pk_form_tokens(c, e, 0) + heading_cost(c, p, e->sec);
        if (overview_used + cost > overview_budget || p->used + cost > p->budget)
            continue;
        overview_used += cost;
        take(p, e, 0, cost);
    }
    /* 1: breadth */
    size_t share = (size_t)((double)p->budget * BREADTH_SHARE);
    for (size_t i = 0; i < v->len; i++) {
        pk_entry *e = &v->items[i];
        if (e->sec == SEC_PROJECT || !e->relevant || !ready(c, e))
            continue;
        size_t h = heading_cost(c, p, e->sec), left = p->budget - p->used, cost = 0;
        if (h >= left)
            continue;
        size_t limit = left - h < share ? left - h : share;
        size_t k = largest_form(c, e, limit, &cost);
        if (k == PK_UNCOUNTED && limit < left - h) /* larger than the share: its smallest form */
            k = largest_form(c, e, pk_form_tokens(c, e, e->min_units), &cost);
        if (k != PK_UNCOUNTED && cost + h <= left)
            take(p, e, k, cost + h);
    }
    /* 2: depth */
    for (size_t i = 0; i < v->len; i++) {
        pk_entry *e = &v->items[i];
        if (e->sec == SEC_PROJECT || e->chosen == PK_UNCOUNTED || e->chosen == e->nunits)
            continue;
        size_t now = pk_form_tokens(c, e, e->chosen), cost = 0;
        size_t k = largest_form(c, e, now + (p->budget - p->used), &cost);
        if (k != PK_UNCOUNTED && k > e->chosen) {
            e->chosen = k;
            p->used = p->used - now + cost;
        }
    }
    /* 3: what did not fit in 1, at its smallest, if it fits now */
    for (size_t i = 0; i < v->len; i++) {
        pk_entry *e = &v->items[i];
        if (e->sec == SEC_PROJECT || !e->relevant || e->chosen != PK_UNCOUNTED)
            continue;
        size_t h = heading_cost(c, p, e->sec), cost = pk_form_tokens(c, e, e->min_units);
        if (p->used + h + cost <= p->budget)
            take(p, e, e->min_units, cost + h);
    }
}

/* Write the chosen entries grouped by section; *items their JSON. */
static void write_answer(entry_vec *v, mn_buf *md, const char *intro, const char *none,
                         json_t *items)
{
    if (v->len > 1)
        qsort(v->items, v->len, sizeof(pk_entry), cmp_output);
    mn_buf_puts(md, intro);
    int last = -1;
    for (size_t i = 0; i < v->len; i++) {
        pk_entry *e = &v->items[i];
        if (e->chosen == PK_UNCOUNTED)
            continue;
        if ((int)e->sec != last) {
            mn_buf_puts(md, section_title[e->sec]);
            last = (int)e->sec;
        }
        pk_form_write(e, e->chosen, md);
        if (items)
            json_array_append(items, e->item);
    }
    if (none)
        mn_buf_puts(md, none);
}

/*
 * The short id an entry is printed with, for feedback: memory id prefix, path:line, path. A
 * memory not printed with its id (the project's facts) gets a prefix that no other memory of
 * the answer shares: discovery writes its facts in one millisecond, and ULIDs of one
 * millisecond share their first ten characters, so twelve named two facts alike.
 */
static void set_ref(pk_entry *e, const entry_vec *v)
{
    const char *type = jstr(e->item, "type"), *id = jstr(e->item, "id");
    mn_buf b = MN_BUF_INIT;
    if (!strcmp(type, "memory")) {
        if (json_object_get(e->item, "ref"))
            return; /* given with the head */
        int len = SHORT_ID, full = (int)strlen(id);
        for (size_t j = 0; j < v->len; j++) {
            const char *o = jstr(v->items[j].item, "id");
            if (*o && strcmp(o, id) != 0 && !strcmp(jstr(v->items[j].item, "type"), "memory"))
                len = longer_than_shared(len, id, o);
        }
        mn_buf_printf(&b, "%.*s", len < full ? len : full, id);
    } else {
        mn_buf_puts(&b, jstr(e->item, "path"));
        json_int_t line = json_integer_value(json_object_get(e->item, "line"));
        if (line > 0 && e->chosen != PK_UNCOUNTED)
            mn_buf_printf(&b, ":%lld", (long long)line);
    }
    json_object_set_new(e->item, "ref", json_string(b.ptr ? b.ptr : ""));
    mn_buf_release(&b);
}

static void entries_release(entry_vec *v)
{
    for (size_t i = 0; i < v->len; i++)
        pk_entry_release(&v->items[i]);
    mn_vec_release(v);
}

static const char *mode_name(mn_context_mode m)
{
    return m == MN_CONTEXT_DISCOVERY ? "discovery" : m == MN_CONTEXT_ROUTE ? "route" : "auto";
}

/*
 * The line naming the answer, after the last line of the text with no
 * blank line between: a line that starts with a letter after a newline
 * costs exactly its own tokens (pack_internal.h), so the footer is counted
 * alone.
 */
static char *footer_text(const char *id)
{
    mn_buf b = MN_BUF_INIT;
    mn_buf_printf(&b,
                  "Answer %s: rate what helped with feedback (served %s; items by the ids in "
                  "parentheses, code by path:line).\n",
                  id, id);
    return mn_buf_detach(&b);
}

int mn_context_build(mn_store *s, const mn_context_request *req, json_t **out)
{
    entry_vec v = MN_VEC_INIT;
    mn_search_result res;
    bool searched = false;
    const char *q = req->query ? req->query : "";
    mn_context_mode mode = req->mode;
    mn_token_counter estimate = {NULL, "estimate"};
    pk_ctx c;
    memset(&c, 0, sizeof(c));
    c.store = s;
    c.counter = req->counter ? req->counter : &estimate;
    if (mode == MN_CONTEXT_AUTO)
        mode = *q || req->nfiles || req->nsymbols ? MN_CONTEXT_ROUTE : MN_CONTEXT_DISCOVERY;
    if (req->max_tokens < MIN_TOKENS)
        return mn_error_set(MN_EINVAL, "max_tokens must be at least %d", MIN_TOKENS);
    json_t *notes = json_array();
    question qn;
    question_init(&qn, q);
    pk_words_init(&c, q);
    int rc =
        add_overview(s, &v, &qn, mode == MN_CONTEXT_DISCOVERY ? MN_OVERVIEW_RANKED : req->overview,
                     &req->expiry);
    if (rc == 0 && mode == MN_CONTEXT_ROUTE) {
        rc = add_found(&c, req, &qn, &v, notes, &res);
        searched = rc == 0;
    }
    mn_map_release(&qn.terms);
    if (rc)
        goto fail;
    bool any = false; /* a stale memory is not a current finding */
    for (size_t i = 0; i < v.len; i++)
        any |= v.items[i].sec != SEC_PROJECT && v.items[i].sec != SEC_STALE && v.items[i].relevant;
    const char *intro =
        mode == MN_CONTEXT_ROUTE ? "# Project memory\n" : "# Project memory: overview\n";
    plan p;
    memset(&p, 0, sizeof(p));
    p.budget = req->max_tokens;
    p.used = pk_count(&c, intro);
    char *footer = NULL;
    if (req->footer && req->max_tokens >= FOOTER_MIN_BUDGET) {
        footer = footer_text(FOOTER_ID_MAX);
        p.used += pk_count(&c, footer);
    }
    size_t none_cost = pk_count(&c, none_text);
    /* the overview's share; discovery is the overview alone */
    size_t overview_budget = mode == MN_CONTEXT_DISCOVERY
                                 ? p.budget
                                 : (size_t)((double)req->max_tokens * OVERVIEW_SHARE);
    if (mode == MN_CONTEXT_ROUTE && !any)
        p.used += none_cost;
    if (p.used > p.budget) {
        free(footer);
        footer = NULL;
        p.used = pk_count(&c, intro) + (mode == MN_CONTEXT_ROUTE && !any ? none_cost : 0);
    }
    choose(&c, &v, &p, overview_budget);
    any = false; /* an alias found while choosing is no longer relevant */
    bool complete = true;
    for (size_t i = 0; i < v.len; i++) {
        pk_entry *e = &v.items[i];
        if (e->sec == SEC_PROJECT || e->sec == SEC_STALE || !e->relevant)
            continue;
        any = true;
        complete &= e->chosen == e->nunits;
    }
    const char *none = mode == MN_CONTEXT_ROUTE && !any ? none_text : NULL;
    mn_buf md = MN_BUF_INIT;
    json_t *items = json_array();
    size_t tokens = 0;
    for (;;) { /* the whole text, counted; an entry out should it pass the budget (it cannot) */
        mn_buf_clear(&md);
        write_answer(&v, &md, intro, none, NULL);
        tokens = mn_tokens_count(c.counter, md.ptr ? md.ptr : "", md.len);
        if (tokens + (footer ? pk_count(&c, footer) : 0) <= p.budget)
            break;
        pk_entry *last = NULL;
        for (size_t i = 0; i < v.len; i++)
            if (v.items[i].chosen != PK_UNCOUNTED)
                last = &v.items[i];
        if (!last) {
            rc = mn_error_set(MN_EINTERNAL, "context: the budget could not be kept");
            mn_buf_release(&md);
            json_decref(items);
            free(footer);
            goto fail;
        }
        last->chosen = PK_UNCOUNTED;
        complete = false;
    }
    for (size_t i = 0; i < v.len; i++) {
        pk_entry *e = &v.items[i];
        if (e->chosen == PK_UNCOUNTED)
            continue;
        set_ref(e, &v);
        json_object_set_new(e->item, "tokens",
                            json_integer((json_int_t)pk_form_tokens(&c, e, e->chosen)));
        json_object_set_new(e->item, "whole", json_boolean(e->chosen == e->nunits));
        json_array_append(items, e->item);
    }
    *out = json_pack("{s:s%,s:I,s:I,s:o,s:s,s:s,s:b,s:b}", "markdown", md.ptr ? md.ptr : "", md.len,
                     "tokens", (json_int_t)tokens, "max_tokens", (json_int_t)req->max_tokens,
                     "items", items, "tokenizer", c.counter->bpe ? c.counter->name : "estimate",
                     "mode", mode_name(mode), "relevant", any, "complete", complete);
    if (footer) /* room kept for mn_context_footer */
        json_object_set_new(*out, "footer_reserved", json_true());
    free(footer);
    mn_buf_release(&md);
    json_object_set_new(*out, "notes", notes);
    notes = NULL;
fail:
    if (searched)
        mn_search_result_release(&res);
    entries_release(&v);
    pk_ctx_release(&c);
    json_decref(notes);
    return rc;
}

int mn_context_footer(json_t *out, int64_t served, const mn_token_counter *counter)
{
    bool reserved = json_is_true(json_object_get(out, "footer_reserved"));
    json_object_del(out, "footer_reserved");
    if (!reserved || served <= 0)
        return 0;
    char id[32];
    snprintf(id, sizeof(id), "%" PRId64, served);
    char *footer = footer_text(id);
    const char *md = jstr(out, "markdown");
    size_t len = strlen(md);
    json_int_t max = json_integer_value(json_object_get(out, "max_tokens"));
    json_int_t tokens = json_integer_value(json_object_get(out, "tokens")) +
                        (json_int_t)mn_tokens_count(counter, footer, strlen(footer));
    if (len && md[len - 1] == '\n' && tokens <= max) { /* it is: room was kept for 12 digits */
        mn_buf b = MN_BUF_INIT;
        mn_buf_put(&b, md, len);
        mn_buf_puts(&b, footer);
        json_object_set_new(out, "markdown", json_stringn(b.ptr, b.len));
        json_object_set_new(out, "tokens", json_integer(tokens));
        mn_buf_release(&b);
    }
    free(footer);
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
    sr.filter.expiry = req->expiry;
    sr.branch = req->branch;
    mn_token_counter estimate = {NULL, "estimate"};
    const mn_token_counter *counter = req->counter ? req->counter : &estimate;
    if (req->max_tokens < MIN_TOKENS)
        return mn_error_set(MN_EINVAL, "limit_tokens must be at least %d", MIN_TOKENS);
    int rc = mn_search_run(s, &sr, &res);
    if (rc)
        return rc;
    json_t *facts = json_array(), *shots = json_array(), *decisions = json_array(),
           *links = json_array(), *notes = json_array(), *stale = json_array();
    size_t used = 0;
    double confidence = 0;
    question qn;
    question_init(&qn, sr.query);
    pk_ctx pc;
    memset(&pc, 0, sizeof(pc));
    pc.store = s;
    pc.counter = counter;
    pk_words_init(&pc, sr.query);
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
        if (!scope && !relevant(it, lex)) {
            free(matched);
            json_decref(mem);
            continue;
        }
        char *why = why_of(&pc, it, scope, lex, matched);
        free(matched);
        double strength = scope ? 1.0 : 0;
        if (lex && it->sig.lexical > strength)
            strength = it->sig.lexical;
        if ((it->sig.has & MN_SIG_SEMANTIC) && it->sig.semantic > strength)
            strength = it->sig.semantic;
        json_t *row = NULL;
        json_t *into = links;
        if (mem && it->status && !strcmp(it->status, "stale")) {
            /* not served as current: named apart, without its text, adding no confidence */
            into = stale;
            row = json_pack("{s:s,s:s,s:s}", "id", it->id, "kind", jstr(mem, "kind"), "title",
                            jstr(mem, "title"));
            json_decref(mem);
        } else if (mem) {
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
        free(why);
        if (it->status && strcmp(it->status, "active") != 0 && into != stale)
            json_object_set_new(row, "status", json_string(it->status));
        char *dump = json_dumps(row, JSON_COMPACT);
        size_t cost = mn_tokens_count(counter, dump, strlen(dump));
        free(dump);
        if (used + cost > req->max_tokens) {
            json_decref(row);
            continue;
        }
        used += cost;
        json_array_append_new(into, row);
    }
    mn_map_release(&qn.terms);
    pk_ctx_release(&pc);
    for (size_t i = 0; i < res.nnotes; i++)
        note_once(notes, res.notes[i]);
    mn_search_result_release(&res);
    *out = json_pack("{s:o,s:o,s:o,s:o,s:o,s:f,s:I,s:o}", "facts", facts, "few_shots", shots,
                     "decisions", decisions, "links", links, "stale", stale, "confidence",
                     confidence, "tokens", (json_int_t)used, "notes", notes);
    return 0;
}
