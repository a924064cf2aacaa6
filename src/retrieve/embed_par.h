/*
 * embed_par.h - the built-in model's training on several threads: a
 * parallel-for whose parts must not depend on which thread runs them.
 *
 * Training (embed_builtin.c) splits its loops into parts whose results are
 * written to disjoint places and summed in the same order as on one
 * thread, so the model is the same bit for bit whatever the thread count
 * (tests/unit/retrieve/test_embed_par.c checks it). Parts are taken in
 * ascending order from a shared counter; the calling thread is one of the
 * workers, so a thread that cannot be started only makes the run slower.
 */
#ifndef MN_RETRIEVE_EMBED_PAR_H
#define MN_RETRIEVE_EMBED_PAR_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

/** Part `part` of a parallel run; `thread` in [0, threads) says whose scratch to use. */
typedef void (*mn_par_fn)(void *arg, size_t part, int thread);

/**
 * fn(arg, p, thread) for every p in [0, parts), on at most `threads`
 * threads (the caller's included), in ascending order of p per thread;
 * returns when every part is done.
 */
void mn_par_run(int threads, size_t parts, mn_par_fn fn, void *arg);

#define MN_PAR_MAX_THREADS 8

/* A run whose other threads start now and whose caller joins later (mn_par_start, then
 * mn_par_finish), so that the caller can do something else meanwhile. Fields are private;
 * it must stay where it is until finished. */
typedef struct mn_par_worker {
    struct mn_par_async *a;
    int thread;
} mn_par_worker;

typedef struct mn_par_async {
    mn_par_fn fn;
    void *arg;
    size_t parts;
    atomic_size_t next; /* the next part to claim */
    mn_par_worker workers[MN_PAR_MAX_THREADS];
    pthread_t tids[MN_PAR_MAX_THREADS];
    int started;
} mn_par_async;

/**
 * Start mn_par_run(threads, parts, fn, arg) on threads 1 .. threads - 1 and
 * return at once; the calling thread takes part as thread 0 in
 * mn_par_finish, which returns when every part is done. With one thread,
 * every part runs in mn_par_finish.
 */
void mn_par_start(mn_par_async *a, int threads, size_t parts, mn_par_fn fn, void *arg);
void mn_par_finish(mn_par_async *a);

/** The threads the built-in model trains on: mn_embed_set_threads's, else one per online core, at
 * most 8. */
int mn_embed_threads(void);

/** Force the training's thread count (0: back to one per core). For tests and benches. */
void mn_embed_set_threads(int n);

#endif
