/*
 * symeig.h - the eigenvalues and eigenvectors of a dense symmetric matrix.
 *
 * The built-in model's SVD (retrieve/embed_builtin.c) ends on one of these,
 * l x l with l up to 264. Householder reduction to tridiagonal form, then
 * the implicit QL algorithm with Wilkinson shifts on the tridiagonal
 * matrix: O(n^3) with a small constant, about 4x less work than the cyclic
 * Jacobi it replaced (sympy: 0.20 s of serial time down to ~0.03 s).
 * Deterministic and single-threaded.
 */
#ifndef MN_UTIL_SYMEIG_H
#define MN_UTIL_SYMEIG_H

#include <stddef.h>

/**
 * The eigen-decomposition A = V diag(w) V^T of the symmetric n x n matrix a
 * (row-major; only its lower triangle is read, and it is destroyed): the
 * eigenvalues in w (n, in no particular order) and the unit eigenvectors
 * as the rows of vt (n x n, row i belongs to w[i]). Returns 0, or -1 when
 * the iteration did not converge (not seen on finite input; w and vt are
 * then unusable).
 */
int mn_symeig(double *a, size_t n, double *w, double *vt);

#endif
