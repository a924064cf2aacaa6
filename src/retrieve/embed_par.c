/*
 * embed_par.c - the parallel-for of the built-in model's training (see
 * embed_par.h for the contract).
 *
 * Threads are started per run and joined before it returns: a run is a
 * loop of the SVD or a batch of documents (tens of milliseconds at least),
 * so starting two threads (~50 us) is noise, and nothing outlives the
 * call. Parts are claimed from an atomic counter in ascending order, so a
 * part that waits for an earlier one (the column sweep of the
 * orthonormalisation) waits for a part some running thread holds: no
 * deadlock whatever the number of threads that could be started.
 */
#include "common.h"
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "retrieve/embed_par.h"

#define MAX_THREADS 8

static atomic_int forced_threads;

typedef struct {
    mn_par_fn fn;
    void *arg;
    size_t parts;
    atomic_size_t next;
} par_run;

typedef struct {
    par_run *run;
    int thread;
} par_worker;

static void work(par_run *r, int thread)
{
    for (;;) {
        size_t p = atomic_fetch_add(&r->next, 1);
        if (p >= r->parts)
            return;
        r->fn(r->arg, p, thread);
    }
}

static void *worker_main(void *arg)
{
    par_worker *w = arg;
    work(w->run, w->thread);
    return NULL;
}

void mn_par_run(int threads, size_t parts, mn_par_fn fn, void *arg)
{
    par_run r = {fn, arg, parts, 0};
    pthread_t tids[MAX_THREADS];
    par_worker ws[MAX_THREADS];
    int started = 0;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    if ((size_t)threads > parts)
        threads = (int)parts;
    for (int i = 1; i < threads; i++) {
        ws[started] = (par_worker){&r, i};
        if (pthread_create(&tids[started], NULL, worker_main, &ws[started]) != 0)
            break; /* the others (and the caller) do its share */
        started++;
    }
    work(&r, 0);
    for (int i = 0; i < started; i++)
        pthread_join(tids[i], NULL);
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
