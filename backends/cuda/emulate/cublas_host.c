/* cublas_host.c - the cuBLAS entry points that backends/cuda/runtime/cublas.c calls,
 * computed on the host as cuBLAS documents them (column-major matrices, op(A) of m x k,
 * leading dimensions, strided batches, the dtypes of cublasGemmStridedBatchedEx), with
 * cuBLAS's argument checks.  Handed out by the emulation only when
 * SHAPEC_CUDA_EMULATE_CUBLAS=1 (emulate.c), so that the row-major-to-column-major
 * arguments and the half-precision operands are tested without a GPU. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/llvm/half_bits.h"
#include "emulate.h"

enum { OP_N = 0, OP_T = 1 };
enum { STATUS_OK = 0, STATUS_INVALID_VALUE = 7, STATUS_NOT_SUPPORTED = 15 };
enum { R_32F = 0, R_16F = 2, R_16BF = 14, COMPUTE_32F = 68 };

int64_t sc_emu_cublas_calls[3];

/* SHAPEC_CUDA_EMULATE_CUBLAS_LOG=FILE: one line per product appended to FILE (the tests
 * see which products took cuBLAS, in which dtype). */
static void log_call(const char *what, int type, int m, int n, int k, int batch) {
  sc_emu_cublas_calls[type == R_16F ? 1 : type == R_16BF ? 2 : 0]++;
  const char *path = getenv("SHAPEC_CUDA_EMULATE_CUBLAS_LOG");
  FILE *f = path && *path ? fopen(path, "a") : NULL;
  if (!f) return;
  fprintf(f, "%s %s m=%d n=%d k=%d batch=%d\n", what, type == R_16F ? "float16" : type == R_16BF ? "bfloat16" : "float32",
          m, n, k, batch);
  fclose(f);
}

static int create(void **handle) {
  static int the_handle;
  *handle = &the_handle;
  return STATUS_OK;
}

static int set_stream(void *handle, void *stream) {
  (void)stream;
  return handle ? STATUS_OK : STATUS_INVALID_VALUE;
}


static float element(const void *base, int type, int64_t at) {
  switch (type) {
    case R_16F: return sc_half_bits_to_f32(((const uint16_t *)base)[at], 0);
    case R_16BF: return sc_half_bits_to_f32(((const uint16_t *)base)[at], 1);
    default: return ((const float *)base)[at];
  }
}

/* C = alpha op(A) op(B) + beta C for each of `batch` matrices (C not read when beta is 0). */
static int gemm(int ta, int tb, int m, int n, int k, float alpha, const void *a, int atype, int lda, long long sa,
                const void *b, int btype, int ldb, long long sb, float beta, float *c, int ldc, long long sc,
                int batch) {
  if ((ta != OP_N && ta != OP_T) || (tb != OP_N && tb != OP_T) || m < 0 || n < 0 || k < 0 || batch < 0 ||
      lda < (ta == OP_N ? (m > 1 ? m : 1) : (k > 1 ? k : 1)) || ldb < (tb == OP_N ? (k > 1 ? k : 1) : (n > 1 ? n : 1)) ||
      ldc < (m > 1 ? m : 1))
    return STATUS_INVALID_VALUE;
  for (int p = 0; p < batch; p++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < m; i++) {
        float sum = 0;
        for (int l = 0; l < k; l++) {
          int64_t ai = p * sa + (ta == OP_N ? i + (int64_t)l * lda : l + (int64_t)i * lda);
          int64_t bi = p * sb + (tb == OP_N ? l + (int64_t)j * ldb : j + (int64_t)l * ldb);
          sum += element(a, atype, ai) * element(b, btype, bi);
        }
        float *out = c + p * sc + i + (int64_t)j * ldc;
        *out = alpha * sum + (beta != 0 ? beta * *out : 0);
      }
  return STATUS_OK;
}

static int sgemm_strided_batched(void *handle, int ta, int tb, int m, int n, int k, const float *alpha, const float *a,
                                 int lda, long long sa, const float *b, int ldb, long long sb, const float *beta,
                                 float *c, int ldc, long long sc, int batch) {
  if (!handle) return STATUS_INVALID_VALUE;
  log_call("cublasSgemmStridedBatched", R_32F, m, n, k, batch);
  return gemm(ta, tb, m, n, k, *alpha, a, R_32F, lda, sa, b, R_32F, ldb, sb, *beta, c, ldc, sc, batch);
}

/* Only what cublas.c asks for: half or float32 A and B of one dtype, float32 C, float32
 * compute (alpha and beta then float32). */
static int gemm_strided_batched_ex(void *handle, int ta, int tb, int m, int n, int k, const void *alpha, const void *a,
                                   int atype, int lda, long long sa, const void *b, int btype, int ldb, long long sb,
                                   const void *beta, void *c, int ctype, int ldc, long long sc, int batch,
                                   int compute, int algo) {
  (void)algo;
  if (!handle) return STATUS_INVALID_VALUE;
  if (atype != btype || (atype != R_16F && atype != R_16BF && atype != R_32F) || ctype != R_32F ||
      compute != COMPUTE_32F)
    return STATUS_NOT_SUPPORTED;
  log_call("cublasGemmStridedBatchedEx", atype, m, n, k, batch);
  return gemm(ta, tb, m, n, k, *(const float *)alpha, a, atype, lda, sa, b, btype, ldb, sb, *(const float *)beta, c,
              ldc, sc, batch);
}

void *sc_emu_cublas_symbol(const char *name) {
  if (strcmp(name, "cublasCreate_v2") == 0) return (void *)create;
  if (strcmp(name, "cublasSetStream_v2") == 0) return (void *)set_stream;
  if (strcmp(name, "cublasSgemmStridedBatched") == 0) return (void *)sgemm_strided_batched;
  if (strcmp(name, "cublasGemmStridedBatchedEx") == 0) return (void *)gemm_strided_batched_ex;
  return NULL;
}
