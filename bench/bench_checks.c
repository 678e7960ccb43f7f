/* bench_checks.c - what a model library's guard checks cost per call.
 *
 * Calls shapec_model_output_shapes (every rank, dtype, range, equality, divisibility and
 * runtime-assert check, plus the output-shape arithmetic, and nothing else) and
 * shapec_model_run (the same checks, then the computation) on zero-filled inputs, and
 * prints the median of each over batches of calls.
 *
 *   usage: bench_checks MODEL.so SHAPE...      one SHAPE per input, e.g. 6x5 4 8x4 32 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shapec/runtime.h"

typedef int (*shapes_fn)(const shapec_tensor *, int64_t *const *, char *, size_t);
typedef int (*run_fn)(const shapec_tensor *, const shapec_tensor *, char *, size_t);
typedef int (*int_fn)(int);

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median over 31 batches of `calls` calls, in ns per call. */
#define BATCHES 31
static double median_ns(int (*call)(void *), void *arg, int calls) {
  double t[BATCHES];
  for (int b = 0; b < BATCHES; b++) {
    double t0 = now_ns();
    for (int i = 0; i < calls; i++)
      if (call(arg)) return -1;
    t[b] = (now_ns() - t0) / calls;
  }
  qsort(t, BATCHES, sizeof t[0], cmp);
  return t[BATCHES / 2];
}

typedef struct state {
  shapes_fn shapes;
  run_fn run;
  shapec_tensor in[16], out[16];
  int64_t in_shape[16][8], out_shape[16][8];
  int64_t *out_ptrs[16];
  char err[512];
} state;

static int call_shapes(void *p) {
  state *s = p;
  return s->shapes(s->in, s->out_ptrs, s->err, sizeof s->err);
}

static int call_run(void *p) {
  state *s = p;
  return s->run(s->in, s->out, s->err, sizeof s->err);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_checks MODEL.so SHAPE...\n");
    return 2;
  }
  void *h = dlopen(argv[1], RTLD_NOW);
  if (!h) {
    fprintf(stderr, "bench_checks: %s\n", dlerror());
    return 3;
  }
  static state s;
  s.shapes = (shapes_fn)dlsym(h, "shapec_model_output_shapes");
  s.run = (run_fn)dlsym(h, "shapec_model_run");
  int n_in = ((int (*)(void))dlsym(h, "shapec_model_num_inputs"))();
  int n_out = ((int (*)(void))dlsym(h, "shapec_model_num_outputs"))();
  int_fn in_ndim = (int_fn)dlsym(h, "shapec_model_input_ndim"), out_ndim = (int_fn)dlsym(h, "shapec_model_output_ndim");
  int_fn in_dtype = (int_fn)dlsym(h, "shapec_model_input_dtype"), out_dtype = (int_fn)dlsym(h, "shapec_model_output_dtype");
  ((int_fn)dlsym(h, "shapec_model_set_num_threads"))(1);
  if (argc - 2 != n_in || n_in > 16 || n_out > 16) {
    fprintf(stderr, "bench_checks: the model has %d inputs; give one shape each\n", n_in);
    return 2;
  }
  for (int i = 0; i < n_in; i++) {
    int nd = 0;
    int64_t numel = 1;
    for (char *tok = strtok(argv[2 + i], "x"); tok && nd < 8; tok = strtok(NULL, "x")) {
      s.in_shape[i][nd] = strtoll(tok, NULL, 10);
      numel *= s.in_shape[i][nd++];
    }
    int dt = in_dtype(i);
    if (nd != in_ndim(i)) {
      fprintf(stderr, "bench_checks: input %d has rank %d\n", i, in_ndim(i));
      return 2;
    }
    s.in[i] = (shapec_tensor){calloc((size_t)numel + 1, (size_t)(dt & 0xff) / 8 + 1), {1, 0}, nd,
                              {(uint8_t)(dt >> 8), (uint8_t)(dt & 0xff), 1}, s.in_shape[i], NULL, 0};
  }
  for (int i = 0; i < n_out; i++) s.out_ptrs[i] = s.out_shape[i];
  if (call_shapes(&s)) {
    fprintf(stderr, "bench_checks: %s\n", s.err);
    return 1;
  }
  for (int i = 0; i < n_out; i++) {
    int64_t numel = 1;
    for (int d = 0; d < out_ndim(i); d++) numel *= s.out_shape[i][d];
    int dt = out_dtype(i);
    s.out[i] = (shapec_tensor){calloc((size_t)numel + 1, (size_t)(dt & 0xff) / 8 + 1), {1, 0}, out_ndim(i),
                               {(uint8_t)(dt >> 8), (uint8_t)(dt & 0xff), 1}, s.out_shape[i], NULL, 0};
  }
  double checks = median_ns(call_shapes, &s, 20000);
  double run = median_ns(call_run, &s, 2000);
  if (checks < 0 || run < 0) {
    fprintf(stderr, "bench_checks: %s\n", s.err);
    return 1;
  }
  printf("checks_ns median=%.1f  (shapec_model_output_shapes: every guard + output shapes)\n", checks);
  printf("run_ns    median=%.1f  (shapec_model_run: the same checks, then the computation)\n", run);
  printf("checks are %.1f%% of a run\n", 100.0 * checks / run);
  return 0;
}
