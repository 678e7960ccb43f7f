/* skinny.c - products with a few rows: a linear layer at batch 1 to 4.
 *
 * C = alpha * A @ op(B) + beta * C with m <= 4 rows is bound by reading B (the weights)
 * once.  OpenBLAS's Haswell kernels pack B before computing, every call: on an AVX2 CPU
 * the MLP at batch 1 took 0.20 ms where reading its 2.7 MB of weights takes 0.06 ms
 * (the AVX-512 kernels have a small-matrix path and took 0.063 ms).  Here B is streamed
 * once, each element fused into every row's accumulator:
 *   - B stored as [n, k] (a linear layer's weight): per block of B's rows, dot products
 *     along k, 8 lanes at a time;
 *   - B stored as [k, n] (GPT-2's Conv1D weights): per block of AXPY_COLS columns, C's
 *     rows accumulated along k in a buffer that stays in the L1 cache, B read a row
 *     segment at a time.  Blocks of 16 columns walked B down its columns, 64 bytes from
 *     each row, which the prefetchers follow badly: GPT-2-small's decode step spent 29
 *     of its 37 ms there (1 core, Zen 5), reading its 340 MB of such weights at 12 GB/s.
 * A must have its rows contiguous along k (not transposed). */
#include <immintrin.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernels.h"

enum { SKINNY_ROWS = 4 };

__attribute__((target("avx2,fma"))) static inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

static inline void store(float *c, float acc, float alpha, float beta) {
  *c = beta == 0.0f ? alpha * acc : alpha * acc + beta * *c; /* beta 0 never reads C, as BLAS */
}

/* B rows [j, j + JB) against A's M rows: C[i][j + r] = A[i] . B[j + r] */
__attribute__((target("avx2,fma"), always_inline)) static inline void dots(int M, int JB, int64_t k, const float *a,
                                                                             int64_t lda, const float *b, int64_t ldb,
                                                                             float *c, int64_t ldc, float alpha,
                                                                             float beta) {
  __m256 acc[SKINNY_ROWS][4];
  for (int i = 0; i < M; i++)
    for (int r = 0; r < JB; r++) acc[i][r] = _mm256_setzero_ps();
  int64_t p = 0;
  for (; p + 8 <= k; p += 8) {
    __m256 av[SKINNY_ROWS];
    for (int i = 0; i < M; i++) av[i] = _mm256_loadu_ps(a + i * lda + p);
    for (int r = 0; r < JB; r++) {
      __m256 bv = _mm256_loadu_ps(b + r * ldb + p);
      for (int i = 0; i < M; i++) acc[i][r] = _mm256_fmadd_ps(av[i], bv, acc[i][r]);
    }
  }
  for (int i = 0; i < M; i++)
    for (int r = 0; r < JB; r++) {
      float s = hsum(acc[i][r]);
      for (int64_t q = p; q < k; q++) s += a[i * lda + q] * b[r * ldb + q];
      store(c + i * ldc + r, s, alpha, beta);
    }
}

/* Columns [j, j + cols) of C's M rows, cols <= AXPY_COLS and a multiple of 8, B [k, n]:
 * C[i][j..] = sum over p of A[i][p] * B[p][j..], each element's products added in the
 * order of p, four rows of B a pass over the accumulators. */
enum { AXPY_COLS = 256 };
__attribute__((target("avx2,fma"), always_inline)) static inline void axpy_rows(int M, int64_t cols, int64_t k,
                                                                                  const float *a, int64_t lda,
                                                                                  const float *b, int64_t ldb, float *c,
                                                                                  int64_t ldc, float alpha, float beta) {
  float acc[SKINNY_ROWS][AXPY_COLS] __attribute__((aligned(32)));
  for (int i = 0; i < M; i++)
    for (int64_t q = 0; q < cols; q += 8) _mm256_store_ps(acc[i] + q, _mm256_setzero_ps());
  int64_t p = 0;
  for (; p + 4 <= k; p += 4) {
    const float *b0 = b + p * ldb, *b1 = b0 + ldb, *b2 = b1 + ldb, *b3 = b2 + ldb;
    for (int i = 0; i < M; i++) {
      const float *ai = a + i * lda + p;
      __m256 a0 = _mm256_broadcast_ss(ai), a1 = _mm256_broadcast_ss(ai + 1), a2 = _mm256_broadcast_ss(ai + 2),
             a3 = _mm256_broadcast_ss(ai + 3);
      for (int64_t q = 0; q < cols; q += 8) {
        __m256 v = _mm256_load_ps(acc[i] + q);
        v = _mm256_fmadd_ps(a0, _mm256_loadu_ps(b0 + q), v);
        v = _mm256_fmadd_ps(a1, _mm256_loadu_ps(b1 + q), v);
        v = _mm256_fmadd_ps(a2, _mm256_loadu_ps(b2 + q), v);
        v = _mm256_fmadd_ps(a3, _mm256_loadu_ps(b3 + q), v);
        _mm256_store_ps(acc[i] + q, v);
      }
    }
  }
  for (; p < k; p++)
    for (int i = 0; i < M; i++) {
      __m256 ap = _mm256_broadcast_ss(a + i * lda + p);
      for (int64_t q = 0; q < cols; q += 8)
        _mm256_store_ps(acc[i] + q, _mm256_fmadd_ps(ap, _mm256_loadu_ps(b + p * ldb + q), _mm256_load_ps(acc[i] + q)));
    }
  for (int i = 0; i < M; i++)
    for (int64_t q = 0; q < cols; q++) store(c + i * ldc + q, acc[i][q], alpha, beta);
}

/* The same for the last columns (fewer than 16), one at a time. */
static void axpy_tail(int64_t m, int64_t cols, int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb,
                      float *c, int64_t ldc, float alpha, float beta) {
  for (int64_t i = 0; i < m; i++)
    for (int64_t q = 0; q < cols; q++) {
      float s = 0.0f;
      for (int64_t p = 0; p < k; p++) s += a[i * lda + p] * b[p * ldb + q];
      store(c + i * ldc + q, s, alpha, beta);
    }
}

/* Whether this product over the weights at b walks them from the end: every other call
 * does (per weights, by their address, in one of 256 slots), so a call first reads what
 * the call before read last, which is still in the core's cache where all the weights
 * are not.  The MLP at batch 1 (2.7 MB of weights against a 2 MB L2), one core of the
 * Xeon VM: 60.5 -> 47-49 us a call.  Weights that fit the L1 cache gain nothing and are
 * left alone.  Each of C's elements is computed the same way in either direction: the
 * bits do not depend on it. */
enum { WALK_BACK_MIN_BYTES = 64 << 10 };
static _Atomic unsigned char walked_back[256];

static bool walk_back(const float *b, int64_t n, int64_t k) {
  if (n * k < WALK_BACK_MIN_BYTES / (int64_t)sizeof(float)) return false;
  unsigned slot = (unsigned)(((uintptr_t)b >> 6) * 0x9E3779B97F4A7C15ull >> 56);
  return atomic_fetch_xor_explicit(&walked_back[slot], 1, memory_order_relaxed) == 0;
}

/* Columns [j, min(j + AXPY_COLS, whole)) of a [k, n] B, whole a multiple of 16. */
__attribute__((target("avx2,fma"), always_inline)) static inline void axpy_block(int M, int64_t j, int64_t whole,
                                                                                   int64_t k, const float *a, int64_t lda,
                                                                                   const float *b, int64_t ldb, float *c,
                                                                                   int64_t ldc, float alpha, float beta) {
  int64_t cols = whole - j < AXPY_COLS ? whole - j : AXPY_COLS;
  axpy_rows(M, cols, k, a, lda, b + j, ldb, c + j, ldc, alpha, beta);
}

/* Instantiated per row count, so that the accumulators stay in registers (16 ymm: at most
 * 8 accumulators, the operands, and room to load). */
#define SKINNY_VARIANT(M)                                                                                            \
  __attribute__((target("avx2,fma"))) static void skinny_##M(bool b_rows, int64_t n, int64_t k, const float *a,     \
                                                             int64_t lda, const float *b, int64_t ldb, float *c,     \
                                                             int64_t ldc, float alpha, float beta) {                 \
    enum { JB = M <= 2 ? 4 : 2 };                                                                                   \
    int64_t whole = b_rows ? n / JB * JB : n / 16 * 16;                                                             \
    if (walk_back(b, n, k)) { /* the last rows or columns first, then the blocks from the end */                   \
      if (b_rows)                                                                                                   \
        for (int64_t j = n - 1; j >= whole; j--) dots(M, 1, k, a, lda, b + j * ldb, ldb, c + j, ldc, alpha, beta);  \
      else                                                                                                          \
        axpy_tail(M, n - whole, k, a, lda, b + whole, ldb, c + whole, ldc, alpha, beta);                            \
      if (b_rows)                                                                                                   \
        for (int64_t j = whole - JB; j >= 0; j -= JB) dots(M, JB, k, a, lda, b + j * ldb, ldb, c + j, ldc, alpha, beta); \
      else                                                                                                          \
        for (int64_t j = (whole - 1) / AXPY_COLS * AXPY_COLS; j >= 0 && whole; j -= AXPY_COLS)                      \
          axpy_block(M, j, whole, k, a, lda, b, ldb, c, ldc, alpha, beta);                                          \
      return;                                                                                                       \
    }                                                                                                               \
    if (b_rows) {                                                                                                   \
      for (int64_t j = 0; j < whole; j += JB) dots(M, JB, k, a, lda, b + j * ldb, ldb, c + j, ldc, alpha, beta);    \
      for (int64_t j = whole; j < n; j++) dots(M, 1, k, a, lda, b + j * ldb, ldb, c + j, ldc, alpha, beta);         \
    } else {                                                                                                        \
      for (int64_t j = 0; j < whole; j += AXPY_COLS) axpy_block(M, j, whole, k, a, lda, b, ldb, c, ldc, alpha, beta); \
      axpy_tail(M, n - whole, k, a, lda, b + whole, ldb, c + whole, ldc, alpha, beta);                              \
    }                                                                                                               \
  }
SKINNY_VARIANT(1)
SKINNY_VARIANT(2)
SKINNY_VARIANT(3)
SKINNY_VARIANT(4)

bool sc_rt_skinny_product(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, int32_t trans_a, const float *b,
                          int64_t ldb, int32_t trans_b, float *c, int64_t ldc, float alpha, float beta) {
  if (m < 1 || m > SKINNY_ROWS || trans_a || k < 8 || !sc_rt_has_avx2()) return false;
  static void (*const variant[SKINNY_ROWS])(bool, int64_t, int64_t, const float *, int64_t, const float *, int64_t,
                                            float *, int64_t, float, float) = {skinny_1, skinny_2, skinny_3, skinny_4};
  variant[m - 1](trans_b != 0, n, k, a, lda, b, ldb, c, ldc, alpha, beta);
  return true;
}
