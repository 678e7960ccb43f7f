/* fma_peak.c - one core's float32 FMA peak in AVX2 lanes: twelve independent chains of
 * 8-lane fused multiply-adds, enough to keep both FMA units busy through their latency.
 * The ceiling that no product on this core can pass when held to AVX2 (docs/benchmarks.md).
 *
 * usage: taskset -c 0 build/fma_peak */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

enum { CHAINS = 12, ROUNDS = 5 };

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

__attribute__((target("avx2,fma"))) static double gflops(long steps) {
  __m256 acc[CHAINS];
  for (int c = 0; c < CHAINS; c++) acc[c] = _mm256_set1_ps((float)c * 1e-3f);
  __m256 scale = _mm256_set1_ps(0.9999f), shift = _mm256_set1_ps(1e-6f);
  double start = seconds();
  for (long i = 0; i < steps; i++)
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++) acc[c] = _mm256_fmadd_ps(acc[c], scale, shift);
  double elapsed = seconds() - start;
  /* keep the chains' results alive so the loop is not removed */
  float sink = 0.0f, lanes[8];
  for (int c = 0; c < CHAINS; c++) {
    _mm256_storeu_ps(lanes, acc[c]);
    sink += lanes[0];
  }
  volatile float keep = sink;
  (void)keep;
  return (double)steps * CHAINS * 8 * 2 / elapsed / 1e9;
}

int main(void) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    fprintf(stderr, "fma_peak: this CPU has no AVX2 with FMA\n");
    return 1;
  }
  double best = 0.0;
  for (int r = 0; r < ROUNDS; r++) {
    double g = gflops(200000000L);
    if (g > best) best = g;
  }
  printf("AVX2 FMA peak on one core: %.1f GFLOP/s (best of %d rounds)\n", best, ROUNDS);
  return 0;
}
