/* emulate.c - cuda_rt.h on the host: device memory is host memory, copies are memcpy,
 * there is no cuBLAS, and a launch runs the kernel's grid-stride loop as
 * sc_emu_launch_threads threads one after another, each with its own sc_thread().
 *
 * Two users: test/cuda/test_device_kernels.c, which checks shapec's device kernels
 * (backends/cuda/device/, compiled for the host with SC_DEVICE_EMULATE) against the CPU
 * kernels, and libraries exported with --cuda-emulate, whose whole CUDA path (guards,
 * launchers, fused kernels, device kernels) then runs on the CPU: the way CUDA code is
 * tested on a machine without a GPU.  Kernels whose threads cooperate within a block
 * cannot run this way; shapec has none. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/runtime/cuda_rt.h"
#include "backends/llvm/runtime_abi.h"
#include "device_kernels.h"
#include "emulate.h"

/* A library exported with --cuda-emulate defines its fused kernels' table; elsewhere
 * (the kernel test) these stay undefined and read as NULL. */
typedef struct sc_emu_kernel {
  const char *name;
  void (*run)(void **params);
} sc_emu_kernel;
extern const sc_emu_kernel sc_emu_generated[] __attribute__((weak));
extern const int64_t sc_emu_generated_count __attribute__((weak));
#include "shapec/runtime.h"

_Thread_local int64_t sc_emu_thread, sc_emu_threads;

int64_t sc_emu_launch_threads = 1;
int64_t sc_emu_launches;

/* One call's state, per thread as in driver.c: the first error, the caller's buffer. */
static _Thread_local int status;
static _Thread_local char message[512];
static _Thread_local char *call_err;
static _Thread_local size_t call_errlen;

int64_t sc_emu_thread_index(void) { return sc_emu_thread; }
int64_t sc_emu_thread_count(void) { return sc_emu_threads; }

sc_dims sc_cu_dims(const int64_t *values, int32_t n) {
  sc_dims d;
  memset(&d, 0, sizeof d);
  for (int32_t i = 0; i < n && i < 16; i++) d.v[i] = values[i];
  return d;
}

int sc_cu_begin(const char *ptx, const char *ptx_kernels, int32_t device_id, void *stream, char *err, size_t errlen) {
  (void)ptx, (void)ptx_kernels, (void)device_id, (void)stream;
  status = SHAPEC_OK;
  message[0] = 0;
  call_err = err;
  call_errlen = errlen;
  /* SHAPEC_CUDA_EMULATE_THREADS: how many threads each launch runs (one after another) */
  const char *env = getenv("SHAPEC_CUDA_EMULATE_THREADS");
  if (env && atoll(env) > 0) sc_emu_launch_threads = atoll(env);
  return SHAPEC_OK;
}

int sc_cu_current_device(void) { return 0; }

void *sc_cu_current_stream(void) { return NULL; }

int sc_cu_status(void) { return status; }

int sc_cu_end(int32_t sync) {
  (void)sync;
  call_err = NULL;
  call_errlen = 0;
  return status;
}

void sc_cu_fail(const char *fmt, ...) {
  if (status) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  status = SHAPEC_ERR_CUDA;
  if (call_err && call_errlen) snprintf(call_err, call_errlen, "%s", message);
}

const char *sc_emu_message(void) { return message; }
void sc_emu_reset(void) {
  status = SHAPEC_OK;
  message[0] = 0;
}

void *sc_cu_alloc(int64_t bytes) {
  void *p = malloc(bytes > 0 ? (size_t)bytes : 1);
  if (!p) sc_cu_fail("out of memory for %lld bytes", (long long)bytes);
  return p;
}

void sc_cu_free(void *p) { free(p); }

void sc_cu_release_memory(void) {} /* host memory is freed as soon as it is released */

/* The weights are the library's own host copy; their float16 / bfloat16 mirrors are made
 * once, by the device kernel, as driver.c makes them on a GPU. */
static const void *weights_host;
static int64_t weights_bytes;
static uint16_t *weights_half[3];
static pthread_mutex_t weights_lock = PTHREAD_MUTEX_INITIALIZER;

void *sc_cu_weights(const void *host, int64_t bytes) {
  pthread_mutex_lock(&weights_lock);
  if (host != weights_host || bytes != weights_bytes) /* another blob (the kernel test's): new mirrors */
    for (int k = 0; k < 3; k++) free(weights_half[k]), weights_half[k] = NULL;
  weights_host = host;
  weights_bytes = bytes;
  pthread_mutex_unlock(&weights_lock);
  return (void *)host;
}

const void *sc_cu_weights_half(const void *p, int32_t kind) {
  if (kind != SC_HALF_F16 && kind != SC_HALF_BF16) return NULL;
  pthread_mutex_lock(&weights_lock);
  const char *base = weights_host;
  const uint16_t *mirror = NULL;
  if (base && (const char *)p >= base && (const char *)p < base + weights_bytes && ((const char *)p - base) % 4 == 0) {
    if (!weights_half[kind]) {
      int64_t n = weights_bytes / 4;
      uint16_t *h = malloc((size_t)(n > 0 ? n : 1) * sizeof *h);
      if (h) {
        const void *from = base;
        void *params[] = {&from, &h, &n, &kind};
        sc_cu_launch("sc_d_to_half", n, params);
      }
      weights_half[kind] = h;
    }
    if (weights_half[kind]) mirror = weights_half[kind] + ((const char *)p - base) / 4;
  }
  pthread_mutex_unlock(&weights_lock);
  return mirror;
}

void sc_cu_copy_to_host(void *dst, const void *src, int64_t bytes) {
  if (bytes > 0) memcpy(dst, src, (size_t)bytes);
}
void sc_cu_copy_to_device(void *dst, const void *src, int64_t bytes) {
  if (bytes > 0) memcpy(dst, src, (size_t)bytes);
}
void sc_cu_copy_device(void *dst, const void *src, int64_t bytes) {
  if (bytes > 0) memmove(dst, src, (size_t)bytes);
}

/* cuBLAS: none, unless SHAPEC_CUDA_EMULATE_CUBLAS=1 asks for cublas_host.c's, which
 * computes what cuBLAS documents on the host, so that the calls of cublas.c and the
 * half-precision operands of sc_cu_bmm_half are checked without a GPU. */
void *sc_cu_cublas_symbol(const char *name) {
  const char *on = getenv("SHAPEC_CUDA_EMULATE_CUBLAS");
  if (!on || !*on || *on == '0') return NULL;
  return sc_emu_cublas_symbol(name);
}

/* ---- one adapter per kernel: the params array unpacked into a direct call ---- */

#define A(i, T) (*(T *)p[i])
typedef const char *cstr;
typedef const unsigned char *cbytes;
typedef unsigned char *ubytes;
typedef const uint8_t *cu8;
typedef const int64_t *ci64;
typedef int64_t *i64p;
typedef int32_t *i32p;
typedef const float *cf32;
typedef float *f32p;
typedef const double *cf64;
typedef double *f64p;
typedef char *bytes;
typedef void *ptr;
typedef uint16_t *u16p;

static void k_strided_copy(void **p) {
  sc_d_strided_copy(A(0, cstr), A(1, bytes), A(2, int32_t), A(3, sc_dims), A(4, sc_dims), A(5, int64_t),
                    A(6, int64_t));
}
static void k_copy_into(void **p) {
  sc_d_copy_into(A(0, cstr), A(1, bytes), A(2, int32_t), A(3, sc_dims), A(4, sc_dims), A(5, int64_t), A(6, int64_t));
}
static void k_index_tensor(void **p) {
  sc_d_index_tensor(A(0, cstr), A(1, bytes), A(2, int32_t), A(3, sc_dims), A(4, sc_dims), A(5, int32_t), A(6, sc_dims),
                    A(7, sc_dims), A(8, sc_dims), A(9, sc_dims), A(10, sc_dims), A(11, int32_t), A(12, int32_t),
                    A(13, int64_t), A(14, int64_t), A(15, i32p));
}
static void k_rms_norm(void **p) {
  sc_d_rms_norm(A(0, cf32), A(1, f32p), A(2, cf32), A(3, int64_t), A(4, int64_t), A(5, double));
}
static void k_upsample_bilinear2d(void **p) {
  sc_d_upsample_bilinear2d(A(0, cf32), A(1, f32p), A(2, int64_t), A(3, int64_t), A(4, int64_t), A(5, int64_t),
                           A(6, int64_t), A(7, int32_t), A(8, double), A(9, double));
}
static void k_cumulative_f32(void **p) {
  sc_d_cumulative_f32(A(0, cf32), A(1, f32p), A(2, int64_t), A(3, int64_t), A(4, int64_t), A(5, int32_t));
}
static void k_cumulative_i64(void **p) {
  sc_d_cumulative_i64(A(0, ptr), A(1, i64p), A(2, int32_t), A(3, int64_t), A(4, int64_t), A(5, int64_t), A(6, int32_t));
}
static void k_weight_norm(void **p) {
  sc_d_weight_norm(A(0, cf32), A(1, cf32), A(2, f32p), A(3, int64_t), A(4, int64_t), A(5, int64_t));
}
static void k_vector_norm_map(void **p) { sc_d_vector_norm_map(A(0, cf32), A(1, f32p), A(2, int64_t), A(3, double)); }
static void k_vector_norm_finish(void **p) { sc_d_vector_norm_finish(A(0, f32p), A(1, int64_t), A(2, double)); }
static void k_sum_i64(void **p) {
  sc_d_sum_i64(A(0, ptr), A(1, i64p), A(2, int32_t), A(3, int32_t), A(4, sc_dims), A(5, sc_dims), A(6, int64_t),
               A(7, int64_t));
}
static void k_i64_to_f32(void **p) { sc_d_i64_to_f32(A(0, ci64), A(1, f32p), A(2, int64_t)); }
static void k_sort(void **p) {
  sc_d_sort(A(0, cstr), A(1, bytes), A(2, i64p), A(3, i64p), A(4, int64_t), A(5, int64_t), A(6, int64_t), A(7, int64_t),
            A(8, int32_t), A(9, int32_t));
}
static void k_to_half(void **p) { sc_d_to_half(A(0, cf32), A(1, u16p), A(2, int64_t), A(3, int32_t)); }
static void k_fill(void **p) { sc_d_fill(A(0, bytes), A(1, int64_t), A(2, sc_dims), A(3, int64_t)); }
static void k_arange(void **p) { sc_d_arange(A(0, ptr), A(1, int64_t), A(2, double), A(3, double), A(4, int32_t)); }
static void k_any(void **p) {
  sc_d_any(A(0, cbytes), A(1, ubytes), A(2, int64_t), A(3, int64_t), A(4, int64_t), A(5, int64_t), A(6, int32_t));
}
static void k_index_select(void **p) {
  sc_d_index_select(A(0, cstr), A(1, ci64), A(2, bytes), A(3, int64_t), A(4, int64_t), A(5, int64_t), A(6, int64_t),
                    A(7, int64_t), A(8, i32p));
}
static void k_gather(void **p) {
  sc_d_gather(A(0, cstr), A(1, ci64), A(2, bytes), A(3, int32_t), A(4, sc_dims), A(5, sc_dims), A(6, int64_t),
              A(7, int64_t), A(8, int64_t), A(9, int64_t), A(10, i32p));
}
static void k_repeat(void **p) {
  sc_d_repeat(A(0, cstr), A(1, bytes), A(2, int32_t), A(3, sc_dims), A(4, sc_dims), A(5, int64_t), A(6, int64_t));
}
static void k_count_nonzero_chunks(void **p) {
  sc_d_count_nonzero_chunks(A(0, cbytes), A(1, int64_t), A(2, int64_t), A(3, int32_t), A(4, int64_t), A(5, i64p));
}
static void k_nonzero_write(void **p) {
  sc_d_nonzero_write(A(0, cbytes), A(1, int32_t), A(2, sc_dims), A(3, int64_t), A(4, int32_t), A(5, int64_t),
                     A(6, int64_t), A(7, ci64), A(8, i64p));
}
static void k_count_masked_chunks(void **p) {
  sc_d_count_masked_chunks(A(0, cu8), A(1, sc_dims), A(2, int32_t), A(3, sc_dims), A(4, int64_t), A(5, int64_t),
                           A(6, i64p));
}
static void k_masked_select_write(void **p) {
  sc_d_masked_select_write(A(0, cstr), A(1, sc_dims), A(2, cu8), A(3, sc_dims), A(4, int32_t), A(5, sc_dims),
                           A(6, int64_t), A(7, int64_t), A(8, int64_t), A(9, ci64), A(10, bytes));
}
static void k_gemm(void **p) {
  sc_d_gemm(A(0, int64_t), A(1, int64_t), A(2, int64_t), A(3, int64_t), A(4, cf32), A(5, int64_t), A(6, int32_t),
            A(7, cf32), A(8, int64_t), A(9, int32_t), A(10, f32p), A(11, float), A(12, float));
}
static void k_conv2d(void **p) {
  sc_d_conv2d(A(0, cf32), A(1, cf32), A(2, cf32), A(3, f32p), A(4, int64_t), A(5, int64_t), A(6, int64_t),
              A(7, int64_t), A(8, int64_t), A(9, int64_t), A(10, int64_t), A(11, int64_t), A(12, int64_t),
              A(13, int64_t), A(14, int64_t), A(15, int64_t), A(16, int64_t), A(17, int64_t), A(18, int64_t),
              A(19, int64_t));
}
static void k_im2col(void **p) {
  sc_d_im2col(A(0, cf32), A(1, f32p), A(2, int64_t), A(3, int64_t), A(4, int64_t), A(5, int64_t), A(6, int64_t),
              A(7, int64_t), A(8, int64_t), A(9, int64_t), A(10, int64_t), A(11, int64_t), A(12, int64_t),
              A(13, int64_t), A(14, int64_t), A(15, int64_t));
}
static void k_bias_fill(void **p) { sc_d_bias_fill(A(0, f32p), A(1, cf32), A(2, int64_t), A(3, int64_t), A(4, int64_t)); }
static void k_conv_transpose2d(void **p) {
  sc_d_conv_transpose2d(A(0, cf32), A(1, cf32), A(2, cf32), A(3, f32p), A(4, int64_t), A(5, int64_t), A(6, int64_t),
                        A(7, int64_t), A(8, int64_t), A(9, int64_t), A(10, int64_t), A(11, int64_t), A(12, int64_t),
                        A(13, int64_t), A(14, int64_t), A(15, int64_t), A(16, int64_t), A(17, int64_t),
                        A(18, int64_t), A(19, int64_t));
}
static void k_max_pool2d(void **p) {
  sc_d_max_pool2d(A(0, cf32), A(1, f32p), A(2, i64p), A(3, int64_t), A(4, int64_t), A(5, int64_t), A(6, int64_t),
                  A(7, int64_t), A(8, int64_t), A(9, int64_t), A(10, int64_t), A(11, int64_t), A(12, int64_t),
                  A(13, int64_t), A(14, int64_t), A(15, int64_t));
}
static void k_avg_pool2d(void **p) {
  sc_d_avg_pool2d(A(0, cf32), A(1, f32p), A(2, int64_t), A(3, int64_t), A(4, int64_t), A(5, int64_t), A(6, int64_t),
                  A(7, int64_t), A(8, int64_t), A(9, int64_t), A(10, int64_t), A(11, int64_t), A(12, int64_t),
                  A(13, int32_t), A(14, int64_t));
}
static void k_adaptive_avg_pool2d(void **p) {
  sc_d_adaptive_avg_pool2d(A(0, cf32), A(1, f32p), A(2, int64_t), A(3, int64_t), A(4, int64_t), A(5, int64_t),
                           A(6, int64_t));
}
static void k_batch_norm(void **p) {
  sc_d_batch_norm(A(0, cf32), A(1, f32p), A(2, cf32), A(3, cf32), A(4, cf32), A(5, cf32), A(6, int64_t), A(7, int64_t),
                  A(8, int64_t), A(9, double));
}
static void k_layer_norm(void **p) {
  sc_d_layer_norm(A(0, cf32), A(1, f32p), A(2, cf32), A(3, cf32), A(4, f32p), A(5, f32p), A(6, int64_t), A(7, int64_t),
                  A(8, double));
}
static void k_softmax(void **p) {
  sc_d_softmax(A(0, cf32), A(1, f32p), A(2, int64_t), A(3, int64_t), A(4, int64_t), A(5, int32_t));
}
static void k_sdpa(void **p) {
  sc_d_sdpa(A(0, cf32), A(1, cf32), A(2, cf32), A(3, ptr), A(4, int64_t), A(5, f32p), A(6, int64_t), A(7, int64_t),
            A(8, int64_t), A(9, int64_t), A(10, int64_t), A(11, double), A(12, int32_t));
}
static void k_reduce(void **p) {
  sc_d_reduce(A(0, cf32), A(1, f32p), A(2, int32_t), A(3, sc_dims), A(4, sc_dims), A(5, int32_t), A(6, double),
              A(7, int64_t), A(8, int64_t));
}
static void k_reduce_partial(void **p) {
  sc_d_reduce_partial(A(0, cf32), A(1, f64p), A(2, int32_t), A(3, sc_dims), A(4, sc_dims), A(5, int32_t),
                      A(6, int64_t), A(7, int64_t), A(8, int64_t));
}
static void k_reduce_finish(void **p) {
  sc_d_reduce_finish(A(0, cf64), A(1, f32p), A(2, int32_t), A(3, double), A(4, int64_t), A(5, int64_t),
                     A(6, int64_t));
}
static void k_arg_reduce(void **p) {
  sc_d_arg_reduce(A(0, cf32), A(1, f32p), A(2, i64p), A(3, int64_t), A(4, int64_t), A(5, int64_t), A(6, int32_t));
}

static const struct {
  const char *name;
  void (*run)(void **params);
} kernels[] = {
    {"sc_d_strided_copy", k_strided_copy},
    {"sc_d_copy_into", k_copy_into},
    {"sc_d_fill", k_fill},
    {"sc_d_to_half", k_to_half},
    {"sc_d_sort", k_sort},
    {"sc_d_weight_norm", k_weight_norm},
    {"sc_d_vector_norm_map", k_vector_norm_map},
    {"sc_d_vector_norm_finish", k_vector_norm_finish},
    {"sc_d_sum_i64", k_sum_i64},
    {"sc_d_i64_to_f32", k_i64_to_f32},
    {"sc_d_rms_norm", k_rms_norm},
    {"sc_d_upsample_bilinear2d", k_upsample_bilinear2d},
    {"sc_d_cumulative_f32", k_cumulative_f32},
    {"sc_d_cumulative_i64", k_cumulative_i64},
    {"sc_d_index_tensor", k_index_tensor},
    {"sc_d_arange", k_arange},
    {"sc_d_index_select", k_index_select},
    {"sc_d_gather", k_gather},
    {"sc_d_repeat", k_repeat},
    {"sc_d_count_nonzero_chunks", k_count_nonzero_chunks},
    {"sc_d_any", k_any},
    {"sc_d_nonzero_write", k_nonzero_write},
    {"sc_d_count_masked_chunks", k_count_masked_chunks},
    {"sc_d_masked_select_write", k_masked_select_write},
    {"sc_d_gemm", k_gemm},
    {"sc_d_conv2d", k_conv2d},
    {"sc_d_im2col", k_im2col},
    {"sc_d_bias_fill", k_bias_fill},
    {"sc_d_conv_transpose2d", k_conv_transpose2d},
    {"sc_d_max_pool2d", k_max_pool2d},
    {"sc_d_avg_pool2d", k_avg_pool2d},
    {"sc_d_adaptive_avg_pool2d", k_adaptive_avg_pool2d},
    {"sc_d_batch_norm", k_batch_norm},
    {"sc_d_layer_norm", k_layer_norm},
    {"sc_d_softmax", k_softmax},
    {"sc_d_sdpa", k_sdpa},
    {"sc_d_reduce", k_reduce},
    {"sc_d_reduce_partial", k_reduce_partial},
    {"sc_d_reduce_finish", k_reduce_finish},
    {"sc_d_arg_reduce", k_arg_reduce},
};

static void run_threads(void (*run)(void **), void **params) {
  int64_t threads = sc_emu_launch_threads > 0 ? sc_emu_launch_threads : 1;
  for (int64_t t = 0; t < threads; t++) {
    sc_emu_thread = t;
    sc_emu_threads = threads;
    run(params);
  }
  sc_emu_launches++;
}

void sc_cu_launch(const char *name, int64_t work, void **params) {
  if (work <= 0 || status) return;
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
    if (strcmp(kernels[i].name, name) == 0) {
      run_threads(kernels[i].run, params);
      return;
    }
  for (int64_t i = 0; sc_emu_generated && &sc_emu_generated_count && i < sc_emu_generated_count; i++)
    if (strcmp(sc_emu_generated[i].name, name) == 0) {
      run_threads(sc_emu_generated[i].run, params);
      return;
    }
  sc_cu_fail("no kernel %s", name);
}

void sc_cu_launch_grid(const char *name, uint32_t grid_x, uint32_t grid_y, uint32_t block, void **params) {
  (void)grid_x, (void)grid_y, (void)block, (void)params;
  sc_cu_fail("sc_cu_launch_grid(%s): block-cooperative kernels cannot be emulated", name);
}
