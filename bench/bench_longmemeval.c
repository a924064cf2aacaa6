/*
 * bench_longmemeval.c - long-term chat memory on LongMemEval_S (cleaned;
 * xiaowu0162/LongMemEval; ../shared/eval/README.md): session- and
 * turn-level retrieval of mnemo's search against a plain BM25, in the same
 * run, with the official protocol of src/retrieval (run_retrieval.py,
 * eval_utils.py) except where noted.
 *
 * Protocol. Questions whose id ends in "_abs" are skipped. Per question,
 * the corpus is the user turns of its haystack sessions; a turn's id is
 * "<session_id>_<i>" with i its 1-based position in the session counting
 * every turn, user and assistant (as run_retrieval.py: i_turn + 1 over the
 * whole session); it only names turns in --verbose output.
 *  - mnemo: a fresh store per question; each user turn saved by op "save"
 *    as {kind episode, body: content, context.situation: the session's
 *    date, provenance.source import} (memory.dedup off; a body over the
 *    schema's 100,000 characters is cut at a UTF-8 boundary, counted); op
 *    "search" {query: question, kinds: ["memory"], k: K} (K = 50, --k).
 *  - bm25 turns: FTS5 unicode61 over the turns' content, top K; bm25
 *    sessions: over session documents (the session's user turns joined by
 *    a space, the official session granularity), top 10.
 * Gold: sessions = answer_session_ids; turns = user turns with
 * has_answer true. Deviation: the official code scores a question with no
 * gold item (single-session-assistant questions, whose evidence is an
 * assistant turn; a session of answer_session_ids with no has_answer user
 * turn) as recall_all 1, recall_any 0, ndcg 0; here such a question is left
 * out of that level's means (the n of each cell says how many count), and
 * its sessions stay gold at session level as the README's protocol says.
 * Metrics for k = 5, 10 (eval/eval_common.c): recall_any@k, recall_all@k,
 * ndcg_any@k with LongMemEval's discount (positions 1 and 2 weigh 1,
 * position i weighs 1/log2 i). Session level for mnemo (and the extra
 * "bm25 turns->sessions" line) ranks the distinct sessions of the turn
 * ranking in order: the same top-k sessions as the official
 * evaluate_retrieval_turn2session (which widens k until k distinct
 * sessions), with NDCG over distinct sessions rather than over turns.
 * Latency: the search call (mnemo), tokenizing + the FTS5 query on turns
 * (bm25). Tokens: bytes/4 of the first 10 turns returned.
 *
 * Usage: bench_longmemeval [LONGMEMEVAL_JSON] [--limit N] [--k K]
 *                          [--only-baseline] [--verbose] [--json] [--strict] [--keep]
 * Without a path (nor $MNEMO_BENCH_LONGMEMEVAL) it prints that it skipped
 * and exits 0. Exit status: 0; 1 with --strict when a target fails; 2 on
 * bad input or setup errors.
 */
#include "common.h"

#include "eval/eval.h"
#include "util/map.h"
#include "util/util.h"

#define PROG      "bench_longmemeval"
#define DEFAULT_K 50
#define MAX_K     200
#define TOKENS_K  10
#define MAX_BODY  100000

static const char usage[] =
    "usage: bench_longmemeval [LONGMEMEVAL_JSON] [options]\n"
    "       (e.g. ../shared/eval/longmemeval/longmemeval_s_dev.json)\n"
    "  --limit N        only the first N questions\n"
    "  --k K            items asked of each search (default 50)\n"
    "  --only-baseline  run the BM25 baseline only\n"
    "  --verbose        print the questions with a gold turn missed at 10, or a gold\n"
    "                   session at 5 (stderr)\n"
    "  --json           a JSON summary on stdout (the table goes to stderr)\n"
    "  --strict         exit 1 when a target of the issue is missed\n"
    "  --keep           keep the temporary stores\n"
    "$MNEMO_BENCH_LONGMEMEVAL is the default path.\n";

static const char *const metrics[] = {
    "sess_recall_any@5",  "sess_recall_all@5",  "sess_ndcg_any@5",    "sess_recall_any@10",
    "sess_recall_all@10", "sess_ndcg_any@10",   "turn_recall_any@5",  "turn_recall_all@5",
    "turn_ndcg_any@5",    "turn_recall_any@10", "turn_recall_all@10", "turn_ndcg_any@10",
};
static const size_t ks[] = {5, 10};

typedef struct {
    int64_t session; /* index in haystack_sessions */
    size_t position; /* 1-based, counting every turn of the session */
    const char *content;
} turn;

typedef struct {
    ev_options o;
    ev_report r;
    FILE *out;
    size_t skipped_abs, no_turn_gold, missing_sessions, cut_bodies, saves, questions;
    ev_samples save_ms;
    /* bm25 scored as mnemo is at session level: [k index][any, all, ndcg] */
    double t2s_sum[2][3];
    size_t t2s_n;
} run;

static const char *type_label(const char *t)
{
    static const struct {
        const char *type, *label;
    } labels[] = {
        {"multi-session", "multi-sess"},          {"temporal-reasoning", "temporal"},
        {"knowledge-update", "know-update"},      {"single-session-user", "ss-user"},
        {"single-session-preference", "ss-pref"}, {"single-session-assistant", "ss-assist"}};
    for (size_t i = 0; i < MN_ARRAY_SIZE(labels); i++)
        if (!strcmp(t, labels[i].type))
            return labels[i].label;
    return t;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

/* The three numbers of one level at one k, added to the report under prefix ("sess", "turn"). */
static void add_level(run *R, const char *group, const char *prefix, int sys, const int64_t *rank,
                      size_t n, const int64_t *gold, size_t ngold)
{
    for (size_t ki = 0; ki < MN_ARRAY_SIZE(ks); ki++) {
        size_t k = ks[ki], hits = ev_hits(rank, n, k, gold, ngold);
        char name[64];
        snprintf(name, sizeof(name), "%s_recall_any@%zu", prefix, k);
        ev_report_add(&R->r, group, name, sys, hits > 0);
        snprintf(name, sizeof(name), "%s_recall_all@%zu", prefix, k);
        ev_report_add(&R->r, group, name, sys, hits == ngold);
        snprintf(name, sizeof(name), "%s_ndcg_any@%zu", prefix, k);
        ev_report_add(&R->r, group, name, sys, ev_ndcg(rank, n, k, gold, ngold, EV_DCG_LME));
    }
}

static void print_rank(const char *sys, const int64_t *rank, size_t n, const turn *turns,
                       const json_t *sids)
{
    fprintf(stderr, "    %s top 10:", sys);
    for (size_t i = 0; i < n && i < 10; i++) {
        if (rank[i] < 0)
            fprintf(stderr, " ?");
        else
            fprintf(stderr, " %s_%zu",
                    json_string_value(json_array_get(sids, (size_t)turns[rank[i]].session)),
                    turns[rank[i]].position);
    }
    fputc('\n', stderr);
}

static void print_sessions(const char *what, const int64_t *sess, size_t n, const json_t *sids)
{
    fprintf(stderr, "    %s:", what);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, " %s",
                sess[i] < 0 ? "?" : json_string_value(json_array_get(sids, (size_t)sess[i])));
    fputc('\n', stderr);
}

static int run_question(run *R, const json_t *q, size_t index)
{
    const char *qid = ev_str(q, "question_id"), *question = ev_str(q, "question");
    const char *group = type_label(ev_str(q, "question_type"));
    const json_t *sids = json_object_get(q, "haystack_session_ids");
    const json_t *dates = json_object_get(q, "haystack_dates");
    const json_t *sessions = json_object_get(q, "haystack_sessions");
    const json_t *answers = json_object_get(q, "answer_session_ids");
    MN_VEC(turn) turns = MN_VEC_INIT;
    MN_VEC(int64_t) gold_turns = MN_VEC_INIT, gold_sess = MN_VEC_INIT, turn_sess = MN_VEC_INIT;
    mn_map by_mem = MN_MAP_INIT;
    ev_bm25 *bt = NULL, *bs = NULL;
    ev_store st = {0};
    bool have_store = false;
    size_t K = R->o.k ? R->o.k : DEFAULT_K;
    int rc = 2;
    if (K > MAX_K)
        K = MAX_K;

    if (!*qid || !*question || !json_is_array(sids) || !json_is_array(sessions) ||
        json_array_size(sids) != json_array_size(sessions) || !json_is_array(answers)) {
        fprintf(stderr,
                PROG ": question %zu: needs question_id, question, haystack_session_ids and "
                     "haystack_sessions of the same length, answer_session_ids\n",
                index);
        goto out;
    }
    if (ends_with(qid, "_abs")) {
        R->skipped_abs++;
        rc = 0;
        goto out;
    }

    if (ev_bm25_open(&bt, 1) != 0 || ev_bm25_open(&bs, 1) != 0)
        goto out;
    size_t si;
    json_t *sess;
    json_array_foreach(sessions, si, sess)
    {
        mn_buf doc = MN_BUF_INIT;
        size_t ti;
        json_t *t;
        json_array_foreach(sess, ti, t)
        {
            if (strcmp(ev_str(t, "role"), "user") != 0)
                continue;
            turn tu = {(int64_t)si, ti + 1, ev_str(t, "content")};
            if (json_is_true(json_object_get(t, "has_answer")))
                mn_vec_push(&gold_turns, (int64_t)turns.len);
            const char *cols[] = {tu.content};
            if (ev_bm25_add(bt, (int64_t)turns.len, cols) != 0) {
                mn_buf_release(&doc);
                goto out;
            }
            mn_buf_printf(&doc, "%s%s", doc.len ? " " : "", tu.content);
            mn_vec_push(&turn_sess, (int64_t)si);
            mn_vec_push(&turns, tu);
        }
        const char *cols[] = {doc.ptr};
        int e = ev_bm25_add(bs, (int64_t)si, cols);
        mn_buf_release(&doc);
        if (e)
            goto out;
    }
    /* gold sessions: answer_session_ids, as indexes of the haystack */
    for (size_t a = 0; a < json_array_size(answers); a++) {
        const char *aid = json_string_value(json_array_get(answers, a));
        bool found = false;
        for (size_t i = 0; aid && i < json_array_size(sids) && !found; i++) {
            const char *sid = json_string_value(json_array_get(sids, i));
            if (sid && !strcmp(aid, sid)) {
                found = true;
                mn_vec_push(&gold_sess, (int64_t)i);
            }
        }
        if (!found)
            R->missing_sessions++;
    }

    if (R->r.available[EV_MNEMO]) {
        char *dir = ev_mkdtemp("mnemo-lme");
        if (!dir)
            goto out;
        int e = ev_store_open(&st, dir);
        free(dir);
        have_store = true;
        if (e)
            goto out;
        for (size_t i = 0; i < turns.len; i++) {
            const char *body = turns.items[i].content;
            size_t len = strlen(body);
            char *cut = NULL;
            if (len > MAX_BODY) { /* bytes >= characters: a byte cap is a character cap */
                cut = mn_strndup(body, mn_utf8_floor(body, len, MAX_BODY));
                body = cut;
                R->cut_bodies++;
            }
            const char *date =
                json_string_value(json_array_get(dates, (size_t)turns.items[i].session));
            json_t *args =
                json_pack("{s:s,s:s,s:{s:s},s:{s:s}}", "kind", "episode", "body", body, "context",
                          "situation", date ? date : "", "provenance", "source", "import");
            json_t *res = NULL;
            uint64_t t1 = ev_now_ns();
            e = mn_api_call(st.ctx, "save", args, &res);
            mn_vec_push(&R->save_ms, ev_ms_since(t1));
            json_decref(args);
            free(cut);
            if (e) {
                fprintf(stderr, PROG ": %s: save turn %zu: %s\n", qid, i, mn_error_last());
                goto out;
            }
            if (strcmp(ev_str(res, "action"), "created") != 0)
                ev_report_note(&R->r, "%s: save answered '%s', not 'created'", qid,
                               ev_str(res, "action"));
            mn_map_set(&by_mem, ev_str(res, "id"), (void *)(uintptr_t)(i + 1));
            json_decref(res);
            R->saves++;
        }
        if (R->o.keep)
            fprintf(stderr, PROG ": %s: store kept at %s\n", qid, st.db);
    }

    ev_report_question(&R->r, group);
    int64_t rank[EV_NSYS][MAX_K], srank[MAX_K], sdocs[16];
    size_t nrank[EV_NSYS] = {0, 0}, nsdocs = 0, bytes = 0;

    /* bm25: turns, then session documents */
    uint64_t t0 = ev_now_ns();
    if (ev_bm25_search(bt, question, 0, K, rank[EV_BM25], &nrank[EV_BM25]) != 0)
        goto out;
    mn_vec_push(&R->r.latency[EV_BM25], ev_ms_since(t0));
    for (size_t i = 0; i < nrank[EV_BM25] && i < TOKENS_K; i++)
        bytes += strlen(turns.items[rank[EV_BM25][i]].content);
    mn_vec_push(&R->r.tokens[EV_BM25], (double)ev_tokens(bytes));
    if (ev_bm25_search(bs, question, 0, 10, sdocs, &nsdocs) != 0)
        goto out;
    add_level(R, group, "sess", EV_BM25, sdocs, nsdocs, gold_sess.items, gold_sess.len);
    if (gold_turns.len)
        add_level(R, group, "turn", EV_BM25, rank[EV_BM25], nrank[EV_BM25], gold_turns.items,
                  gold_turns.len);
    if (gold_sess.len) {
        size_t ns =
            ev_rank_map(srank, rank[EV_BM25], nrank[EV_BM25], turn_sess.items, turn_sess.len);
        for (size_t ki = 0; ki < MN_ARRAY_SIZE(ks); ki++) {
            size_t hits = ev_hits(srank, ns, ks[ki], gold_sess.items, gold_sess.len);
            R->t2s_sum[ki][0] += hits > 0;
            R->t2s_sum[ki][1] += hits == gold_sess.len;
            R->t2s_sum[ki][2] +=
                ev_ndcg(srank, ns, ks[ki], gold_sess.items, gold_sess.len, EV_DCG_LME);
        }
        R->t2s_n++;
    }

    if (R->r.available[EV_MNEMO]) {
        json_t *args =
            json_pack("{s:s,s:[s],s:I}", "query", question, "kinds", "memory", "k", (json_int_t)K);
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
        size_t ns =
            ev_rank_map(srank, rank[EV_MNEMO], nrank[EV_MNEMO], turn_sess.items, turn_sess.len);
        add_level(R, group, "sess", EV_MNEMO, srank, ns, gold_sess.items, gold_sess.len);
        if (R->o.verbose && gold_sess.len &&
            ev_hits(srank, ns, 5, gold_sess.items, gold_sess.len) < gold_sess.len) {
            fprintf(stderr, "miss-session %s [%s] %s\n", qid, group, question);
            print_sessions("gold", gold_sess.items, gold_sess.len, sids);
            print_sessions("mnemo top 5", srank, ns < 5 ? ns : 5, sids);
            print_sessions("bm25 top 5", sdocs, nsdocs < 5 ? nsdocs : 5, sids);
        }
        if (gold_turns.len)
            add_level(R, group, "turn", EV_MNEMO, rank[EV_MNEMO], nrank[EV_MNEMO], gold_turns.items,
                      gold_turns.len);
    }
    if (!gold_turns.len)
        R->no_turn_gold++;

    if (R->o.verbose && gold_turns.len) {
        int sys = R->r.available[EV_MNEMO] ? EV_MNEMO : EV_BM25;
        if (ev_hits(rank[sys], nrank[sys], 10, gold_turns.items, gold_turns.len) < gold_turns.len) {
            fprintf(stderr, "miss %s [%s] %s\n    gold:", qid, group, question);
            for (size_t i = 0; i < gold_turns.len; i++) {
                const turn *t = &turns.items[gold_turns.items[i]];
                fprintf(stderr, " %s_%zu",
                        json_string_value(json_array_get(sids, (size_t)t->session)), t->position);
            }
            fputc('\n', stderr);
            if (R->r.available[EV_MNEMO])
                print_rank("mnemo", rank[EV_MNEMO], nrank[EV_MNEMO], turns.items, sids);
            print_rank("bm25", rank[EV_BM25], nrank[EV_BM25], turns.items, sids);
        }
    }
    R->questions++;
    rc = 0;
out:
    if (have_store)
        ev_store_close(&st, !R->o.keep);
    ev_bm25_close(bt);
    ev_bm25_close(bs);
    mn_vec_release(&turns);
    mn_vec_release(&gold_turns);
    mn_vec_release(&gold_sess);
    mn_vec_release(&turn_sess);
    mn_map_release(&by_mem);
    return rc;
}

int main(int argc, char **argv)
{
    run R;
    memset(&R, 0, sizeof(R));
    int rc = ev_parse_args(&R.o, argc, argv, PROG, usage, "MNEMO_BENCH_LONGMEMEVAL");
    if (rc)
        return rc == 1 ? 0 : 2;
    R.out = R.o.json ? stderr : stdout;

    json_t *data = ev_load_json(R.o.input);
    if (!data)
        return 2;
    if (!json_is_array(data) || json_array_size(data) == 0) {
        fprintf(stderr, PROG ": %s: expected a JSON list of questions\n", R.o.input);
        json_decref(data);
        return 2;
    }
    ev_report_init(&R.r, "longmemeval", R.o.input, metrics, MN_ARRAY_SIZE(metrics));
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
        rc = run_question(&R, json_array_get(data, i), i);
    double wall = ev_ms_since(t0) / 1000;

    if (rc == 0) {
        fprintf(R.out, "LongMemEval %s: %zu questions (%zu _abs skipped)\n", R.o.input, R.questions,
                R.skipped_abs);
        if (R.t2s_n) {
            double d = (double)R.t2s_n;
            ev_report_line(&R.r,
                           "bm25 turns->sessions (scored as mnemo): recall_any@5 %.3f "
                           "recall_all@5 %.3f ndcg_any@5 %.3f | recall_any@10 %.3f "
                           "recall_all@10 %.3f ndcg_any@10 %.3f",
                           R.t2s_sum[0][0] / d, R.t2s_sum[0][1] / d, R.t2s_sum[0][2] / d,
                           R.t2s_sum[1][0] / d, R.t2s_sum[1][1] / d, R.t2s_sum[1][2] / d);
            json_object_set_new(R.r.extra, "bm25_turn_to_session",
                                json_pack("{s:f,s:f,s:f,s:f,s:f,s:f}", "recall_any@5",
                                          R.t2s_sum[0][0] / d, "recall_all@5", R.t2s_sum[0][1] / d,
                                          "ndcg_any@5", R.t2s_sum[0][2] / d, "recall_any@10",
                                          R.t2s_sum[1][0] / d, "recall_all@10", R.t2s_sum[1][1] / d,
                                          "ndcg_any@10", R.t2s_sum[1][2] / d));
        }
        if (R.r.available[EV_MNEMO])
            ev_report_line(&R.r, "mnemo ingest: %zu saves, p50 %.3f ms, p95 %.3f ms, %.2f s in all",
                           R.saves, ev_percentile(&R.save_ms, 0.5), ev_percentile(&R.save_ms, 0.95),
                           ev_sum(&R.save_ms) / 1000);
        ev_report_line(&R.r, "wall time %.1f s", wall);
        ev_report_note(&R.r,
                       "%zu questions have no has_answer user turn (left out at turn level); "
                       "%zu answer_session_ids not in the haystack; %zu bodies cut to %d bytes",
                       R.no_turn_gold, R.missing_sessions, R.cut_bodies, MAX_BODY);
        if (R.r.errors)
            ev_report_note(&R.r, "%zu mnemo searches failed (scored as empty)", R.r.errors);
        ev_report_print(&R.r, R.out);
        bool ok = ev_report_target(&R.r, R.out, "all", "sess_recall_all@5", 0.93);
        ok &= ev_report_target(&R.r, R.out, "all", "turn_recall_all@10", 0.85);
        ok &= ev_report_target(&R.r, R.out, "all", "turn_recall_any@10", 0.97);
        json_object_set_new(R.r.extra, "questions", json_integer((json_int_t)R.questions));
        json_object_set_new(R.r.extra, "k", json_integer((json_int_t)(R.o.k ? R.o.k : DEFAULT_K)));
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
