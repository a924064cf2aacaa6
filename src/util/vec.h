/*
 * vec.h - a typed growable array as macros (as klib's kvec).
 *
 *   MN_VEC(int) v = MN_VEC_INIT;
 *   mn_vec_push(&v, 42);
 *   for (size_t i = 0; i < v.len; i++) use(v.items[i]);
 *   mn_vec_release(&v);
 *
 * Invariant: items is NULL exactly when cap is 0; len <= cap.
 */
#ifndef MN_VEC_H
#define MN_VEC_H

#include <stddef.h>
#include <stdlib.h>

#define MN_VEC(type)     \
    struct {             \
        type *items;     \
        size_t len, cap; \
    }
#define MN_VEC_INIT \
    {               \
        NULL, 0, 0  \
    }

#define mn_vec_reserve(v, n)                                                        \
    do {                                                                            \
        if ((n) > (v)->cap) {                                                       \
            size_t mn_vec__cap = (v)->cap ? (v)->cap : 8;                           \
            while (mn_vec__cap < (n))                                               \
                mn_vec__cap *= 2;                                                   \
            (v)->items = mn_realloc((v)->items, mn_vec__cap * sizeof(*(v)->items)); \
            (v)->cap = mn_vec__cap;                                                 \
        }                                                                           \
    } while (0)

#define mn_vec_push(v, x)                  \
    do {                                   \
        mn_vec_reserve((v), (v)->len + 1); \
        (v)->items[(v)->len++] = (x);      \
    } while (0)

#define mn_vec_release(v)        \
    do {                         \
        free((v)->items);        \
        (v)->items = NULL;       \
        (v)->len = (v)->cap = 0; \
    } while (0)

#endif
