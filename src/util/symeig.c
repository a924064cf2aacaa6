/*
 * symeig.c - the eigen-decomposition of a dense symmetric matrix: Householder
 * reduction to a tridiagonal matrix T = Q^T A Q, then the implicit QL
 * algorithm with Wilkinson shifts on T, its plane rotations applied to Q's
 * columns so that they end as A's eigenvectors (Golub and Van Loan,
 * "Matrix Computations", 8.3). See symeig.h.
 *
 * Q is kept transposed while the rotations run: a rotation of the planes
 * (i, i + 1) then updates two contiguous rows rather than two strided
 * columns, which is what the cost of the QL phase is made of.
 */
#include "common.h"
#include <float.h>
#include <math.h>

#include "util/symeig.h"
#include "util/util.h"

#define MAX_SHIFTS 60 /* QL steps per eigenvalue; 2 or 3 are the rule */

/*
 * Reduce the symmetric a to tridiagonal form: d (n) its diagonal, e (n) its
 * off-diagonal (e[i] couples i and i + 1; e[n - 1] = 0). The Householder
 * vector of step k (H_k = I - beta[k] v v^T, v nonzero in [k + 1, n))
 * is left in row k of a, which the later steps do not read.
 */
static void tridiagonalize(double *a, size_t n, double *d, double *e, double *beta, double *p)
{
    for (size_t k = 0; k + 2 < n; k++) {
        double *v = a + k * n; /* row k = column k below the diagonal, by symmetry */
        double tail = 0;
        for (size_t i = k + 2; i < n; i++)
            tail += v[i] * v[i];
        double x0 = v[k + 1];
        if (tail == 0) { /* nothing to annihilate: H_k = I */
            beta[k] = 0;
            e[k] = x0;
            continue;
        }
        double norm = sqrt(x0 * x0 + tail), alpha = x0 > 0 ? -norm : norm;
        v[k + 1] = x0 - alpha; /* alpha has the sign that avoids cancellation */
        double b = 2 / (v[k + 1] * v[k + 1] + tail);
        beta[k] = b;
        e[k] = alpha;
        /* B = H B H on the trailing block B = a[k+1.., k+1..]: with p = b B v,
         * q = p - (b/2)(p.v) v, B -= v q^T + q v^T */
        double pv = 0;
        for (size_t i = k + 1; i < n; i++) {
            const double *row = a + i * n;
            double s = 0;
            for (size_t j = k + 1; j < n; j++)
                s += row[j] * v[j];
            p[i] = b * s;
            pv += p[i] * v[i];
        }
        double half = b * pv / 2;
        for (size_t i = k + 1; i < n; i++)
            p[i] -= half * v[i];
        for (size_t i = k + 1; i < n; i++) {
            double *row = a + i * n, vi = v[i], pi = p[i];
            for (size_t j = k + 1; j < n; j++)
                row[j] -= vi * p[j] + pi * v[j];
        }
    }
    for (size_t i = 0; i < n; i++)
        d[i] = a[i * n + i];
    if (n >= 2)
        e[n - 2] = a[(n - 1) * n + n - 2];
    e[n - 1] = 0;
}

/*
 * q (n x n) = H_0 H_1 ... H_{n-3}, then transposed in place. Built from the
 * last reflection back, so that every step is row operations: when H_k is
 * applied, the product so far acts only on [k + 2, n).
 */
static void accumulate(const double *a, size_t n, const double *beta, double *q, double *wq)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            q[i * n + j] = i == j;
    for (size_t k = n >= 3 ? n - 2 : 0; k-- > 0;) {
        if (beta[k] == 0)
            continue;
        const double *v = a + k * n;
        for (size_t j = k + 1; j < n; j++)
            wq[j] = 0;
        for (size_t i = k + 1; i < n; i++) /* wq = v^T q */
            for (size_t j = k + 1; j < n; j++)
                wq[j] += v[i] * q[i * n + j];
        for (size_t i = k + 1; i < n; i++) {
            double f = beta[k] * v[i];
            for (size_t j = k + 1; j < n; j++)
                q[i * n + j] -= f * wq[j];
        }
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            double t = q[i * n + j];
            q[i * n + j] = q[j * n + i];
            q[j * n + i] = t;
        }
}

/* Rows i and i + 1 of zt (n wide) turned by the rotation (c, s). */
static void rotate(double *zt, size_t n, size_t i, double c, double s)
{
    double *restrict lo = zt + i * n, *restrict hi = lo + n;
    for (size_t k = 0; k < n; k++) {
        double f = hi[k];
        hi[k] = s * lo[k] + c * f;
        lo[k] = c * lo[k] - s * f;
    }
}

/*
 * The eigenvalues of the tridiagonal (d, e) into d, its rotations applied to
 * the rows of zt. Each pass deflates from the top: find the first
 * negligible e[m] below l, and chase one shifted QL step through [l, m].
 */
static int tridiagonal_ql(double *d, double *e, size_t n, double *zt)
{
    for (size_t l = 0; l < n; l++) {
        for (int shifts = 0;; shifts++) {
            size_t m = l;
            for (; m + 1 < n; m++)
                if (fabs(e[m]) <= DBL_EPSILON * (fabs(d[m]) + fabs(d[m + 1])))
                    break;
            if (m == l)
                break; /* d[l] is an eigenvalue */
            if (shifts == MAX_SHIFTS)
                return -1;
            /* the Wilkinson shift: the eigenvalue of the leading 2 x 2 block nearer d[l] */
            double g = (d[l + 1] - d[l]) / (2 * e[l]);
            double r = hypot(g, 1.0);
            g = d[m] - d[l] + e[l] / (g + copysign(r, g));
            double s = 1, c = 1, p = 0;
            bool underflow = false;
            for (size_t i = m; i-- > l;) {
                double f = s * e[i], b = c * e[i];
                r = hypot(f, g);
                e[i + 1] = r;
                if (r == 0) { /* the bulge vanished: the matrix split at i */
                    d[i + 1] -= p;
                    e[m] = 0;
                    underflow = true;
                    break;
                }
                s = f / r;
                c = g / r;
                g = d[i + 1] - p;
                r = (d[i] - g) * s + 2 * c * b;
                p = s * r;
                d[i + 1] = g + p;
                g = c * r - b;
                rotate(zt, n, i, c, s);
            }
            if (underflow)
                continue;
            d[l] -= p;
            e[l] = g;
            e[m] = 0;
        }
    }
    return 0;
}

int mn_symeig(double *a, size_t n, double *w, double *vt)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) /* the upper triangle from the lower */
        for (size_t j = 0; j < i; j++)
            a[j * n + i] = a[i * n + j];
    double *e = mn_malloc(n * sizeof(double)), *beta = mn_calloc(n, sizeof(double)),
           *p = mn_malloc(n * sizeof(double));
    tridiagonalize(a, n, w, e, beta, p);
    accumulate(a, n, beta, vt, p);
    int rc = tridiagonal_ql(w, e, n, vt);
    free(e);
    free(beta);
    free(p);
    return rc;
}
