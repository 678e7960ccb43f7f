/* threads.c - one loaded model.so called from several threads at once: every thread runs
 * its own inputs many times and must get exactly the results of a serial run.  Then
 * threads that come and go (a thread per request): each makes one call and exits, and the
 * heap must not grow with their number, since a thread keeps its workspace between its
 * calls and gives it back when it exits (backends/cpu/runtime/workspace.c).
 *   usage: threads MODEL.so   (a library built from examples/tutorial) */
#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shapec/runtime.h"

typedef int (*run_fn)(const shapec_tensor *, const shapec_tensor *, char *, size_t);
typedef int (*shapes_fn)(const shapec_tensor *, int64_t *const *, char *, size_t);

static run_fn run;
static shapes_fn shapes;

#define THREADS 4
#define ROUNDS 200

typedef struct job {
  int64_t b;                 /* batch-like dims vary per thread */
  float w[16 * 5], x[16], y[16 * 16], z[256];
  float out0[16 * 3], out1[256];
  float want0[16 * 3], want1[256];
  int failures;
} job;

static void tensors(job *j, shapec_tensor *in, int64_t *sh, shapec_tensor *out, int64_t *osh, float *o0, float *o1) {
  int64_t b = j->b;
  sh[0] = b, sh[1] = 5, sh[2] = b, sh[3] = 3, sh[4] = b, sh[5] = 3 * b;
  shapec_dtype f32 = {2, 32, 1};
  in[0] = (shapec_tensor){j->w, {1, 0}, 2, f32, &sh[0], NULL, 0};
  in[1] = (shapec_tensor){j->x, {1, 0}, 1, f32, &sh[2], NULL, 0};
  in[2] = (shapec_tensor){j->y, {1, 0}, 2, f32, &sh[3], NULL, 0};
  in[3] = (shapec_tensor){j->z, {1, 0}, 1, f32, &sh[5], NULL, 0};
  osh[0] = b, osh[1] = 3, osh[2] = 3 * b;
  out[0] = (shapec_tensor){o0, {1, 0}, 2, f32, &osh[0], NULL, 0};
  out[1] = (shapec_tensor){o1, {1, 0}, 1, f32, &osh[2], NULL, 0};
}

static void *worker(void *arg) {
  job *j = arg;
  shapec_tensor in[4], out[2];
  int64_t sh[6], osh[3];
  tensors(j, in, sh, out, osh, j->out0, j->out1);
  char err[256];
  for (int r = 0; r < ROUNDS; r++) {
    memset(j->out0, 0, sizeof j->out0);
    memset(j->out1, 0, sizeof j->out1);
    if (run(in, out, err, sizeof err) != 0 || memcmp(j->out0, j->want0, sizeof(float) * (size_t)j->b * 3) != 0 ||
        memcmp(j->out1, j->want1, sizeof(float) * (size_t)(3 * j->b)) != 0)
      j->failures++;
  }
  return NULL;
}

/* One call, then the thread exits. */
static void *passing(void *arg) {
  job *j = arg;
  shapec_tensor in[4], out[2];
  int64_t sh[6], osh[3];
  float out0[16 * 3], out1[256];
  tensors(j, in, sh, out, osh, out0, out1);
  char err[256];
  if (run(in, out, err, sizeof err) != 0 || memcmp(out0, j->want0, sizeof(float) * (size_t)j->b * 3) != 0)
    __atomic_add_fetch(&j->failures, 1, __ATOMIC_RELAXED);
  return NULL;
}

/* Bytes the heap holds (every arena, and the blocks mapped on their own). */
static size_t heap_in_use(void) {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

/* `count` threads, two at a time, each making one call; failures counted in jobs. */
static void come_and_go(job *jobs, int count) {
  for (int t = 0; t < count; t += 2) {
    pthread_t a, b;
    pthread_create(&a, NULL, passing, &jobs[t % THREADS]);
    pthread_create(&b, NULL, passing, &jobs[(t + 1) % THREADS]);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
  }
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  void *h = dlopen(argv[1], RTLD_NOW);
  if (!h) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  run = (run_fn)dlsym(h, "shapec_model_run");
  shapes = (shapes_fn)dlsym(h, "shapec_model_output_shapes");
  job jobs[THREADS];
  for (int t = 0; t < THREADS; t++) {
    job *j = &jobs[t];
    memset(j, 0, sizeof *j);
    j->b = 2 + 3 * t;
    for (int i = 0; i < 16 * 16; i++) j->y[i] = (float)((i * 7 + t) % 13) - 6;
    for (int i = 0; i < 16 * 5; i++) j->w[i] = (float)((i * 3 + t) % 11) / 4;
    for (int i = 0; i < 16; i++) j->x[i] = (float)(i + t);
    for (int i = 0; i < 256; i++) j->z[i] = (float)(i % 5);
    shapec_tensor in[4], out[2];
    int64_t sh[6], osh[3];
    tensors(j, in, sh, out, osh, j->want0, j->want1);
    char err[256];
    if (run(in, out, err, sizeof err) != 0) {
      fprintf(stderr, "serial run %d failed: %s\n", t, err);
      return 1;
    }
  }
  pthread_t th[THREADS];
  for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, worker, &jobs[t]);
  int failures = 0;
  for (int t = 0; t < THREADS; t++) {
    pthread_join(th[t], NULL);
    failures += jobs[t].failures;
  }
  printf("%d threads x %d runs: %d mismatches\n", THREADS, ROUNDS, failures);
  if (failures) return 1;

  enum { WARM = 40, PASSING = 2000 };
  come_and_go(jobs, WARM); /* the shared workspaces and glibc's per-thread arenas settle */
  size_t before = heap_in_use();
  come_and_go(jobs, PASSING);
  size_t after = heap_in_use();
  for (int t = 0; t < THREADS; t++) failures += jobs[t].failures;
  long grew = (long)after - (long)before;
  printf("%d threads that made one call each and exited: %d mismatches, the heap grew by %ld bytes\n", PASSING,
         failures, grew);
#if defined(__SANITIZE_ADDRESS__)
  grew = 0; /* the sanitizer's allocator does not answer mallinfo2; its leak check does this job */
#endif
  dlclose(h);
  return failures || grew > 64 * 1024 ? 1 : 0;
}
