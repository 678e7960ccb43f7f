/* cuda_rt.h - the host side of a CUDA model library: the CUDA driver loaded with dlopen,
 * one call's state (device, stream, first error), device memory, and kernel launches.
 * Linked into model.so beside the CPU runtime; needs no CUDA header or library to build
 * or to load.
 *
 * A generated entry point brackets its work with sc_cu_begin / sc_cu_end.  Functions
 * that cannot return a code record the first error in the call's state; the entry point
 * asks sc_cu_status after each node and stops there. */
#ifndef SC_CUDA_RT_H
#define SC_CUDA_RT_H

#include <stddef.h>
#include <stdint.h>

/* Small int64 arrays passed to kernels by value (device/device.h has the same layout). */
typedef struct sc_dims {
  int64_t v[16];
} sc_dims;

/* Fills a sc_dims from n <= 16 values (the rest zero). */
sc_dims sc_cu_dims(const int64_t *values, int32_t n);

/* Starts a call on device `device_id` (its primary context; the model's PTX, with its
 * fused kernels, and the PTX of shapec's device kernels sc_d_* loaded once per context)
 * with `stream` (NULL: the legacy default stream).  err/errlen receive the first error's
 * message.  Returns SHAPEC_OK or SHAPEC_ERR_CUDA. */
int sc_cu_begin(const char *ptx, const char *ptx_kernels, int32_t device_id, void *stream, char *err, size_t errlen);
/* SHAPEC_OK, or the code of the first error since sc_cu_begin. */
int sc_cu_status(void);
/* Ends the call, synchronizing the stream when `sync` (so that kernel faults are
 * reported here); returns the call's status.  Harmless without a sc_cu_begin. */
int sc_cu_end(int32_t sync);
/* The call's device index and stream (for cuBLAS). */
int sc_cu_current_device(void);
void *sc_cu_current_stream(void);
/* Records an error (the first one wins) with code SHAPEC_ERR_CUDA. */
void sc_cu_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Device memory, stream-ordered on the call's stream; NULL on failure (recorded). */
void *sc_cu_alloc(int64_t bytes);
void sc_cu_free(void *p);
/* Trims every device's memory pool (shapec_model_release_workspace calls it). */
void sc_cu_release_memory(void);
/* The weights blob on the call's device, uploaded on the first call per device. */
void *sc_cu_weights(const void *host, int64_t bytes);

/* Copies on the call's stream.  to_host waits for the copy; to_device may return before
 * the copy lands (the source may be reused at once). */
void sc_cu_copy_to_host(void *dst, const void *src, int64_t bytes);
void sc_cu_copy_to_device(void *dst, const void *src, int64_t bytes);
void sc_cu_copy_device(void *dst, const void *src, int64_t bytes);

/* Launches kernel `name` whose grid-stride loop covers `work` independent items; params
 * are pointers to each argument's value, as cuLaunchKernel takes them.  No launch when
 * work <= 0. */
void sc_cu_launch(const char *name, int64_t work, void **params);
/* The same with an explicit grid (x, y) and block size, for kernels whose threads
 * cooperate within a block. */
void sc_cu_launch_grid(const char *name, uint32_t grid_x, uint32_t grid_y, uint32_t block, void **params);

/* The same weights, each float32 element as float16 / bfloat16 (kind SC_HALF_*), made on
 * the device the first time a half-precision product asks: the element of that mirror
 * that p's element becomes, or NULL when p is not in the weights (or the mirror could
 * not be made: an error is then recorded). */
const void *sc_cu_weights_half(const void *p, int32_t kind);

/* cuBLAS, opened like the driver on the first product (cublas.c): a symbol of
 * libcublas.so.13/12/11, or NULL when it has none or there is no cuBLAS.  The emulation
 * gives host versions of the ones cublas.c calls (backends/cuda/emulate/cublas_host.c). */
void *sc_cu_cublas_symbol(const char *name);

/* C = alpha * op(A) op(B) + beta * C for `batch` row-major matrices through cuBLAS when
 * libcublas is on the machine.  Returns 1 when cuBLAS did it, 0 when it is not available
 * (the caller runs shapec's own kernel); errors are recorded. */
int sc_cu_cublas_sgemm(int64_t batch, int64_t m, int64_t n, int64_t k, const float *a, int64_t a_batch_stride,
                       int32_t trans_a, const float *b, int64_t b_batch_stride, int32_t trans_b, float *c, float alpha,
                       float beta);
/* Whether cuBLAS can take half-precision products (cublasGemmStridedBatchedEx). */
int sc_cu_cublas_has_half(void);
/* The same product with A and B float16 / bfloat16 bits (kind SC_HALF_*), products and
 * sums in float32 (CUBLAS_COMPUTE_32F), C float32.  Returns 1 when cuBLAS did it. */
int sc_cu_cublas_gemm_half(int64_t batch, int64_t m, int64_t n, int64_t k, const void *a, int64_t a_batch_stride,
                           int32_t trans_a, const void *b, int64_t b_batch_stride, int32_t trans_b, float *c,
                           float alpha, float beta, int32_t kind);

#endif
