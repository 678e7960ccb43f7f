/* ops.h - the CUDA counterparts of the CPU runtime's kernels (backends/cpu/runtime/
 * kernels.h): sc_cu_X has sc_k_X's signature and semantics, and generated code calls it
 * where CPU code calls sc_k_X.  Tensor pointers are device pointers; the small arrays
 * (shapes, strides, the reduce mask) and fill's value are host memory.  Launches go on
 * the call's stream (cuda_rt.h); functions that return int return SHAPEC_OK or the
 * call's error code, count_nonzero / count_masked wait for their count.  Errors are
 * recorded with sc_cu_fail. */
#ifndef SC_CUDA_OPS_H
#define SC_CUDA_OPS_H

#include <stddef.h>
#include <stdint.h>

/* ---- data movement (device/copy.c) ---- */
void sc_cu_strided_copy(const void *src, void *dst, int32_t ndim, const int64_t *shape, const int64_t *src_strides,
                        int64_t esize);
void sc_cu_copy_into(const void *src, void *dst, int32_t ndim, const int64_t *shape, const int64_t *dst_strides,
                     int64_t esize);
void sc_cu_fill(void *dst, int64_t n, const void *value, int64_t esize);
void sc_cu_arange(void *dst, int64_t n, double start, double step, int32_t kind);
void sc_cu_any(const void *src, void *dst, int64_t outer, int64_t len, int64_t inner, int64_t esize, int32_t is_float);
/* index_select and gather check every index as the CPU kernels do (and fail the same way,
 * writing the message into err): the kernel skips a bad one and raises a flag, which the
 * launcher waits for; so these two wait for their kernel. */
int sc_cu_index_select(const void *src, const int64_t *index, void *dst, int64_t outer, int64_t n_src,
                       int64_t n_index, int64_t inner, int64_t esize, int32_t ndim, int32_t dim, const char *node,
                       char *err, size_t errlen);
int sc_cu_gather(const void *src, const int64_t *index, void *dst, int32_t ndim, int32_t dim, const int64_t *src_shape,
                 const int64_t *index_shape, int64_t esize, const char *node, char *err, size_t errlen);
void sc_cu_repeat(const void *src, void *dst, int32_t ndim, const int64_t *src_shape, const int64_t *out_shape,
                  int64_t esize);

/* x[i0, i1, ...] with integer index tensors (device/copy.c's sc_d_index_tensor): the CPU's
 * sc_k_index_tensor, index tensors on the device; a bad index fails with torch's words. */
int sc_cu_index_tensor(const void *src, int32_t src_rank, const int64_t *src_shape, const int64_t *src_strides,
                       int32_t n_index, const void *const *index_data, const int32_t *index_bytes,
                       const int32_t *index_dim, const int64_t *index_strides, int32_t b_rank, const int64_t *b_shape,
                       int32_t b_at, void *out, int64_t esize, const char *node, char *err, size_t errlen);

/* ---- data-dependent sizes (device/data_dependent.c) ---- */
int64_t sc_cu_count_nonzero(const void *x, int64_t n, int64_t esize, int32_t is_float);
void sc_cu_nonzero(const void *x, int32_t ndim, const int64_t *shape, int64_t esize, int32_t is_float, int64_t *out);
int64_t sc_cu_count_masked(const uint8_t *mask, const int64_t *m_st, int32_t ndim, const int64_t *shape);
void sc_cu_masked_select(const void *x, const int64_t *x_st, const uint8_t *mask, const int64_t *m_st, int32_t ndim,
                         const int64_t *shape, int64_t esize, void *out);

/* ---- matrix products (cuBLAS, else device/gemm.c) ---- */
int sc_cu_bmm_f32(int64_t batch, int64_t m, int64_t n, int64_t k, const float *a, int64_t a_batch_stride,
                  int32_t trans_a, const float *b, int64_t b_batch_stride, int32_t trans_b, float *c, float alpha,
                  float beta);
/* The same for operands that hold float16 / bfloat16 numbers (kind SC_HALF_*, from a
 * half-precision program): cuBLAS multiplies them in that dtype, accumulating in float32,
 * from the weights' half mirror (sc_cu_weights_half) or a converted copy of an
 * activation; without cuBLAS, sc_cu_bmm_f32 (the same numbers, the same sums). */
int sc_cu_bmm_half(int64_t batch, int64_t m, int64_t n, int64_t k, const float *a, int64_t a_batch_stride,
                   int32_t trans_a, const float *b, int64_t b_batch_stride, int32_t trans_b, float *c, float alpha,
                   float beta, int32_t kind);
/* y[0..n) = x[0..n) as float16 / bfloat16 bits (device/copy.c's sc_d_to_half). */
void sc_cu_to_half(const float *x, uint16_t *y, int64_t n, int32_t kind);

/* ---- neural-network ops (device/nn.c) ---- */
int sc_cu_conv2d_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c, int64_t h,
                     int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                     int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow);
int sc_cu_conv_transpose2d_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c,
                               int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                               int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow);
void sc_cu_max_pool2d_f32(const float *x, float *y, int64_t *indices, int64_t nc, int64_t h, int64_t w, int64_t kh,
                          int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t oh,
                          int64_t ow);
void sc_cu_avg_pool2d_f32(const float *x, float *y, int64_t nc, int64_t h, int64_t w, int64_t kh, int64_t kw,
                          int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t oh, int64_t ow,
                          int32_t count_include_pad, int64_t divisor_override);
void sc_cu_adaptive_avg_pool2d_f32(const float *x, float *y, int64_t nc, int64_t h, int64_t w, int64_t oh, int64_t ow);
void sc_cu_batch_norm_f32(const float *x, float *y, const float *weight, const float *bias, const float *mean,
                          const float *var, int64_t n, int64_t c, int64_t inner, double eps);
void sc_cu_layer_norm_f32(const float *x, float *y, const float *weight, const float *bias, float *mean_out,
                          float *rstd_out, int64_t outer, int64_t inner, double eps);
void sc_cu_softmax_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner, int32_t log);
/* the CPU kernels' counterparts (device/nn.c, device/reduce.c), the same arguments */
void sc_cu_rms_norm_f32(const float *x, float *y, const float *weight, int64_t rows, int64_t cols, double eps);
int sc_cu_upsample_bilinear2d_f32(const float *x, float *y, int64_t nc, int64_t h, int64_t w, int64_t oh, int64_t ow,
                                  int32_t align_corners, double scale_h, double scale_w);
void sc_cu_cumsum_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner);
void sc_cu_weight_norm_f32(const float *v, const float *g, float *out, int64_t outer, int64_t n, int64_t inner);
void sc_cu_vector_norm_map_f32(const float *x, float *y, int64_t n, double ord);
void sc_cu_vector_norm_finish_f32(float *y, int64_t n, double ord);
void sc_cu_sum_i64(const void *x, int64_t *y, int32_t kind, int32_t ndim, const int64_t *shape, const int32_t *reduce);
void sc_cu_i64_to_f32(const int64_t *x, float *y, int64_t n);
/* sort and topk (device/reduce.c's sc_d_sort); k outside [0, n] fails with torch's words */
int sc_cu_sort(const void *x, void *values, int64_t *indices, int64_t *scratch, int64_t outer, int64_t n, int64_t inner,
               int64_t k, int32_t kind, int32_t descending, const char *node, char *err, size_t errlen);
void sc_cu_cumprod_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner);
void sc_cu_cumsum_i64(const void *x, int64_t *y, int32_t kind, int64_t outer, int64_t n, int64_t inner);
void sc_cu_cumprod_i64(const void *x, int64_t *y, int32_t kind, int64_t outer, int64_t n, int64_t inner);
/* flags: SC_SDPA_CAUSAL, SC_SDPA_BOOL_MASK (mask bytes: false masks the key out) */
int sc_cu_sdpa_f32(const float *q, const float *k, const float *v, const void *mask, int64_t mask_stride, float *out,
                   int64_t batch, int64_t l, int64_t s, int64_t e, int64_t ev, double scale, int32_t flags);

/* ---- reductions (device/reduce.c); op is one of kernels.h's SC_REDUCE_* ---- */
void sc_cu_reduce_f32(const float *x, float *y, int32_t ndim, const int64_t *shape, const int32_t *reduce, int32_t op,
                      double correction);
void sc_cu_arg_reduce_f32(const float *x, float *values, int64_t *indices, int64_t outer, int64_t n, int64_t inner,
                          int32_t is_min);

#endif
