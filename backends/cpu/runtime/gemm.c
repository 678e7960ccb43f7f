/* gemm.c - batched matrix products through OpenBLAS's cblas_sgemm. */
#include <cblas.h>
#include <stdint.h>

#include "kernels.h"

/* C[b] = alpha * op(A[b]) @ op(B[b]) + beta * C[b]; a batch stride of 0 broadcasts. */
int sc_k_bmm_f32(int64_t batch, int64_t m, int64_t n, int64_t k, const float *a, int64_t a_batch_stride, int32_t trans_a,
                 const float *b, int64_t b_batch_stride, int32_t trans_b, float *c, float alpha, float beta) {
  if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX) return SHAPEC_ERR_ARGUMENT; /* blasint is 32-bit */
  if (m == 0 || n == 0) return SHAPEC_OK;
  for (int64_t i = 0; i < batch; i++) {
    float *ci = c + i * m * n;
    if (k == 0) {
      for (int64_t j = 0; j < m * n; j++) ci[j] = beta == 0.0f ? 0.0f : beta * ci[j];
      continue;
    }
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, (int)m, (int)n,
                (int)k, alpha, a + i * a_batch_stride, trans_a ? (int)m : (int)k, b + i * b_batch_stride,
                trans_b ? (int)k : (int)n, beta, ci, (int)n);
  }
  return SHAPEC_OK;
}

void openblas_set_num_threads(int n);

void sc_rt_blas_threads(int n) { openblas_set_num_threads(n); }
