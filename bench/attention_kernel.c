/* attention_kernel.c - the one-kernel attention (backends/cpu/runtime/attention.c) alone,
 * one thread: softmax(q k^T / sqrt(e)) v over batch x heads items, with q, k and v compact
 * ([b, h, l, e]) and as nn.MultiheadAttention's head split leaves them (rows of the
 * in-projection's [l, b, 3 * h * e] output, read through strides: cg_view_chains.c), the
 * output written compact.  Best of five batches of calls; GFLOP/s counts the two products.
 * The 8-lane tiles first, then, on a CPU with AVX-512, the 16-lane ones (as a library built
 * for AVX-512 takes them).
 *
 *   usage: taskset -c 1 build/attention_kernel [B H L E]...   (default: 8 4 128 64, 1 4 128 64,
 *          8 8 512 64) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "backends/cpu/runtime/kernels.h"

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* ns per call, best of five batches */
static double time_calls(const float *q, const float *k, const float *v, float *out, const int64_t *dims,
                         const int64_t *strides, void *scratch, int64_t bytes, double flops) {
  int calls = (int)(2e9 / flops) + 1;
  double best = 1e30;
  for (int rep = 0; rep < 5; rep++) {
    double t = now_ns();
    for (int c = 0; c < calls; c++)
      sc_k_attention_f32(q, k, v, NULL, out, dims, strides, 0.125, 0, scratch, bytes);
    double per = (now_ns() - t) / calls;
    best = per < best ? per : best;
  }
  return best;
}

static void run(int64_t b, int64_t h, int64_t l, int64_t e) {
  int64_t n = b * h * l * e;
  float *proj = malloc((size_t)(3 * n) * sizeof(float)), *out = malloc((size_t)n * sizeof(float));
  for (int64_t i = 0; i < 3 * n; i++) proj[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
  int64_t dims[6] = {b, h, l, l, e, e};
  void *scratch = malloc((size_t)sc_k_attention_scratch_bytes(dims));
  int64_t bytes = sc_k_attention_scratch_bytes(dims);
  double flops = 4.0 * (double)b * (double)h * (double)l * (double)l * (double)e;
  /* compact: q, k, v one after another, each [b, h, l, e] */
  int64_t compact[18] = {h * l * e, l * e, e, 1, h * l * e, l * e, e, 1, h * l * e, l * e, e, h * l * e, l * e, e, 0, 0, 0, 0};
  double tc = time_calls(proj, proj + n, proj + 2 * n, out, dims, compact, scratch, bytes, flops);
  /* the head split: proj is [l, b, 3, h, e]; q[b, h, i, c] = proj[i, b, 0, h, c] */
  int64_t row = b * 3 * h * e, item = 3 * h * e;
  int64_t split[18] = {item, e, row, 1, item, e, row, 1, item, e, row, h * l * e, l * e, e, 0, 0, 0, 0};
  double ts = time_calls(proj, proj + h * e, proj + 2 * h * e, out, dims, split, scratch, bytes, flops);
  printf("| [%lld, %lld, %lld, %lld] | %.1f | %.1f | %.1f | %.1f |\n", (long long)b, (long long)h, (long long)l,
         (long long)e, tc / 1e3, flops / tc, ts / 1e3, flops / ts);
  free(proj);
  free(out);
  free(scratch);
}

static void table(int argc, char **argv, const char *lanes) {
  printf("\n%s\n\n| [batch, heads, tokens, width] | compact (us) | GFLOP/s | head split (us) | GFLOP/s |\n"
         "|---|---|---|---|---|\n", lanes);
  if (argc >= 5) {
    for (int i = 1; i + 3 < argc; i += 4) run(atoll(argv[i]), atoll(argv[i + 1]), atoll(argv[i + 2]), atoll(argv[i + 3]));
    return;
  }
  run(8, 4, 128, 64);
  run(1, 4, 128, 64);
  run(8, 8, 512, 64);
}

int main(int argc, char **argv) {
  table(argc, argv, "8-lane tiles (AVX2)");
  char err[256];
  if (sc_rt_cpu_has("avx512f", 7) != 1 || sc_rt_cpu_supported("avx2,fma,avx512f", err, sizeof err) != 0) return 0;
  table(argc, argv, "16-lane tiles (AVX-512)");
  return 0;
}
