/* gemm.c - batched matrix products through OpenBLAS's cblas_sgemm (those of at most four
 * rows through skinny.c).
 *
 * OpenBLAS picks its kernels when it is loaded, from cpuid; a CPU model it does not know
 * (virtual machines report "Intel Xeon Processor") gets the SSE3 "Prescott" kernels, 3-4x
 * slower than the AVX-512 ones.  So the library loads OpenBLAS itself on first use, after
 * setting OPENBLAS_CORETYPE from the instruction sets this CPU really has, unless the user
 * set it.  A copy of OpenBLAS already loaded into the process (numpy loads it at its
 * import) keeps the kernels it chose then; where those are slower than this CPU's, the
 * linear layers go to oneDNN instead (onednn.c, sc_rt_blas_slow), and every other
 * product's parts to oneDNN's sgemm (part_product), which onednn.c registers here when it
 * loads oneDNN (sc_rt_blas_set_backup: this file does not call up into it).  A private copy in a
 * namespace of its own (dlmopen) chose again, but made glibc abort later thread creations
 * ("_dl_allocate_tls_init: Assertion `listp != NULL' failed"). */
#include <dlfcn.h>
#include <immintrin.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kernels.h"
#include "vec_activation.h"

enum { ROW_MAJOR = 101, NO_TRANS = 111, TRANS = 112 }; /* cblas.h's values */

typedef void (*sgemm_fn)(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                         const float *b, int ldb, float beta, float *c, int ldc);
typedef void (*set_threads_fn)(int n);
typedef int (*get_threads_fn)(void);
typedef char *(*core_name_fn)(void);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static sgemm_fn sgemm;
static _Atomic(sc_rt_part_sgemm_fn) backup; /* oneDNN's, registered when onednn.c loads it */
static set_threads_fn set_threads;
static get_threads_fn get_threads;
static bool slow_kernels;
static char load_error[256];

/* The OPENBLAS_CORETYPE this CPU's instruction sets deserve; NULL: let OpenBLAS choose. */
static const char *blas_core(void) {
#define HAS(name) (sc_rt_cpu_has(name, sizeof name - 1) == 1)
  if (HAS("avx512f") && HAS("avx512bw") && HAS("avx512dq") && HAS("avx512vl") && HAS("avx512cd")) return "SkylakeX";
  if (HAS("avx2") && HAS("fma")) return "Haswell";
  if (HAS("avx")) return "Sandybridge";
  return NULL;
#undef HAS
}


/* OpenBLAS computes on the calling thread only: the library's own pool (pool.c) splits
 * the products, so one team of threads runs a whole call and OpenBLAS's idle workers, which
 * spin for about 0.1 s after each product, never start.  Checked before each product, since
 * the process may share this OpenBLAS (numpy's) and change its count. */
static void single_threaded_blas(void) {
  if (set_threads && get_threads && get_threads() != 1) set_threads(1);
}

/* How fast OpenBLAS's kernels for a core type are, by the instructions they use. */
static int core_rank(const char *core) {
  if (!core) return 0;
  if (strcasecmp(core, "SkylakeX") == 0 || strcasecmp(core, "Cooperlake") == 0 || strcasecmp(core, "SapphireRapids") == 0)
    return 3;
  if (strcasecmp(core, "Haswell") == 0 || strcasecmp(core, "Zen") == 0) return 2;
  if (strcasecmp(core, "Sandybridge") == 0) return 1;
  return 0;
}

static void load(void) {
  const char *core = blas_core();
  if (core) setenv("OPENBLAS_CORETYPE", core, 0);
  void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(load_error, sizeof load_error, "cannot load OpenBLAS (apt-get install libopenblas0): %s", dlerror());
    return;
  }
  set_threads = (set_threads_fn)dlsym(h, "openblas_set_num_threads");
  get_threads = (get_threads_fn)dlsym(h, "openblas_get_num_threads");
  sgemm = (sgemm_fn)dlsym(h, "cblas_sgemm");
  if (!sgemm) snprintf(load_error, sizeof load_error, "libopenblas.so.0 has no cblas_sgemm");
  /* against what this CPU can run, not against OPENBLAS_CORETYPE: a user (or a container
   * image: this project's machines export OPENBLAS_CORETYPE=Haswell) may hold OpenBLAS to
   * older kernels, which is theirs to choose for OpenBLAS, but the products then run on
   * oneDNN's kernels for this CPU (GPT-2-small's prefill of 128 tokens on Zen 5: 253 ms on
   * OpenBLAS's Haswell kernels, 148 ms
   * on oneDNN's) */
  core_name_fn name = (core_name_fn)dlsym(h, "openblas_get_corename");
  slow_kernels = name && core && core_rank(name()) < core_rank(core);
  single_threaded_blas();
}

void sc_rt_blas_set_backup(sc_rt_part_sgemm_fn fn) { atomic_store(&backup, fn); }

bool sc_rt_blas_slow(void) {
  pthread_once(&once, load);
  return slow_kernels;
}

const char *sc_rt_blas_error(void) {
  pthread_once(&once, load);
  return sgemm ? NULL : load_error;
}

int sc_rt_blas_ready(char *err, size_t errlen) {
  const char *why = sc_rt_blas_error();
  if (!why) return SHAPEC_OK;
  if (err && errlen) snprintf(err, errlen, "%s", why);
  return SHAPEC_ERR_CPU;
}

/* A product too small for BLAS to pay off: OpenBLAS's interface, buffers and packing cost
 * about 100 ns, more than the arithmetic of a couple of thousand multiply-adds (the tiny
 * attention's in-projection, 8 x 24 x 8, spent 200 ns in OpenBLAS). */
enum { TINY_GEMM = 2048 }; /* m * n * k at most */

bool sc_k_tiny_product(int64_t m, int64_t n, int64_t k) {
  return k > 0 && m <= TINY_GEMM && n <= TINY_GEMM && k <= TINY_GEMM && m * n * k <= TINY_GEMM;
}

/* C = alpha A B + beta C with A and B upright; lda, ldb, ldc: the distance between rows of
 * the matrices as stored (BLAS's meaning).  Each row of C is built as a sum of rows of B
 * scaled by A's elements: the loop over C's columns has no dependence between iterations
 * and vectorizes, where one dot product per element waited on its own additions (a tiny
 * convolution's 2x9 by 9x25 product).  Each element adds its k products in order. */
static void tiny_rows_plain(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, const float *b, int64_t ldb,
                            float *c, int64_t ldc, float alpha, float beta) {
  float row[TINY_GEMM];
  for (int64_t i = 0; i < m; i++) {
    for (int64_t j = 0; j < n; j++) row[j] = 0.0f;
    for (int64_t p = 0; p < k; p++) {
      float x = a[i * lda + p];
      const float *bp = b + p * ldb;
      for (int64_t j = 0; j < n; j++) row[j] += x * bp[j];
    }
    float *ci = c + i * ldc;
    /* as BLAS: beta 0 never reads C (which may hold NaN) */
    if (beta == 0.0f)
      for (int64_t j = 0; j < n; j++) ci[j] = alpha * row[j];
    else
      for (int64_t j = 0; j < n; j++) ci[j] = alpha * row[j] + beta * ci[j];
  }
}

/* The lanes [0, w) of 8, as a maskload's mask. */
__attribute__((target("avx2"))) static inline __m256i lanes8(int64_t w) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(w < 8 ? w : 8)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* tiny_rows_plain for V vectors of 8 columns (w of them, the last vector `tail` masked),
 * each kept in a register across the k steps; RB rows at a time, and the k steps split
 * S ways (S partial sums, added at the end), so that V RB S = 8 or 9 chains of
 * multiply-adds overlap: enough to cover an add's 4 cycles at two a cycle.  A row kept in
 * memory instead waited on its store and reload at every step (in-projection 8 x 24 x 8:
 * 0.27 us); two rows at a time left the in-projection's six chains, a linear layer's
 * [2, 16] x [16, 3] one, waiting.  A block past the last row reads that row again and
 * stores nothing for it.  `bias` (w floats, or NULL) starts every row's sums: a linear
 * layer's bias, where copying it into C's rows first for beta 1 cost 10 ns more. */
__attribute__((target("avx2,fma"), always_inline)) static inline void tiny_rows_avx2(int V, int RB, int S, int64_t m,
                                                                                    int64_t k, const float *a,
                                                                                    int64_t lda, const float *b,
                                                                                    int64_t ldb, float *c, int64_t ldc,
                                                                                    int64_t w, const float *bias,
                                                                                    float alpha, float beta,
                                                                                    const float *residual, int act) {
  __m256i tail = lanes8(w - 8 * (V - 1));
  bool masked = w < 8 * V;
  __m256 start[4];
#pragma GCC unroll 4
  for (int v = 0; v < V; v++)
    start[v] = !bias                      ? _mm256_setzero_ps()
               : v == V - 1 && masked ? _mm256_maskload_ps(bias + 8 * v, tail)
                                      : _mm256_loadu_ps(bias + 8 * v);
  for (int64_t i = 0; i < m; i += RB) {
    int64_t R = m - i < RB ? m - i : RB;
    const float *arow[8];
#pragma GCC unroll 8
    for (int r = 0; r < RB; r++) arow[r] = a + (r < R ? i + r : m - 1) * lda;
    __m256 acc[4][8][4];
#pragma GCC unroll 8
    for (int q = 0; q < S; q++)
#pragma GCC unroll 8
      for (int r = 0; r < RB; r++)
#pragma GCC unroll 8
        for (int v = 0; v < V; v++) acc[q][r][v] = q == 0 ? start[v] : _mm256_setzero_ps();
    int64_t p = 0;
    for (; p + S <= k; p += S)
#pragma GCC unroll 8
      for (int q = 0; q < S; q++) {
        const float *bp = b + (p + q) * ldb;
        __m256 bv[4];
#pragma GCC unroll 8
        for (int v = 0; v < V; v++)
          bv[v] = v == V - 1 && masked ? _mm256_maskload_ps(bp + 8 * v, tail) : _mm256_loadu_ps(bp + 8 * v);
#pragma GCC unroll 8
        for (int r = 0; r < RB; r++) {
          __m256 x = _mm256_broadcast_ss(arow[r] + p + q);
#pragma GCC unroll 8
          for (int v = 0; v < V; v++) acc[q][r][v] = _mm256_fmadd_ps(x, bv[v], acc[q][r][v]);
        }
      }
    for (; p < k; p++) { /* the last k mod S steps */
      const float *bp = b + p * ldb;
#pragma GCC unroll 8
      for (int v = 0; v < V; v++) {
        __m256 bv = v == V - 1 && masked ? _mm256_maskload_ps(bp + 8 * v, tail) : _mm256_loadu_ps(bp + 8 * v);
#pragma GCC unroll 8
        for (int r = 0; r < RB; r++) acc[0][r][v] = _mm256_fmadd_ps(_mm256_broadcast_ss(arow[r] + p), bv, acc[0][r][v]);
      }
    }
#pragma GCC unroll 8
    for (int q = 1; q < S; q++)
#pragma GCC unroll 8
      for (int r = 0; r < RB; r++)
#pragma GCC unroll 8
        for (int v = 0; v < V; v++) acc[0][r][v] = _mm256_add_ps(acc[0][r][v], acc[q][r][v]);
    /* the sums copied out once, by constant indices: read by the variable ones below,
     * acc itself lived on the stack, stored at every step (a third of the product) */
    __m256 sums[8][4];
#pragma GCC unroll 8
    for (int r = 0; r < RB; r++)
#pragma GCC unroll 4
      for (int v = 0; v < V; v++) sums[r][v] = acc[0][r][v];
    /* as BLAS: beta 0 never reads C (which may hold NaN).  Whole vectors are stored as
     * they are; a partial last one through plain stores (a masked one is microcoded on
     * AMD).  Every element through a copy took a fifth of a tiny attention's products. */
    for (int r = 0; r < R; r++) {
      float *ci = c + (i + r) * ldc;
      const float *res = residual ? residual + (i + r) * ldc : NULL;
      for (int v = 0; v < V; v++) {
        __m256 y = activated8(_mm256_mul_ps(sums[r][v], _mm256_set1_ps(alpha)), act);
        int64_t cols = v < V - 1 ? 8 : w - 8 * v;
        /* a linear layer's epilogue: act(x W + b) + residual, before the single store */
        if (res) y = _mm256_add_ps(y, cols == 8 ? _mm256_loadu_ps(res + 8 * v) : _mm256_maskload_ps(res + 8 * v, tail));
        if (cols == 8) {
          if (beta != 0.0f) y = _mm256_add_ps(y, _mm256_mul_ps(_mm256_set1_ps(beta), _mm256_loadu_ps(ci + 8 * v)));
          _mm256_storeu_ps(ci + 8 * v, y);
          continue;
        }
        float part[8];
        _mm256_storeu_ps(part, y);
        for (int64_t j = 0; j < cols; j++) ci[8 * v + j] = beta == 0.0f ? part[j] : part[j] + beta * ci[8 * v + j];
      }
    }
  }
}

/* tiny_rows_avx2 over C's columns, 32 at a time.  residual (laid out as C) and act
 * (act_in_registers) are a linear layer's epilogue; NULL and SC_ACT_NONE for a product. */
__attribute__((target("avx2,fma"))) static void tiny_columns_avx2(int64_t m, int64_t n, int64_t k, const float *a,
                                                                   int64_t lda, const float *b, int64_t ldb, float *c,
                                                                   int64_t ldc, const float *bias, float alpha,
                                                                   float beta, const float *residual, int act) {
  for (int64_t j0 = 0; j0 < n; j0 += 32) {
    int64_t w = n - j0 < 32 ? n - j0 : 32;
    const float *res = residual ? residual + j0 : NULL;
    switch ((w + 7) / 8) {
      case 4: tiny_rows_avx2(4, 2, 1, m, k, a, lda, b + j0, ldb, c + j0, ldc, w, bias ? bias + j0 : NULL, alpha, beta, res, act); break;
      case 3: tiny_rows_avx2(3, 3, 1, m, k, a, lda, b + j0, ldb, c + j0, ldc, w, bias ? bias + j0 : NULL, alpha, beta, res, act); break;
      case 2:
        if (m <= 2) tiny_rows_avx2(2, 2, 2, m, k, a, lda, b + j0, ldb, c + j0, ldc, w, bias ? bias + j0 : NULL, alpha, beta, res, act);
        else tiny_rows_avx2(2, 4, 1, m, k, a, lda, b + j0, ldb, c + j0, ldc, w, bias ? bias + j0 : NULL, alpha, beta, res, act);
        break;
      default:
        if (m <= 2) tiny_rows_avx2(1, 2, 4, m, k, a, lda, b + j0, ldb, c + j0, ldc, w, bias ? bias + j0 : NULL, alpha, beta, res, act);
        else if (m <= 4) tiny_rows_avx2(1, 4, 2, m, k, a, lda, b + j0, ldb, c + j0, ldc, w, bias ? bias + j0 : NULL, alpha, beta, res, act);
        else tiny_rows_avx2(1, 8, 1, m, k, a, lda, b + j0, ldb, c + j0, ldc, w, bias ? bias + j0 : NULL, alpha, beta, res, act);
        break;
    }
  }
}

/* A product of at most TINY_GEMM multiply-adds.  A transposed operand is first copied
 * upright (at most TINY_GEMM floats): a linear layer's weights [n, k] become [k, n]. */
static void tiny_gemm(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, int32_t trans_a, const float *b,
                      int64_t ldb, int32_t trans_b, float *c, int64_t ldc, float alpha, float beta) {
  float a_up[TINY_GEMM], b_up[TINY_GEMM];
  if (trans_a) {
    for (int64_t i = 0; i < m; i++)
      for (int64_t p = 0; p < k; p++) a_up[i * k + p] = a[p * lda + i];
    a = a_up, lda = k;
  }
  if (trans_b) {
    for (int64_t j = 0; j < n; j++)
      for (int64_t p = 0; p < k; p++) b_up[p * n + j] = b[j * ldb + p];
    b = b_up, ldb = n;
  }
  if (sc_rt_has_avx2()) tiny_columns_avx2(m, n, k, a, lda, b, ldb, c, ldc, NULL, alpha, beta, NULL, SC_ACT_NONE);
  else tiny_rows_plain(m, n, k, a, lda, b, ldb, c, ldc, alpha, beta);
}

bool sc_k_tiny_linear_f32(const float *x, const float *w, const float *bias, const float *residual, int32_t act,
                          float *y, int64_t m, int64_t n, int64_t k) {
  if (!sc_k_tiny_product(m, n, k) || !sc_rt_has_avx2() || !act_in_registers(act)) return false;
  tiny_columns_avx2(m, n, k, x, k, w, n, y, n, bias, 1.0f, 0.0f, residual, act);
  return true;
}

/* One product C = alpha * op(A) @ op(B) + beta * C, with the distances between stored rows
 * (BLAS's lda, ldb, ldc), and how many parts it is split into. */
typedef struct product {
  int64_t m, n, k, lda, ldb, ldc, parts;
  const float *a, *b;
  float *c;
  int32_t trans_a, trans_b, by_rows;
  float alpha, beta;
} product;

/* One single-threaded product of a part: OpenBLAS's, or oneDNN's where the process's
 * OpenBLAS runs slower kernels than this CPU's (numpy loaded it first on a CPU it does not
 * know: a [2048, 256] x [256, 256] product and eight [256, 256] x [256, 256] ones on two
 * threads took 13.3 ms so, 2.4 ms with this CPU's kernels). */
static void part_product(int32_t trans_a, int32_t trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                         int64_t lda, const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
  sc_rt_part_sgemm_fn other = slow_kernels ? atomic_load(&backup) : NULL;
  if (other && other(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)) return;
  sgemm(ROW_MAJOR, trans_a ? TRANS : NO_TRANS, trans_b ? TRANS : NO_TRANS, (int)m, (int)n, (int)k, alpha, a, (int)lda, b,
        (int)ldb, beta, c, (int)ldc);
}

/* Parts [begin, end) of a product split by rows of C (and A) or by columns of C (and B). */
static void product_parts(void *arg, int64_t begin, int64_t end) {
  const product *j = arg;
  for (int64_t p = begin; p < end; p++) {
    int64_t total = j->by_rows ? j->m : j->n, from = total * p / j->parts, to = total * (p + 1) / j->parts;
    if (to == from) continue;
    const float *a = j->a, *b = j->b;
    float *c = j->c;
    int64_t m = j->m, n = j->n;
    if (j->by_rows) {
      a += j->trans_a ? from : from * j->lda;
      c += from * j->ldc;
      m = to - from;
    } else {
      b += j->trans_b ? from * j->ldb : from;
      c += from;
      n = to - from;
    }
    if (sc_rt_skinny_product(m, n, j->k, a, j->lda, j->trans_a, b, j->ldb, j->trans_b, c, j->ldc, j->alpha, j->beta))
      continue;
    part_product(j->trans_a, j->trans_b, m, n, j->k, j->alpha, a, j->lda, b, j->ldb, j->beta, c, j->ldc);
  }
}

/* A product worth splitting (a million multiply-adds a part) runs in parts on the pool,
 * split along the longer side of C: the other operand, which every part packs, is the
 * smaller. */
enum { SPLIT_MACS = 1 << 20, MAX_PARTS = 8 };

static void run_product(product *j) {
  /* the parts depend on the product's sizes, never on the thread count: OpenBLAS adds a
   * part's terms in an order that depends on the part's sizes (its edge kernels; on
   * AVX-512 also its small-product kernels), so parts cut by the thread count gave one
   * thread and two different bits (a [48, 432] x [432, 108] product on a Xeon).  One part
   * per SPLIT_MACS, a power of two up to MAX_PARTS, at least one row or column each. */
  j->by_rows = j->m > j->n;
  int64_t macs = j->m * j->n * j->k, side = j->by_rows ? j->m : j->n;
  j->parts = 1;
  while (j->parts < MAX_PARTS && macs / (2 * j->parts) >= SPLIT_MACS && 2 * j->parts <= side) j->parts *= 2;
  if (j->parts > 1)
    sc_rt_parallel_for(product_parts, j, j->parts, 1);
  else
    product_parts(j, 0, 1);
}

/* C[b] = alpha * op(A[b]) @ op(B[b]) + beta * C[b]; a batch stride of 0 broadcasts.  With
 * several threads a large product is split in parts across the library's pool, each part a
 * single-threaded OpenBLAS call (single_threaded_blas).  Measured on the two-core VM: the
 * encoder block 1.25 -> 1.07 ms at batch 1 and 8.5 -> 7.0 ms at batch 8 against OpenBLAS's
 * own threads, once the pool's workers spin briefly between loops (pool.c). */
int sc_k_bmm_f32(int64_t batch, int64_t m, int64_t n, int64_t k, const float *a, int64_t a_batch_stride, int32_t trans_a,
                 const float *b, int64_t b_batch_stride, int32_t trans_b, float *c, float alpha, float beta) {
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX) return SHAPEC_ERR_ARGUMENT; /* blasint is 32-bit */
  if (m == 0 || n == 0) return SHAPEC_OK;
  if (sc_rt_blas_error()) return SHAPEC_ERR_CPU; /* prepare reported it with a message */
  if (sc_k_tiny_product(m, n, k)) {
    for (int64_t i = 0; i < batch; i++)
      tiny_gemm(m, n, k, a + i * a_batch_stride, trans_a ? m : k, trans_a, b + i * b_batch_stride, trans_b ? k : n, trans_b,
                c + i * m * n, n, alpha, beta);
    return SHAPEC_OK;
  }
  single_threaded_blas();
  for (int64_t i = 0; i < batch; i++) {
    float *ci = c + i * m * n;
    if (k == 0) {
      for (int64_t j = 0; j < m * n; j++) ci[j] = beta == 0.0f ? 0.0f : beta * ci[j];
      continue;
    }
    product j = {.m = m, .n = n, .k = k, .lda = trans_a ? m : k, .ldb = trans_b ? k : n, .ldc = n,
                 .a = a + i * a_batch_stride, .b = b + i * b_batch_stride, .c = ci, .trans_a = trans_a,
                 .trans_b = trans_b, .alpha = alpha, .beta = beta};
    run_product(&j);
  }
  return SHAPEC_OK;
}

/* The same for a convolution's product. */
int sc_k_conv_gemm_f32(int64_t m, int64_t n, int64_t k, const float *a, int32_t trans_a, const float *b,
                       int32_t trans_b, float *c, float alpha, float beta) {
  return sc_k_bmm_f32(1, m, n, k, a, 0, trans_a, b, 0, trans_b, c, alpha, beta);
}

/* ---- products read and written through strides ---- */

typedef struct strided_gemm {
  int64_t batch1, m, n, k;
  const float *a, *b;
  float *c;
  const int64_t *as, *bs, *cs; /* per operand: outer batch stride, inner batch stride, leading dim */
  int32_t trans_a, trans_b, tiny;
  float alpha, beta;
} strided_gemm;

static void strided_item(const strided_gemm *j, int64_t item) {
  int64_t o = item / j->batch1, i = item % j->batch1;
  const float *a = j->a + o * j->as[0] + i * j->as[1], *b = j->b + o * j->bs[0] + i * j->bs[1];
  float *c = j->c + o * j->cs[0] + i * j->cs[1];
  if (j->k == 0) {
    for (int64_t r = 0; r < j->m; r++)
      for (int64_t q = 0; q < j->n; q++) c[r * j->cs[2] + q] = j->beta == 0.0f ? 0.0f : j->beta * c[r * j->cs[2] + q];
    return;
  }
  if (j->tiny) {
    tiny_gemm(j->m, j->n, j->k, a, j->as[2], j->trans_a, b, j->bs[2], j->trans_b, c, j->cs[2], j->alpha, j->beta);
    return;
  }
  if (sc_rt_skinny_product(j->m, j->n, j->k, a, j->as[2], j->trans_a, b, j->bs[2], j->trans_b, c, j->cs[2], j->alpha,
                           j->beta))
    return;
  part_product(j->trans_a, j->trans_b, j->m, j->n, j->k, j->alpha, a, j->as[2], b, j->bs[2], j->beta, c, j->cs[2]);
}

static void strided_items(void *arg, int64_t begin, int64_t end) {
  for (int64_t item = begin; item < end; item++) strided_item(arg, item);
}

/* BLAS wants a leading dim of at least the stored row's length, even where only one row
 * is read (then any stride is right). */
static int64_t leading_dim(int64_t ld, int64_t rows, int64_t row_length) {
  return rows <= 1 && ld < row_length ? row_length : ld;
}

int sc_k_bmm_strided_f32(const int64_t *shape, const float *a, const int64_t *a_strides, int32_t trans_a, const float *b,
                         const int64_t *b_strides, int32_t trans_b, float *c, const int64_t *c_strides, float alpha,
                         float beta) {
  int64_t batch0 = shape[0], batch1 = shape[1], m = shape[2], n = shape[3], k = shape[4];
  if (m == 0 || n == 0 || batch0 == 0 || batch1 == 0) return SHAPEC_OK;
  int64_t as[3] = {a_strides[0], a_strides[1], 0}, bs[3] = {b_strides[0], b_strides[1], 0};
  int64_t cs[3] = {c_strides[0], c_strides[1], leading_dim(c_strides[2], m, n)};
  as[2] = trans_a ? leading_dim(a_strides[2], k, m) : leading_dim(a_strides[2], m, k);
  bs[2] = trans_b ? leading_dim(b_strides[2], n, k) : leading_dim(b_strides[2], k, n);
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX || as[2] > INT32_MAX || bs[2] > INT32_MAX || cs[2] > INT32_MAX)
    return SHAPEC_ERR_ARGUMENT; /* blasint is 32-bit */
  bool tiny = k > 0 && m <= TINY_GEMM && n <= TINY_GEMM && k <= TINY_GEMM && m * n * k <= TINY_GEMM;
  if (!tiny && k > 0 && sc_rt_blas_error()) return SHAPEC_ERR_CPU; /* prepare reported it with a message */
  strided_gemm j = {batch1, m, n, k, a, b, c, as, bs, cs, trans_a, trans_b, tiny, alpha, beta};
  int64_t items = batch0 * batch1;
  int threads = sc_rt_team_threads();
  if (!tiny) single_threaded_blas();
  /* attention's many small products: whole products to each worker of the pool */
  if (threads > 1 && items >= threads && !tiny) {
    sc_rt_parallel_for(strided_items, &j, items, 1);
    return SHAPEC_OK;
  }
  if (tiny || k == 0) {
    strided_items(&j, 0, items);
    return SHAPEC_OK;
  }
  /* fewer products than threads: each split in parts, like a plain product */
  for (int64_t item = 0; item < items; item++) {
    int64_t o = item / batch1, i = item % batch1;
    product p = {.m = m, .n = n, .k = k, .lda = as[2], .ldb = bs[2], .ldc = cs[2], .a = a + o * as[0] + i * as[1],
                 .b = b + o * bs[0] + i * bs[1], .c = c + o * cs[0] + i * cs[1], .trans_a = trans_a,
                 .trans_b = trans_b, .alpha = alpha, .beta = beta};
    run_product(&p);
  }
  return SHAPEC_OK;
}
