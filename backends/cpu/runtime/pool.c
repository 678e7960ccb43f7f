/* pool.c - the thread pool that runs a model's outer loops.
 *
 * One pool per loaded library, started on first use with as many workers as the library's
 * thread count (threads.c) asks for.  A library whose layers go through oneDNN runs its
 * loops on OpenMP's team instead, the one oneDNN computes on (sc_rt_pool_join_openmp).  A parallel loop hands out fixed-size chunks
 * of its iteration space through an atomic counter; the calling thread works too.
 *
 * Concurrent callers: only one loop owns the pool at a time.  A caller that finds it busy
 * (another thread is inside a parallel loop) runs its loop on its own thread instead of
 * waiting, so calls from many threads never block each other and never deadlock. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "kernels.h"

/* A job's `active` word: the workers inside it, and CLOSED once the caller has run out of
 * chunks.  A worker joins only an open job, under `lock`; the caller waits only for those
 * that joined.  A worker that wakes late, its core taken by another process, finds the
 * job closed and leaves it alone: the caller never waits for a thread that did nothing
 * (a busy process on one of two cores made two-thread calls 2.4-8x slower than one). */
enum { CLOSED = 1 << 30 };

typedef struct job {
  sc_rt_loop_fn fn;
  void *ctx;
  int64_t n, chunk;
  int helpers;             /* workers with an id below this take part */
  atomic_llong next;       /* first iteration not yet handed out */
  atomic_int active;       /* workers inside this job, | CLOSED once no chunk is left to hand out */
} job;

static pthread_mutex_t owner = PTHREAD_MUTEX_INITIALIZER; /* held by the loop using the pool */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;  /* guards the fields below */
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER, idle = PTHREAD_COND_INITIALIZER;
static job *current;
static atomic_ulong generation; /* changed under `lock`; read without it while spinning */
static int started;          /* workers running */

/* Waking a sleeping worker through the kernel costs tens of microseconds on a virtual
 * machine, more than a small layer's whole product; so a worker that finished a loop, and a
 * caller waiting for its helpers, first spin this long (a call's loops follow each other
 * closely), then sleep: nothing spins longer than this after a call returns. */
#define SPIN_NS 100000

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* oneDNN computes on OpenMP's threads, whose idle workers spin after each primitive
 * (GOMP_SPINCOUNT: up to milliseconds when PyTorch loaded libgomp first).  A pool worker
 * spinning beside one only shares a core with it, while one woken from sleep is run at
 * once by the scheduler; so the pool does not spin while oneDNN computes, nor for
 * OTHERS_QUIET_NS after (measured, resnet18 at batch 1 on two threads beside PyTorch:
 * 10.3 ms sleeping, 11.5 ms spinning). */
#define OTHERS_QUIET_NS 20000000
static atomic_int others_computing;
static atomic_llong others_ended_ns;

void sc_rt_pool_yield_begin(void) { atomic_fetch_add(&others_computing, 1); }
void sc_rt_pool_yield_end(void) {
  atomic_store_explicit(&others_ended_ns, now_ns(), memory_order_relaxed);
  atomic_fetch_sub(&others_computing, 1);
}

static bool may_spin(int64_t now) {
  return atomic_load_explicit(&others_computing, memory_order_relaxed) == 0 &&
         now - atomic_load_explicit(&others_ended_ns, memory_order_relaxed) > OTHERS_QUIET_NS;
}

/* Spins until *value differs from `old`, SPIN_NS pass, or spinning would get in OpenMP's way. */
static void spin_while_ulong(atomic_ulong *value, unsigned long old) {
  int64_t start = now_ns();
  if (!may_spin(start)) return;
  for (int i = 1; atomic_load_explicit(value, memory_order_acquire) == old; i++) {
    if (i % 64 == 0) {
      int64_t now = now_ns();
      if (now - start > SPIN_NS || !may_spin(now)) return;
    }
    cpu_relax();
  }
}

/* Spins while workers are inside a closed job (its count beside CLOSED). */
static void spin_while_inside(atomic_int *value) {
  int64_t start = now_ns();
  if (!may_spin(start)) return;
  for (int i = 1; (atomic_load_explicit(value, memory_order_acquire) & ~CLOSED) > 0; i++) {
    if (i % 64 == 0) {
      int64_t now = now_ns();
      if (now - start > SPIN_NS || !may_spin(now)) return;
    }
    cpu_relax();
  }
}

static void work_on(job *j) {
  for (;;) {
    int64_t begin = atomic_fetch_add(&j->next, j->chunk);
    if (begin >= j->n) return;
    int64_t end = begin + j->chunk < j->n ? begin + j->chunk : j->n;
    j->fn(j->ctx, begin, end);
  }
}

typedef struct worker_start {
  int id;
  unsigned long born; /* the generation when it was started: it must not take an older job */
} worker_start;

static void *worker(void *arg) {
  worker_start start = *(worker_start *)arg;
  free(arg);
  int id = start.id;
  unsigned long seen = start.born;
  for (;;) {
    spin_while_ulong(&generation, seen);
    pthread_mutex_lock(&lock);
    while (atomic_load(&generation) == seen) pthread_cond_wait(&wake, &lock);
    seen = atomic_load(&generation);
    job *j = current;
    /* join it while it is open: under the lock, so that the caller, which clears `current`
     * under it, never returns while a worker is about to read the job */
    bool joined = false;
    if (j && id < j->helpers) {
      int state = atomic_load(&j->active);
      while (!(state & CLOSED) && !(joined = atomic_compare_exchange_weak(&j->active, &state, state + 1))) {
      }
    }
    pthread_mutex_unlock(&lock);
    if (!joined) continue;
    work_on(j);
    pthread_mutex_lock(&lock);
    if (atomic_fetch_sub(&j->active, 1) == (CLOSED | 1)) pthread_cond_signal(&idle);
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

static _Atomic(sc_rt_openmp_parallel) openmp_parallel;
static atomic_bool forked_child;

bool sc_rt_pool_in_forked_child(void) { return atomic_load_explicit(&forked_child, memory_order_relaxed); }

/* A child process after fork() has none of the parent's workers, nor OpenMP's: the pool
 * starts afresh on workers of its own. */
static void forget_workers_in_child(void) {
  atomic_store(&openmp_parallel, NULL);
  atomic_store(&forked_child, true);
  pthread_mutex_init(&owner, NULL);
  pthread_mutex_init(&lock, NULL);
  pthread_cond_init(&wake, NULL);
  pthread_cond_init(&idle, NULL);
  current = NULL;
  started = 0;
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void install_atfork(void) { pthread_atfork(NULL, NULL, forget_workers_in_child); }

/* Starts workers until `count` run; returns how many do (thread creation may fail). */
static int ensure_workers(int count) {
  pthread_once(&atfork_once, install_atfork);
  pthread_mutex_lock(&lock);
  while (started < count) {
    pthread_t t;
    pthread_attr_t attr;
    worker_start *start = malloc(sizeof *start);
    if (!start) break;
    *start = (worker_start){started, atomic_load(&generation)};
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &attr, worker, start);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
      free(start);
      break;
    }
    pthread_setname_np(t, "shapec-pool"); /* for top -H, and the tests that count teams */
    started++;
  }
  int n = started < count ? started : count;
  pthread_mutex_unlock(&lock);
  return n;
}

void sc_rt_pool_join_openmp(sc_rt_openmp_parallel parallel) {
  pthread_once(&atfork_once, install_atfork);
  if (!sc_rt_pool_in_forked_child()) atomic_store(&openmp_parallel, parallel);
}

static void openmp_member(void *j) { work_on(j); }

/* The loop on OpenMP's team; every member, the caller included, takes chunks. */
static void run_on_openmp(sc_rt_openmp_parallel parallel, sc_rt_loop_fn fn, void *ctx, int64_t n, int64_t min_chunk,
                          int threads) {
  int64_t chunk = n / ((int64_t)threads * 4);
  job j = {.fn = fn, .ctx = ctx, .n = n, .chunk = chunk < min_chunk ? min_chunk : chunk};
  atomic_init(&j.next, 0);
  parallel(openmp_member, &j, (unsigned)threads, 0);
}

void sc_rt_parallel_for(sc_rt_loop_fn fn, void *ctx, int64_t n, int64_t min_chunk) {
  if (n <= 0) return;
  if (min_chunk < 1) min_chunk = 1;
  if (n <= min_chunk) { /* one chunk (a tiny model's every kernel): no team to ask */
    fn(ctx, 0, n);
    return;
  }
  int threads = sc_rt_team_threads();
  int64_t max_useful = (n + min_chunk - 1) / min_chunk;
  if (threads > max_useful) threads = (int)max_useful;
  if (threads <= 1 || pthread_mutex_trylock(&owner) != 0) {
    fn(ctx, 0, n);
    return;
  }
  sc_rt_openmp_parallel parallel = atomic_load(&openmp_parallel);
  if (parallel) {
    run_on_openmp(parallel, fn, ctx, n, min_chunk, threads);
    pthread_mutex_unlock(&owner);
    return;
  }
  int helpers = ensure_workers(threads - 1);
  if (helpers == 0) {
    pthread_mutex_unlock(&owner);
    fn(ctx, 0, n);
    return;
  }
  /* about four chunks per thread balances uneven rows without much counter traffic */
  int64_t chunk = n / ((int64_t)(helpers + 1) * 4);
  if (chunk < min_chunk) chunk = min_chunk;
  job j = {.fn = fn, .ctx = ctx, .n = n, .chunk = chunk, .helpers = helpers};
  atomic_init(&j.next, 0);
  atomic_init(&j.active, 0);
  pthread_mutex_lock(&lock);
  /* every started worker wakes; the first `helpers` join while chunks are left */
  current = &j;
  atomic_fetch_add(&generation, 1);
  pthread_cond_broadcast(&wake);
  pthread_mutex_unlock(&lock);
  work_on(&j);
  atomic_fetch_or(&j.active, CLOSED); /* no chunk left: a worker not inside by now stays out */
  spin_while_inside(&j.active);
  pthread_mutex_lock(&lock);
  while (atomic_load(&j.active) != CLOSED) pthread_cond_wait(&idle, &lock);
  current = NULL;
  pthread_mutex_unlock(&lock);
  pthread_mutex_unlock(&owner);
}
