/* device_kernels.h - prototypes of the kernels in backends/cuda/device/, for the host
 * emulation (emulate.c).  Include after a header that defines sc_dims
 * (cuda_rt.h or device.h); the test build also force-includes it into each device file
 * so that a prototype that drifts from its kernel fails to compile. */
#ifndef SC_TEST_DEVICE_KERNELS_H
#define SC_TEST_DEVICE_KERNELS_H

#include <stdint.h>

/* copy.c */
void sc_d_strided_copy(const char *src, char *dst, int32_t ndim, sc_dims shape, sc_dims src_strides, int64_t esize,
                       int64_t n);
void sc_d_copy_into(const char *src, char *dst, int32_t ndim, sc_dims shape, sc_dims dst_strides, int64_t esize,
                    int64_t n);
void sc_d_fill(char *dst, int64_t n, sc_dims value, int64_t esize);
void sc_d_arange(void *dst, int64_t n, double start, double step, int32_t is_float);
void sc_d_index_select(const char *src, const int64_t *index, char *dst, int64_t outer, int64_t n_src, int64_t n_index,
                       int64_t inner, int64_t esize, int32_t *bad);
void sc_d_gather(const char *src, const int64_t *index, char *dst, int32_t ndim, sc_dims index_shape, sc_dims src_strides,
                 int64_t pick, int64_t n_src, int64_t esize, int64_t n, int32_t *bad);
void sc_d_repeat(const char *src, char *dst, int32_t ndim, sc_dims src_shape, sc_dims out_shape, int64_t esize,
                 int64_t n);
void sc_d_to_half(const float *x, uint16_t *y, int64_t n, int32_t kind);
void sc_d_index_tensor(const char *src, char *out, int32_t out_rank, sc_dims out_shape, sc_dims rest_strides,
                       int32_t n_index, sc_dims index_ptrs, sc_dims index_bytes, sc_dims index_strides,
                       sc_dims pick_sizes, sc_dims pick_strides, int32_t b_at, int32_t b_rank, int64_t esize, int64_t n,
                       int32_t *bad);

/* data_dependent.c */
void sc_d_any(const unsigned char *src, unsigned char *dst, int64_t outer, int64_t len, int64_t inner, int64_t esize,
              int32_t is_float);
void sc_d_count_nonzero_chunks(const unsigned char *x, int64_t n, int64_t esize, int32_t is_float, int64_t chunks,
                               int64_t *counts);
void sc_d_nonzero_write(const unsigned char *x, int32_t ndim, sc_dims shape, int64_t esize, int32_t is_float, int64_t n,
                        int64_t chunks, const int64_t *offsets, int64_t *out);
void sc_d_count_masked_chunks(const uint8_t *mask, sc_dims m_st, int32_t ndim, sc_dims shape, int64_t n,
                              int64_t chunks, int64_t *counts);
void sc_d_masked_select_write(const char *x, sc_dims x_st, const uint8_t *mask, sc_dims m_st, int32_t ndim,
                              sc_dims shape, int64_t esize, int64_t n, int64_t chunks, const int64_t *offsets,
                              char *out);

/* gemm.c */
void sc_d_gemm(int64_t batch, int64_t m, int64_t n, int64_t k, const float *a, int64_t a_batch_stride, int32_t trans_a,
               const float *b, int64_t b_batch_stride, int32_t trans_b, float *c, float alpha, float beta);

/* nn.c */
void sc_d_im2col(const float *x, float *col, int64_t n, int64_t c, int64_t h, int64_t wd, int64_t kh, int64_t kw,
                 int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t oh, int64_t ow);
void sc_d_bias_fill(float *y, const float *bias, int64_t n, int64_t o, int64_t pixels);
void sc_d_conv2d(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c, int64_t h,
                 int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                 int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow);
void sc_d_conv_transpose2d(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c,
                           int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                           int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow);
void sc_d_max_pool2d(const float *x, float *y, int64_t *indices, int64_t nc, int64_t h, int64_t w, int64_t kh,
                     int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t oh,
                     int64_t ow);
void sc_d_avg_pool2d(const float *x, float *y, int64_t nc, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t sh,
                     int64_t sw, int64_t ph, int64_t pw, int64_t oh, int64_t ow, int32_t count_include_pad,
                     int64_t divisor_override);
void sc_d_adaptive_avg_pool2d(const float *x, float *y, int64_t nc, int64_t h, int64_t w, int64_t oh, int64_t ow);
void sc_d_batch_norm(const float *x, float *y, const float *weight, const float *bias, const float *mean,
                     const float *var, int64_t n, int64_t c, int64_t inner, double eps);
void sc_d_layer_norm(const float *x, float *y, const float *weight, const float *bias, float *mean_out,
                     float *rstd_out, int64_t outer, int64_t inner, double eps);
void sc_d_softmax(const float *x, float *y, int64_t outer, int64_t n, int64_t inner, int32_t is_log);
void sc_d_sdpa(const float *q, const float *k, const float *v, const void *mask, int64_t mask_stride, float *out,
               int64_t batch, int64_t l, int64_t s, int64_t e, int64_t ev, double scale, int32_t flags);

/* reduce.c */
void sc_d_reduce(const float *x, float *y, int32_t ndim, sc_dims shape, sc_dims reduce, int32_t op, double correction,
                 int64_t out_n, int64_t red_n);
void sc_d_reduce_partial(const float *x, double *part, int32_t ndim, sc_dims shape, sc_dims reduce, int32_t op,
                         int64_t out_n, int64_t red_n, int64_t chunks);
void sc_d_reduce_finish(const double *part, float *y, int32_t op, double correction, int64_t out_n, int64_t red_n,
                        int64_t chunks);
void sc_d_arg_reduce(const float *x, float *values, int64_t *indices, int64_t outer, int64_t n, int64_t inner,
                     int32_t is_min);

/* nn.c, reduce.c: rms_norm, bilinear upsampling, cumsum and cumprod */
void sc_d_rms_norm(const float *x, float *y, const float *weight, int64_t rows, int64_t cols, double eps);
void sc_d_upsample_bilinear2d(const float *x, float *y, int64_t nc, int64_t h, int64_t w, int64_t oh, int64_t ow,
                              int32_t align_corners, double scale_h, double scale_w);
void sc_d_cumulative_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner, int32_t prod);
void sc_d_cumulative_i64(const void *x, int64_t *y, int32_t kind, int64_t outer, int64_t n, int64_t inner, int32_t prod);
void sc_d_weight_norm(const float *v, const float *g, float *out, int64_t outer, int64_t n, int64_t inner);
void sc_d_vector_norm_map(const float *x, float *y, int64_t n, double ord);
void sc_d_vector_norm_finish(float *y, int64_t n, double ord);
void sc_d_sum_i64(const void *x, int64_t *y, int32_t kind, int32_t ndim, sc_dims shape, sc_dims reduce, int64_t out_n,
                  int64_t red_n);
void sc_d_i64_to_f32(const int64_t *x, float *y, int64_t n);
void sc_d_sort(const char *x, char *values, int64_t *indices, int64_t *scratch, int64_t outer, int64_t n, int64_t inner,
               int64_t k, int32_t kind, int32_t descending);

#endif
