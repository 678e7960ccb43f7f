/* stream_copy.c - the memory-bandwidth floor of a loop that reads N bytes and writes N
 * bytes: a copy with streaming (non-temporal) 64-byte stores, which write whole lines
 * without reading them first, four pages at a time.  np.copyto's memcpy
 * streams only past a size derived from the last-level cache, so at 64 MB it reads every
 * destination line first; this copy does not.  bench_chain.py compares the chain with it.
 * Parts are whole multiples of four pages, so only the last thread's part has a tail.
 *
 * usage: taskset -c CPUS build/stream_copy THREADS [MB]   (default 64 MB)
 * prints the median milliseconds of 15 copies (after 3 warm ones) */
#include <immintrin.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { PAGE = 4096, LINE = 64, AHEAD = 8 * PAGE, MAX_THREADS = 64, WARM = 3, TIMED = 15 };

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Four pages at a time, a line of each in turn (as glibc's large memcpy does): 5.0-5.8 ms
 * for 64 MB on one core of the Xeon VM, against 6.4-7.9 ms line after line with the
 * source prefetched 4-64 KB ahead.  Returns the bytes left for the line-by-line tail. */
#define FOUR_PAGES(store_line)                                      \
  size_t i = 0;                                                     \
  for (; i + 4 * PAGE <= bytes; i += 4 * PAGE)                      \
    for (size_t l = 0; l < PAGE; l += LINE)                         \
      for (size_t p = 0; p < 4; p++) {                              \
        size_t at = i + p * PAGE + l;                               \
        _mm_prefetch(src + at + AHEAD, _MM_HINT_T0);                \
        store_line(dst + at, src + at);                             \
      }                                                             \
  for (; i < bytes; i += LINE) store_line(dst + i, src + i);

__attribute__((target("avx512f"))) static inline void line_avx512(char *d, const char *s) {
  _mm512_stream_ps((float *)d, _mm512_load_ps((const float *)s));
}

static inline void line_sse2(char *d, const char *s) {
  for (int q = 0; q < LINE; q += 16) _mm_stream_si128((__m128i *)(d + q), _mm_load_si128((const __m128i *)(s + q)));
}

__attribute__((target("avx512f"))) static void copy_avx512(char *dst, const char *src, size_t bytes) {
  FOUR_PAGES(line_avx512)
}

static void copy_sse2(char *dst, const char *src, size_t bytes) { FOUR_PAGES(line_sse2) }

typedef struct part {
  char *dst;
  const char *src;
  size_t bytes;
} part;

static int wide;

static void *copy_part(void *arg) {
  part *p = arg;
  if (wide) copy_avx512(p->dst, p->src, p->bytes);
  else copy_sse2(p->dst, p->src, p->bytes);
  _mm_sfence();
  return NULL;
}

/* One copy, split in parts of whole four-page units over `threads` threads (the calling
 * one included); the last part takes what is left. */
static void copy(char *dst, const char *src, size_t bytes, int threads) {
  pthread_t tid[MAX_THREADS];
  part parts[MAX_THREADS];
  size_t unit = 4 * PAGE, units = bytes / unit;
  for (int t = 0; t < threads; t++) {
    size_t first = units * (size_t)t / (size_t)threads * unit;
    size_t end = t == threads - 1 ? bytes : units * (size_t)(t + 1) / (size_t)threads * unit;
    parts[t] = (part){dst + first, src + first, end - first};
  }
  bool started[MAX_THREADS] = {false};
  for (int t = 1; t < threads; t++) started[t] = pthread_create(&tid[t], NULL, copy_part, &parts[t]) == 0;
  copy_part(&parts[0]);
  for (int t = 1; t < threads; t++) {
    if (started[t]) pthread_join(tid[t], NULL);
    else copy_part(&parts[t]); /* no thread for it: copied here, and the time says so */
  }
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  long mb = argc > 2 ? atol(argv[2]) : 64;
  if (threads < 1 || threads > MAX_THREADS || mb < 1 || mb > 1 << 16) {
    fprintf(stderr, "usage: stream_copy THREADS [MB]   (1-%d threads, 1-65536 MB)\n", MAX_THREADS);
    return 2;
  }
  wide = __builtin_cpu_supports("avx512f");
  size_t bytes = (size_t)mb << 20;
  char *src = aligned_alloc(LINE, bytes), *dst = aligned_alloc(LINE, bytes);
  if (!src || !dst) {
    fprintf(stderr, "stream_copy: cannot allocate 2 x %ld MB\n", mb);
    return 1;
  }
  memset(src, 1, bytes);
  memset(dst, 0, bytes); /* the pages exist before the first timed copy */
  double ms[TIMED];
  for (int i = 0; i < WARM + TIMED; i++) {
    double start = seconds();
    copy(dst, src, bytes, threads);
    if (i >= WARM) ms[i - WARM] = (seconds() - start) * 1e3;
  }
  qsort(ms, TIMED, sizeof ms[0], by_value);
  printf("%.3f\n", ms[TIMED / 2]);
  free(src);
  free(dst);
  return 0;
}
