/*
 * when.c - the time a question points at: "last Saturday", "two weeks
 * ago", "yesterday", "in March", "2023-03-04", resolved against the moment
 * the question is asked (the request's now) into a window of time. A
 * memory created inside it is what the question is about more likely than
 * one that only shares its words: "I received a piece of jewelry last
 * Saturday from whom?" is answered by the turn of that Saturday that says
 * "a crystal chandelier from my aunt", which shares none of them.
 * (LongMemEval's authors expand temporal questions with such a window,
 * "time-aware query expansion"; here it is a signal and a source of
 * candidates, search.c.)
 *
 * English only, the forms people use when they talk about their own past:
 *   today, tonight, this morning | afternoon | evening      today so far
 *   yesterday                                               the day before
 *   last | this | past | the weekend                        its latest Saturday and Sunday
 *   [last | this past | on | this] <weekday>                its latest day before today
 *   N days | weeks | months | years ago (N: digits, a, an, one..twelve,
 *     a couple of, a few)                                   that day, ±1 day a week...
 *   last | past week, last month, last year                 the previous one
 *   this week, this month, this year                        so far
 *   past | last N days | weeks | months                     up to now
 *   in | on | of | early | late | mid | last | since <month>,
 *     <month> <day>, <day> <month>, <month> <year>          its latest one not after now
 *   YYYY-MM-DD, YYYY/MM/DD                                  that day
 * Several expressions: the smallest window holding all of them. Days are
 * UTC days; the window is widened by half a day on each side, so a memory
 * saved late in the evening of another time zone still falls in it.
 *
 * A memory's own words are read with the same rules, counted from when it
 * was saved (mn_when_told): "I got a chandelier from my aunt today", saved
 * that Saturday, tells of the day the question names; a turn about the
 * Renaissance saved the same afternoon was only said then. People date
 * what they tell by the day they speak, so the two halves of the signal
 * are apart.
 *
 * The words of an expression counted from now ("in the past three
 * months", "four weeks ago", "last Saturday") are the window's, not the
 * topic's: mn_when_strip gives the question without them for the
 * full-text query (search.c), where they matched "for three months now"
 * in any session. Dates ("on March 4th", "2023-03-04") stay: a memory
 * writes a date the way the question does.
 */
#include "common.h"
#include <ctype.h>
#include <time.h>

#include "retrieve/retrieve_internal.h"

#define DAY_MS  86400000LL
#define SLACK   (DAY_MS / 2)
#define MAX_TOK 96

typedef struct {
    char w[24];
    bool num;
    long n;
    const char *at; /* where it starts in the text */
} tok;

static const char *const weekdays[] = {"sunday",   "monday", "tuesday", "wednesday",
                                       "thursday", "friday", "saturday"};
static const char *const months[] = {"january",   "february", "march",    "april",
                                     "may",       "june",     "july",     "august",
                                     "september", "october",  "november", "december"};
static const char *const numbers[] = {"zero",  "one",   "two",  "three", "four",   "five",  "six",
                                      "seven", "eight", "nine", "ten",   "eleven", "twelve"};

/* weekday or month name (or its three-letter form, "sept"), else -1 */
static int name_in(const char *w, const char *const *names, size_t n)
{
    size_t len = strlen(w);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(w, names[i]) == 0)
            return (int)i;
        if ((len == 3 || (len == 4 && strcmp(w, "sept") == 0)) && strncmp(w, names[i], len) == 0 &&
            strcmp(w, "may") != 0 && strcmp(w, "sun") != 0 && strcmp(w, "sat") != 0 &&
            strcmp(w, "wed") != 0 && strcmp(w, "mar") != 0)
            return (int)i;
    }
    return -1;
}

/*
 * A count at t[i]: digits, a/an, one..twelve, "a couple of" / "couple of"
 * (2), "a few" / "few" (3). Returns the tokens it took (0: none), *out the number.
 */
static size_t count_at(const tok *t, size_t n, size_t i, long *out)
{
    size_t a = i < n && (!strcmp(t[i].w, "a") || !strcmp(t[i].w, "an")) ? 1 : 0;
    if (i + a + 1 < n && !strcmp(t[i + a].w, "couple") && !strcmp(t[i + a + 1].w, "of")) {
        *out = 2;
        return a + 2;
    }
    if (i + a < n && !strcmp(t[i + a].w, "few")) {
        *out = 3;
        return a + 1;
    }
    if (a) {
        *out = 1;
        return 1;
    }
    if (i >= n)
        return 0;
    if (t[i].num) {
        *out = t[i].n;
        return *out > 0 && *out <= 100 ? 1 : 0;
    }
    for (size_t k = 1; k < MN_ARRAY_SIZE(numbers); k++) {
        if (!strcmp(t[i].w, numbers[k])) {
            *out = (long)k;
            return 1;
        }
    }
    return 0;
}

/* days of a unit word (day, week, month, year, plural too); 0 otherwise */
static int unit_days(const char *w)
{
    static const struct {
        const char *name;
        int days;
    } units[] = {{"day", 1}, {"week", 7}, {"month", 30}, {"year", 365}};
    size_t len = strlen(w);
    for (size_t i = 0; i < MN_ARRAY_SIZE(units); i++) {
        size_t ul = strlen(units[i].name);
        if (len >= ul && strncmp(w, units[i].name, ul) == 0 &&
            (len == ul || (len == ul + 1 && w[ul] == 's')))
            return units[i].days;
    }
    return 0;
}

static bool plural(const char *w)
{
    size_t len = strlen(w);
    return len > 0 && w[len - 1] == 's';
}

static size_t tokenize(const char *q, tok *out, size_t max)
{
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)q;
    while (*p && n < max) {
        out[n].at = (const char *)p;
        if (isalpha(*p) || isdigit(*p)) {
            tok *t = &out[n];
            size_t len = 0;
            bool digits = isdigit(*p) != 0;
            while (*p && (isalpha(*p) || isdigit(*p))) {
                if (len + 1 < sizeof(t->w))
                    t->w[len++] = (char)tolower(*p);
                digits = digits && isdigit(*p);
                p++;
            }
            t->w[len] = '\0';
            t->num = digits && len <= 4;
            t->n = t->num ? strtol(t->w, NULL, 10) : 0;
            /* 4th, 21st: a day of the month */
            if (!digits && len >= 3 && isdigit((unsigned char)t->w[0])) {
                char *end;
                long v = strtol(t->w, &end, 10);
                if (!strcmp(end, "st") || !strcmp(end, "nd") || !strcmp(end, "rd") ||
                    !strcmp(end, "th")) {
                    t->num = true;
                    t->n = v;
                }
            }
            n++;
        } else if (*p == '-' || *p == '/') {
            /* YYYY-MM-DD and YYYY/MM/DD stay apart as numbers; the separator is a token */
            tok *t = &out[n++];
            t->w[0] = (char)*p;
            t->w[1] = '\0';
            t->num = false;
            p++;
        } else {
            p++;
        }
    }
    return n;
}

static int64_t day_start(int64_t ms)
{
    int64_t d = ms >= 0 ? ms / DAY_MS : -((-ms + DAY_MS - 1) / DAY_MS);
    return d * DAY_MS;
}

/* UTC calendar: days from civil and back (Howard Hinnant's algorithms) */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp + (mp < 10 ? 3 : -9);
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

/* Each time expression found: its window [a, b), without slack. */
typedef void (*window_cb)(void *payload, int64_t a, int64_t b);

/* the smallest window holding every expression's */
typedef struct {
    int64_t from, to;
    bool found;
} hull;

static void widen(void *payload, int64_t a, int64_t b)
{
    hull *h = payload;
    if (!h->found || a < h->from)
        h->from = a;
    if (!h->found || b > h->to)
        h->to = b;
    h->found = true;
}

/*
 * Month m (0-based), or its day d when d > 0, of the given year, else of
 * the latest year in which it began no later than now.
 */
static void month_window(int64_t now_ms, int m, long d, long year, int64_t *a, int64_t *b)
{
    int64_t y;
    unsigned cm, cd;
    civil_from_days(now_ms / DAY_MS, &y, &cm, &cd);
    if (year > 0)
        y = year;
    unsigned day = d > 0 ? (unsigned)d : 1;
    if (year == 0 && days_from_civil(y, (unsigned)m + 1, day) * DAY_MS > now_ms)
        y--;
    *a = days_from_civil(y, (unsigned)m + 1, day) * DAY_MS;
    if (d > 0)
        *b = *a + DAY_MS;
    else
        *b = (m == 11 ? days_from_civil(y + 1, 1, 1) : days_from_civil(y, (unsigned)m + 2, 1)) *
             DAY_MS;
}

/* The start of the latest weekday wd (0 Sunday .. 6 Saturday) before the day starting at today. */
static int64_t latest_weekday(int64_t today, int wd)
{
    int64_t dn = today / DAY_MS;
    int now_wd = (int)(((dn % 7) + 7 + 4) % 7); /* 1970-01-01 was a Thursday (4) */
    int back = (now_wd - wd + 7) % 7;
    return today - (back ? back : 7) * DAY_MS;
}

/*
 * The time expressions of tokens t[first, last) (t[last, n) is look-ahead),
 * each window to found(payload, a, b). Returns the index after the last
 * token consumed.
 */
/* the tokens [from, to] of an expression read, in mark (when the caller keeps them) */
static void mark_span(bool *mark, size_t from, size_t to)
{
    for (size_t k = from; mark && k <= to; k++)
        mark[k] = true;
}

static size_t expressions(const tok *t, size_t n, size_t first, size_t last, int64_t now_ms,
                          window_cb found, void *payload, bool *mark)
{
    int64_t today = day_start(now_ms);
    size_t i;
    for (i = first; i < last; i++) {
        const char *w = t[i].w, *prev = i > 0 ? t[i - 1].w : "";
        int wd, mo;
        long cnt = 0;
        int days;
        size_t used;
        if (!strcmp(w, "today") || !strcmp(w, "tonight") ||
            (!strcmp(prev, "this") &&
             (!strcmp(w, "morning") || !strcmp(w, "afternoon") || !strcmp(w, "evening")))) {
            found(payload, today, now_ms);
            mark_span(mark, !strcmp(prev, "this") ? i - 1 : i, i);
        } else if (!strcmp(w, "yesterday")) {
            found(payload, today - DAY_MS, today);
            mark_span(mark, i, i);
        } else if (!strcmp(w, "weekend") && (!strcmp(prev, "last") || !strcmp(prev, "this") ||
                                             !strcmp(prev, "past") || !strcmp(prev, "the"))) {
            /* the latest Saturday and Sunday before today */
            int64_t sat = latest_weekday(today, 6);
            found(payload, sat, sat + 2 * DAY_MS < now_ms ? sat + 2 * DAY_MS : now_ms);
            mark_span(mark, i - 1, i);
        } else if ((wd = name_in(w, weekdays, 7)) >= 0 &&
                   (!strcmp(prev, "last") || !strcmp(prev, "past") || !strcmp(prev, "on") ||
                    !strcmp(prev, "this") || !strcmp(prev, "since"))) {
            int64_t day = latest_weekday(today, wd);
            found(payload, day, !strcmp(prev, "since") ? now_ms : day + DAY_MS);
            mark_span(mark, i - 1, i);
        } else if ((used = count_at(t, n, i, &cnt)) > 0 && i + used + 1 < n &&
                   (days = unit_days(t[i + used].w)) > 0 && !strcmp(t[i + used + 1].w, "ago")) {
            /* N units ago: that day, give or take half a unit (a day for days) */
            int64_t at = today - cnt * days * DAY_MS;
            int64_t half = days == 1 ? DAY_MS : days * DAY_MS / 2;
            found(payload, at - half, at + DAY_MS + half);
            mark_span(mark, i, i + used + 1);
            i += used + 1;
        } else if ((!strcmp(w, "last") || !strcmp(w, "past")) && i + 1 < n &&
                   (days = unit_days(t[i + 1].w)) > 1 && !plural(t[i + 1].w)) {
            /* last week: the week before this one, or the seven days before today; past
             * week: the seven days up to now */
            int64_t a = today - (w[0] == 'l' ? 2 : 1) * days * DAY_MS;
            found(payload, a, w[0] == 'l' ? today - days * DAY_MS / 4 : now_ms);
            mark_span(mark, i, i + 1);
            i++;
        } else if ((!strcmp(w, "last") || !strcmp(w, "past")) &&
                   (used = count_at(t, n, i + 1, &cnt)) > 0 && i + used + 1 < n &&
                   (days = unit_days(t[i + 1 + used].w)) > 0) {
            found(payload, today - cnt * days * DAY_MS, now_ms);
            mark_span(mark, i, i + used + 1);
            i += used + 1;
        } else if (!strcmp(w, "this") && i + 1 < n && (days = unit_days(t[i + 1].w)) > 1 &&
                   !plural(t[i + 1].w)) {
            found(payload, today - days * DAY_MS, now_ms);
            mark_span(mark, i, i + 1);
            i++;
        } else if ((mo = name_in(w, months, 12)) >= 0) {
            /* "may", "march", "april" and "june" are also verbs or names: a month only next to
             * a day or a year, or after a preposition */
            long d = 0, year = 0;
            size_t next = i + 1;
            if (next < n && t[next].num && t[next].n >= 1 && t[next].n <= 31)
                d = t[next++].n;
            else if (i > 0 && t[i - 1].num && t[i - 1].n >= 1 && t[i - 1].n <= 31)
                d = t[i - 1].n;
            if (next < n && t[next].num && t[next].n >= 1900 && t[next].n <= 2200)
                year = t[next].n;
            bool prep = !strcmp(prev, "in") || !strcmp(prev, "on") || !strcmp(prev, "early") ||
                        !strcmp(prev, "late") || !strcmp(prev, "since") || !strcmp(prev, "of") ||
                        !strcmp(prev, "last") || !strcmp(prev, "mid");
            if (d == 0 && year == 0 && !prep)
                continue;
            int64_t a, b;
            month_window(now_ms, mo, d, year, &a, &b);
            found(payload, a, !strcmp(prev, "since") ? now_ms : b);
            /* a date is written the same in what it dates ("on 8 May, 2023"): its words stay
             * in the query (not marked), unlike those counted from now */
        } else if (t[i].num && t[i].n >= 1900 && t[i].n <= 2200 && i + 4 < n &&
                   (!strcmp(t[i + 1].w, "-") || !strcmp(t[i + 1].w, "/")) && t[i + 2].num &&
                   !strcmp(t[i + 3].w, t[i + 1].w) && t[i + 4].num && t[i + 2].n >= 1 &&
                   t[i + 2].n <= 12 && t[i + 4].n >= 1 && t[i + 4].n <= 31) {
            int64_t a =
                days_from_civil(t[i].n, (unsigned)t[i + 2].n, (unsigned)t[i + 4].n) * DAY_MS;
            found(payload, a, a + DAY_MS);
            i += 4;
        }
    }
    return i;
}

/*
 * Every time expression of text, counted from now_ms, to found: the text
 * read MAX_TOK tokens at a time, each batch overlapping the last by
 * LOOK_BACK tokens, so an expression across the seam is read whole (the
 * longest, "a couple of days ago", looks 5 tokens ahead and 1 back).
 * all = false: the first MAX_TOK tokens only (a question); else the
 * batches that start in the first TOLD_BYTES: a bound on the work, so a
 * document of 100,000 characters is not read whole for every time
 * question it is a candidate of (chat turns and notes are shorter).
 */
#define LOOK_BACK  8
#define TOLD_BYTES 16384

static void scan(const char *text, int64_t now_ms, bool all, window_cb found, void *payload)
{
    tok t[MAX_TOK];
    size_t first = 0;
    const char *p = text;
    while (p && *p) {
        size_t n = tokenize(p, t, MAX_TOK);
        if (n < MAX_TOK || !all || (size_t)(p - text) >= TOLD_BYTES) {
            expressions(t, n, first, n, now_ms, found, payload, NULL);
            return;
        }
        size_t last = MAX_TOK - LOOK_BACK,
               next = expressions(t, n, first, last, now_ms, found, payload, NULL);
        /* go on from the token before the first one not read, for its "last" or "on" */
        size_t from = next > last ? next : last;
        p = t[from - 1].at;
        first = 1;
    }
}

bool mn_when_window(const char *query, int64_t now_ms, int64_t *from, int64_t *to)
{
    hull h = {0, 0, false};
    scan(query, now_ms, false, widen, &h);
    *from = h.found ? h.from - SLACK : 0;
    *to = h.found ? h.to + SLACK : 0;
    return h.found;
}

static void ignore(void *payload, int64_t a, int64_t b)
{
    MN_UNUSED(payload);
    MN_UNUSED(a);
    MN_UNUSED(b);
}

bool mn_when_strip(const char *query, int64_t now_ms, mn_buf *out)
{
    tok t[MAX_TOK];
    bool mark[MAX_TOK] = {false}, any = false, word = false;
    size_t n = tokenize(query, t, MAX_TOK);
    expressions(t, n, 0, n, now_ms, ignore, NULL, mark);
    for (size_t k = 0; k < n; k++)
        any = any || mark[k];
    if (!any)
        return false;
    mn_buf_clear(out);
    const char *p = query;
    for (size_t k = 0; k < n; k++) {
        if (!mark[k])
            continue;
        const char *end = t[k].at;
        if (isalnum((unsigned char)*end))
            while (isalnum((unsigned char)*end))
                end++;
        else
            end++;
        /* the spaces before a word taken out go with it */
        const char *keep = t[k].at;
        while (keep > p && isspace((unsigned char)keep[-1]))
            keep--;
        mn_buf_put(out, p, (size_t)(keep - p));
        p = end;
    }
    mn_buf_puts(out, p);
    for (size_t k = 0; k < out->len && !word; k++)
        word = isalnum((unsigned char)out->ptr[k]) != 0;
    return word;
}

typedef struct {
    int64_t from, to; /* the question's window, without slack */
    bool in;
} told_check;

static void told_in(void *payload, int64_t a, int64_t b)
{
    told_check *k = payload;
    int64_t mid = a + (b - a) / 2;
    if (mid >= k->from && mid < k->to)
        k->in = true;
}

bool mn_when_told(const char *text, int64_t said_ms, int64_t from, int64_t to)
{
    told_check k = {from + SLACK, to - SLACK, false};
    scan(text, said_ms, true, told_in, &k);
    return k.in;
}

typedef struct {
    mn_search_ctx *c;
    size_t seen;
} window_rows;

static int on_window_memory(void *payload, const mn_memory_hit *h)
{
    window_rows *w = payload;
    mn_search_ctx *c = w->c;
    w->seen++;
    for (size_t i = 0; i < c->memories.len; i++)
        if (c->memories.items[i].rowid == h->rowid)
            return 0;
    mn_search_memory(c, h);
    return 0;
}

/*
 * Every candidate created in the window has when = 0.5, and one whose body
 * dates what it tells inside the window another 0.5 (fusion adds
 * M_WHEN * when, fusion.c). When the window holds at most WHEN_CANDIDATES
 * memories (through the request's filters), those the words did not find
 * join the candidates: "from whom did I get a present last Saturday" is
 * answered by a turn of that day that shares none of its words. A window
 * that holds more says too little to bring rows of its own: it only
 * reorders what the other signals found.
 */
#define WHEN_CANDIDATES 50

int mn_when_signal(mn_search_ctx *c)
{
    int64_t from, to;
    c->when = false;
    if (!mn_when_window(c->req->query, c->now_ms, &from, &to))
        return 0;
    c->when = true;
    mn_memory_query q = c->req->filter;
    q.match = NULL;
    q.limit = WHEN_CANDIDATES + 1;
    size_t had = c->memories.len;
    window_rows w = {c, 0};
    int rc = mn_store_memories_created(c->store, &q, from, to, on_window_memory, &w);
    if (rc == 0 && w.seen > WHEN_CANDIDATES)
        c->memories.len = had;
    for (size_t i = 0; rc == 0 && i < c->memories.len; i++) {
        mn_memory_cand *m = &c->memories.items[i];
        char *body = NULL;
        m->when = m->created_at >= from && m->created_at < to ? 0.5 : 0;
        if ((rc = mn_store_memory_body(c->store, &body, m->rowid)) == MN_ENOTFOUND) {
            mn_error_clear();
            rc = 0;
        }
        if (rc == 0 && body && mn_when_told(body, m->created_at, from, to))
            m->when += 0.5;
        free(body);
    }
    return rc;
}
