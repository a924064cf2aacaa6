/*
 * bench_locomo.c - conversational memory on LoCoMo (snap-research/LoCoMo,
 * data/locomo10.json; ../shared/eval/README.md): evidence recall of mnemo's
 * search against a plain BM25 over the same turns, in the same run.
 *
 * Protocol. Per conversation, every turn of every session is one item:
 * "<speaker>: <text>", plus " [shares a photo: <blip_caption>]" when the
 * turn shared an image (--no-captions drops it), with the session's date.
 *  - mnemo: a fresh store in a temporary directory per conversation; each
 *    turn saved by op "save" as {kind episode, body "<speaker>: <text>...",
 *    context.situation "<session date>", provenance.source import}, with
 *    memory.dedup off; the bench keeps memory id -> turn. Each question is
 *    op "search" {query: question, kinds: ["memory"], k: K} (K = 50, --k:
 *    bench_longmemeval's; with 25, 742 of the 1,536 rankings reached fewer
 *    than 10 distinct sessions, so sess_*@10 counted misses past their end).
 *  - bm25: FTS5 unicode61 over one column "<session date>\n<body>" per
 *    turn (eval_bm25.c), query = the question's tokens OR-ed, top K.
 * Questions of categories 1-4 are scored (1 multi-hop, 2 temporal,
 * 3 open-domain, 4 single-hop); category 5 (adversarial) is skipped. Gold =
 * the distinct evidence dia_ids that exist in the conversation. The file
 * has a few malformed evidence strings: "D8:6; D9:17" and "D9:1 D4:4" are
 * split, "D:11:26" is read as D11:26, an id naming no turn is dropped, and
 * a question left without gold is skipped (both counted in the notes).
 * Metrics per question (formulas in eval/eval_common.c):
 *  - turn_recall@k (k = 5, 10, 25): |gold turns in the top k| / |gold|;
 *  - session_recall@k: |gold sessions holding a turn of the top k| /
 *    |gold sessions| (the sessions of the evidence turns);
 *  - ndcg@10: binary relevance over turns, discount 1/log2(i + 1);
 *  - sess_all@k, sess_any@k (k = 5, 10): sessions ranked as documents of
 *    their own, every (any) gold session among the first k distinct
 *    sessions. mnemo's session ranking is its turn ranking mapped to the
 *    turns' sessions, first occurrences kept (LongMemEval's protocol); the
 *    baseline's is the same BM25 over session documents (a session's date
 *    and its turns joined), as bench_longmemeval's session level.
 * Latency is that of the search call (mnemo) or of tokenizing the question
 * and running the FTS5 query (bm25). Tokens = bytes/4 of the first 10 items
 * returned (mnemo: title + snippet; bm25: the turn's text).
 *
 * Usage: bench_locomo [LOCOMO_JSON] [--limit N] [--k K] [--only-baseline]
 *                     [--no-captions] [--verbose] [--json] [--strict] [--keep] [--db URL]
 * Without a path (nor $MNEMO_BENCH_LOCOMO) it prints that it skipped and
 * exits 0. Exit status: 0; 1 with --strict when a target fails; 2 on bad
 * input or setup errors.
 */
#include "common.h"

#include "eval/eval.h"
#include "util/map.h"
#include "util/util.h"

#define PROG      "bench_locomo"
#define DEFAULT_K 50
#define MAX_K     200
#define TOKENS_K  10

static const char usage[] =
    "usage: bench_locomo [LOCOMO_JSON] [options]   (e.g. ../shared/eval/locomo/locomo10.json)\n"
    "  --limit N        only the first N conversations\n"
    "  --k K            items asked of each search (default 50)\n"
    "  --only-baseline  run the BM25 baseline only\n"
    "  --no-captions    leave the shared photos' captions out of the turns\n"
    "  --verbose        print the questions whose evidence is missed at 10 (stderr)\n"
    "  --json           a JSON summary on stdout (the table goes to stderr)\n"
    "  --strict         exit 1 when a target of the issue is missed\n"
    "  --keep           keep the temporary stores\n"
    "  --db URL         the stores in this PostgreSQL database (a project each; default:\n"
    "                   SQLite files)\n"
    "$MNEMO_BENCH_LOCOMO is the default path.\n";

static const char *const metrics[] = {
    "turn_recall@5",     "turn_recall@10",    "turn_recall@25", "session_recall@5",
    "session_recall@10", "session_recall@25", "ndcg@10",        "sess_any@5",
    "sess_all@5",        "sess_any@10",       "sess_all@10",
};
static const size_t ks[] = {5, 10, 25};

typedef struct {
    char dia[32];
    int64_t session;
    const char *date;
    char *body;
} turn;

typedef MN_VEC(turn) turn_vec;

typedef struct {
    ev_options o;
    ev_report r;
    FILE *out; /* the table's stream */
    size_t skipped_adversarial, skipped_no_gold, dropped_ids, saves, conversations;
    size_t short_sessions[EV_NSYS]; /* session rankings with fewer than 10 distinct sessions */
    ev_samples save_ms;
    double bm25_build_ms;
} run;

static const char *category_label(json_int_t c)
{
    switch (c) {
    case 1:
        return "1 multi-hop";
    case 2:
        return "2 temporal";
    case 3:
        return "3 open-domain";
    case 4:
        return "4 single-hop";
    default:
        return NULL;
    }
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The sessions of a conversation, in number order: keys session_<n> holding an array. */
static size_t session_numbers(const json_t *conv, int64_t *out, size_t max)
{
    const char *key;
    json_t *v;
    size_t n = 0;
    json_object_foreach((json_t *)conv, key, v)
    {
        if (strncmp(key, "session_", 8) != 0 || !json_is_array(v) || n == max)
            continue;
        char *end;
        long s = strtol(key + 8, &end, 10);
        if (end != key + 8 && *end == '\0' && s > 0)
            out[n++] = s;
    }
    qsort(out, n, sizeof(*out), cmp_i64);
    return n;
}

static int load_turns(const json_t *conv, turn_vec *turns, mn_map *by_dia, bool captions)
{
    int64_t sessions[1024];
    size_t ns = session_numbers(conv, sessions, MN_ARRAY_SIZE(sessions));
    for (size_t si = 0; si < ns; si++) {
        char key[64];
        snprintf(key, sizeof(key), "session_%lld", (long long)sessions[si]);
        const json_t *list = json_object_get(conv, key);
        snprintf(key, sizeof(key), "session_%lld_date_time", (long long)sessions[si]);
        const char *date = ev_str(conv, key);
        size_t i;
        json_t *t;
        json_array_foreach(list, i, t)
        {
            turn tu = {{0}, sessions[si], date, NULL};
            const char *dia = ev_str(t, "dia_id"), *caption = ev_str(t, "blip_caption");
            if (!*dia || strlen(dia) >= sizeof(tu.dia)) {
                fprintf(stderr, PROG ": %s[%zu]: a turn without a usable dia_id\n", key, i);
                return -1;
            }
            snprintf(tu.dia, sizeof(tu.dia), "%s", dia);
            mn_buf b = MN_BUF_INIT;
            mn_buf_printf(&b, "%s: %s", ev_str(t, "speaker"), ev_str(t, "text"));
            if (captions && *caption)
                mn_buf_printf(&b, " [shares a photo: %s]", caption);
            tu.body = mn_buf_detach(&b);
            if (mn_map_has(by_dia, tu.dia))
                fprintf(stderr, PROG ": warning: dia_id %s appears twice; the first is gold\n",
                        tu.dia);
            else
                mn_map_set(by_dia, tu.dia, (void *)(uintptr_t)(turns->len + 1));
            mn_vec_push(turns, tu);
        }
    }
    return 0;
}

/*
 * The gold turns of a question: every "D<s>:<t>" (also "D:<s>:<t>") found
 * in its evidence strings that names a turn, distinct. *dropped counts ids
 * that parse but name no turn and strings with no id at all.
 */
static size_t parse_evidence(const json_t *ev, const mn_map *by_dia, int64_t *gold, size_t max,
                             size_t *dropped)
{
    size_t n = 0, i;
    json_t *e;
    json_array_foreach(ev, i, e)
    {
        const char *s = json_string_value(e);
        bool any = false;
        for (const char *p = s ? s : ""; *p; p++) {
            if (*p != 'D')
                continue;
            const char *q = p + 1;
            if (*q == ':')
                q++;
            char *end;
            long sess = strtol(q, &end, 10);
            if (end == q || *end != ':' || sess <= 0)
                continue;
            q = end + 1;
            long t = strtol(q, &end, 10);
            if (end == q || t <= 0)
                continue;
            any = true;
            char key[64];
            snprintf(key, sizeof(key), "D%ld:%ld", sess, t);
            uintptr_t v = (uintptr_t)mn_map_get(by_dia, key);
            if (!v) {
                (*dropped)++;
                continue;
            }
            bool dup = false;
            for (size_t j = 0; j < n; j++)
                dup |= gold[j] == (int64_t)(v - 1);
            if (!dup && n < max)
                gold[n++] = (int64_t)(v - 1);
            p = end - 1;
        }
        if (!any)
            (*dropped)++;
    }
    return n;
}

/*
 * srank[0..ns): the sessions ranked as documents (distinct session numbers,
 * best first), scored on the gold turns' sessions.
 */
static void score(run *R, const char *group, int sys, const int64_t *rank, size_t n,
                  const int64_t *srank, size_t ns, const int64_t *gold, size_t ngold,
                  const turn_vec *turns)
{
    int64_t gs[64], rs[MAX_K];
    size_t ngs = 0;
    for (size_t i = 0; i < ngold; i++) {
        int64_t s = turns->items[gold[i]].session;
        bool dup = false;
        for (size_t j = 0; j < ngs; j++)
            dup |= gs[j] == s;
        if (!dup && ngs < MN_ARRAY_SIZE(gs))
            gs[ngs++] = s;
    }
    for (size_t ki = 0; ki < MN_ARRAY_SIZE(ks); ki++) {
        size_t k = ks[ki];
        char name[64];
        snprintf(name, sizeof(name), "turn_recall@%zu", k);
        ev_report_add(&R->r, group, name, sys,
                      (double)ev_hits(rank, n, k, gold, ngold) / (double)ngold);
        /* sessions of the top k turns (not the first k distinct sessions) */
        size_t m = 0;
        for (size_t i = 0; i < n && i < k; i++)
            rs[m++] = rank[i] >= 0 ? turns->items[rank[i]].session : -1;
        snprintf(name, sizeof(name), "session_recall@%zu", k);
        ev_report_add(&R->r, group, name, sys, (double)ev_hits(rs, m, m, gs, ngs) / (double)ngs);
    }
    ev_report_add(&R->r, group, "ndcg@10", sys, ev_ndcg(rank, n, 10, gold, ngold, EV_DCG_STANDARD));
    static const size_t sk[] = {5, 10};
    R->short_sessions[sys] += ns < sk[MN_ARRAY_SIZE(sk) - 1];
    for (size_t ki = 0; ki < MN_ARRAY_SIZE(sk); ki++) {
        char name[64];
        size_t hits = ev_hits(srank, ns, sk[ki], gs, ngs);
        snprintf(name, sizeof(name), "sess_any@%zu", sk[ki]);
        ev_report_add(&R->r, group, name, sys, hits > 0);
        snprintf(name, sizeof(name), "sess_all@%zu", sk[ki]);
        ev_report_add(&R->r, group, name, sys, hits == ngs);
    }
}

static void print_miss(const char *sys, const int64_t *rank, size_t n, const turn_vec *turns)
{
    fprintf(stderr, "    %s top 10:", sys);
    for (size_t i = 0; i < n && i < 10; i++)
        fprintf(stderr, " %s", rank[i] >= 0 ? turns->items[rank[i]].dia : "?");
    fputc('\n', stderr);
}

static int run_conversation(run *R, const json_t *sample, size_t index)
{
    const json_t *conv = json_object_get(sample, "conversation");
    const json_t *qa = json_object_get(sample, "qa");
    const char *sample_id = ev_str(sample, "sample_id");
    turn_vec turns = MN_VEC_INIT;
    mn_map by_dia = MN_MAP_INIT, by_mem = MN_MAP_INIT;
    ev_bm25 *bm = NULL, *bs = NULL;          /* the baseline over turns, over session documents */
    MN_VEC(int64_t) turn_sess = MN_VEC_INIT; /* turn -> its session's number */
    ev_store st = {0};
    bool have_store = false;
    size_t K = R->o.k ? R->o.k : DEFAULT_K;
    int rc = 2;
    if (K > MAX_K)
        K = MAX_K;

    if (!json_is_object(conv) || !json_is_array(qa)) {
        fprintf(stderr, PROG ": conversation %zu: no 'conversation' object or 'qa' list\n", index);
        goto out;
    }
    if (load_turns(conv, &turns, &by_dia, !R->o.no_captions) != 0)
        goto out;

    /* the baseline's index */
    uint64_t t0 = ev_now_ns();
    if (ev_bm25_open(&bm, 1) != 0)
        goto out;
    for (size_t i = 0; i < turns.len; i++) {
        mn_buf doc = MN_BUF_INIT;
        mn_buf_printf(&doc, "%s\n%s", turns.items[i].date, turns.items[i].body);
        const char *cols[] = {doc.ptr};
        int e = ev_bm25_add(bm, (int64_t)i, cols);
        mn_buf_release(&doc);
        if (e)
            goto out;
    }
    /* session documents: the session's date, then its turns (turns are in session order) */
    if (ev_bm25_open(&bs, 1) != 0)
        goto out;
    for (size_t i = 0; i < turns.len;) {
        mn_buf doc = MN_BUF_INIT;
        int64_t s = turns.items[i].session;
        mn_buf_puts(&doc, turns.items[i].date);
        for (; i < turns.len && turns.items[i].session == s; i++)
            mn_buf_printf(&doc, "\n%s", turns.items[i].body);
        const char *cols[] = {doc.ptr};
        int e = ev_bm25_add(bs, s, cols);
        mn_buf_release(&doc);
        if (e)
            goto out;
    }
    R->bm25_build_ms += ev_ms_since(t0);
    for (size_t i = 0; i < turns.len; i++)
        mn_vec_push(&turn_sess, turns.items[i].session);

    /* mnemo's store */
    if (R->r.available[EV_MNEMO]) {
        char *dir = ev_mkdtemp("mnemo-locomo");
        if (!dir)
            goto out;
        int e = ev_store_open(&st, dir);
        free(dir);
        have_store = true;
        if (e)
            goto out;
        for (size_t i = 0; i < turns.len; i++) {
            json_t *args = json_pack("{s:s,s:s,s:{s:s},s:{s:s}}", "kind", "episode", "body",
                                     turns.items[i].body, "context", "situation",
                                     turns.items[i].date, "provenance", "source", "import");
            json_t *res = NULL;
            uint64_t t1 = ev_now_ns();
            e = mn_api_call(st.ctx, "save", args, &res);
            mn_vec_push(&R->save_ms, ev_ms_since(t1));
            json_decref(args);
            if (e) {
                fprintf(stderr, PROG ": save %s: %s\n", turns.items[i].dia, mn_error_last());
                goto out;
            }
            if (strcmp(ev_str(res, "action"), "created") != 0)
                ev_report_note(&R->r, "%s %s: save answered '%s', not 'created'", sample_id,
                               turns.items[i].dia, ev_str(res, "action"));
            mn_map_set(&by_mem, ev_str(res, "id"), (void *)(uintptr_t)(i + 1));
            json_decref(res);
            R->saves++;
        }
        if (R->o.keep)
            fprintf(stderr, PROG ": %s: store kept at %s\n", sample_id, st.db);
    }

    size_t qi;
    json_t *q;
    json_array_foreach(qa, qi, q)
    {
        json_int_t cat = json_integer_value(json_object_get(q, "category"));
        const char *group = category_label(cat);
        const char *question = ev_str(q, "question");
        int64_t gold[64], rank[EV_NSYS][MAX_K], srank[MAX_K];
        size_t nrank[EV_NSYS] = {0, 0}, ns = 0;
        if (cat == 5) {
            R->skipped_adversarial++;
            continue;
        }
        if (!group || !*question) {
            fprintf(stderr, PROG ": %s qa[%zu]: bad category or question\n", sample_id, qi);
            goto out;
        }
        size_t ngold = parse_evidence(json_object_get(q, "evidence"), &by_dia, gold,
                                      MN_ARRAY_SIZE(gold), &R->dropped_ids);
        if (ngold == 0) {
            R->skipped_no_gold++;
            continue;
        }
        ev_report_question(&R->r, group);

        uint64_t t1 = ev_now_ns();
        if (ev_bm25_search(bm, question, 0, K, rank[EV_BM25], &nrank[EV_BM25]) != 0)
            goto out;
        mn_vec_push(&R->r.latency[EV_BM25], ev_ms_since(t1));
        size_t bytes = 0;
        for (size_t i = 0; i < nrank[EV_BM25] && i < TOKENS_K; i++)
            bytes += strlen(turns.items[rank[EV_BM25][i]].body);
        mn_vec_push(&R->r.tokens[EV_BM25], (double)ev_tokens(bytes));
        if (ev_bm25_search(bs, question, 0, 10, srank, &ns) != 0)
            goto out;
        score(R, group, EV_BM25, rank[EV_BM25], nrank[EV_BM25], srank, ns, gold, ngold, &turns);

        if (R->r.available[EV_MNEMO]) {
            json_t *args = json_pack("{s:s,s:[s],s:I}", "query", question, "kinds", "memory", "k",
                                     (json_int_t)K);
            json_t *res = NULL;
            double ms;
            if (ev_search(&st, args, &res, &ms) == 0) {
                mn_vec_push(&R->r.latency[EV_MNEMO], ms);
                nrank[EV_MNEMO] =
                    ev_items_rank(res, "id", &by_mem, rank[EV_MNEMO], K, TOKENS_K, &bytes);
                nrank[EV_MNEMO] = ev_rank_dedup(rank[EV_MNEMO], nrank[EV_MNEMO]);
                mn_vec_push(&R->r.tokens[EV_MNEMO], (double)ev_tokens(bytes));
            } else {
                R->r.errors++;
            }
            json_decref(args);
            json_decref(res);
            ns =
                ev_rank_map(srank, rank[EV_MNEMO], nrank[EV_MNEMO], turn_sess.items, turn_sess.len);
            score(R, group, EV_MNEMO, rank[EV_MNEMO], nrank[EV_MNEMO], srank, ns, gold, ngold,
                  &turns);
        }

        if (R->o.verbose) {
            int sys = R->r.available[EV_MNEMO] ? EV_MNEMO : EV_BM25;
            if (ev_hits(rank[sys], nrank[sys], 10, gold, ngold) < ngold) {
                fprintf(stderr, "miss %s [%s] %s\n    gold:", sample_id, group, question);
                for (size_t i = 0; i < ngold; i++)
                    fprintf(stderr, " %s", turns.items[gold[i]].dia);
                fputc('\n', stderr);
                if (R->r.available[EV_MNEMO])
                    print_miss("mnemo", rank[EV_MNEMO], nrank[EV_MNEMO], &turns);
                print_miss("bm25", rank[EV_BM25], nrank[EV_BM25], &turns);
                /* where each gold turn is in the ranking: 1-based, - past K */
                fprintf(stderr, "    gold ranks:");
                for (size_t i = 0; i < ngold; i++) {
                    size_t at = 0;
                    for (size_t j = 0; j < nrank[sys] && !at; j++)
                        at = rank[sys][j] == gold[i] ? j + 1 : 0;
                    if (at)
                        fprintf(stderr, " %zu", at);
                    else
                        fprintf(stderr, " -");
                }
                fputc('\n', stderr);
            }
        }
    }
    R->conversations++;
    rc = 0;
out:
    if (have_store)
        ev_store_close(&st, !R->o.keep);
    ev_bm25_close(bm);
    ev_bm25_close(bs);
    mn_vec_release(&turn_sess);
    for (size_t i = 0; i < turns.len; i++)
        free(turns.items[i].body);
    mn_vec_release(&turns);
    mn_map_release(&by_dia);
    mn_map_release(&by_mem);
    return rc;
}

int main(int argc, char **argv)
{
    run R;
    memset(&R, 0, sizeof(R));
    int rc = ev_parse_args(&R.o, argc, argv, PROG, usage, "MNEMO_BENCH_LOCOMO");
    if (rc)
        return rc == 1 ? 0 : 2;
    R.out = R.o.json ? stderr : stdout;

    json_t *data = ev_load_json(R.o.input);
    if (!data)
        return 2;
    if (!json_is_array(data) || json_array_size(data) == 0) {
        fprintf(stderr, PROG ": %s: expected a JSON list of conversations\n", R.o.input);
        json_decref(data);
        return 2;
    }
    ev_report_init(&R.r, "locomo", R.o.input, metrics, MN_ARRAY_SIZE(metrics));
    R.r.tokens_k = TOKENS_K;
    R.r.available[EV_BM25] = true;
    R.r.available[EV_MNEMO] = !R.o.only_baseline && ev_search_available();
    if (!R.o.only_baseline && !R.r.available[EV_MNEMO])
        fprintf(R.out, "search: not available (this mnemo has no 'search' operation); "
                       "running the baseline only\n");

    uint64_t t0 = ev_now_ns();
    size_t n = json_array_size(data);
    if (R.o.limit && R.o.limit < n)
        n = R.o.limit;
    rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = run_conversation(&R, json_array_get(data, i), i);
    double wall = ev_ms_since(t0) / 1000;

    if (rc == 0) {
        fprintf(R.out, "LoCoMo %s: %zu conversations, %zu questions of categories 1-4\n", R.o.input,
                R.conversations, R.r.groups.items[0].questions);
        if (R.r.available[EV_MNEMO])
            ev_report_line(&R.r, "mnemo ingest: %zu saves, p50 %.3f ms, p95 %.3f ms, %.2f s in all",
                           R.saves, ev_percentile(&R.save_ms, 0.5), ev_percentile(&R.save_ms, 0.95),
                           ev_sum(&R.save_ms) / 1000);
        ev_report_line(&R.r, "bm25 ingest: %.2f s in all (FTS5 in memory)", R.bm25_build_ms / 1000);
        ev_report_line(&R.r, "wall time %.1f s", wall);
        ev_report_note(&R.r,
                       "skipped: %zu adversarial (category 5), %zu without usable evidence; "
                       "%zu evidence ids dropped (malformed or naming no turn)",
                       R.skipped_adversarial, R.skipped_no_gold, R.dropped_ids);
        ev_report_note(&R.r,
                       "session rankings with fewer than 10 distinct sessions (a miss past "
                       "them): mnemo %zu (its first K turns), bm25 %zu (conversations of "
                       "fewer sessions, or sessions sharing no word with the question)",
                       R.short_sessions[EV_MNEMO], R.short_sessions[EV_BM25]);
        if (R.r.errors)
            ev_report_note(&R.r, "%zu mnemo searches failed (scored as empty)", R.r.errors);
        ev_report_print(&R.r, R.out);
        bool ok = ev_report_target(&R.r, R.out, "all", "turn_recall@10", 0.70);
        ok &= ev_report_target(&R.r, R.out, "1 multi-hop", "turn_recall@10", 0.45);
        json_object_set_new(R.r.extra, "conversations", json_integer((json_int_t)R.conversations));
        json_object_set_new(R.r.extra, "k", json_integer((json_int_t)(R.o.k ? R.o.k : DEFAULT_K)));
        json_object_set_new(R.r.extra, "captions", json_boolean(!R.o.no_captions));
        json_object_set_new(R.r.extra, "wall_s", json_real(wall));
        json_object_set_new(R.r.extra, "mnemo_save_ms",
                            json_pack("{s:f,s:f,s:I}", "p50", ev_percentile(&R.save_ms, 0.5), "p95",
                                      ev_percentile(&R.save_ms, 0.95), "n", (json_int_t)R.saves));
        json_object_set_new(R.r.extra, "target_pass", json_boolean(ok));
        if (R.o.json) {
            json_t *j = ev_report_json(&R.r);
            char *s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(6));
            printf("%s\n", s);
            free(s);
            json_decref(j);
        }
        if (R.o.strict && !ok)
            rc = 1;
    }
    mn_vec_release(&R.save_ms);
    ev_report_release(&R.r);
    json_decref(data);
    return rc;
}
