/* copy.c - data movement kernels: strided copies (permute, expand, slice, cat), fills,
 * arange, index_select / embedding, gather and repeat. */
#include <stdbool.h>
#include <stdint.h>
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

/* The first dim of the longest suffix of dims that `strides` lays out contiguously (the
 * last dim's stride 1, each one before it the size of what follows), and that suffix's
 * element count: such a block moves as one memcpy.  ndim when the last dim is not
 * contiguous (its span then 1). */
static int32_t contiguous_suffix(int32_t ndim, const int64_t *shape, const int64_t *strides, int64_t *span) {
  int64_t expect = 1;
  int32_t k = ndim;
  while (k > 0 && (strides[k - 1] == expect || shape[k - 1] == 1)) {
    expect *= shape[k - 1];
    k--;
  }
  *span = expect;
  return k;
}

/* n elements of esize bytes from s, `stride` elements apart, to d one after another (or
 * the other way round with `scatter`); 1, 2, 4 and 8-byte elements as loads and stores,
 * not a memcpy call each */
#define MOVE_ELEMENTS(T)                                                                                  \
  for (int64_t j = 0; j < n; j++) {                                                                      \
    if (scatter) ((T *)d)[j * stride] = ((const T *)s)[j];                                               \
    else ((T *)d)[j] = ((const T *)s)[j * stride];                                                       \
  }
static void move_elements(char *d, const char *s, int64_t n, int64_t stride, int64_t esize, int scatter) {
  switch (esize) {
    case 1: MOVE_ELEMENTS(uint8_t) return;
    case 2: MOVE_ELEMENTS(uint16_t) return;
    case 4: MOVE_ELEMENTS(uint32_t) return;
    case 8: MOVE_ELEMENTS(uint64_t) return;
    default:
      for (int64_t j = 0; j < n; j++)
        memcpy(scatter ? d + j * stride * esize : d + j * esize, scatter ? s + j * esize : s + j * stride * esize,
               (size_t)esize);
  }
}
#undef MOVE_ELEMENTS

/* n bytes, at most SHORT_RUN, as fixed-size moves the compiler inlines: a libc call cost
 * more than a short row of a tiny tensor (attention over four tokens spent 11% of its call
 * in memmove, for runs of 16 to 32 bytes) */
enum { SHORT_RUN = 64 };
static inline void copy_short(char *d, const char *s, int64_t n) {
  switch (n) { /* rows of 4, 8 and 16 floats: one move, no steps (a head's rows of 8: 45 ns a copy) */
    case 16: memcpy(d, s, 16); return;
    case 32: memcpy(d, s, 32); return;
    case 64: memcpy(d, s, 64); return;
    default: break;
  }
  for (; n >= 16; n -= 16, d += 16, s += 16) memcpy(d, s, 16);
  if (n >= 8) memcpy(d, s, 8), n -= 8, d += 8, s += 8;
  if (n >= 4) memcpy(d, s, 4), n -= 4, d += 4, s += 4;
  if (n >= 2) memcpy(d, s, 2), n -= 2, d += 2, s += 2;
  if (n >= 1) *d = *s;
}

/* Rows of `bytes` each between a compact tensor and a strided one whose rows sit at
 * i0 s0 + i1 s1 + i2 s2 bytes, i0 < n0 etc. (`scatter`: compact into strided): three plain
 * loops, and the move's size chosen once.  The odometer below, its index in memory, took
 * 29 ns for the tiny attention's [4, 2, 8] transpose (8 rows of 32 bytes), each row
 * waiting on the last row's store of the index. */
#define ROWS(MOVE)                                                                             \
  for (int64_t i0 = 0; i0 < n0; i0++)                                                          \
    for (int64_t i1 = 0; i1 < n1; i1++)                                                        \
      for (int64_t i2 = 0; i2 < n2; i2++, at += bytes) {                                       \
        char *strided = base + i0 * s0 + i1 * s1 + i2 * s2;                                    \
        if (scatter) MOVE(strided, compact + at);                                              \
        else MOVE(compact + at, strided);                                                      \
      }
#define MOVE_16(d, s) memcpy(d, s, 16)
#define MOVE_32(d, s) memcpy(d, s, 32)
#define MOVE_64(d, s) memcpy(d, s, 64)
#define MOVE_SHORT(d, s) copy_short(d, s, bytes)
#define MOVE_LONG(d, s) memcpy(d, s, (size_t)bytes)
static void rows_by_three(char *compact, char *base, int64_t n0, int64_t n1, int64_t n2, int64_t s0, int64_t s1,
                          int64_t s2, int64_t bytes, int scatter) {
  int64_t at = 0;
  switch (bytes) {
    case 16: ROWS(MOVE_16) return;
    case 32: ROWS(MOVE_32) return;
    case 64: ROWS(MOVE_64) return;
    default:
      if (bytes <= SHORT_RUN) ROWS(MOVE_SHORT)
      else ROWS(MOVE_LONG)
      return;
  }
}
#undef ROWS
#undef MOVE_16
#undef MOVE_32
#undef MOVE_64
#undef MOVE_SHORT
#undef MOVE_LONG

/* A gather whose last dim repeats (a stride of 0: expand, upsample_nearest2d's [n, c, h,
 * kh, w, kw] with kh and kw at stride 0).  A dim of stride 0 is copied once and
 * then duplicated from the output it just wrote; the dims of stride 0 after the last
 * strided one repeat each element of its row, written from a register `times` times.
 * compact_strided's odometer moved runs of `times` elements one call at a time: upsampling
 * [2, 2, 4, 4] by 2 took 415 ns. */
typedef struct repeating_gather {
  const int64_t *shape, *strides;
  int32_t row;   /* the last dim of nonzero stride */
  int64_t times; /* each of its elements, consecutively in the output */
  int64_t esize;
} repeating_gather;

/* the row's n elements, `stride` apart, each written `times` times; the common factors of
 * 1 and 2 with constant loops */
#define REPEAT_ROW(T)                                                                        \
  {                                                                                          \
    const T *in = (const T *)src;                                                            \
    T *out = (T *)dst;                                                                       \
    if (times == 2)                                                                          \
      for (int64_t j = 0; j < n; j++) out[2 * j] = out[2 * j + 1] = in[j * stride];          \
    else if (times == 1)                                                                     \
      for (int64_t j = 0; j < n; j++) out[j] = in[j * stride];                               \
    else                                                                                     \
      for (int64_t j = 0; j < n; j++)                                                        \
        for (int64_t r = 0; r < times; r++) out[j * times + r] = in[j * stride];             \
    break;                                                                                   \
  }
static char *repeat_row(const repeating_gather *g, const char *src, char *dst) {
  int64_t n = g->shape[g->row], stride = g->strides[g->row], times = g->times;
  switch (g->esize) {
    case 1: REPEAT_ROW(uint8_t)
    case 2: REPEAT_ROW(uint16_t)
    case 4: REPEAT_ROW(uint32_t)
    case 8: REPEAT_ROW(uint64_t)
    default:
      for (int64_t j = 0; j < n; j++)
        for (int64_t r = 0; r < times; r++)
          memcpy(dst + (j * times + r) * g->esize, src + j * stride * g->esize, (size_t)g->esize);
  }
  return dst + n * times * g->esize;
}
#undef REPEAT_ROW

/* dims [d, ...) from src into dst; returns the end of what it wrote */
static char *gather_repeating(const repeating_gather *g, int32_t d, const char *src, char *dst) {
  if (d == g->row) return repeat_row(g, src, dst);
  int64_t n = g->shape[d];
  if (g->strides[d] == 0) {
    char *first = dst;
    dst = gather_repeating(g, d + 1, src, dst);
    int64_t block = dst - first;
    for (int64_t i = 1; i < n; i++, dst += block) {
      if (block <= SHORT_RUN) copy_short(dst, first, block);
      else memcpy(dst, first, (size_t)block);
    }
    return dst;
  }
  for (int64_t i = 0; i < n; i++) dst = gather_repeating(g, d + 1, src + i * g->strides[d] * g->esize, dst);
  return dst;
}

/* Whether some dim of stride 0 repeats (more than one element): then gather_repeating copies,
 * once the read has a dim of nonzero stride to walk along (else it is a fill). */
static bool gathers_repeats(int32_t ndim, const int64_t *shape, const int64_t *strides, repeating_gather *g) {
  bool repeats = false;
  int32_t row = -1;
  int64_t times = 1;
  for (int32_t d = 0; d < ndim; d++) {
    if (shape[d] == 0) return false;
    repeats = repeats || (strides[d] == 0 && shape[d] > 1);
    if (strides[d] != 0 && shape[d] > 1) row = d, times = 1;
    else times *= shape[d];
  }
  if (!repeats || row < 0) return false;
  *g = (repeating_gather){shape, strides, row, times, 0};
  return true;
}

/* Between a compact tensor and a strided one (`scatter`: compact src into strided dst): the
 * strided side's contiguous suffix as one memcpy per outer index, else its innermost dim
 * element by element.  (Each element used to be a memcpy call of its own: a cat along dim
 * 1 of [64, 512, 64] and [64, 256, 64] took 21x torch's time.) */
static void compact_strided(const char *compact, char *strided_dst, const char *strided_src, int32_t ndim,
                            const int64_t *shape, const int64_t *strides, int64_t esize, int scatter) {
  if (ndim == 0) {
    memcpy(scatter ? strided_dst : (char *)compact, scatter ? compact : strided_src, (size_t)esize);
    return;
  }
  int64_t span;
  int32_t k = contiguous_suffix(ndim, shape, strides, &span);
  int64_t run = span, run_stride = 1; /* what moves per outer index */
  if (k == ndim) k = ndim - 1, run = shape[ndim - 1], run_stride = strides[ndim - 1];
  if (run_stride == 1 && k <= 3) { /* rows under at most three outer dims */
    int64_t n[3] = {1, 1, 1}, st[3] = {0, 0, 0};
    for (int32_t i = 0; i < k; i++) n[3 - k + i] = shape[i], st[3 - k + i] = strides[i] * esize;
    char *base = scatter ? strided_dst : (char *)strided_src;
    rows_by_three((char *)compact, base, n[0], n[1], n[2], st[0], st[1], st[2], run * esize, scatter);
    return;
  }
  repeating_gather g;
  if (!scatter && run_stride == 0 && gathers_repeats(ndim, shape, strides, &g)) {
    g.esize = esize;
    gather_repeating(&g, 0, strided_src, (char *)compact);
    return;
  }
  /* the outer indices as an odometer whose strided offset follows it by additions (an
   * offset recomputed from every index, and WALK's zeroed index array, were most of a
   * tiny tensor's copy) */
  int64_t idx[16], off = 0, outer = 1;
  for (int32_t i = 0; i < k; i++) idx[i] = 0, outer *= shape[i];
  for (int64_t at = 0, o = 0; o < outer; o++, at += run) {
    if (run_stride == 1 && run * esize <= SHORT_RUN) {
      if (scatter) copy_short(strided_dst + off * esize, compact + at * esize, run * esize);
      else copy_short((char *)compact + at * esize, strided_src + off * esize, run * esize);
    } else if (run_stride == 1) {
      if (scatter) memcpy(strided_dst + off * esize, compact + at * esize, (size_t)(run * esize));
      else memcpy((char *)compact + at * esize, strided_src + off * esize, (size_t)(run * esize));
    } else if (scatter) {
      move_elements(strided_dst + off * esize, compact + at * esize, run, run_stride, esize, 1);
    } else {
      move_elements((char *)compact + at * esize, strided_src + off * esize, run, run_stride, esize, 0);
    }
    for (int32_t d = k - 1; d >= 0; d--) {
      off += strides[d];
      if (++idx[d] < shape[d]) break;
      off -= strides[d] * shape[d];
      idx[d] = 0;
    }
  }
}

/* dst (compact) = src read through src_strides */
void sc_k_strided_copy(const void *src, void *dst, int32_t ndim, const int64_t *shape, const int64_t *src_strides,
                       int64_t esize) {
  compact_strided(dst, NULL, src, ndim, shape, src_strides, esize, 0);
}

/* src (compact) written through dst_strides (a cat's part of its output) */
void sc_k_copy_into(const void *src, void *dst, int32_t ndim, const int64_t *shape, const int64_t *dst_strides,
                    int64_t esize) {
  compact_strided(src, dst, NULL, ndim, shape, dst_strides, esize, 1);
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

/* dst[o, i, j] = src[o, index[o, i, j], j] (the entry point checked the indices' range);
 * elements of 1, 2, 4 and 8 bytes as loads and stores, not a memcpy call each */
#define GATHER_ELEMENTS(T)                                                                                   \
  for (int64_t o = 0; o < outer; o++)                                                                       \
    for (int64_t i = 0; i < n_index; i++) {                                                                 \
      const int64_t *ix = index + (o * n_index + i) * inner;                                                \
      T *dr = (T *)dst + (o * n_index + i) * inner;                                                         \
      const T *so = (const T *)src + o * n_src * inner;                                                     \
      for (int64_t j = 0; j < inner; j++) {                                                                 \
        int64_t r = ix[j] < 0 ? ix[j] + n_src : ix[j];                                                      \
        dr[j] = so[(r < 0 || r >= n_src ? 0 : r) * inner + j];                                              \
      }                                                                                                     \
    }
void sc_k_gather(const void *src, const int64_t *index, void *dst, int64_t outer, int64_t n_src, int64_t n_index,
                 int64_t inner, int64_t esize) {
  switch (esize) {
    case 1: GATHER_ELEMENTS(uint8_t) return;
    case 2: GATHER_ELEMENTS(uint16_t) return;
    case 4: GATHER_ELEMENTS(uint32_t) return;
    case 8: GATHER_ELEMENTS(uint64_t) return;
    default: break;
  }
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
#undef GATHER_ELEMENTS

/* Dims [k, ndim) of the repeat: the source block at s (src_block[k] bytes per index of dim
 * k) tiled into the output block at d.  Each source row is copied once, then the output
 * doubles what it already holds, so every output byte is written by a memcpy of at least
 * a row (it was one memcpy call per element: x.repeat(1, 4, 1) on [64, 128, 64] took 87x
 * torch's time). */
static void repeat_dims(const char *s, char *d, int32_t k, int32_t ndim, const int64_t *src_shape, const int64_t *out_shape,
                        const int64_t *src_block, const int64_t *out_block) {
  int64_t once = src_shape[k] * out_block[k + 1]; /* bytes of one copy of dim k */
  if (k == ndim - 1) memcpy(d, s, (size_t)once);
  else
    for (int64_t i = 0; i < src_shape[k]; i++)
      repeat_dims(s + i * src_block[k + 1], d + i * out_block[k + 1], k + 1, ndim, src_shape, out_shape, src_block, out_block);
  int64_t total = out_shape[k] * out_block[k + 1];
  for (int64_t have = once; have < total;) {
    int64_t n = have < total - have ? have : total - have;
    memcpy(d + have, d, (size_t)n);
    have += n;
  }
}

void sc_k_repeat(const void *src, void *dst, int32_t ndim, const int64_t *src_shape, const int64_t *out_shape,
                 int64_t esize) {
  int64_t src_block[17], out_block[17]; /* bytes per index of dim k - 1: the block of dims [k, ndim) */
  src_block[ndim] = out_block[ndim] = esize;
  for (int32_t k = ndim - 1; k >= 0; k--) {
    src_block[k] = src_block[k + 1] * src_shape[k];
    out_block[k] = out_block[k + 1] * out_shape[k];
  }
  if (ndim == 0) {
    memcpy(dst, src, (size_t)esize);
    return;
  }
  if (out_block[0] == 0) return; /* nothing to write; a source dim of 0 gives an output dim of 0 */
  repeat_dims(src, dst, 0, ndim, src_shape, out_shape, src_block, out_block);
}

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
