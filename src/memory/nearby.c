/*
 * nearby.c - the near-duplicate step of the save pipeline: what the store
 * already holds that says the same as a new memory, or nearly the same
 * with another conclusion (memory_internal.h: mn_memory__nearby).
 *
 * Candidates are the memories sharing an LSH key with the new text
 * (store.h: mn_store_memory_neighbours, the best NEIGHBOURS by estimated
 * Jaccard), of the same kind, live (not forgotten) and current (active or
 * pending: archived, superseded and quarantined ones are history or under
 * review; archived ones are judged too, and kept apart: review.c keeps a
 * save from repeating what a reviewer rejected). Each one from the most
 * similar down, while its estimated Jaccard is at least JACCARD_MIN, is
 * read whole and judged
 * (text/neardup.h: mn_neardup_judge, thresholds in
 * docs/internals/neardup.md); the first that is not distinct decides.
 * Episodes are events, not statements: two alike are two events, never
 * merged (consolidation is where episodes meet).
 *
 * Facts the git ingest extracted (provenance source git, extraction_method
 * auto) are not judged against each other, only against every other
 * memory: the ingest orders its own facts itself (one key per fact, and a
 * later fact about the same dependency, runtime, matrix or decision says
 * in its save that it supersedes the earlier one: ingest/save.c), and its
 * templated wording ("Added dependency idna>=2.5" / "Added dependency
 * chardet>=5", "Moved class Timeout" / "Moved class RequestException")
 * reads to the verdict as one subject with a changed number or the same
 * fact said again. On psf/requests' history (788 candidates) judging them
 * against each other linked 348 as conflicts (sent to review with the
 * other side) and merged 98 into facts about other things; 96 of the 259
 * auto-approved facts stayed active, against 178 of 279 without it
 * (docs/internals/ingest.md).
 */
#include "common.h"

#include "memory/memory_internal.h"

#define NEIGHBOURS  8    /* judged at most, the most similar first */
#define JACCARD_MIN 0.10 /* below it no verdict is asked (docs/internals/neardup.md) */

typedef struct {
    mn_nearby *out;
    mn_store *s;
    bool git_fact; /* the new memory is a fact the git ingest extracted */
    const char *kind;
    const char *raw; /* the new memory's text */
    size_t len;
    mn_neardup_text *text; /* raw, read once for every verdict, on the first */
    int rc;
    size_t archived_judged; /* at most MN_NEARBY_ARCHIVED verdicts on archived ones: the nearest */
} near_state;

static void text_of(mn_buf *b, const mn_memory_neighbour *n)
{
    const char *parts[] = {n->title, n->body, n->situation, n->solution, n->what_failed};
    for (size_t i = 0; i < MN_ARRAY_SIZE(parts); i++)
        if (parts[i] && *parts[i])
            mn_buf_printf(b, "%s%s", b->len ? "\n" : "", parts[i]);
}

/* The verdict on the new memory against neighbour n. */
static int judge(near_state *st, const mn_memory_neighbour *n, mn_neardup_verdict *v)
{
    int rc = st->text ? 0 : mn_neardup_text_new(&st->text, st->raw, st->len);
    mn_buf other = MN_BUF_INIT;
    text_of(&other, n);
    if (rc == 0)
        rc = mn_neardup_judge_text(v, st->text, other.ptr, other.len, NULL);
    mn_buf_release(&other);
    return rc;
}

static bool is_git_fact(const json_t *mem)
{
    const json_t *prov = json_object_get(mem, "provenance");
    const char *source = json_string_value(json_object_get(prov, "source"));
    const char *method = json_string_value(json_object_get(prov, "extraction_method"));
    return source && method && !strcmp(source, "git") && !strcmp(method, "auto");
}

/* Whether the verdict on n stands: not when both are facts of the git ingest. */
static int verdict_stands(near_state *st, const mn_memory_neighbour *n, bool *stands)
{
    *stands = true;
    if (!st->git_fact)
        return 0;
    json_t *m = NULL;
    int rc = mn_store_memory_get(st->s, &m, n->uid);
    if (rc == 0)
        *stands = !is_git_fact(m);
    json_decref(m);
    return rc;
}

/*
 * An archived memory of its kind that the new one repeats: kept in
 * out->archived, so that review.c can keep what a reviewer rejected from
 * being proposed again (merged into, it would stay archived and unseen).
 */
static int judge_archived(near_state *st, const mn_memory_neighbour *n)
{
    mn_nearby *o = st->out;
    if (n->jaccard < JACCARD_MIN || st->archived_judged >= MN_NEARBY_ARCHIVED)
        return 0;
    st->archived_judged++;
    mn_neardup_verdict v;
    int rc = judge(st, n, &v);
    bool stands = true;
    if (rc == 0 && v.kind == MN_NEARDUP_DUPLICATE)
        rc = verdict_stands(st, n, &stands);
    if (rc == 0 && v.kind == MN_NEARDUP_DUPLICATE && stands)
        snprintf(o->archived[o->n_archived++], MN_ID_LEN + 1, "%s", n->uid);
    return rc;
}

static int judge_one(void *payload, const mn_memory_neighbour *n)
{
    near_state *st = payload;
    if (n->deleted || strcmp(n->kind, st->kind) != 0)
        return 0;
    if (!strcmp(n->status, "archived"))
        return judge_archived(st, n);
    if (strcmp(n->status, "active") && strcmp(n->status, "pending"))
        return 0;
    if (n->jaccard > st->out->nearest)
        st->out->nearest = n->jaccard;
    if (n->jaccard < JACCARD_MIN || st->out->kind != MN_NEARDUP_DISTINCT)
        return 0;
    mn_neardup_verdict v;
    int rc = judge(st, n, &v);
    if (rc)
        return rc;
    if (v.kind == MN_NEARDUP_DISTINCT)
        return 0;
    bool stands = true;
    if ((rc = verdict_stands(st, n, &stands)) != 0 || !stands)
        return rc;
    st->out->kind = v.kind;
    st->out->newer = v.newer;
    st->out->similarity = v.similarity;
    snprintf(st->out->id, sizeof(st->out->id), "%s", n->uid);
    st->out->reasons = json_array();
    for (size_t i = 0; i < v.n_reasons; i++)
        json_array_append_new(st->out->reasons, json_string(v.reasons[i]));
    return 0;
}

int mn_memory__nearby(mn_nearby *out, mn_store *s, const json_t *mem)
{
    memset(out, 0, sizeof(*out));
    const char *kind = json_string_value(json_object_get(mem, "kind"));
    if (!kind || !strcmp(kind, "episode"))
        return 0;
    mn_buf text = MN_BUF_INIT;
    mn_memory_fingerprint_text(&text, mem);
    mn_fingerprint fp;
    near_state st = {out, s, is_git_fact(mem), kind, text.ptr, text.len, NULL, 0, 0};
    int rc = mn_fingerprint_compute(&fp, text.ptr, text.len);
    if (rc == 0)
        rc = mn_store_memory_neighbours(s, &fp, NEIGHBOURS, judge_one, &st);
    mn_neardup_text_free(st.text);
    mn_buf_release(&text);
    if (rc)
        mn_memory__nearby_release(out);
    return rc;
}

void mn_memory__nearby_release(mn_nearby *n)
{
    json_decref(n->reasons);
    n->reasons = NULL;
}
