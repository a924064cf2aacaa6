/*
 * test_neardup.c - near-duplicate fingerprints, band keys, the verdict on a
 * pair and loose clusters (src/text/neardup.h).
 *
 * The labelled set's targets (tests/data/neardup/pairs.jsonl, read through
 * MNEMO_TEST_DATA) are checked here too, so a change that costs precision or
 * recall fails CI; bench/bench_neardup.c prints the full report.
 */
#include "common.h"

#include <jansson.h>

#include "test.h"
#include "text/neardup.h"
#include "util/buf.h"

/* exact simhash minhash[0] minhash[127] band[0] lead key n_terms n_shingles */
#define PINNED \
    "4eb409f0cdba0cc2 4fa8572fd6c5158c 1bad05b3 43ccdac1 bde9680a54a9064c bdb3396eb8e48f38 13 69"

static mn_fingerprint fp_of(const char *s)
{
    mn_fingerprint fp;
    mn_fingerprint_compute(&fp, s, strlen(s));
    return fp;
}

static mn_neardup_verdict judge(const char *a, const char *b)
{
    mn_neardup_verdict v;
    memset(&v, 0, sizeof(v));
    int rc = mn_neardup_judge(&v, a, strlen(a), b, strlen(b), NULL);
    CHECK(rc == 0);
    return v;
}

static bool has_reason(const mn_neardup_verdict *v, const char *prefix)
{
    for (size_t i = 0; i < v->n_reasons; i++)
        if (strncmp(v->reasons[i], prefix, strlen(prefix)) == 0)
            return true;
    return false;
}

static void print_verdict(const char *what, const mn_neardup_verdict *v)
{
    fprintf(stderr, "  %s: %s sim %.2f (jw %.2f jc %.2f)", what, mn_neardup_kind_name(v->kind),
            v->similarity, v->jaccard_words, v->jaccard_chars);
    for (size_t i = 0; i < v->n_reasons; i++)
        fprintf(stderr, "; %s", v->reasons[i]);
    fprintf(stderr, "\n");
}

#define CHECK_KIND(a, b, k)                      \
    do {                                         \
        mn_neardup_verdict v_ = judge((a), (b)); \
        if (v_.kind != (k))                      \
            print_verdict(#a, &v_);              \
        CHECK(v_.kind == (k));                   \
    } while (0)

/* The same text under other spacing and case has the same exact hash. */
static void test_exact_folds_case_and_space(void)
{
    mn_fingerprint a = fp_of("Sessions  expire after\t30 minutes.\n");
    mn_fingerprint b = fp_of("  sessions expire AFTER 30 minutes. ");
    mn_fingerprint c = fp_of("Sessions expire after 31 minutes.");
    CHECK(a.exact == b.exact);
    CHECK(a.exact != c.exact);
    CHECK(a.simhash == b.simhash);
    CHECK(memcmp(a.minhash, b.minhash, sizeof(a.minhash)) == 0);
}

/* Stemming and identifier splitting: inflections and spellings of a name agree. */
static void test_terms_are_stemmed_and_split(void)
{
    mn_fingerprint a = fp_of("Sessions expire when parse_http_header fails");
    mn_fingerprint b = fp_of("session expiring when parseHttpHeader failed");
    CHECK(a.simhash == b.simhash);
    CHECK(mn_fingerprint_jaccard(&a, &b) == 1.0);
    CHECK(a.exact != b.exact);
}

/*
 * Fingerprints are pinned: the same on every run and platform (fixed seeds,
 * xxh3, little-endian band bytes). A change of the rules must bump
 * MN_FINGERPRINT_VERSION and these values together.
 */
static void test_fingerprints_pinned_to_version(void)
{
    CHECK(MN_FINGERPRINT_VERSION == 1);
    mn_fingerprint fp = fp_of("The cache key must include the locale, or users see pages in "
                              "another language (see CartService.render).");
    uint64_t bands[MN_LSH_KEYS];
    mn_fingerprint_bands(bands, &fp);
    char got[256];
    snprintf(got, sizeof(got), "%016llx %016llx %08x %08x %016llx %016llx %u %u",
             (unsigned long long)fp.exact, (unsigned long long)fp.simhash, fp.minhash[0],
             fp.minhash[MN_MINHASH_N - 1], (unsigned long long)bands[0],
             (unsigned long long)bands[MN_LSH_BANDS], fp.n_terms, fp.n_shingles);
    fprintf(stderr, "pinned: %s\n", got);
    CHECK_STR(got, PINNED);
}

/* Reworded duplicates of one statement are found. */
static void test_reworded_duplicates(void)
{
    CHECK_KIND(
        "Sessions expire after 30 minutes of inactivity; refresh the token on each request.",
        "Session tokens expire after 30 minutes of inactivity, so refresh the token on every "
        "request.",
        MN_NEARDUP_DUPLICATE);
    CHECK_KIND("[8.2.x] unittest: fix assertion errors on unittest reruns (#12438)",
               "unittest: fix assertion errors on unittest reruns", MN_NEARDUP_DUPLICATE);
    CHECK_KIND("The test suite needs Docker running for the integration tests",
               "the integration tests of the test suite need docker to be running",
               MN_NEARDUP_DUPLICATE);
    CHECK_KIND("Use parse_http_header to read headers: it handles folded lines.",
               "Headers are read with parseHttpHeader, which handles folded lines.",
               MN_NEARDUP_DUPLICATE);
}

/* Look-alikes that differ in substance are not merged. */
static void test_lookalikes_not_merged(void)
{
    mn_neardup_verdict v;
    v = judge("Sessions expire after 60 minutes of inactivity.",
              "Sessions expire after 30 minutes of inactivity.");
    CHECK(v.kind == MN_NEARDUP_CONFLICTING);
    CHECK(has_reason(&v, "changed number: 30 -> 60"));

    v = judge("Requires requests 2.32.0 or later", "Requires requests 2.31.0 or later");
    CHECK(v.kind == MN_NEARDUP_CONFLICTING);

    v = judge("The cache is not cleared on deploy.", "The cache is cleared on deploy.");
    CHECK(v.kind == MN_NEARDUP_CONFLICTING);
    CHECK(has_reason(&v, "negation"));

    v = judge("The worker doesn't retry failed jobs.", "The worker retries failed jobs.");
    CHECK(v.kind == MN_NEARDUP_CONFLICTING);

    v = judge("Use Redis instead of Memcached for the session cache.",
              "Use Memcached instead of Redis for the session cache.");
    CHECK(v.kind == MN_NEARDUP_CONFLICTING);
    CHECK(has_reason(&v, "swapped alternative"));

    v = judge("Revert \"Cache compiled templates in memory\"",
              "Cache compiled templates in memory");
    CHECK(v.kind == MN_NEARDUP_CONFLICTING);
    CHECK(v.newer == MN_NEWER_A);
    /* a revert of a revert is the change again */
    CHECK_KIND("Revert \"Revert \"Cache compiled templates in memory\"\"",
               "Cache compiled templates in memory", MN_NEARDUP_DUPLICATE);

    v = judge("Fix typo in the docstring of testing/python/fixtures.py",
              "Fix typo in the docstring of testing/python/collect.py");
    CHECK(v.kind == MN_NEARDUP_DISTINCT);
    CHECK(has_reason(&v, "different subject"));

    v = judge("Request timeouts are 30 seconds", "Request timeouts are 30 minutes");
    CHECK(v.kind == MN_NEARDUP_CONFLICTING);

    v = judge("Bump actions/checkout from 3 to 4", "Bump actions/checkout from 4 to 5");
    CHECK(v.kind == MN_NEARDUP_CONFLICTING);
}

/* The words say which side is newer. */
static void test_newer_side(void)
{
    mn_neardup_verdict v;
    v = judge("The API no longer accepts API keys in the query string.",
              "The API accepts API keys in the query string.");
    CHECK(v.kind == MN_NEARDUP_CONFLICTING);
    CHECK(v.newer == MN_NEWER_A);
    v = judge("We deploy the servers with Ansible.",
              "We switched to Terraform instead of Ansible to deploy the servers.");
    CHECK(v.kind == MN_NEARDUP_CONFLICTING);
    CHECK(v.newer == MN_NEWER_B);
    v = judge("Sessions expire after 60 minutes.", "Sessions expire after 30 minutes.");
    CHECK(v.newer == MN_NEWER_UNKNOWN);
}

/* Negations and numbers work in Russian and French too. */
static void test_other_languages(void)
{
    CHECK_KIND("Кэш не сбрасывается после деплоя сервиса", "Кэш сбрасывается после деплоя сервиса",
               MN_NEARDUP_CONFLICTING);
    CHECK_KIND("Кэш сбрасывается после деплоя сервиса", "кэш сбрасывается после деплоя сервиса!",
               MN_NEARDUP_DUPLICATE);
    CHECK_KIND("Le cache n'est pas vidé après le déploiement",
               "Le cache est vidé après le déploiement", MN_NEARDUP_CONFLICTING);
    CHECK_KIND("Le délai d'expiration est de 30 secondes",
               "Le délai d'expiration est de 60 secondes", MN_NEARDUP_CONFLICTING);
    /* "now we use PostgreSQL instead of MySQL" supersedes "we use MySQL" */
    mn_neardup_verdict v = judge("Теперь мы используем PostgreSQL вместо MySQL для хранения данных",
                                 "Мы используем MySQL для хранения данных");
    CHECK(v.kind == MN_NEARDUP_CONFLICTING);
    CHECK(v.newer == MN_NEWER_A);
    /* "ne ... plus" (no longer): b is the newer */
    v = judge("Le cache est vidé après le déploiement",
              "Le cache n'est plus vidé après le déploiement");
    CHECK(v.kind == MN_NEARDUP_CONFLICTING);
    CHECK(v.newer == MN_NEWER_B);
}

/*
 * A short text inside a long one (a backport's subject, and the original
 * commit's subject with its description) shares few shingles, but its lead
 * key finds it, and the verdict merges it; a "not" in the description does
 * not make it a conflict.
 */
static void test_contained_text_found_by_lead_key(void)
{
    const char *small = "[8.2.x] unittest: fix assertion errors on unittest reruns (#12438)";
    const char *big = "unittest: fix assertion errors on unittest reruns\n\n"
                      "Plugins that rerun failed tests hit an AttributeError because the cached "
                      "instance property was set to None instead of being deleted, so it was "
                      "not initialized again. Deleting it is the correct way to clear it.\n\n"
                      "Regressed in 8.2.2.";
    mn_fingerprint fs = fp_of(small), fb = fp_of(big);
    uint64_t ks[MN_LSH_KEYS], kb[MN_LSH_KEYS];
    mn_fingerprint_bands(ks, &fs);
    mn_fingerprint_bands(kb, &fb);
    CHECK(ks[MN_LSH_BANDS] == kb[MN_LSH_BANDS]);
    CHECK(mn_fingerprint_jaccard(&fs, &fb) < 0.3);
    mn_neardup_verdict v = judge(small, big);
    if (v.kind != MN_NEARDUP_DUPLICATE)
        print_verdict("contained", &v);
    CHECK(v.kind == MN_NEARDUP_DUPLICATE);
    CHECK(has_reason(&v, "contained"));
    /* a revert of it is not contained: the revert word is in the sentence that says the same */
    v = judge("Revert \"unittest: fix assertion errors on unittest reruns\"\n\nThis reverts commit "
              "de47b73520fd9b7e41272701d7fd4663357af046. It broke the rerun of skipped tests on "
              "Python 3.8 and needs another approach.",
              "unittest: fix assertion errors on unittest reruns");
    CHECK(v.kind == MN_NEARDUP_CONFLICTING);
    CHECK(v.newer == MN_NEWER_A);
    /* two-word texts do not share a lead key with every text starting with the same words */
    mn_fingerprint t1 = fp_of("Fix typo"),
                   t2 = fp_of("Fix typo in the contributing guide of the docs");
    CHECK(t1.lead != t2.lead);
}

/* Unrelated texts are distinct, and nothing breaks on empty or odd input. */
static void test_distinct_and_edges(void)
{
    CHECK_KIND("The cart service caches prices for five minutes",
               "Run the migrations before starting the worker", MN_NEARDUP_DISTINCT);
    mn_fingerprint e = fp_of("");
    CHECK(e.n_terms == 0);
    mn_fingerprint s = fp_of("the of and");
    CHECK(s.n_terms == 0);
    mn_fingerprint t = fp_of("cache");
    CHECK(mn_fingerprint_jaccard(&e, &t) == 0.0);
    uint64_t be[MN_LSH_KEYS], bs[MN_LSH_KEYS];
    mn_fingerprint_bands(be, &e);
    mn_fingerprint_bands(bs, &t);
    for (size_t i = 0; i < MN_LSH_KEYS; i++)
        CHECK(be[i] != bs[i]);
    mn_fingerprint bad = fp_of("caf\xc3 \xff\xfe cache");
    CHECK(bad.n_terms >= 1);
    mn_neardup_verdict v;
    CHECK(mn_neardup_judge(&v, "", 0, "", 0, NULL) == 0);
    CHECK(mn_neardup_judge(NULL, "a", 1, "b", 1, NULL) == MN_EINVAL);
    CHECK(mn_fingerprint_compute(NULL, "a", 1) == MN_EINVAL);
    mn_neardup_opts old = MN_NEARDUP_OPTS_INIT;
    old.version = 99;
    CHECK(mn_neardup_judge(&v, "a", 1, "b", 1, &old) == MN_EINVAL);
}

/* ---- band keys against the Jaccard estimate ---- */

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A pronounceable made-up word (letters only, so the tokenizer keeps it one term). */
static void put_word(char *out, size_t cap, uint64_t id)
{
    static const char *const syl[] = {"ka", "lo", "mi",  "nu",  "pe",  "ra",  "si",  "tu",
                                      "vo", "ze", "bri", "dan", "fel", "gor", "hux", "jam"};
    size_t n = 0;
    for (int k = 0; k < 3; k++) {
        const char *x = syl[(id >> (4 * k)) & 15];
        size_t l = strlen(x);
        if (n + l + 1 < cap) {
            memcpy(out + n, x, l);
            n += l;
        }
    }
    out[n] = '\0';
}

static void make_text(char *out, size_t cap, const uint64_t *ids, size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char w[16];
        put_word(w, sizeof(w), ids[i]);
        len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? " " : "", w);
        if (len >= cap)
            break;
    }
}

/*
 * Pairs of texts at many similarities: the MinHash estimate follows the
 * exact Jaccard of the shingle sets, two fingerprints share a band key
 * exactly when some band's rows are all equal, and the share of pairs that
 * do follows P(J) = 1 - (1 - J^4)^32.
 */
static void test_bands_consistent_with_jaccard(void)
{
    uint64_t seed = 42;
    double abs_err = 0, max_err = 0;
    double expect_mid = 0, seen_mid = 0;
    int n_mid = 0, pairs = 0;
    for (int p = 0; p < 400; p++) {
        uint64_t ids[40], ids2[40];
        for (size_t i = 0; i < 40; i++)
            ids[i] = ids2[i] = rng(&seed) & 0xfff;
        int changes = (int)(rng(&seed) % 24);
        for (int c = 0; c < changes; c++)
            ids2[rng(&seed) % 40] = rng(&seed) & 0xfff;
        char ta[512], tb[512];
        make_text(ta, sizeof(ta), ids, 40);
        make_text(tb, sizeof(tb), ids2, 40);
        mn_fingerprint fa = fp_of(ta), fb = fp_of(tb);
        mn_neardup_verdict v = judge(ta, tb);
        double exact = v.jaccard_chars, est = mn_fingerprint_jaccard(&fa, &fb);
        double err = est > exact ? est - exact : exact - est;
        abs_err += err;
        if (err > max_err)
            max_err = err;
        uint64_t ka[MN_LSH_KEYS], kb[MN_LSH_KEYS];
        mn_fingerprint_bands(ka, &fa);
        mn_fingerprint_bands(kb, &fb);
        bool share = false, rows_equal = false;
        for (size_t b = 0; b < MN_LSH_BANDS; b++) {
            share |= ka[b] == kb[b];
            rows_equal |= memcmp(&fa.minhash[b * MN_LSH_ROWS], &fb.minhash[b * MN_LSH_ROWS],
                                 MN_LSH_ROWS * sizeof(uint32_t)) == 0;
        }
        CHECK(share == rows_equal);
        if (v.kind != MN_NEARDUP_DUPLICATE || exact < 1.0) { /* exact 1.0 only when texts agree */
            if (exact >= 0.3 && exact < 0.6) {
                expect_mid += mn_lsh_probability(exact);
                seen_mid += share;
                n_mid++;
            }
        }
        pairs++;
    }
    abs_err /= pairs;
    fprintf(stderr,
            "minhash: mean |error| %.3f, max %.3f; P(share) at J in [0.3,0.6): %.2f seen, "
            "%.2f expected over %d pairs\n",
            abs_err, max_err, seen_mid / n_mid, expect_mid / n_mid, n_mid);
    CHECK(abs_err < 0.04);
    CHECK(max_err < 0.2);
    REQUIRE(n_mid >= 40);
    double diff = seen_mid / n_mid - expect_mid / n_mid;
    CHECK(diff < 0.12 && diff > -0.12);
    CHECK(mn_lsh_probability(0.0) == 0.0 && mn_lsh_probability(1.0) == 1.0);
    CHECK(mn_lsh_probability(0.2) < 0.1 && mn_lsh_probability(0.7) > 0.99);
}

/*
 * Long texts (200 KB, tens of thousands of words and identifiers) are judged
 * like short ones. Not a timing test, but it shows a step quadratic in the
 * words: with the identifier comparison that scanned the other text for
 * each identifier, this test took 26 s instead of 1.5 s.
 */
static void test_long_texts(void)
{
    mn_buf a = MN_BUF_INIT, b = MN_BUF_INIT;
    uint64_t seed = 7;
    for (int i = 0; a.len < 200000; i++) {
        char w[16];
        put_word(w, sizeof(w), rng(&seed) & 0xfff);
        mn_buf_printf(&a, "%s%s_%d%s", w, i % 5 ? "" : " module", i, i % 9 ? " " : ". ");
    }
    mn_buf_put(&b, a.ptr, a.len);
    mn_buf_puts(&b, " One more sentence at the end.");
    mn_neardup_verdict v = judge(a.ptr, b.ptr);
    CHECK(v.kind == MN_NEARDUP_DUPLICATE);
    mn_fingerprint fa = fp_of(a.ptr), fb = fp_of(b.ptr);
    CHECK(mn_fingerprint_jaccard(&fa, &fb) > 0.9);
    mn_buf_release(&a);
    mn_buf_release(&b);
}

/* ---- clusters ---- */

static void test_cluster_groups_similar_episodes(void)
{
    const char *texts[] = {
        /* 0-2: one gotcha told three times */
        "Flaky test_login: the session fixture leaks the auth cookie between tests; clear the "
        "cookie jar in teardown.",
        "test_login fails now and then because the session fixture leaks the auth cookie; the "
        "teardown must clear the cookie jar.",
        "Intermittent test_login failure: auth cookie leaked by the session fixture between tests, "
        "fixed by clearing the cookie jar in teardown.",
        /* 3: unrelated */
        "The payment webhook retries three times with exponential backoff.",
        /* 4-7: another episode, four times */
        "Migrations fail on SQLite because ALTER TABLE cannot drop a column; recreate the table.",
        "SQLite migration failed: ALTER TABLE cannot drop a column, so the table is recreated.",
        "Dropping a column in a SQLite migration fails (ALTER TABLE cannot do it); recreate the "
        "table instead.",
        "ALTER TABLE in SQLite cannot drop a column: the migration must recreate the table.",
        /* 8-9: a pair only, below min_size */
        "Docker builds are slow because the cache is busted by copying the whole repo first.",
        "Docker build cache is busted by copying the whole repo first, so builds are slow.",
        /* 10: empty of content */
        "the of and",
    };
    size_t n = MN_ARRAY_SIZE(texts);
    mn_fingerprint fps[MN_ARRAY_SIZE(texts)];
    for (size_t i = 0; i < n; i++)
        fps[i] = fp_of(texts[i]);
    size_t labels[MN_ARRAY_SIZE(texts)], k = 99;
    REQUIRE_OK(mn_neardup_cluster(labels, &k, fps, n, 0.3, 12, 3));
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "cluster[%zu] = %zd\n", i,
                labels[i] == MN_CLUSTER_NONE ? -1 : (ssize_t)labels[i]);
    CHECK(k == 2);
    CHECK(labels[0] == 0 && labels[1] == 0 && labels[2] == 0);
    CHECK(labels[3] == MN_CLUSTER_NONE);
    CHECK(labels[4] == 1 && labels[5] == 1 && labels[6] == 1 && labels[7] == 1);
    CHECK(labels[8] == MN_CLUSTER_NONE && labels[9] == MN_CLUSTER_NONE);
    CHECK(labels[10] == MN_CLUSTER_NONE);
    /* with min_size 2 the pair is a cluster too */
    REQUIRE_OK(mn_neardup_cluster(labels, &k, fps, n, 0.3, 12, 2));
    CHECK(k == 3);
    CHECK(labels[8] == 2 && labels[9] == 2);
    /* nothing in, nothing out */
    CHECK(mn_neardup_cluster(NULL, &k, NULL, 0, 0.3, 12, 3) == 0 && k == 0);
    CHECK(mn_neardup_cluster(NULL, &k, fps, 3, 0.3, 12, 3) == MN_EINVAL);
}

/* ---- the labelled set ---- */

/*
 * tests/data/neardup/pairs.jsonl still meets the targets with the default
 * thresholds, so that a change that costs precision fails CI:
 *  - precision of "duplicate" over the whole set >= 0.95 (a wrong merge
 *    loses a memory; every look-alike, revert, bump and same-topic pair
 *    counts here);
 *  - recall of "duplicate" >= 0.8 over the near-duplicates: the light
 *    rewordings (hand-reword*) and the backport and cherry-pick forms
 *    (pattern-backport). The free paraphrases (hand-paraphrase*) say the
 *    same thing in other words; fingerprints do not reach them (their recall
 *    is printed, and docs/internals/neardup.md says why);
 *  - the look-alikes whose conclusion differs are mostly seen as such:
 *    >= 0.7 of the gold conflicting pairs are judged conflicting (the store
 *    links them and sends them to review).
 * bench/bench_neardup prints the full report.
 */
static void test_labelled_set_meets_targets(void)
{
    const char *dir = getenv("MNEMO_TEST_DATA");
    REQUIRE(dir != NULL);
    char path[4096];
    snprintf(path, sizeof(path), "%s/neardup/pairs.jsonl", dir);
    FILE *f = fopen(path, "r");
    REQUIRE(f != NULL);
    char *line = NULL;
    size_t cap = 0, n = 0, tp = 0, fp = 0, near_gold = 0, near_tp = 0, free_gold = 0, free_tp = 0,
           conf_gold = 0, conf_found = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
        json_error_t err;
        json_t *o = json_loadb(line, (size_t)len, 0, &err);
        const char *a = json_string_value(json_object_get(o, "a"));
        const char *b = json_string_value(json_object_get(o, "b"));
        const char *label = json_string_value(json_object_get(o, "label"));
        const char *source = json_string_value(json_object_get(o, "source"));
        CHECK(a && b && label && source);
        if (!a || !b || !label || !source) {
            json_decref(o);
            continue;
        }
        mn_neardup_verdict v = judge(a, b);
        bool gold_dup = strcmp(label, "duplicate") == 0;
        bool dup = v.kind == MN_NEARDUP_DUPLICATE;
        tp += gold_dup && dup;
        fp += !gold_dup && dup;
        if (gold_dup &&
            (strncmp(source, "hand-reword", 11) == 0 || strcmp(source, "pattern-backport") == 0)) {
            near_gold++;
            near_tp += dup;
        } else if (gold_dup) {
            free_gold++;
            free_tp += dup;
        }
        if (strcmp(label, "conflicting") == 0) {
            conf_gold++;
            conf_found += v.kind == MN_NEARDUP_CONFLICTING;
        }
        n++;
        json_decref(o);
    }
    free(line);
    fclose(f);
    double precision = tp + fp ? (double)tp / (double)(tp + fp) : 0;
    double near_recall = near_gold ? (double)near_tp / (double)near_gold : 0;
    fprintf(stderr,
            "labelled set: %zu pairs; precision %.3f; recall %.3f on %zu near-duplicates, %.3f on "
            "%zu free paraphrases; conflicting found %zu/%zu\n",
            n, precision, near_recall, near_gold,
            free_gold ? (double)free_tp / (double)free_gold : 0, free_gold, conf_found, conf_gold);
    CHECK(n >= 400);
    CHECK(near_gold >= 150);
    CHECK(precision >= 0.95);
    CHECK(near_recall >= 0.8);
    CHECK(conf_gold > 0 && (double)conf_found >= 0.7 * (double)conf_gold);
}

MN_TEST_MAIN(MN_TEST(test_exact_folds_case_and_space), MN_TEST(test_terms_are_stemmed_and_split),
             MN_TEST(test_fingerprints_pinned_to_version), MN_TEST(test_reworded_duplicates),
             MN_TEST(test_lookalikes_not_merged), MN_TEST(test_newer_side),
             MN_TEST(test_other_languages), MN_TEST(test_distinct_and_edges),
             MN_TEST(test_bands_consistent_with_jaccard),
             MN_TEST(test_cluster_groups_similar_episodes),
             MN_TEST(test_labelled_set_meets_targets),
             MN_TEST(test_contained_text_found_by_lead_key), MN_TEST(test_long_texts))
