/*
 * consolidate.c - episodic memory made semantic; see consolidate.h.
 *
 * The members are the newest o->limit active memories of the kinds asked,
 * read with their stored fingerprints (store_review.h) and grouped by
 * mn_neardup_cluster with MIN_JACCARD and MAX_SIMHASH: looser than a
 * duplicate (docs/internals/neardup.md), "the same trouble told again".
 *
 * What a cluster shares is worked out without a model
 * (mn_consolidate_generalize): the medoid is the member whose summed
 * estimated Jaccard with the others is highest; the shared terms are the
 * words (3 letters or more, not STOP words) found in at least half the
 * members (and two), by how many members hold them, then by their first
 * place in the medoid, at most MAX_TERMS; the situation and solution are
 * the medoid's (its context's, else its title and body), else the first
 * member's that has one; paths are the union of the members' scope paths,
 * tags those at least half the members carry.
 *
 * A cluster whose members some live pattern is derived_from already is
 * not proposed again: all of them, nothing to do (action none); some,
 * that pattern gains derived_from links to the others (extend).
 */
#include "common.h"
#include <ctype.h>

#include "memory/consolidate.h"
#include "store/store_review.h"

#define MIN_JACCARD   0.3 /* looser than a duplicate's 0.5: the same episode told again */
#define MAX_SIMHASH   12  /* SimHash bits apart that still link two texts */
#define MAX_TERMS     8   /* shared terms kept: the pattern's trigger keywords */
#define DEFAULT_LIMIT 20000

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static bool stop_word(const char *w)
{
    static const char *const stop[] = {
        "the",    "and",   "for",  "with", "that", "this",  "from",  "was",     "were",   "are",
        "not",    "but",   "had",  "has",  "have", "its",   "into",  "then",    "when",   "what",
        "which",  "who",   "all",  "any",  "can",  "our",   "out",   "one",     "two",    "after",
        "before", "again", "each", "they", "them", "their", "there", "been",    "being",  "only",
        "while",  "also",  "than", "into", "over", "under", "about", "because", "should", "would"};
    for (size_t i = 0; i < MN_ARRAY_SIZE(stop); i++)
        if (!strcmp(w, stop[i]))
            return true;
    return false;
}

/* The words of a member (title, body, situation, solution), lower case, each once, in order. */
static json_t *words_of(const json_t *m)
{
    const json_t *ctx = json_object_get(m, "context");
    const char *parts[] = {str(m, "title"), str(m, "body"), str(ctx, "situation"),
                           str(ctx, "solution")};
    json_t *seen = json_object(), *out = json_array();
    for (size_t p = 0; p < MN_ARRAY_SIZE(parts); p++) {
        const char *t = parts[p];
        while (t && *t) {
            while (*t && !(isalnum((unsigned char)*t) || *t == '_'))
                t++;
            const char *start = t;
            while (*t && (isalnum((unsigned char)*t) || *t == '_' || *t == '.') && t - start < 64)
                t++;
            size_t len = (size_t)(t - start);
            while (len && start[len - 1] == '.')
                len--;
            if (len < 3)
                continue;
            char w[65];
            for (size_t i = 0; i < len; i++)
                w[i] = (char)tolower((unsigned char)start[i]);
            w[len] = '\0';
            if (stop_word(w) || json_object_get(seen, w))
                continue;
            json_object_set_new(seen, w, json_true());
            json_array_append_new(out, json_string(w));
        }
    }
    json_decref(seen);
    return out;
}

static void add_unique(json_t *arr, json_t *v)
{
    size_t i;
    json_t *x;
    json_array_foreach(arr, i, x) if (json_equal(x, v)) return;
    json_array_append(arr, v);
}

json_t *mn_consolidate_generalize(json_t *const *members, size_t n, size_t medoid)
{
    json_t *df = json_object(), *order = words_of(members[medoid]), *terms = json_array();
    json_t *paths = json_array(), *tag_count = json_object(), *tags = json_array();
    size_t need = n / 2 + n % 2 > 2 ? n / 2 + n % 2 : 2, i, j;
    json_t *w;
    for (i = 0; i < n; i++) {
        json_t *ws = words_of(members[i]);
        json_array_foreach(ws, j, w)
        {
            const char *k = json_string_value(w);
            json_object_set_new(df, k,
                                json_integer(json_integer_value(json_object_get(df, k)) + 1));
            if (i != medoid)
                add_unique(order, w);
        }
        json_decref(ws);
        const json_t *scope = json_object_get(members[i], "scope");
        json_array_foreach(json_object_get(scope, "paths"), j, w) add_unique(paths, w);
        json_array_foreach(json_object_get(scope, "tags"), j, w)
        {
            const char *k = json_string_value(w);
            json_object_set_new(
                tag_count, k, json_integer(json_integer_value(json_object_get(tag_count, k)) + 1));
        }
    }
    /* by members holding it (most first), then by first place: a stable selection */
    for (size_t want = n; want >= need && json_array_size(terms) < MAX_TERMS; want--)
        json_array_foreach(order, i, w) if (json_array_size(terms) < MAX_TERMS &&
                                            (size_t)json_integer_value(
                                                json_object_get(df, json_string_value(w))) == want)
            json_array_append(terms, w);
    const char *k;
    json_t *v;
    json_object_foreach(tag_count, k, v) if ((size_t)json_integer_value(v) >= need)
        json_array_append_new(tags, json_string(k));

    const json_t *mc = json_object_get(members[medoid], "context");
    const char *situation = str(mc, "situation"), *solution = str(mc, "solution");
    for (i = 0; i < n && (!situation || !solution); i++) {
        const json_t *c = json_object_get(members[i], "context");
        if (!situation)
            situation = str(c, "situation");
        if (!solution)
            solution = str(c, "solution");
    }
    if (!situation)
        situation = str(members[medoid], "title");
    if (!solution)
        solution = str(members[medoid], "body") ? str(members[medoid], "body") : "";
    mn_buf title = MN_BUF_INIT;
    mn_buf_printf(&title, "Recurring %s (%zu times): %.150s", str(members[medoid], "kind"), n,
                  str(members[medoid], "title"));
    json_t *out =
        json_pack("{s:s,s:s,s:s,s:o,s:o,s:o}", "title", title.ptr, "situation", situation,
                  "solution", solution, "shared_terms", terms, "paths", paths, "tags", tags);
    mn_buf_release(&title);
    json_decref(df);
    json_decref(order);
    json_decref(tag_count);
    return out;
}

/* ---- finding the clusters ---- */

typedef struct {
    char (*ids)[MN_ID_LEN + 1];
    mn_fingerprint *fps;
    size_t n, cap;
} fp_set;

static int keep_fp(void *payload, const char *uid, const mn_fingerprint *fp)
{
    fp_set *s = payload;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->ids = mn_realloc(s->ids, s->cap * sizeof(*s->ids));
        s->fps = mn_realloc(s->fps, s->cap * sizeof(*s->fps));
    }
    snprintf(s->ids[s->n], MN_ID_LEN + 1, "%s", uid);
    s->fps[s->n++] = *fp;
    return 0;
}

/* The live pattern some members are derived from, and how many of them: the most covered. */
static int existing_pattern(mn_store *s, json_t *members, char *pattern, size_t *covered)
{
    json_t *count = json_object(), *m;
    size_t i, j;
    int rc = 0;
    *covered = 0;
    pattern[0] = '\0';
    json_array_foreach(members, i, m)
    {
        json_t *back = NULL, *b;
        if ((rc = mn_store_memory_backlinks(s, &back, str(m, "id"))) != 0)
            break;
        json_array_foreach(back, j, b) if (!strcmp(str(b, "kind"), "derived_from"))
        {
            json_t *p = NULL;
            if (mn_store_memory_get(s, &p, str(b, "from")) == 0 &&
                !json_object_get(p, "deleted_at") && strcmp(str(p, "status"), "archived") &&
                strcmp(str(p, "status"), "superseded")) {
                size_t c = (size_t)json_integer_value(json_object_get(count, str(b, "from"))) + 1;
                json_object_set_new(count, str(b, "from"), json_integer((json_int_t)c));
                if (c > *covered || (c == *covered && strcmp(str(b, "from"), pattern) < 0)) {
                    *covered = c;
                    snprintf(pattern, MN_ID_LEN + 1, "%s", str(b, "from"));
                }
            }
            mn_error_clear();
            json_decref(p);
        }
        json_decref(back);
    }
    json_decref(count);
    return rc;
}

static bool linked_from(mn_store *s, const char *member, const char *pattern)
{
    json_t *back = NULL, *b;
    size_t i;
    bool found = false;
    if (mn_store_memory_backlinks(s, &back, member) == 0)
        json_array_foreach(back, i, b) if (!strcmp(str(b, "kind"), "derived_from") &&
                                           !strcmp(str(b, "from"), pattern)) found = true;
    mn_error_clear();
    json_decref(back);
    return found;
}

/* The pattern a new cluster's generalization becomes: the save's input. */
static json_t *pattern_input(const json_t *g, json_t *members)
{
    json_t *kw = json_deep_copy(json_object_get(g, "shared_terms")), *links = json_array(), *m;
    size_t i;
    /* an agent's pattern needs keywords: the member kind's name when few are shared */
    json_array_foreach(members, i, m) if (json_array_size(kw) < 3)
        add_unique(kw, json_object_get(m, "kind"));
    if (json_array_size(kw) < 3)
        add_unique(kw, json_string("recurring"));
    json_array_foreach(members, i, m)
        json_array_append_new(links, json_pack("{s:s,s:O,s:s}", "kind", "derived_from", "to",
                                               json_object_get(m, "id"), "note", "consolidated"));
    mn_buf body = MN_BUF_INIT;
    mn_buf_printf(&body, "Seen %zu times. When: %s\nWhat to do: %s", json_array_size(members),
                  str(g, "situation"), str(g, "solution"));
    json_t *in = json_pack("{s:s,s:O,s:s,s:{s:O,s:O,s:o},s:o}", "kind", "pattern", "title",
                           json_object_get(g, "title"), "body", body.ptr, "context", "situation",
                           json_object_get(g, "situation"), "solution",
                           json_object_get(g, "solution"), "trigger_keywords", kw, "links", links);
    mn_buf_release(&body);
    json_t *scope = json_object();
    if (json_array_size(json_object_get(g, "paths")))
        json_object_set(scope, "paths", json_object_get(g, "paths"));
    if (json_array_size(json_object_get(g, "tags")))
        json_object_set(scope, "tags", json_object_get(g, "tags"));
    if (json_object_size(scope))
        json_object_set(in, "scope", scope);
    json_decref(scope);
    return in;
}

/* Extend: the pattern gains derived_from links to the members it lacked. */
static int extend(mn_store *s, const mn_memory_settings *cfg, const char *pattern, json_t *members,
                  json_t *added)
{
    int64_t now = mn_time_now_ms();
    json_t *m;
    size_t i;
    int rc = mn_store_begin(s);
    json_array_foreach(members, i, m)
    {
        if (rc || linked_from(s, str(m, "id"), pattern))
            continue;
        rc = mn_store_link_add(s, pattern, "derived_from", str(m, "id"), "consolidated", now);
        if (rc == 0) {
            json_t *d = json_pack("{s:s,s:s}", "kind", "derived_from", "to", str(m, "id"));
            rc = mn_store_audit(s, cfg->actor, "link", pattern, d);
            json_decref(d);
        }
        if (rc == 0)
            json_array_append(added, json_object_get(m, "id"));
    }
    if (rc)
        mn_store_rollback(s);
    else
        rc = mn_store_commit(s);
    return rc;
}

static json_t *member_summary(const json_t *m)
{
    return json_pack("{s:O,s:O,s:O,s:O}", "id", json_object_get(m, "id"), "kind",
                     json_object_get(m, "kind"), "title", json_object_get(m, "title"), "status",
                     json_object_get(m, "status"));
}

int mn_consolidate(json_t **out, mn_store *s, const mn_memory_settings *cfg,
                   const mn_consolidate_options *o)
{
    static const char *const dflt[] = {"episode", "gotcha"};
    static const char *const active[] = {"active"};
    mn_fingerprint_filter f = {o->kinds ? o->kinds : dflt,
                               o->kinds ? o->nkinds : 2,
                               active,
                               1,
                               o->since,
                               o->limit > 0 ? o->limit : DEFAULT_LIMIT};
    fp_set set = {NULL, NULL, 0, 0};
    size_t *label = NULL, nclusters = 0, min_size = o->min_size ? o->min_size : 3;
    json_t *clusters = json_array(), **mems = NULL;
    json_int_t created = 0, extended = 0;
    int rc = mn_store_begin_read(s);
    if (rc)
        goto out;
    rc = mn_store_fingerprints_each(s, &f, keep_fp, &set);
    if (rc == 0 && set.n) {
        label = mn_calloc(set.n, sizeof(*label));
        rc = mn_neardup_cluster(label, &nclusters, set.fps, set.n, MIN_JACCARD, MAX_SIMHASH,
                                min_size);
    }
    /* each cluster: its members read, what they share, what is done with it */
    json_t *plans = json_array();
    for (size_t c = 0; rc == 0 && c < nclusters; c++) {
        json_t *members = json_array(), *summary = json_array();
        size_t idx[64], n = 0; /* the cluster's first 64 members by recency */
        for (size_t i = 0; i < set.n && rc == 0 && n < MN_ARRAY_SIZE(idx); i++) {
            if (label[i] != c)
                continue;
            json_t *m = NULL;
            if ((rc = mn_store_memory_get(s, &m, set.ids[i])) == 0) {
                idx[n++] = i;
                json_array_append_new(summary, member_summary(m));
                json_array_append_new(members, m);
            }
        }
        size_t medoid = 0;
        double best = -1;
        for (size_t a = 0; a < n; a++) {
            double sum = 0;
            for (size_t b = 0; b < n; b++)
                if (a != b)
                    sum += mn_fingerprint_jaccard(&set.fps[idx[a]], &set.fps[idx[b]]);
            if (sum > best) {
                best = sum;
                medoid = a;
            }
        }
        mems = mn_realloc(mems, (n ? n : 1) * sizeof(*mems));
        for (size_t i = 0; i < n; i++)
            mems[i] = json_array_get(members, i);
        json_t *g = n ? mn_consolidate_generalize(mems, n, medoid) : json_object();
        char pattern[MN_ID_LEN + 1];
        size_t covered = 0;
        if (rc == 0)
            rc = existing_pattern(s, members, pattern, &covered);
        const char *action = covered == n ? "none" : covered ? "extend" : "create";
        json_t *cl =
            json_pack("{s:s,s:o,s:o}", "action", action, "members", summary, "generalize", g);
        if (covered)
            json_object_set_new(cl, "pattern", json_string(pattern));
        json_array_append_new(clusters, cl);
        json_array_append_new(plans, members);
    }
    if (rc) {
        json_decref(plans);
        mn_store_rollback(s);
        goto out;
    }
    if ((rc = mn_store_commit(s)) != 0 || !o->apply) {
        json_decref(plans);
        goto out;
    }
    /* applied: each outside the read, through the pipeline (its own transaction) */
    size_t i;
    json_t *cl;
    json_array_foreach(clusters, i, cl)
    {
        json_t *members = json_array_get(plans, i), *res = NULL;
        const char *action = str(cl, "action");
        if (!strcmp(action, "create")) {
            json_t *in = pattern_input(json_object_get(cl, "generalize"), members);
            rc = mn_memory_save(&res, s, cfg, in);
            json_decref(in);
            if (rc == 0) {
                json_object_set(cl, "pattern", json_object_get(res, "id"));
                json_object_set_new(cl, "result",
                                    json_pack("{s:O,s:O,s:O?}", "id", json_object_get(res, "id"),
                                              "action", json_object_get(res, "action"), "status",
                                              json_object_get(res, "status")));
                created += !strcmp(str(res, "action"), "created");
            }
            json_decref(res);
        } else if (!strcmp(action, "extend")) {
            json_t *added = json_array();
            rc = extend(s, cfg, str(cl, "pattern"), members, added);
            json_object_set_new(cl, "result",
                                json_pack("{s:O,s:s,s:o}", "id", json_object_get(cl, "pattern"),
                                          "action", "extended", "added", added));
            extended += rc == 0;
        }
        if (rc)
            break;
    }
    json_decref(plans);
out:
    free(label);
    free(set.ids);
    free(set.fps);
    free(mems);
    if (rc) {
        json_decref(clusters);
        return rc;
    }
    *out = json_pack("{s:b,s:I,s:o,s:I,s:I}", "dry_run", !o->apply, "examined", (json_int_t)set.n,
                     "clusters", clusters, "created", created, "extended", extended);
    return 0;
}
