/* copy.c - data movement kernels: strided copies (permute, expand, slice, cat), fills,
 * arange, index_select / embedding, gather and repeat. */
#include <string.h>

#include "kernels.h"

/* Walks an N-d index space, calling copy with the linear offsets of both sides. */
#define WALK(ndim, shape, body)                                                 \
  do {                                                                          \
    int64_t idx_[16] = {0};                                                     \
    int64_t total_ = 1;                                                         \
    for (int32_t d_ = 0; d_ < (ndim); d_++) total_ *= (shape)[d_];              \
    for (int64_t lin_ = 0; lin_ < total_; lin_++) {                             \
      body;                                                                     \
      for (int32_t d_ = (ndim) - 1; d_ >= 0; d_--) {                            \
        if (++idx_[d_] < (shape)[d_]) break;                                    \
        idx_[d_] = 0;                                                           \
      }                                                                         \
    }                                                                           \
  } while (0)

void sc_k_strided_copy(const void *src, void *dst, int32_t ndim, const int64_t *shape, const int64_t *src_strides,
                       int64_t esize) {
  const char *s = src;
  char *d = dst;
  if (ndim == 0) {
    memcpy(d, s, (size_t)esize);
    return;
  }
  /* the innermost dim runs as a contiguous memcpy when its stride is 1 */
  int64_t inner = shape[ndim - 1], inner_stride = src_strides[ndim - 1];
  int32_t outer_nd = ndim - 1;
  int64_t outer_shape[16];
  for (int32_t i = 0; i < outer_nd; i++) outer_shape[i] = shape[i];
  int64_t out = 0;
  WALK(outer_nd, outer_shape, {
    int64_t off = 0;
    for (int32_t i = 0; i < outer_nd; i++) off += idx_[i] * src_strides[i];
    if (inner_stride == 1) {
      memcpy(d + out * esize, s + off * esize, (size_t)(inner * esize));
    } else {
      for (int64_t j = 0; j < inner; j++) memcpy(d + (out + j) * esize, s + (off + j * inner_stride) * esize, (size_t)esize);
    }
    out += inner;
  });
}

void sc_k_copy_into(const void *src, void *dst, int32_t ndim, const int64_t *shape, const int64_t *dst_strides,
                    int64_t esize) {
  const char *s = src;
  char *d = dst;
  int64_t in = 0;
  WALK(ndim, shape, {
    int64_t off = 0;
    for (int32_t i = 0; i < ndim; i++) off += idx_[i] * dst_strides[i];
    memcpy(d + off * esize, s + in * esize, (size_t)esize);
    in++;
  });
}

void sc_k_fill(void *dst, int64_t n, const void *value, int64_t esize) {
  char *d = dst;
  for (int64_t i = 0; i < n; i++) memcpy(d + i * esize, value, (size_t)esize);
}

void sc_k_arange(void *dst, int64_t n, double start, double step, int32_t is_float) {
  for (int64_t i = 0; i < n; i++) {
    if (is_float) ((float *)dst)[i] = (float)(start + step * (double)i);
    else ((int64_t *)dst)[i] = (int64_t)start + (int64_t)step * i;
  }
}

int32_t sc_k_indices_in_range(const int64_t *index, int64_t n, int64_t size) {
  for (int64_t i = 0; i < n; i++)
    if (index[i] < -size || index[i] >= size) return 0;
  return 1;
}

/* src [outer, n_src, inner] -> dst [outer, n_index, inner], picking rows by index. */
void sc_k_index_select(const void *src, const int64_t *index, void *dst, int64_t outer, int64_t n_src, int64_t n_index,
                       int64_t inner, int64_t esize) {
  const char *s = src;
  char *d = dst;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < n_index; i++) {
      int64_t r = index[i] < 0 ? index[i] + n_src : index[i];
      if (r < 0 || r >= n_src) r = 0; /* the entry point checked the indices' range */
      memcpy(d + ((o * n_index + i) * inner) * esize, s + ((o * n_src + r) * inner) * esize, (size_t)(inner * esize));
    }
}

/* dst[o, i, j] = src[o, index[o, i, j], j] */
void sc_k_gather(const void *src, const int64_t *index, void *dst, int64_t outer, int64_t n_src, int64_t n_index,
                 int64_t inner, int64_t esize) {
  const char *s = src;
  char *d = dst;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < n_index; i++)
      for (int64_t j = 0; j < inner; j++) {
        int64_t r = index[(o * n_index + i) * inner + j];
        if (r < 0) r += n_src;
        if (r < 0 || r >= n_src) r = 0;
        memcpy(d + ((o * n_index + i) * inner + j) * esize, s + ((o * n_src + r) * inner + j) * esize, (size_t)esize);
      }
}

/* src_shape is padded with leading 1s to ndim; out[i] = src[i mod src_shape] */
void sc_k_repeat(const void *src, void *dst, int32_t ndim, const int64_t *src_shape, const int64_t *out_shape,
                 int64_t esize) {
  const char *s = src;
  char *d = dst;
  int64_t out = 0;
  WALK(ndim, out_shape, {
    int64_t off = 0;
    for (int32_t i = 0; i < ndim; i++) off = off * src_shape[i] + idx_[i] % src_shape[i];
    memcpy(d + out * esize, s + off * esize, (size_t)esize);
    out++;
  });
}

/* Whether an element is nonzero: floats by value (-0.0 is zero, NaN is not, as in ATen),
 * everything else by its bytes. */
static int is_nonzero(const unsigned char *p, int64_t esize, int32_t is_float) {
  if (is_float && esize == 4) {
    float f;
    memcpy(&f, p, 4);
    return f != 0.0f;
  }
  if (is_float && esize == 8) {
    double d;
    memcpy(&d, p, 8);
    return d != 0.0;
  }
  for (int64_t b = 0; b < esize; b++)
    if (p[b]) return 1;
  return 0;
}

/* dst[o, 0, i] = whether any src[o, k, i] is nonzero: src [outer, len, inner] of any
 * dtype, dst bool. */
void sc_k_any(const void *src, uint8_t *dst, int64_t outer, int64_t len, int64_t inner, int64_t esize, int32_t is_float) {
  const unsigned char *p = src;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      uint8_t any = 0;
      for (int64_t k = 0; k < len && !any; k++) any = (uint8_t)is_nonzero(p + ((o * len + k) * inner + i) * esize, esize, is_float);
      dst[o * inner + i] = any;
    }
}

int64_t sc_k_count_nonzero(const void *x, int64_t n, int64_t esize, int32_t is_float) {
  const unsigned char *p = x;
  int64_t count = 0;
  for (int64_t i = 0; i < n; i++) count += is_nonzero(p + i * esize, esize, is_float);
  return count;
}

void sc_k_nonzero(const void *x, int32_t ndim, const int64_t *shape, int64_t esize, int32_t is_float, int64_t *out) {
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) n *= shape[d];
  const unsigned char *p = x;
  int64_t row = 0;
  for (int64_t i = 0; i < n; i++) {
    if (!is_nonzero(p + i * esize, esize, is_float)) continue;
    int64_t rem = i;
    for (int d = ndim - 1; d >= 0; d--) {
      out[row * ndim + d] = rem % shape[d]; /* shape[d] > 0: the element exists */
      rem /= shape[d];
    }
    row++;
  }
}

/* Visits every coordinate of `shape` in row-major order, keeping two strided offsets. */
#define FOR_EACH_INDEX(ndim, shape, st_a, st_b, off_a, off_b, body)                              \
  do {                                                                                           \
    int64_t idx_[16] = {0}, total_ = 1;                                                          \
    for (int d_ = 0; d_ < (ndim); d_++) total_ *= (shape)[d_];                                   \
    int64_t off_a = 0, off_b = 0;                                                                \
    for (int64_t i_ = 0; i_ < total_; i_++) {                                                    \
      body;                                                                                      \
      for (int d_ = (ndim)-1; d_ >= 0; d_--) {                                                   \
        if (++idx_[d_] < (shape)[d_]) {                                                          \
          off_a += (st_a)[d_];                                                                   \
          off_b += (st_b)[d_];                                                                   \
          break;                                                                                 \
        }                                                                                        \
        off_a -= (st_a)[d_] * (idx_[d_] - 1);                                                    \
        off_b -= (st_b)[d_] * (idx_[d_] - 1);                                                    \
        idx_[d_] = 0;                                                                            \
      }                                                                                          \
    }                                                                                            \
  } while (0)

int64_t sc_k_count_masked(const uint8_t *mask, const int64_t *m_st, int32_t ndim, const int64_t *shape) {
  int64_t count = 0;
  FOR_EACH_INDEX(ndim, shape, m_st, m_st, mo, unused, { count += mask[mo] != 0; (void)unused; });
  return count;
}

void sc_k_masked_select(const void *x, const int64_t *x_st, const uint8_t *mask, const int64_t *m_st, int32_t ndim,
                        const int64_t *shape, int64_t esize, void *out) {
  const unsigned char *src = x;
  unsigned char *dst = out;
  FOR_EACH_INDEX(ndim, shape, x_st, m_st, xo, mo, {
    if (mask[mo]) {
      memcpy(dst, src + xo * esize, (size_t)esize);
      dst += esize;
    }
  });
}
