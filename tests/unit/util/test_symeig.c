/*
 * test_symeig.c - the symmetric eigensolver: on matrices whose spectrum is
 * known by construction (A = V diag(lambda) V^T, V an orthogonal matrix made
 * of random reflections), every computed pair satisfies A v = w v, the
 * vectors are orthonormal and the eigenvalues are the constructed ones; and
 * the shapes that take other paths through the code: 1 x 1 and 2 x 2, a
 * diagonal matrix (nothing to reduce), repeated eigenvalues, a zero matrix,
 * the positive semi-definite Gram matrix the built-in model decomposes, and
 * a matrix given by its lower triangle only.
 */
#include "common.h"
#include <math.h>

#include "test.h"
#include "util/symeig.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static double uniform(void) /* in [-1, 1) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / (double)(1ULL << 52) - 1;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A = V diag(lambda) V^T with V = a product of three random reflections. */
static double *with_spectrum(const double *lambda, size_t n)
{
    double *v = mn_calloc(n * n, sizeof(double)), *a = mn_calloc(n * n, sizeof(double));
    double *h = mn_malloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++)
        v[i * n + i] = 1;
    for (int r = 0; r < 3; r++) {
        double hh = 0;
        for (size_t i = 0; i < n; i++) {
            h[i] = uniform();
            hh += h[i] * h[i];
        }
        for (size_t j = 0; j < n; j++) { /* V = V (I - 2 h h^T / h.h), column by column */
            double s = 0;
            for (size_t i = 0; i < n; i++)
                s += v[j * n + i] * h[i];
            for (size_t i = 0; i < n; i++)
                v[j * n + i] -= 2 * s / hh * h[i];
        }
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            for (size_t k = 0; k < n; k++)
                a[i * n + j] += v[i * n + k] * lambda[k] * v[j * n + k];
    free(v);
    free(h);
    return a;
}

/* The largest |A v - w v| and |V V^T - I| entries, relative to scale. */
static void residuals(const double *a, size_t n, const double *w, const double *vt, double scale,
                      double *pair_err, double *orth_err)
{
    *pair_err = *orth_err = 0;
    for (size_t e = 0; e < n; e++) {
        const double *x = vt + e * n;
        for (size_t i = 0; i < n; i++) {
            double s = 0;
            for (size_t j = 0; j < n; j++)
                s += a[i * n + j] * x[j];
            double r = fabs(s - w[e] * x[i]) / scale;
            *pair_err = r > *pair_err ? r : *pair_err;
        }
        for (size_t f = 0; f < n; f++) {
            double s = 0;
            for (size_t j = 0; j < n; j++)
                s += x[j] * vt[f * n + j];
            double r = fabs(s - (e == f));
            *orth_err = r > *orth_err ? r : *orth_err;
        }
    }
}

/* Decompose a copy of a; check the pairs, the basis and (if given) the spectrum. */
static void check_decomposition(const double *a, size_t n, const double *lambda)
{
    double *work = mn_malloc(n * n * sizeof(double)), *w = mn_malloc(n * sizeof(double)),
           *vt = mn_malloc(n * n * sizeof(double));
    memcpy(work, a, n * n * sizeof(double));
    REQUIRE(mn_symeig(work, n, w, vt) == 0);
    double scale = 1e-300;
    for (size_t i = 0; i < n * n; i++)
        scale = fabs(a[i]) > scale ? fabs(a[i]) : scale;
    double pair_err, orth_err;
    residuals(a, n, w, vt, scale, &pair_err, &orth_err);
    CHECK(pair_err < 1e-12 * (double)n);
    CHECK(orth_err < 1e-12 * (double)n);
    if (lambda) {
        double *want = mn_malloc(n * sizeof(double));
        memcpy(want, lambda, n * sizeof(double));
        qsort(want, n, sizeof(double), by_value);
        qsort(w, n, sizeof(double), by_value);
        double worst = 0;
        for (size_t i = 0; i < n; i++)
            worst = fabs(w[i] - want[i]) > worst ? fabs(w[i] - want[i]) : worst;
        CHECK(worst < 1e-11 * scale * (double)n);
        free(want);
    }
    free(work);
    free(w);
    free(vt);
}

static void test_known_spectra(void)
{
    static const size_t sizes[] = {3, 4, 7, 40, 264};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s];
        double *lambda = mn_malloc(n * sizeof(double));
        for (size_t i = 0; i < n; i++) /* spread over six orders of magnitude, both signs */
            lambda[i] = (i % 2 ? -1 : 1) * pow(10, 6.0 * (double)i / (double)n - 3);
        double *a = with_spectrum(lambda, n);
        check_decomposition(a, n, lambda);
        free(a);
        free(lambda);
    }
}

static void test_small(void)
{
    double one[] = {-2.5};
    check_decomposition(one, 1, one);
    double two[] = {2, 1, 1, 2}, two_l[] = {1, 3};
    check_decomposition(two, 2, two_l);
    double split[] = {5, 0, 0, -1}, split_l[] = {5, -1};
    check_decomposition(split, 2, split_l);
    double w[1], vt[1];
    CHECK(mn_symeig(NULL, 0, w, vt) == 0); /* nothing to do */
}

static void test_already_tridiagonal(void)
{
    enum { N = 12 };
    double d[N * N] = {0}, diag[N];
    for (size_t i = 0; i < N; i++) /* diagonal: every reflection is the identity */
        d[i * N + i] = diag[i] = (double)i * 1.5 - 4;
    check_decomposition(d, N, diag);
    double t[N * N] = {0}; /* tridiagonal: the same, and QL does all the work */
    for (size_t i = 0; i < N; i++) {
        t[i * N + i] = 2;
        if (i + 1 < N)
            t[i * N + i + 1] = t[(i + 1) * N + i] = -1;
    }
    double tl[N]; /* the second-difference matrix: 2 - 2 cos(k pi / (N + 1)) */
    for (size_t k = 0; k < N; k++)
        tl[k] = 2 - 2 * cos((double)(k + 1) * M_PI / (N + 1));
    check_decomposition(t, N, tl);
}

static void test_repeated_and_zero(void)
{
    enum { N = 30 };
    double lambda[N];
    for (size_t i = 0; i < N; i++) /* three eigenvalues, ten times each */
        lambda[i] = i < 10 ? 7 : i < 20 ? 7 : i < 25 ? -3 : 0.5;
    double *a = with_spectrum(lambda, N);
    check_decomposition(a, N, lambda);
    free(a);
    double zero[N * N] = {0}, zl[N] = {0};
    check_decomposition(zero, N, zl);
}

/* C = G^T G for a tall random G: what the built-in model's SVD decomposes (PSD, a few large
 * eigenvalues and many small ones). */
static void test_gram(void)
{
    enum { ROWS = 500, N = 72 };
    double *g = mn_malloc(ROWS * N * sizeof(double)), *c = mn_calloc(N * N, sizeof(double));
    for (size_t r = 0; r < ROWS; r++)
        for (size_t j = 0; j < N; j++)
            g[r * N + j] = uniform() * (j < 8 ? 10 : 0.1);
    for (size_t r = 0; r < ROWS; r++)
        for (size_t i = 0; i < N; i++)
            for (size_t j = 0; j < N; j++)
                c[i * N + j] += g[r * N + i] * g[r * N + j];
    check_decomposition(c, N, NULL);
    double *w = mn_malloc(N * sizeof(double)), *vt = mn_malloc(N * N * sizeof(double));
    REQUIRE(mn_symeig(c, N, w, vt) == 0);
    size_t large = 0;
    for (size_t i = 0; i < N; i++) {
        CHECK(w[i] > -1e-9); /* semi-definite */
        large += w[i] > 1000;
    }
    CHECK(large == 8); /* the eight loud columns */
    free(g);
    free(c);
    free(w);
    free(vt);
}

static void test_lower_triangle_only(void)
{
    enum { N = 9 };
    double lambda[N];
    for (size_t i = 0; i < N; i++)
        lambda[i] = (double)i - 3.25;
    double *a = with_spectrum(lambda, N), lower[N * N];
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++)
            lower[i * N + j] = j <= i ? a[i * N + j] : 1e6; /* garbage above the diagonal */
    double w[N], vt[N * N];
    REQUIRE(mn_symeig(lower, N, w, vt) == 0);
    double pair_err, orth_err;
    residuals(a, N, w, vt, 10, &pair_err, &orth_err);
    CHECK(pair_err < 1e-12 && orth_err < 1e-12);
    free(a);
}

MN_TEST_MAIN(MN_TEST(test_known_spectra), MN_TEST(test_small), MN_TEST(test_already_tridiagonal),
             MN_TEST(test_repeated_and_zero), MN_TEST(test_gram), MN_TEST(test_lower_triangle_only))
