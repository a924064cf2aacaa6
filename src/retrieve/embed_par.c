/*
 * embed_par.c - the parallel-for of the built-in model's training (see
 * embed_par.h for the contract).
 *
 * Threads are started per run and joined before it returns (or, for a
 * run started with mn_par_start, before mn_par_finish returns): a run is a
 * loop of the SVD or a batch of documents (milliseconds at least), so
 * starting two threads (~50 us) is noise, and nothing outlives the run.
 * Parts are claimed from an atomic counter in ascending order, so a
 * part that waits for an earlier one (the column sweep of the
 * orthonormalisation) waits for a part some running thread holds: no
 * deadlock whatever the number of threads that could be started.
 */
#include "common.h"
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "retrieve/embed_par.h"

#define MAX_THREADS MN_PAR_MAX_THREADS

static atomic_int forced_threads;

static void work(mn_par_async *a, int thread)
{
    for (;;) {
        size_t p = atomic_fetch_add(&a->next, 1);
        if (p >= a->parts)
            return;
        a->fn(a->arg, p, thread);
    }
}

static void *worker_main(void *arg)
{
    mn_par_worker *w = arg;
    work(w->a, w->thread);
    return NULL;
}

void mn_par_start(mn_par_async *a, int threads, size_t parts, mn_par_fn fn, void *arg)
{
    a->fn = fn;
    a->arg = arg;
    a->parts = parts;
    atomic_init(&a->next, 0);
    a->started = 0;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    if ((size_t)threads > parts)
        threads = (int)parts;
    for (int i = 1; i < threads; i++) {
        a->workers[a->started].a = a;
        a->workers[a->started].thread = i;
        if (pthread_create(&a->tids[a->started], NULL, worker_main, &a->workers[a->started]) != 0)
            break; /* the others (and the caller) do its share */
        a->started++;
    }
}

void mn_par_finish(mn_par_async *a)
{
    work(a, 0);
    for (int i = 0; i < a->started; i++)
        pthread_join(a->tids[i], NULL);
    a->started = 0;
}

void mn_par_run(int threads, size_t parts, mn_par_fn fn, void *arg)
{
    mn_par_async a;
    mn_par_start(&a, threads, parts, fn, arg);
    mn_par_finish(&a);
}

int mn_embed_threads(void)
{
    int n = atomic_load(&forced_threads);
    if (n > 0)
        return n > MAX_THREADS ? MAX_THREADS : n;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : (int)cores;
}

void mn_embed_set_threads(int n)
{
    atomic_store(&forced_threads, n < 0 ? 0 : n);
}
