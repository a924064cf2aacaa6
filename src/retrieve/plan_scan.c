/*
 * plan_scan.c - what the built-in scorer of plan's semantic stage
 * (plan_semantic.c) learns of a file's text once and keeps for later plans:
 * its lines and, on each ASCII line, its words as ids into a process-wide
 * word table that holds each word's terms (the index's tokenizer, once per
 * word per process).
 *
 * Why: the scorer reads the same files plan after plan (on the SWE-bench
 * dev set over sympy, 1,950 file scans of 439 distinct files), and its scan
 * (the prefilter over every byte, each passing line's words hashed and
 * looked up) was a quarter of a plan's CPU. With the file's words as ids a
 * line's terms are an OR of a per-plan array read at each id.
 *
 * How: the file is still read on every plan (same checks, same bytes); the
 * entry is found by (root's real path, repository path, length, XXH3 of the
 * bytes read), so a changed file is never served from an older entry
 * whatever its times say. An entry: the lines that can matter (ASCII lines
 * with a word of two bytes or more, and every non-ASCII line: the scorer
 * tokenizes those whole), each with its word ids (repeats kept). Entries are
 * immutable once published and pinned by a count while a plan reads them;
 * at most CACHE_BYTES of entries are kept, the oldest unpinned one evicted
 * first. The word table only grows, to at most MAX_WORDS words; a file with
 * a word it cannot take is not cached (scanned as before). Words live in
 * fixed blocks that never move, so a plan reads a word's terms without the
 * lock once the entry holding its id is pinned (the id was published before
 * the entry, under the lock).
 *
 * The same for short texts tokenized whole (a path component: plan_graph.c's
 * file table), kept by their bytes, at most MAX_TEXTS of them, never freed
 * (the pointer given out stays valid).
 *
 * Invariant: a plan's answer is the one scan_text gives on the same bytes
 * (plan_semantic.c applies the prefilter to every line that holds a term,
 * as scan_text does before looking at a line).
 */
#include "common.h"
#include <pthread.h>
#include <xxhash.h>

#include "retrieve/plan_internal.h"
#include "text/tokenize.h"
#include "util/map.h"
#include "util/util.h"

#define CACHE_BYTES (32u * 1024 * 1024) /* entries' own memory (lines, ids) */
#define MAX_WORDS   (256u * 1024)
#define WORD_BLOCK  4096u

struct plan_scan_entry {
    struct plan_scan_entry *next; /* newest first */
    char *key;                    /* root '\n' path */
    uint64_t hash;
    size_t len, bytes;
    unsigned pins;
    plan_scan_view view;
};

typedef struct {
    char *terms; /* each NUL-terminated, then an empty one */
} word_entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct plan_scan_entry *entries; /* newest first */
static size_t cached_bytes;
static mn_map word_ids = MN_MAP_INIT; /* word -> id + 1 */
static word_entry *word_blocks[MAX_WORDS / WORD_BLOCK];
static uint32_t nwords;
static mn_map text_terms; /* a short text (a path component) -> its terms */
static size_t ntexts;

#define MAX_TEXTS (64u * 1024)

static inline bool word_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

const char *plan_scan_word_terms(uint32_t id)
{
    return word_blocks[id / WORD_BLOCK][id % WORD_BLOCK].terms;
}

int plan_term_token(void *payload, const char *tok, size_t len, size_t start, size_t end,
                    int colocated)
{
    (void)start;
    (void)end;
    if (colocated != MN_TOK_COLOC_WHOLE && len) {
        mn_buf_put(payload, tok, len);
        mn_buf_putc(payload, '\0');
    }
    return 0;
}

/* The id of a word (tokenized on first sight), under the lock; false when the table is full. */
static bool intern(const char *w, size_t len, mn_buf *key, uint32_t *id)
{
    mn_buf_clear(key);
    mn_buf_put(key, w, len);
    uintptr_t v = (uintptr_t)mn_map_get(&word_ids, key->ptr);
    if (v) {
        *id = (uint32_t)(v - 1);
        return true;
    }
    if (nwords >= MAX_WORDS)
        return false;
    if (!word_blocks[nwords / WORD_BLOCK])
        word_blocks[nwords / WORD_BLOCK] = mn_calloc(WORD_BLOCK, sizeof(word_entry));
    mn_buf b = MN_BUF_INIT;
    mn_tokenize(w, len, MN_LANG_EN, 0, plan_term_token, &b);
    mn_buf_putc(&b, '\0');
    word_blocks[nwords / WORD_BLOCK][nwords % WORD_BLOCK].terms = mn_buf_detach(&b);
    *id = nwords++;
    mn_map_set(&word_ids, key->ptr, (void *)(uintptr_t)(*id + 1));
    return true;
}

static bool is_ascii(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] >= 0x80)
            return false;
    return true;
}

/* The distinct words of one file while it is read: open addressing, FNV-1a, at most half full. */
typedef struct {
    const char *w; /* into the text; NULL: empty */
    uint32_t len, local;
} local_slot;

typedef struct {
    local_slot *slots;
    size_t cap, n;
    MN_VEC(local_slot) words; /* by local id */
} local_words;

static uint32_t local_id(local_words *t, const char *w, size_t len)
{
    if (2 * (t->n + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 1024;
        local_slot *slots = mn_calloc(cap, sizeof(*slots));
        for (size_t i = 0; i < t->words.len; i++) {
            const local_slot *x = &t->words.items[i];
            uint64_t h = 0xcbf29ce484222325ull;
            for (size_t k = 0; k < x->len; k++)
                h = (h ^ (unsigned char)x->w[k]) * 0x100000001b3ull;
            size_t at = h & (cap - 1);
            while (slots[at].w)
                at = (at + 1) & (cap - 1);
            slots[at] = *x;
        }
        free(t->slots);
        t->slots = slots;
        t->cap = cap;
    }
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t k = 0; k < len; k++)
        h = (h ^ (unsigned char)w[k]) * 0x100000001b3ull;
    size_t at = h & (t->cap - 1);
    for (; t->slots[at].w; at = (at + 1) & (t->cap - 1))
        if (t->slots[at].len == len && !memcmp(t->slots[at].w, w, len))
            return t->slots[at].local;
    local_slot x = {w, (uint32_t)len, (uint32_t)t->words.len};
    t->slots[at] = x;
    mn_vec_push(&t->words, x);
    t->n++;
    return x.local;
}

/*
 * A new entry for text: its lines and words read without the lock (word
 * ids local to the file), then each distinct word interned under it and
 * the ids made global. NULL when the word table is full.
 */
static struct plan_scan_entry *build(const char *text, size_t len)
{
    MN_VEC(plan_scan_line) lines = MN_VEC_INIT;
    MN_VEC(uint32_t) ids = MN_VEC_INIT;
    local_words t = {NULL, 0, 0, MN_VEC_INIT};
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len;
        plan_scan_line l = {(uint32_t)at, (uint32_t)end, (uint32_t)ids.len, 0, true};
        if (!is_ascii(text + at, end - at)) {
            l.ascii = false;
            mn_vec_push(&lines, l);
        } else {
            for (size_t i = at; i < end;) {
                if (!word_byte((unsigned char)text[i])) {
                    i++;
                    continue;
                }
                size_t start = i;
                while (i < end && word_byte((unsigned char)text[i]))
                    i++;
                /* one byte: one term of one byte, and the task's have two or more */
                if (i - start >= 2)
                    mn_vec_push(&ids, local_id(&t, text + start, i - start));
            }
            l.nwords = (uint32_t)ids.len - l.word0;
            if (l.nwords)
                mn_vec_push(&lines, l);
        }
        at = end + 1;
    }
    free(t.slots);
    uint32_t *global = mn_calloc(t.words.len ? t.words.len : 1, sizeof(*global));
    mn_buf key = MN_BUF_INIT;
    bool full = false;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < t.words.len && !full; i++)
        full = !intern(t.words.items[i].w, t.words.items[i].len, &key, &global[i]);
    pthread_mutex_unlock(&lock);
    mn_buf_release(&key);
    mn_vec_release(&t.words);
    struct plan_scan_entry *e = NULL;
    if (!full) {
        for (size_t i = 0; i < ids.len; i++)
            ids.items[i] = global[ids.items[i]];
        e = mn_calloc(1, sizeof(*e));
        e->view.lines = lines.items;
        e->view.nlines = lines.len;
        e->view.ids = ids.items;
        e->bytes = sizeof(*e) + lines.len * sizeof(*lines.items) + ids.len * sizeof(*ids.items);
    } else {
        mn_vec_release(&lines);
        mn_vec_release(&ids);
    }
    free(global);
    return e;
}

static void entry_free(struct plan_scan_entry *e)
{
    free((void *)e->view.lines);
    free((void *)e->view.ids);
    free(e->key);
    free(e);
}

/* Drop the oldest unpinned entries while over the budget (under the lock). */
static void evict(void)
{
    while (cached_bytes > CACHE_BYTES) {
        struct plan_scan_entry **victim = NULL;
        for (struct plan_scan_entry **e = &entries; *e; e = &(*e)->next)
            if ((*e)->pins == 0)
                victim = e;
        if (!victim)
            return;
        struct plan_scan_entry *v = *victim;
        *victim = v->next;
        cached_bytes -= v->bytes + strlen(v->key);
        entry_free(v);
    }
}

/* The entry of (key, h, len), moved to the front (the newest), or NULL; under the lock. */
static struct plan_scan_entry *find(const char *key, uint64_t h, size_t len)
{
    struct plan_scan_entry *e = entries, **at = &entries;
    for (; e; at = &e->next, e = e->next)
        if (e->hash == h && e->len == len && !strcmp(e->key, key))
            break;
    if (e && at != &entries) {
        *at = e->next;
        e->next = entries;
        entries = e;
    }
    return e;
}

const plan_scan_view *plan_scan_get(const char *root_real, const char *path, const char *text,
                                    size_t len, plan_scan_entry **pin)
{
    *pin = NULL;
    if (len > UINT32_MAX)
        return NULL;
    uint64_t h = XXH3_64bits(text, len);
    mn_buf key = MN_BUF_INIT;
    mn_buf_printf(&key, "%s\n%s", root_real, path);
    pthread_mutex_lock(&lock);
    struct plan_scan_entry *e = find(key.ptr, h, len);
    if (e)
        e->pins++;
    pthread_mutex_unlock(&lock);
    if (!e) {
        /* read without the lock (build takes it to intern the words); another plan may have
         * published the same bytes meanwhile: then that entry is used and this one dropped */
        struct plan_scan_entry *made = build(text, len);
        pthread_mutex_lock(&lock);
        if ((e = find(key.ptr, h, len)) == NULL && made) {
            e = made;
            made = NULL;
            e->key = mn_buf_detach(&key);
            e->hash = h;
            e->len = len;
            e->next = entries;
            entries = e;
            cached_bytes += e->bytes + strlen(e->key);
        }
        if (e)
            e->pins++;
        evict();
        pthread_mutex_unlock(&lock);
        if (made)
            entry_free(made);
    }
    mn_buf_release(&key);
    *pin = e;
    return e ? &e->view : NULL;
}

void plan_scan_release(plan_scan_entry *e)
{
    if (!e)
        return;
    pthread_mutex_lock(&lock);
    e->pins--;
    evict();
    pthread_mutex_unlock(&lock);
}

const char *plan_scan_text_terms(const char *s, size_t n)
{
    if (n == 0 || n > 255)
        return NULL;
    char key[256];
    memcpy(key, s, n);
    key[n] = '\0';
    if (strlen(key) != n)
        return NULL;
    pthread_mutex_lock(&lock);
    const char *terms = mn_map_get(&text_terms, key);
    if (!terms && ntexts < MAX_TEXTS) {
        mn_buf b = MN_BUF_INIT;
        mn_tokenize(s, n, MN_LANG_EN, 0, plan_term_token, &b);
        mn_buf_putc(&b, '\0');
        char *keep = mn_buf_detach(&b);
        mn_map_set(&text_terms, key, keep);
        ntexts++;
        terms = keep;
    }
    pthread_mutex_unlock(&lock);
    return terms;
}
