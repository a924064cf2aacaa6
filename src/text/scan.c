/*
 * scan.c - finds secrets and personal data in a text and redacts them
 * (text/scan.h), with the rules of scan_rules.c and the prefilter of
 * scan_prefilter.c.
 *
 * A scan: (1) the prefilter makes one pass and yields anchors (where a
 * rule's keyword, prefix or digit run is) and where redaction markers
 * start; (2) markers are blanked in a private copy (same length, so offsets
 * hold), so that a marker never matches and redacting twice changes nothing;
 * (3) each rule's regex runs only in windows around its anchors: a match
 * may start from `before` bytes ahead of a trigger to `after` bytes past it
 * (on the trigger's line unless the rule is multiline; PCRE2's offset limit
 * bounds where a match starts, the pattern's own bounds where it ends);
 * (4) each candidate's secret part must pass the rule's checks (checksums,
 * entropy, placeholders, context words, allow-lists): every pattern ends in
 * a callout that runs them, so a candidate that fails makes PCRE2 backtrack
 * to the next one (a shorter number, another alternative, another start);
 * (5) hits that overlap are merged into one span named after the longer
 * hit's rule, so that no byte of either survives redaction.
 *
 * Rules without a trigger (possible in a project's file) run over the
 * whole text. The built-in scanner is generated data (mn_scan__builtin_data:
 * the rules file read at build time, its automaton built), so a process
 * starts it for nothing. A scanner is immutable but for each rule's
 * compiled code, made on the rule's first use under a lock
 * (scan_rules.c, mn_scan__code): each call has its own
 * match data and its own copy of the match context (which carries the
 * offset limit and the callout). PCRE2's match limit bounds the work of one
 * call, and a call tries at most SLICE start positions, so no text, however
 * long its lines, can make a pattern backtrack for long.
 */
#include "common.h"
#include <pthread.h>

#include "text/scan_internal.h"
#include "util/buf.h"
#include "util/util.h"

#define MARKER_OPEN     "[REDACTED:"
#define MARKER_OPEN_LEN 10
#define MARKER_ID_MAX   80
#define MATCH_LIMIT     100000 /* backtracking steps per pcre2_match call */
#define HEAP_LIMIT_KIB  8192
#define RULES_FILE_MAX  ((size_t)1 << 20)
#define SLICE           4096 /* start positions per pcre2_match call (run_window) */

/* ---- the scanners ---- */

static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;
static mn_scanner *builtin;

static pcre2_match_context *limits_context(void)
{
    pcre2_match_context *m = pcre2_match_context_create(NULL);
    if (!m)
        abort(); /* a few bytes: out of memory is fatal, as mn_malloc */
    pcre2_set_match_limit(m, MATCH_LIMIT);
    pcre2_set_heap_limit(m, HEAP_LIMIT_KIB);
    return m;
}

/* The rules, ids and automaton are data (checked when mnemo was built);
 * the patterns compile on their first use. What is left is the match
 * context. */
static void builtin_init(void)
{
    mn_scan__builtin_data.mctx = limits_context();
    builtin = &mn_scan__builtin_data;
}

int mn_scanner_builtin(const mn_scanner **out)
{
    pthread_once(&builtin_once, builtin_init);
    *out = builtin;
    return 0;
}

int mn_scan__from_yaml(mn_scanner **out, const char *yaml, size_t len, const char *origin)
{
    mn_scanner *s = mn_calloc(1, sizeof(*s));
    s->mctx = limits_context();
    int rc = mn_scan__load(s, yaml, len, origin, false);
    if (rc == 0)
        rc = mn_scan__finish(s, NULL);
    if (rc) {
        mn_scan__release(s);
        free(s);
        s = NULL;
    }
    *out = s;
    return rc;
}

int mn_scanner_new(mn_scanner **out, const char *rules_path)
{
    *out = NULL;
    const mn_scanner *base = NULL;
    mn_buf text = MN_BUF_INIT;
    mn_scanner *s = NULL;
    int rc = mn_scanner_builtin(&base);
    if (rc)
        goto out;
    if (!rules_path || !mn_fs_exists(rules_path)) {
        /* the built-in scanner; mn_scanner_free ignores it */
        *out = (mn_scanner *)base;
        goto out;
    }
    if (mn_fs_is_dir(rules_path)) {
        rc = mn_error_set(MN_EINVAL, "scan rules '%s': is a directory, not a file", rules_path);
        goto out;
    }
    if ((rc = mn_fs_read(&text, rules_path, RULES_FILE_MAX)))
        goto out;
    s = mn_calloc(1, sizeof(*s));
    s->mctx = limits_context();
    /* The project's scanner borrows the built-in rules (the built-in
     * scanner lives until exit) with their compiled code, and its automaton
     * when the file adds no keyword. */
    mn_scan__borrow(s, base);
    if ((rc = mn_scan__load(s, text.ptr, text.len, rules_path, true)) ||
        (rc = mn_scan__finish(s, base)))
        goto out;
    *out = s;
    s = NULL;
out:
    if (s) {
        mn_scan__release(s);
        free(s);
    }
    mn_buf_release(&text);
    return rc;
}

void mn_scanner_free(mn_scanner *s)
{
    if (!s || s->builtin)
        return;
    mn_scan__release(s);
    free(s);
}

const char *const *mn_scanner_rules(const mn_scanner *s, size_t *n)
{
    *n = s->nids;
    return s->ids;
}

bool mn_scanner_path_allowed(const mn_scanner *s, const char *path)
{
    if (!s || !path)
        return false;
    for (size_t i = 0; i < s->nallow_paths; i++)
        if (mn_scan__glob_match(s->allow_paths[i], path))
            return true;
    return false;
}

/* ---- one scan ---- */

typedef struct {
    uint32_t rule;
    size_t start, end; /* the secret part */
} hit;

typedef struct {
    const mn_scanner *s;
    const char *text; /* the subject: the caller's text, or a copy with markers blanked */
    size_t len;
    unsigned classes;
    bool any;              /* stop at the first hit */
    pcre2_match_data *md;  /* the rule's match */
    pcre2_match_data *md2; /* allow-list regexes, run from inside a match's callout */
    pcre2_match_context *mctx;
    hit *hits;
    size_t nhits, cap;
    bool found;
} scan_ctx;

static bool id_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

/* The end of the "[REDACTED:<id>]" at p (one past its ']'), or NULL when p starts none. */
static const char *marker_end(const char *p, const char *end)
{
    const char *q = p + MARKER_OPEN_LEN;
    if (end - p < MARKER_OPEN_LEN + 2 || memcmp(p, MARKER_OPEN, MARKER_OPEN_LEN) != 0)
        return NULL;
    while (q < end && q - p < MARKER_ID_MAX && id_char(*q))
        q++;
    return q < end && *q == ']' && q > p + MARKER_OPEN_LEN ? q + 1 : NULL;
}

/* A copy of text with each "[REDACTED:<id>]" that starts at one of the
 * prefilter's marker offsets blanked (same length), or NULL when there is
 * none. */
static char *blank_markers(const char *text, size_t len, const size_t *at, size_t n)
{
    char *copy = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *p = text + at[i], *e = marker_end(p, text + len);
        if (e) {
            if (!copy) {
                copy = mn_malloc(len);
                memcpy(copy, text, len);
            }
            memset(copy + (p - text), ' ', (size_t)(e - p));
        }
    }
    return copy;
}

char *mn_scan_unmarked(const char *text, size_t len)
{
    char *copy = NULL;
    const char *end = text + len, *p = text;
    while ((p = memmem(p, (size_t)(end - p), MARKER_OPEN, MARKER_OPEN_LEN)) != NULL) {
        const char *e = marker_end(p, end);
        if (!e) {
            p += MARKER_OPEN_LEN;
            continue;
        }
        if (!copy) {
            copy = mn_malloc(len + 1);
            memcpy(copy, text, len);
            copy[len] = '\0';
        }
        memset(copy + (p - text), ' ', (size_t)(e - p));
        p = e;
    }
    return copy;
}

static bool word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* One of the rule's context words, whole and in any case, within the
 * context window around [ms, me): the window is lower-cased once and each
 * word looked up with memmem. */
static bool context_near(const mn_scan__rule *r, const char *t, size_t len, size_t ms, size_t me)
{
    size_t lo = ms > r->context_window ? ms - r->context_window : 0;
    size_t hi = me + r->context_window < len ? me + r->context_window : len;
    char small[1024];
    size_t n = hi - lo;
    char *w = n <= sizeof(small) ? small : mn_malloc(n);
    for (size_t i = 0; i < n; i++) {
        char ch = t[lo + i];
        w[i] = (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
    }
    bool found = false;
    for (size_t k = 0; k < r->ncontext && !found; k++) {
        const char *word = r->context[k];
        size_t wl = strlen(word);
        const char *p = w, *end = w + n;
        while (!found && (p = memmem(p, (size_t)(end - p), word, wl))) {
            /* whole words: a word character of the keyword must not run on */
            bool ok = !(word_char(word[0]) && p > w && word_char(p[-1])) &&
                      !(word_char(word[wl - 1]) && p + wl < end && word_char(p[wl]));
            /* the edges of the window are not word boundaries */
            if (p == w && lo > 0 && word_char(word[0]) && word_char(t[lo - 1]))
                ok = false;
            if (p + wl == end && hi < len && word_char(word[wl - 1]) && word_char(t[hi]))
                ok = false;
            found = ok;
            p++;
        }
    }
    if (w != small)
        free(w);
    return found;
}

static bool regex_in(pcre2_code *re, pcre2_match_data *md, const char *s, size_t n)
{
    return pcre2_match(re, (PCRE2_SPTR)s, n, 0, 0, md, NULL) >= 0;
}

/* Does the match [ms, me) with secret part [ss, se) pass rule r's checks? */
static bool accept(scan_ctx *c, const mn_scan__rule *r, size_t ms, size_t me, size_t ss, size_t se)
{
    const char *t = c->text;
    const char *sec = t + ss;
    size_t n = se - ss;
    if (n == 0 || n < r->min_len)
        return false;
    for (size_t i = 0; i < r->nchecks; i++)
        if (!mn_scan__check_run(r->checks[i], sec, n))
            return false;
    if (r->min_entropy > 0 && mn_scan__entropy(sec, n) < r->min_entropy)
        return false;
    if (r->placeholders && mn_scan__placeholder(sec, n))
        return false;
    if (r->ncontext) {
        bool bare = true;
        for (size_t i = 0; i < n && bare; i++)
            bare = word_char(sec[i]);
        if ((!r->context_if_bare || bare) && !context_near(r, t, c->len, ms, me))
            return false;
    }
    /* compiled with the rule's code, which this thread has loaded (mn_scan__lazy) */
    for (size_t i = 0; i < r->nallow; i++)
        if (regex_in(r->lazy->allow[i], c->md2, sec, n))
            return false;
    const mn_scanner *s = c->s;
    for (size_t i = 0; i < s->nallow_values; i++) {
        size_t vl = strlen(s->allow_values[i]);
        if ((vl == n && memcmp(sec, s->allow_values[i], n) == 0) ||
            (vl == me - ms && memcmp(t + ms, s->allow_values[i], vl) == 0))
            return false;
    }
    for (size_t i = 0; i < s->nallow_res; i++)
        if (regex_in(s->allow_res[i], c->md2, sec, n))
            return false;
    return true;
}

static void add_hit(scan_ctx *c, uint32_t rule, size_t start, size_t end)
{
    c->found = true;
    if (c->any)
        return;
    if (c->nhits == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        c->hits = mn_realloc(c->hits, c->cap * sizeof(*c->hits));
    }
    c->hits[c->nhits].rule = rule;
    c->hits[c->nhits].start = start;
    c->hits[c->nhits].end = end;
    c->nhits++;
}

/* The callout at the end of every rule's pattern: 0 accepts the candidate
 * match, 1 makes the engine backtrack and look for another. */
typedef struct {
    scan_ctx *c;
    const mn_scan__rule *r;
} callout_state;

static int on_candidate(pcre2_callout_block *cb, void *data)
{
    callout_state *st = data;
    const mn_scan__rule *r = st->r;
    size_t ms = cb->start_match, me = cb->current_position;
    size_t ss = ms, se = me;
    /* the secret group, where the alternative that matched has it */
    if (r->group && cb->capture_top > r->group && cb->offset_vector[2 * r->group] != PCRE2_UNSET) {
        ss = cb->offset_vector[2 * r->group];
        se = cb->offset_vector[2 * r->group + 1];
    }
    return se > ss && accept(st->c, r, ms, me, ss, se) ? 0 : 1;
}

/* Run rule ri's code over the matches that start in [from, limit). */
static int match_window(scan_ctx *c, uint32_t ri, const pcre2_code *code, size_t from, size_t limit)
{
    const mn_scan__rule *r = &c->s->rules[ri];
    callout_state st = {c, r};
    pcre2_set_callout(c->mctx, on_candidate, &st);
    size_t off = from;
    while (off <= limit && off <= c->len) {
        /* Start positions are tried a slice at a time: PCRE2's match limit
         * counts the work of one call, and a window merged from many
         * triggers can be long; a slice that hits the limit is given up
         * (with a warning), not the rest of the window. */
        size_t slice_end = limit - off > SLICE ? off + SLICE : limit;
        pcre2_set_offset_limit(c->mctx, slice_end);
        int rc = pcre2_match(code, (PCRE2_SPTR)c->text, c->len, off, 0, c->md, c->mctx);
        if (rc == PCRE2_ERROR_NOMATCH) {
            off = slice_end + 1;
            continue;
        }
        if (rc == PCRE2_ERROR_NOMEMORY)
            return mn_error_set(MN_ENOMEM, "scan: out of memory in rule '%s'", r->id);
        if (rc < 0) {
            /* a match or heap limit (bounded patterns never get here) */
            mn_log(MN_LOG_WARN, "scan: rule '%s' gave up bytes %zu to %zu (pcre2 error %d)", r->id,
                   off, slice_end, rc);
            off = slice_end + 1;
            continue;
        }
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(c->md);
        size_t ms = ov[0], me = ov[1];
        size_t ss = ms, se = me;
        if (r->group && (uint32_t)rc > r->group && ov[2 * r->group] != PCRE2_UNSET) {
            ss = ov[2 * r->group];
            se = ov[2 * r->group + 1];
        }
        add_hit(c, ri, ss, se);
        if (c->any)
            return 0;
        off = me > ms ? me : ms + 1;
    }
    return 0;
}

/* Run rule ri over the matches that start in [from, limit). Returns 0, or
 * MN_ENOMEM when the regex engine ran out of memory. */
static int run_window(scan_ctx *c, uint32_t ri, size_t from, size_t limit)
{
    const mn_scan__rule *r = &c->s->rules[ri];
    bool timed = false;
    const pcre2_code *code = mn_scan__code(r, limit - from, &timed);
    if (!code)
        return mn_error_last_code();
    /* The time the interpreter takes decides when the rule's JIT copy is
     * made (mn_scan__lazy). Monotonic time (~20 ns a reading) rather than
     * the thread's CPU time (a system call, ~0.5 us here): a window during
     * which the thread was preempted only brings the JIT copy earlier. */
    uint64_t t0 = timed ? mn_time_mono_ns() : 0;
    int rc = match_window(c, ri, code, from, limit);
    if (timed)
        mn_scan__spent(r, mn_time_mono_ns() - t0);
    return rc;
}

static int cmp_anchor(const void *a, const void *b)
{
    const mn_scan__anchor *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Anchors grouped by rule (a counting sort, stable), each rule's in text
 * order. The prefilter emits them in text order per trigger kind, so a
 * rule's slice needs sorting only when it has keywords and digits both. */
static void sort_anchors(mn_scan__anchors *a, size_t nrules)
{
    size_t small[257], *start = nrules < 256 ? small : mn_calloc(nrules + 1, sizeof(size_t));
    memset(start, 0, (nrules + 1) * sizeof(size_t));
    for (size_t i = 0; i < a->len; i++)
        start[a->items[i].rule + 1]++;
    for (size_t r = 0; r < nrules; r++)
        start[r + 1] += start[r];
    mn_scan__anchor *out = mn_malloc(a->len * sizeof(*out));
    for (size_t i = 0; i < a->len; i++)
        out[start[a->items[i].rule]++] = a->items[i];
    free(a->items);
    a->items = out;
    a->cap = a->len;
    /* start[r] is now the end of rule r's slice */
    size_t from = 0;
    for (size_t r = 0; r < nrules; r++) {
        size_t to = start[r];
        for (size_t i = from + 1; i < to; i++)
            if (out[i].start < out[i - 1].start) {
                qsort(out + from, to - from, sizeof(*out), cmp_anchor);
                break;
            }
        from = to;
    }
    if (start != small)
        free(start);
}

/* The end of the line holding pos, or limit when the line runs past it. */
static size_t line_end(const char *t, size_t pos, size_t limit)
{
    const char *nl = pos < limit ? memchr(t + pos, '\n', limit - pos) : NULL;
    return nl ? (size_t)(nl - t) : limit;
}

static size_t line_start(const char *t, size_t pos, size_t floor)
{
    for (size_t i = pos; i > floor; i--)
        if (t[i - 1] == '\n')
            return i;
    return floor;
}

static int scan(scan_ctx *c)
{
    const mn_scanner *s = c->s;
    mn_scan__anchors anchors = {0};
    int rc = 0;
    char *copy = NULL;
    mn_scan__prefilter(&anchors, s, c->text, c->len);
    if (anchors.nmarkers &&
        (copy = blank_markers(c->text, c->len, anchors.markers, anchors.nmarkers)))
        c->text = copy;
    bool always = false;
    for (size_t i = 0; i < s->nrules; i++)
        always |= s->rules[i].always && !s->rules[i].disabled && (s->rules[i].cls & c->classes);
    if (!anchors.len && !always)
        goto out;
    sort_anchors(&anchors, s->nrules);
    c->md = pcre2_match_data_create((uint32_t)s->max_groups + 1, NULL);
    c->md2 = pcre2_match_data_create(1, NULL);
    c->mctx = pcre2_match_context_copy(s->mctx);
    if (!c->md || !c->md2 || !c->mctx) {
        rc = mn_error_set(MN_ENOMEM, "scan: out of memory");
        goto out;
    }
    size_t a = 0;
    for (uint32_t ri = 0; ri < s->nrules && !(c->any && c->found); ri++) {
        const mn_scan__rule *r = &s->rules[ri];
        bool wanted = (r->cls & c->classes) != 0 && !r->disabled;
        if (r->always) {
            if (wanted && (rc = run_window(c, ri, 0, c->len)))
                goto out;
            continue;
        }
        /* windows of this rule's anchors, merged when they overlap */
        size_t wfrom = 0, wlim = 0;
        bool open = false;
        for (; a < anchors.len && anchors.items[a].rule == ri; a++) {
            if (!wanted)
                continue;
            const mn_scan__anchor *an = &anchors.items[a];
            size_t from = an->start > r->before ? an->start - r->before : 0;
            size_t lim = an->end + r->after < c->len ? an->end + r->after : c->len;
            if (!r->multiline) {
                from = line_start(c->text, an->start, from);
                lim = line_end(c->text, an->end, lim);
            }
            if (open && from <= wlim) {
                if (lim > wlim)
                    wlim = lim;
                continue;
            }
            if (open && (rc = run_window(c, ri, wfrom, wlim)))
                goto out;
            if (c->any && c->found)
                goto out;
            wfrom = from;
            wlim = lim;
            open = true;
        }
        if (open && (rc = run_window(c, ri, wfrom, wlim)))
            goto out;
    }
out:
    free(anchors.items);
    free(anchors.markers);
    free(copy);
    pcre2_match_data_free(c->md);
    pcre2_match_data_free(c->md2);
    pcre2_match_context_free(c->mctx);
    c->md = NULL;
    c->md2 = NULL;
    c->mctx = NULL;
    return rc;
}

static int cmp_hit(const void *a, const void *b)
{
    const hit *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1; /* the longer first */
    return x->rule < y->rule ? -1 : x->rule > y->rule;
}

/* Sort and merge overlapping hits: one span covering both, named after the
 * longer hit's rule (on a tie, the rule listed first). */
static void resolve(scan_ctx *c)
{
    if (c->nhits < 2)
        return;
    qsort(c->hits, c->nhits, sizeof(*c->hits), cmp_hit);
    size_t k = 0;
    for (size_t i = 1; i < c->nhits; i++) {
        hit *last = &c->hits[k], *h = &c->hits[i];
        if (h->start < last->end) {
            size_t ll = last->end - last->start, hl = h->end - h->start;
            if (hl > ll || (hl == ll && h->rule < last->rule))
                last->rule = h->rule;
            if (h->end > last->end)
                last->end = h->end;
            continue;
        }
        c->hits[++k] = *h;
    }
    c->nhits = k + 1;
}

static int scan_text(scan_ctx *c, const mn_scanner *s, const char *text, size_t len,
                     unsigned classes, bool any)
{
    memset(c, 0, sizeof(*c));
    c->s = s;
    c->classes = classes & MN_SCAN_ALL;
    c->any = any;
    if (!s || len == 0 || !c->classes)
        return 0;
    c->text = text;
    c->len = len;
    int rc = scan(c);
    c->text = NULL;
    if (rc == 0)
        resolve(c);
    return rc;
}

/* The hits of c as the interface gives them (malloc'd), or NULL for none. */
static mn_scan_hit *public_hits(const mn_scanner *s, const scan_ctx *c)
{
    if (!c->nhits)
        return NULL;
    mn_scan_hit *h = mn_malloc(c->nhits * sizeof(*h));
    for (size_t i = 0; i < c->nhits; i++) {
        h[i].rule = s->rules[c->hits[i].rule].id;
        h[i].cls = s->rules[c->hits[i].rule].cls;
        h[i].start = c->hits[i].start;
        h[i].end = c->hits[i].end;
    }
    return h;
}

/* text with c's hits replaced by markers, appended to out; sum (may be NULL) filled. */
static void put_redacted(mn_buf *out, const mn_scanner *s, const scan_ctx *c, const char *text,
                         size_t len, mn_scan_summary *sum)
{
    size_t pos = 0;
    for (size_t i = 0; i < c->nhits; i++) {
        const mn_scan__rule *r = &s->rules[c->hits[i].rule];
        mn_buf_put(out, text + pos, c->hits[i].start - pos);
        mn_buf_puts(out, MARKER_OPEN);
        mn_buf_puts(out, r->id);
        mn_buf_putc(out, ']');
        pos = c->hits[i].end;
        if (sum) {
            if (r->cls == MN_SCAN_SECRET)
                sum->secrets++;
            else
                sum->pii++;
            sum->bytes += c->hits[i].end - c->hits[i].start;
            if (!sum->rule)
                sum->rule = r->id;
        }
    }
    mn_buf_put(out, text + pos, len - pos);
}

int mn_scan_find(mn_scan_hit **out, size_t *n, const mn_scanner *s, const char *text, size_t len,
                 unsigned classes)
{
    *out = NULL;
    *n = 0;
    scan_ctx c;
    int rc = scan_text(&c, s, text, len, classes, false);
    if (rc == 0) {
        *out = public_hits(s, &c);
        *n = c.nhits;
    }
    free(c.hits);
    return rc;
}

bool mn_scan_any(const mn_scanner *s, const char *text, size_t len, unsigned classes)
{
    scan_ctx c;
    int rc = scan_text(&c, s, text, len, classes, true);
    free(c.hits);
    /* when the engine fails, say yes: a caller that refuses on a hit then
     * errs on the safe side */
    return rc != 0 || c.found;
}

int mn_scan_redact(mn_buf *out, const mn_scanner *s, const char *text, size_t len, unsigned classes,
                   mn_scan_summary *sum)
{
    if (sum)
        memset(sum, 0, sizeof(*sum));
    scan_ctx c;
    int rc = scan_text(&c, s, text, len, classes, false);
    if (rc == 0)
        put_redacted(out, s, &c, text, len, sum);
    free(c.hits);
    return rc;
}

int mn_scan_find_redact(mn_scan_hit **hits, size_t *n, mn_buf *out, const mn_scanner *s,
                        const char *text, size_t len, unsigned classes, mn_scan_summary *sum)
{
    if (hits)
        *hits = NULL;
    *n = 0;
    if (sum)
        memset(sum, 0, sizeof(*sum));
    scan_ctx c;
    int rc = scan_text(&c, s, text, len, classes, false);
    if (rc == 0 && c.nhits) {
        if (hits)
            *hits = public_hits(s, &c);
        *n = c.nhits;
        put_redacted(out, s, &c, text, len, sum);
    }
    free(c.hits);
    return rc;
}

int mn_scan_redact_str(char **text, const mn_scanner *s, unsigned classes)
{
    size_t len = strlen(*text);
    if (!mn_scan_any(s, *text, len, classes))
        return 0;
    mn_buf b = MN_BUF_INIT;
    int rc = mn_scan_redact(&b, s, *text, len, classes, NULL);
    if (rc == 0) {
        free(*text);
        *text = b.ptr ? mn_buf_detach(&b) : mn_strdup("");
    }
    mn_buf_release(&b);
    return rc;
}
