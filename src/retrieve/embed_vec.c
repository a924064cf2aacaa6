/*
 * embed_vec.c - what every embedder shares: the calls through the vtable,
 * unit length, int8 quantisation and the exact top-k by dot product.
 *
 * The top-k scores every row: n dot products of `stride` int8 lanes, then a
 * bounded heap of the k best. The dot product is written for the compiler
 * to vectorise: contiguous int8 rows padded to a multiple of 16 lanes (no
 * remainder loop), 16 int32 accumulators, restrict pointers. At -O2, GCC
 * 12 on x86-64 (baseline SSE2) turns the 16-lane block into one 16-byte
 * load per operand, a sign extension to int16 (pcmpgtb + punpck{l,h}bw),
 * two pmullw and four paddd into int32 lanes: 16 multiply-adds in about 20
 * instructions, where a plain `for (i < n) s += a[i] * b[i]` loop stays
 * scalar at -O2 (the "very cheap" cost model refuses a loop that needs an
 * epilogue). On x86-64 the scan is also compiled for AVX2
 * (target_clones: the loader picks the variant the CPU runs), where the
 * same source becomes 32-byte vpmovsxbw + vpmullw + vpmovsxwd/vpaddd.
 * int32 cannot overflow: |q| <= 127 per lane, so a lane sums at most
 * 8192 / 16 * 127 * 127 < 2^23.
 */
#include "common.h"
#include <math.h>

#include "retrieve/embed.h"

/* Under ThreadSanitizer the loader's target_clones resolver runs before the
 * sanitizer's runtime is up and crashes the program at load time: those
 * builds keep one version of dot_rows (the hand-written AVX2 one stays). */
#if defined(__SANITIZE_THREAD__)
#define MN_NO_IFUNC 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MN_NO_IFUNC 1
#endif
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
    (!defined(__clang__) || __clang_major__ >= 14)
#ifdef MN_NO_IFUNC
#define MN_TARGET_CLONES
#else
#define MN_TARGET_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#define MN_DOT_AVX2 1
#include <immintrin.h>
#else
#define MN_TARGET_CLONES
#endif

int mn_embedder_embed(mn_embedder *e, float **out, const char *const *texts, size_t n,
                      unsigned flags)
{
    *out = NULL;
    MN_ASSERT_OR(e && e->ops && texts, MN_EINTERNAL);
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        MN_ASSERT_OR(texts[i], MN_EINTERNAL);
    int rc = e->ops->embed(e, out, texts, n, flags);
    if (rc == 0 && (e->dim < 1 || e->dim > MN_EMBED_MAX_DIM || !*out)) {
        free(*out);
        *out = NULL;
        rc = mn_error_set(MN_EINTERNAL, "embedder '%s' returned no vectors", e->model);
    }
    return rc;
}

void mn_embedder_free(mn_embedder *e)
{
    if (e)
        e->ops->free(e);
}

void mn_embed_options_release(mn_embed_options *o)
{
    free(o->provider);
    free(o->url);
    free(o->model);
    free(o->key);
    free(o->query_prefix);
    free(o->document_prefix);
    o->provider = o->url = o->model = o->key = o->query_prefix = o->document_prefix = NULL;
}

void mn_embed_normalize(float *x, size_t dim)
{
    double n = 0;
    for (size_t i = 0; i < dim; i++)
        n += (double)x[i] * x[i];
    if (n > 0 && isfinite(n)) {
        float f = (float)(1 / sqrt(n));
        for (size_t i = 0; i < dim; i++)
            x[i] *= f;
    } else {
        memset(x, 0, dim * sizeof(*x));
    }
}

float mn_embed_quantize(int8_t *out, const float *x, size_t dim)
{
    float max = 0;
    for (size_t i = 0; i < dim; i++)
        if (fabsf(x[i]) > max)
            max = fabsf(x[i]);
    if (!(max > 0) || !isfinite(max)) {
        memset(out, 0, dim);
        return 0;
    }
    float scale = max / 127.0f, inv = 127.0f / max;
    for (size_t i = 0; i < dim; i++) {
        long v = lrintf(x[i] * inv);
        out[i] = (int8_t)(v > 127 ? 127 : v < -127 ? -127 : v);
    }
    return scale;
}

int32_t mn_embed_dot_i8(const int8_t *restrict a, const int8_t *restrict b, size_t dim)
{
    int32_t acc[MN_EMBED_LANES] = {0};
    for (size_t i = 0; i + MN_EMBED_LANES <= dim; i += MN_EMBED_LANES)
        for (size_t j = 0; j < MN_EMBED_LANES; j++)
            acc[j] += (int32_t)a[i + j] * (int32_t)b[i + j];
    int32_t sum = 0;
    for (size_t j = 0; j < MN_EMBED_LANES; j++)
        sum += acc[j];
    return sum;
}

/* Dot products of q with `rows` consecutive rows; the loop the file comment describes. */
MN_TARGET_CLONES
static void dot_rows(int32_t *restrict out, const int8_t *restrict q, const int8_t *restrict data,
                     size_t rows, size_t stride)
{
    for (size_t r = 0; r < rows; r++) {
        const int8_t *restrict b = data + r * stride;
        int32_t acc[MN_EMBED_LANES] = {0};
        for (size_t i = 0; i < stride; i += MN_EMBED_LANES)
            for (size_t j = 0; j < MN_EMBED_LANES; j++)
                acc[j] += (int32_t)q[i + j] * (int32_t)b[i + j];
        int32_t sum = 0;
        for (size_t j = 0; j < MN_EMBED_LANES; j++)
            sum += acc[j];
        out[r] = sum;
    }
}

#ifdef MN_DOT_AVX2
/*
 * The same dot products with AVX2 by hand: 32 lanes per step in four
 * instructions, where the compiler's version above takes about ten per 16
 * (a search over 100,000 memory vectors spent a third of its time here).
 * vpmaddubsw multiplies unsigned by signed bytes and adds pairs into int16:
 * |b| as the unsigned operand (0..128, exact even for -128) and q with b's
 * sign (q is ours: |q| <= 127, so negating it is exact); a pair sums at
 * most 2 * 128 * 127 < 2^15, so the int16 never saturates; vpmaddwd by 1
 * widens to int32. The result equals the portable loop's, bit for bit
 * (integer sums).
 */
__attribute__((target("avx2"))) static void dot_rows_avx2(int32_t *restrict out,
                                                          const int8_t *restrict q,
                                                          const int8_t *restrict data, size_t rows,
                                                          size_t stride)
{
    const __m256i ones = _mm256_set1_epi16(1);
    for (size_t r = 0; r < rows; r++) {
        const int8_t *b = data + r * stride;
        __m256i acc = _mm256_setzero_si256();
        size_t i = 0;
        for (; i + 32 <= stride; i += 32) {
            __m256i qv = _mm256_loadu_si256((const __m256i *)(const void *)(q + i));
            __m256i bv = _mm256_loadu_si256((const __m256i *)(const void *)(b + i));
            __m256i p = _mm256_maddubs_epi16(_mm256_abs_epi8(bv), _mm256_sign_epi8(qv, bv));
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(p, ones));
        }
        __m128i a = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
        if (i < stride) { /* the last 16 lanes (stride is a multiple of 16) */
            __m128i qv = _mm_loadu_si128((const __m128i *)(const void *)(q + i));
            __m128i bv = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
            __m128i p = _mm_maddubs_epi16(_mm_abs_epi8(bv), _mm_sign_epi8(qv, bv));
            a = _mm_add_epi32(a, _mm_madd_epi16(p, _mm_set1_epi16(1)));
        }
        a = _mm_add_epi32(a, _mm_shuffle_epi32(a, _MM_SHUFFLE(1, 0, 3, 2)));
        a = _mm_add_epi32(a, _mm_shuffle_epi32(a, _MM_SHUFFLE(2, 3, 0, 1)));
        out[r] = _mm_cvtsi128_si32(a);
    }
}
#endif

/* a ranks below b: lower score, or the same score and a later row */
static bool worse(const mn_embed_hit *a, const mn_embed_hit *b)
{
    return a->score < b->score || (a->score == b->score && a->index > b->index);
}

/* Min-heap on `worse`: heap[0] is the worst of the k kept. */
static void sift_down(mn_embed_hit *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && worse(&h[l], &h[m]))
            m = l;
        if (r < n && worse(&h[r], &h[m]))
            m = r;
        if (m == i)
            return;
        mn_embed_hit t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static void sift_up(mn_embed_hit *h, size_t i)
{
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!worse(&h[i], &h[p]))
            return;
        mn_embed_hit t = h[i];
        h[i] = h[p];
        h[p] = t;
        i = p;
    }
}

static int by_rank(const void *a, const void *b)
{
    const mn_embed_hit *x = a, *y = b;
    return worse(x, y) ? 1 : worse(y, x) ? -1 : 0;
}

size_t mn_embed_topk(mn_embed_hit *out, size_t k, const int8_t *q, float qscale, const int8_t *data,
                     const float *scales, size_t n, size_t stride)
{
    enum { BLOCK = 256 };
    int32_t dots[BLOCK];
    size_t kept = 0;
    if (k == 0 || n == 0 || stride == 0 || stride % MN_EMBED_LANES != 0)
        return 0;
    void (*dot)(int32_t *restrict, const int8_t *restrict, const int8_t *restrict, size_t, size_t) =
        dot_rows;
#ifdef MN_DOT_AVX2
    if (__builtin_cpu_supports("avx2"))
        dot = dot_rows_avx2;
#endif
    for (size_t start = 0; start < n; start += BLOCK) {
        size_t rows = n - start < BLOCK ? n - start : BLOCK;
        dot(dots, q, data + start * stride, rows, stride);
        for (size_t r = 0; r < rows; r++) {
            mn_embed_hit h = {start + r, qscale * scales[start + r] * (float)dots[r]};
            if (kept < k) {
                out[kept] = h;
                sift_up(out, kept++);
            } else if (worse(&out[0], &h)) {
                out[0] = h;
                sift_down(out, kept, 0);
            }
        }
    }
    qsort(out, kept, sizeof(*out), by_rank);
    return kept;
}
