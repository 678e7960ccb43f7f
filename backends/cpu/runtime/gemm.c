/* gemm.c - batched matrix products through OpenBLAS's cblas_sgemm.
 *
 * OpenBLAS picks its kernels when it is loaded, from cpuid; a CPU model it does not know
 * (virtual machines report "Intel Xeon Processor") gets the SSE3 "Prescott" kernels, 3-4x
 * slower than the AVX-512 ones.  So the library loads OpenBLAS itself on first use, after
 * setting OPENBLAS_CORETYPE from the instruction sets this CPU really has, unless the user
 * set it.  (A copy of OpenBLAS already loaded into the process under the same name keeps
 * the kernels it chose.) */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels.h"

enum { ROW_MAJOR = 101, NO_TRANS = 111, TRANS = 112 }; /* cblas.h's values */

typedef void (*sgemm_fn)(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                         const float *b, int ldb, float beta, float *c, int ldc);
typedef void (*threads_fn)(int n);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static sgemm_fn sgemm;
static threads_fn set_threads;
static char load_error[256];

static void load(void) {
  const char *core = sc_rt_blas_core();
  if (core) setenv("OPENBLAS_CORETYPE", core, 0);
  void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(load_error, sizeof load_error, "cannot load OpenBLAS (apt-get install libopenblas0): %s", dlerror());
    return;
  }
  set_threads = (threads_fn)dlsym(h, "openblas_set_num_threads");
  sgemm = (sgemm_fn)dlsym(h, "cblas_sgemm");
  if (!sgemm) snprintf(load_error, sizeof load_error, "libopenblas.so.0 has no cblas_sgemm");
  /* one thread count for the pool and OpenBLAS: SHAPEC_NUM_THREADS or every CPU */
  if (set_threads) set_threads(shapec_model_get_num_threads());
}

const char *sc_rt_blas_error(void) {
  pthread_once(&once, load);
  return sgemm ? NULL : load_error;
}

/* C[b] = alpha * op(A[b]) @ op(B[b]) + beta * C[b]; a batch stride of 0 broadcasts. */
int sc_k_bmm_f32(int64_t batch, int64_t m, int64_t n, int64_t k, const float *a, int64_t a_batch_stride, int32_t trans_a,
                 const float *b, int64_t b_batch_stride, int32_t trans_b, float *c, float alpha, float beta) {
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX) return SHAPEC_ERR_ARGUMENT; /* blasint is 32-bit */
  if (m == 0 || n == 0) return SHAPEC_OK;
  if (sc_rt_blas_error()) return SHAPEC_ERR_CPU; /* prepare reported it with a message */
  for (int64_t i = 0; i < batch; i++) {
    float *ci = c + i * m * n;
    if (k == 0) {
      for (int64_t j = 0; j < m * n; j++) ci[j] = beta == 0.0f ? 0.0f : beta * ci[j];
      continue;
    }
    sgemm(ROW_MAJOR, trans_a ? TRANS : NO_TRANS, trans_b ? TRANS : NO_TRANS, (int)m, (int)n, (int)k, alpha,
          a + i * a_batch_stride, trans_a ? (int)m : (int)k, b + i * b_batch_stride, trans_b ? (int)k : (int)n, beta, ci,
          (int)n);
  }
  return SHAPEC_OK;
}

void sc_rt_blas_threads(int n) {
  if (!sc_rt_blas_error() && set_threads) set_threads(n);
}
