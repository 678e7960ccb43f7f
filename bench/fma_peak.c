/* fma_peak.c - one core's float32 FMA peak in AVX2 lanes, and in AVX-512 lanes where the
 * CPU has them: twelve independent chains of fused multiply-adds, enough to keep both FMA
 * units busy through their latency.  The ceiling that no float32 product on this core can
 * pass (the AVX2 one when held to AVX2; docs/benchmarks.md, bench/bench_peers.py's limit).
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

__attribute__((target("avx512f"))) static double gflops_avx512(long steps) {
  __m512 acc[CHAINS];
  for (int c = 0; c < CHAINS; c++) acc[c] = _mm512_set1_ps((float)c * 1e-3f);
  __m512 scale = _mm512_set1_ps(0.9999f), shift = _mm512_set1_ps(1e-6f);
  double start = seconds();
  for (long i = 0; i < steps; i++)
#pragma GCC unroll 12
    for (int c = 0; c < CHAINS; c++) acc[c] = _mm512_fmadd_ps(acc[c], scale, shift);
  double elapsed = seconds() - start;
  float sink = 0.0f;
  for (int c = 0; c < CHAINS; c++) sink += _mm512_reduce_add_ps(acc[c]);
  volatile float keep = sink;
  (void)keep;
  return (double)steps * CHAINS * 16 * 2 / elapsed / 1e9;
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
  if (__builtin_cpu_supports("avx512f")) {
    best = 0.0;
    for (int r = 0; r < ROUNDS; r++) {
      double g = gflops_avx512(100000000L);
      if (g > best) best = g;
    }
    printf("AVX-512 FMA peak on one core: %.1f GFLOP/s (best of %d rounds)\n", best, ROUNDS);
  }
  return 0;
}
