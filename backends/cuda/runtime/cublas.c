/* cublas.c - matrix products through cuBLAS when the machine has it, loaded with dlopen
 * like the driver.  Row-major products are computed as their column-major transposes:
 * C^T = op(B)^T op(A)^T, so no data moves. */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

#include "cuda_rt.h"

typedef void *cublasHandle_t;
enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };

static struct {
  int (*Create)(cublasHandle_t *);
  int (*SetStream)(cublasHandle_t, void *);
  int (*SgemmStridedBatched)(cublasHandle_t, int, int, int, int, int, const float *, const float *, int, long long,
                             const float *, int, long long, const float *, float *, int, long long, int);
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
  static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"};
  void *lib = NULL;
  for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (!lib) return;
  *(void **)&blas.Create = dlsym(lib, "cublasCreate_v2");
  *(void **)&blas.SetStream = dlsym(lib, "cublasSetStream_v2");
  *(void **)&blas.SgemmStridedBatched = dlsym(lib, "cublasSgemmStridedBatched");
  blas_ready = blas.Create && blas.SetStream && blas.SgemmStridedBatched;
}

int sc_cu_cublas_sgemm(int64_t batch, int64_t m, int64_t n, int64_t k, const float *a, int64_t a_batch_stride,
                       int32_t trans_a, const float *b, int64_t b_batch_stride, int32_t trans_b, float *c, float alpha,
                       float beta) {
  /* SHAPEC_CUDA_NO_CUBLAS=1 runs shapec's own kernel (to compare the two) */
  const char *off = getenv("SHAPEC_CUDA_NO_CUBLAS");
  if (off && *off && *off != '0') return 0;
  pthread_once(&blas_once, load_cublas);
  int dev = sc_cu_current_device();
  if (!blas_ready || batch > INT_MAX || m > INT_MAX || n > INT_MAX || k > INT_MAX || m <= 0 || n <= 0 || batch <= 0)
    return 0;
  cublasHandle_t handle = dev >= 0 ? handle_for(dev, sc_cu_current_stream()) : NULL;
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
