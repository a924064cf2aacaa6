/*
 * test_embed.c - the vector arithmetic every embedder shares (embed.h):
 * unit length, int8 quantisation, the int8 dot product and the exact
 * top-k, checked against plain float arithmetic on random vectors.
 */
#include "common.h"
#include <math.h>

#include "retrieve/embed.h"
#include "test.h"

static uint64_t rng = 0x243f6a8885a308d3ULL;

static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static void random_unit(float *x, size_t dim)
{
    for (size_t i = 0; i < dim; i++)
        x[i] = (float)(uniform() * 2 - 1);
    mn_embed_normalize(x, dim);
}

static void test_normalize(void)
{
    float x[3] = {3, 0, 4};
    mn_embed_normalize(x, 3);
    CHECK(fabsf(x[0] - 0.6f) < 1e-6f && x[1] == 0 && fabsf(x[2] - 0.8f) < 1e-6f);
    float z[4] = {0, 0, 0, 0};
    mn_embed_normalize(z, 4);
    CHECK(z[0] == 0 && z[3] == 0);
    float inf[2] = {INFINITY, 1};
    mn_embed_normalize(inf, 2);
    CHECK(inf[0] == 0 && inf[1] == 0);
    CHECK(mn_embed_padded(1) == 16 && mn_embed_padded(16) == 16 && mn_embed_padded(17) == 32);
}

static void test_quantize(void)
{
    float x[5] = {0.5f, -1.0f, 0.25f, 0, 1.0f / 127};
    int8_t q[5];
    float scale = mn_embed_quantize(q, x, 5);
    CHECK(fabsf(scale - 1.0f / 127) < 1e-7f);
    CHECK(q[0] == 64 && q[1] == -127 && q[2] == 32 && q[3] == 0 && q[4] == 1);
    float zero[3] = {0, 0, 0};
    CHECK(mn_embed_quantize(q, zero, 3) == 0 && q[0] == 0 && q[2] == 0);

    /* the int8 estimate of a cosine stays within 0.01 of the float one from 32 dimensions */
    enum { DIM = 64 };
    float a[DIM], b[DIM];
    int8_t qa[DIM], qb[DIM];
    double worst = 0;
    for (int trial = 0; trial < 200; trial++) {
        random_unit(a, DIM);
        random_unit(b, DIM);
        double exact = 0;
        for (int i = 0; i < DIM; i++)
            exact += (double)a[i] * b[i];
        float sa = mn_embed_quantize(qa, a, DIM), sb = mn_embed_quantize(qb, b, DIM);
        double approx = (double)sa * sb * mn_embed_dot_i8(qa, qb, DIM);
        if (fabs(approx - exact) > worst)
            worst = fabs(approx - exact);
    }
    CHECK(worst < 0.01);
}

static void test_dot(void)
{
    int8_t a[48], b[48];
    int32_t want = 0;
    for (int i = 0; i < 48; i++) {
        a[i] = (int8_t)(i % 2 ? -127 : 127);
        b[i] = (int8_t)(i % 3 ? 127 : -127);
        want += a[i] * b[i];
    }
    CHECK(mn_embed_dot_i8(a, b, 48) == want);
    CHECK(mn_embed_dot_i8(a, a, 48) == 48 * 127 * 127);
}

static void test_topk_matches_brute_force(void)
{
    enum { N = 1000, DIM = 40, STRIDE = 48, K = 25 };
    int8_t *data = calloc(N, STRIDE), q[STRIDE] = {0};
    float *scales = malloc(N * sizeof(float)), x[DIM];
    REQUIRE(data && scales);
    for (size_t r = 0; r < N; r++) {
        random_unit(x, DIM);
        scales[r] = mn_embed_quantize(data + r * STRIDE, x, DIM);
    }
    random_unit(x, DIM);
    float qs = mn_embed_quantize(q, x, DIM);

    mn_embed_hit got[K];
    size_t n = mn_embed_topk(got, K, q, qs, data, scales, N, STRIDE);
    CHECK(n == K);
    /* brute force, the same scores */
    float *all = malloc(N * sizeof(float));
    for (size_t r = 0; r < N; r++) {
        int32_t d = 0;
        for (size_t i = 0; i < STRIDE; i++)
            d += q[i] * data[r * STRIDE + i];
        all[r] = qs * scales[r] * (float)d;
    }
    for (size_t i = 0; i < n; i++) {
        /* exactly i rows beat it, or tie with it at a lower row */
        size_t better = 0;
        for (size_t r = 0; r < N; r++)
            better += all[r] > got[i].score || (all[r] == got[i].score && r < got[i].index);
        CHECK(better == i);
        CHECK(all[got[i].index] == got[i].score);
    }
    free(all);

    /* k larger than n: every row, best first; k = 0: none */
    mn_embed_hit few[10];
    CHECK(mn_embed_topk(few, 10, q, qs, data, scales, 3, STRIDE) == 3);
    CHECK(few[0].score >= few[1].score && few[1].score >= few[2].score);
    CHECK(mn_embed_topk(few, 0, q, qs, data, scales, N, STRIDE) == 0);
    CHECK(mn_embed_topk(few, 10, q, qs, data, scales, 0, STRIDE) == 0);
    CHECK(mn_embed_topk(few, 10, q, qs, data, scales, 3, 40) == 0); /* stride not padded */

    /* ties: lower rows first */
    memset(data, 0, 4 * STRIDE);
    for (size_t r = 0; r < 4; r++) {
        data[r * STRIDE] = 10;
        scales[r] = 1;
    }
    q[0] = 1;
    CHECK(mn_embed_topk(few, 3, q, 1, data, scales, 4, STRIDE) == 3);
    CHECK(few[0].index == 0 && few[1].index == 1 && few[2].index == 2);
    free(data);
    free(scales);
}

/*
 * The scan's dot products are exact at the ends of the int8 range (the
 * AVX2 kernel multiplies |b| by q with b's sign: b = -128 must still count
 * as -128), for strides with and without a 16-lane tail.
 */
static void test_topk_extreme_lanes(void)
{
    enum { N = 64, MAXSTRIDE = 80 };
    static const size_t strides[] = {16, 32, 48, 80};
    int8_t *data = malloc(N * MAXSTRIDE), q[MAXSTRIDE];
    float scales[N];
    uint32_t seed = 12345;
    REQUIRE(data);
    for (size_t s = 0; s < MN_ARRAY_SIZE(strides); s++) {
        size_t stride = strides[s];
        for (size_t i = 0; i < stride; i++)
            q[i] = (int8_t)(i % 3 == 0 ? 127 : i % 3 == 1 ? -127 : (int)(i * 7 % 255) - 127);
        for (size_t r = 0; r < N; r++) {
            scales[r] = 1;
            for (size_t i = 0; i < stride; i++) {
                seed = seed * 1103515245u + 12345u;
                int v = (int)((seed >> 16) % 256) - 128;
                data[r * stride + i] = (int8_t)(r % 4 == 0 ? -128 : r % 4 == 1 ? 127 : v);
            }
        }
        mn_embed_hit got[N];
        CHECK(mn_embed_topk(got, N, q, 1, data, scales, N, stride) == N);
        for (size_t i = 0; i < N; i++) {
            int32_t want = 0;
            for (size_t l = 0; l < stride; l++)
                want += q[l] * data[got[i].index * stride + l];
            CHECK(got[i].score == (float)want);
        }
    }
    free(data);
}

MN_TEST_MAIN(MN_TEST(test_normalize), MN_TEST(test_quantize), MN_TEST(test_dot),
             MN_TEST(test_topk_matches_brute_force), MN_TEST(test_topk_extreme_lanes))
