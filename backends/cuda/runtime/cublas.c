/* cublas.c - matrix products through cuBLAS when the machine has it, loaded with dlopen
 * like the driver (sc_cu_cublas_symbol).  Row-major products are computed as their
 * column-major transposes: C^T = op(B)^T op(A)^T, so no data moves.  float32 products
 * take cublasSgemmStridedBatched; float16 / bfloat16 ones cublasGemmStridedBatchedEx with
 * float32 accumulation and a float32 C, the tensor cores' products on GPUs that have them. */
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

#include "backends/llvm/runtime_abi.h"
#include "cuda_rt.h"

typedef void *cublasHandle_t;
enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };
/* cudaDataType_t and cublasComputeType_t values (library_types.h, cublas_api.h) */
enum { CUDA_R_32F = 0, CUDA_R_16F = 2, CUDA_R_16BF = 14, CUBLAS_COMPUTE_32F = 68, CUBLAS_GEMM_DEFAULT = -1 };

static struct {
  int (*Create)(cublasHandle_t *);
  int (*SetStream)(cublasHandle_t, void *);
  int (*SgemmStridedBatched)(cublasHandle_t, int, int, int, int, int, const float *, const float *, int, long long,
                             const float *, int, long long, const float *, float *, int, long long, int);
  int (*GemmStridedBatchedEx)(cublasHandle_t, int, int, int, int, int, const void *, const void *, int, int, long long,
                              const void *, int, int, long long, const void *, void *, int, int, long long, int, int,
                              int);
} blas;

static pthread_once_t blas_once = PTHREAD_ONCE_INIT;
static int blas_ready;
/* A handle belongs to its device's context, and its workspace to the stream it is set
 * to: one handle per (device, stream), bound once, so that products on two streams never
 * share a workspace.  Past MAX_HANDLES pairs, shapec's own kernel runs. */
enum { MAX_HANDLES = 64 };
static pthread_mutex_t handle_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  int device;
  void *stream;
  cublasHandle_t handle; /* NULL: creating it failed */
} handles[MAX_HANDLES];
static int n_handles;

static cublasHandle_t handle_for(int device, void *stream) {
  pthread_mutex_lock(&handle_lock);
  cublasHandle_t h = NULL;
  int found = 0;
  for (int i = 0; i < n_handles && !found; i++)
    if (handles[i].device == device && handles[i].stream == stream) {
      h = handles[i].handle;
      found = 1;
    }
  if (!found && n_handles < MAX_HANDLES) {
    if (blas.Create(&h) != 0 || blas.SetStream(h, stream) != 0) h = NULL;
    handles[n_handles].device = device;
    handles[n_handles].stream = stream;
    handles[n_handles++].handle = h;
  }
  pthread_mutex_unlock(&handle_lock);
  return h;
}

static void load_cublas(void) {
  *(void **)&blas.Create = sc_cu_cublas_symbol("cublasCreate_v2");
  *(void **)&blas.SetStream = sc_cu_cublas_symbol("cublasSetStream_v2");
  *(void **)&blas.SgemmStridedBatched = sc_cu_cublas_symbol("cublasSgemmStridedBatched");
  *(void **)&blas.GemmStridedBatchedEx = sc_cu_cublas_symbol("cublasGemmStridedBatchedEx");
  blas_ready = blas.Create && blas.SetStream && blas.SgemmStridedBatched;
}

/* SHAPEC_CUDA_NO_CUBLAS=1 runs shapec's own kernel (to compare the two) */
static int cublas_off(void) {
  const char *off = getenv("SHAPEC_CUDA_NO_CUBLAS");
  return off && *off && *off != '0';
}

/* The handle for this call's device and stream, or NULL (then shapec's own kernel runs):
 * no cuBLAS, or sizes past cuBLAS's int. */
static cublasHandle_t handle_for_product(int64_t batch, int64_t m, int64_t n, int64_t k) {
  if (cublas_off()) return NULL;
  pthread_once(&blas_once, load_cublas);
  int dev = sc_cu_current_device();
  if (!blas_ready || batch > INT_MAX || m > INT_MAX || n > INT_MAX || k > INT_MAX || m <= 0 || n <= 0 || batch <= 0)
    return NULL;
  return dev >= 0 ? handle_for(dev, sc_cu_current_stream()) : NULL;
}

int sc_cu_cublas_has_half(void) {
  if (cublas_off()) return 0;
  pthread_once(&blas_once, load_cublas);
  return blas_ready && blas.GemmStridedBatchedEx;
}

int sc_cu_cublas_gemm_half(int64_t batch, int64_t m, int64_t n, int64_t k, const void *a, int64_t a_batch_stride,
                           int32_t trans_a, const void *b, int64_t b_batch_stride, int32_t trans_b, float *c,
                           float alpha, float beta, int32_t kind) {
  cublasHandle_t handle = sc_cu_cublas_has_half() ? handle_for_product(batch, m, n, k) : NULL;
  if (!handle || k <= 0) return 0;
  int type = kind == SC_HALF_BF16 ? CUDA_R_16BF : CUDA_R_16F;
  int lda = (int)(trans_a ? m : k), ldb = (int)(trans_b ? k : n);
  int rc = blas.GemmStridedBatchedEx(handle, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
                                     (int)n, (int)m, (int)k, &alpha, b, type, ldb, b_batch_stride, a, type, lda,
                                     a_batch_stride, &beta, c, CUDA_R_32F, (int)n, m * n, (int)batch, CUBLAS_COMPUTE_32F,
                                     CUBLAS_GEMM_DEFAULT);
  if (rc != 0)
    sc_cu_fail("cublasGemmStridedBatchedEx (%s) failed with cuBLAS status %d ([%lld x %lld] x [%lld x %lld], batch %lld)",
               kind == SC_HALF_BF16 ? "bfloat16" : "float16", rc, (long long)m, (long long)k, (long long)k, (long long)n,
               (long long)batch);
  return 1;
}

int sc_cu_cublas_sgemm(int64_t batch, int64_t m, int64_t n, int64_t k, const float *a, int64_t a_batch_stride,
                       int32_t trans_a, const float *b, int64_t b_batch_stride, int32_t trans_b, float *c, float alpha,
                       float beta) {
  cublasHandle_t handle = handle_for_product(batch, m, n, k);
  if (!handle) return 0;
  int lda = (int)(trans_a ? m : k), ldb = (int)(trans_b ? k : n);
  if (lda < 1) lda = 1;
  if (ldb < 1) ldb = 1;
  int rc = blas.SgemmStridedBatched(handle, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
                                    (int)n, (int)m, (int)k, &alpha, b, ldb, b_batch_stride, a, lda, a_batch_stride,
                                    &beta, c, (int)n, m * n, (int)batch);
  if (rc != 0) sc_cu_fail("cublasSgemmStridedBatched failed with cuBLAS status %d ([%lld x %lld] x [%lld x %lld], batch %lld)",
                          rc, (long long)m, (long long)k, (long long)k, (long long)n, (long long)batch);
  return 1;
}
