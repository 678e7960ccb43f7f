/* small_convs.c - small convolutions through the runtime's three kernels, one thread.
 *
 * For each shape: the direct kernel (conv_direct.c, "-" where it does not take the shape),
 * im2col + GEMM (nn.c), and the call a model makes (sc_k_conv2d_site_f32: oneDNN from 65,536
 * multiply-adds unless the direct kernel takes it).  ReLU fused, padding K / 2 ("same" at
 * stride 1), the stride the same both ways.  Best of five batches, ns a call.
 *
 *   usage: taskset -c 1 build/small_convs [--stride S] [N C H O K]...   (defaults: the tables
 *          in docs/benchmarks.md; --stride applies to the shapes after it) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/cpu/runtime/kernels.h"
#include "backends/llvm/runtime_abi.h"

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

typedef struct shape {
  int64_t n, c, h, o, k, groups, stride;
} shape;

static const shape defaults[] = {
    {2, 1, 5, 2, 3, 1, 1},  {1, 3, 9, 4, 3, 1, 1},  {4, 4, 8, 4, 3, 1, 1},  {1, 8, 16, 8, 3, 8, 1}, {1, 3, 16, 8, 3, 1, 1},
    {8, 3, 16, 8, 3, 1, 1}, {8, 1, 28, 4, 3, 1, 1}, {1, 8, 16, 8, 3, 1, 1}, {1, 16, 8, 16, 3, 1, 1}, {1, 16, 14, 16, 3, 1, 1},
    /* stride 2: bench/small_models.py's tiny_cnn, and two larger ones */
    {2, 1, 8, 4, 3, 1, 2},  {8, 3, 32, 8, 3, 1, 2}, {4, 8, 16, 16, 3, 1, 2},
};

enum { DIRECT, BUILT_IN, SITE, KERNELS };

static void run(const shape *s) {
  int64_t p = s->k / 2, st = s->stride, oh = (s->h + 2 * p - s->k) / st + 1, cg = s->c / s->groups;
  float *x = calloc((size_t)(s->n * s->c * s->h * s->h), sizeof(float)), *w = calloc((size_t)(s->o * cg * s->k * s->k), sizeof(float));
  float *b = calloc((size_t)s->o, sizeof(float)), *y = calloc((size_t)(s->n * s->o * oh * oh), sizeof(float));
  for (int64_t i = 0; i < s->n * s->c * s->h * s->h; i++) x[i] = (float)(i % 7) - 3.0f;
  for (int64_t i = 0; i < s->o * cg * s->k * s->k; i++) w[i] = (float)(i % 5) * 0.1f;
  bool fits = sc_conv_direct_fits(s->c, s->h, s->h, s->o, s->k, s->k, st, st, p, p, 1, s->groups, oh, oh, SC_ACT_RELU);
  void *site = NULL;
  double best[KERNELS] = {1e30, 1e30, 1e30};
  int64_t macs = s->n * s->o * cg * s->k * s->k * oh * oh;
  int calls = macs > 1000000 ? 50 : 2000;
  for (int rep = 0; rep < 5; rep++)
    for (int kind = 0; kind < KERNELS; kind++) {
      if (kind == DIRECT && !fits) continue;
      double t0 = now_ns();
      for (int i = 0; i < calls; i++) {
        if (kind == DIRECT)
          sc_conv_direct_f32(x, w, b, y, s->n, s->c, s->h, s->h, s->o, s->k, s->k, st, st, p, p, 1, 1, s->groups, oh, oh,
                             SC_ACT_RELU);
        else if (kind == BUILT_IN)
          sc_k_conv2d_im2col_f32(x, w, b, y, s->n, s->c, s->h, s->h, s->o, s->k, s->k, st, st, p, p, 1, 1, s->groups, oh, oh,
                                 SC_ACT_RELU);
        else
          sc_k_conv2d_site_f32(&site, 1, x, w, b, y, s->n, s->c, s->h, s->h, s->o, s->k, s->k, st, st, p, p, 1, 1, s->groups,
                               oh, oh, SC_ACT_RELU, NULL, 0);
      }
      double t = (now_ns() - t0) / calls;
      if (t < best[kind]) best[kind] = t;
    }
  char direct[32] = "-";
  if (fits) snprintf(direct, sizeof direct, "%.0f", best[DIRECT]);
  char stride[32] = "";
  if (st > 1) snprintf(stride, sizeof stride, ", stride %lld", (long long)st);
  printf("| [%lld, %lld, %lld, %lld] -> %lld, %lldx%lld, groups %lld%s | %lld | %s | %.0f | %.0f |\n", (long long)s->n,
         (long long)s->c, (long long)s->h, (long long)s->h, (long long)s->o, (long long)s->k, (long long)s->k,
         (long long)s->groups, stride, (long long)macs, direct, best[BUILT_IN], best[SITE]);
  free(x), free(w), free(b), free(y);
}

int main(int argc, char **argv) {
  shapec_model_set_num_threads(1);
  printf("| input -> channels, kernel | multiply-adds | direct (ns) | im2col + GEMM (ns) | a model's call (ns) |\n");
  printf("|---|---|---|---|---|\n");
  if (argc > 1) {
    int64_t stride = 1;
    for (int a = 1; a < argc;) {
      if (strcmp(argv[a], "--stride") == 0 && a + 1 < argc) {
        stride = atoll(argv[a + 1]) > 0 ? atoll(argv[a + 1]) : 1;
        a += 2;
        continue;
      }
      if (a + 4 >= argc) break;
      shape s = {atoll(argv[a]), atoll(argv[a + 1]), atoll(argv[a + 2]), atoll(argv[a + 3]), atoll(argv[a + 4]), 1, stride};
      run(&s);
      a += 5;
    }
    return 0;
  }
  for (size_t i = 0; i < sizeof defaults / sizeof *defaults; i++) run(&defaults[i]);
  return 0;
}
