/* copy.c - data movement kernels: strided copies (permute, expand, slice, cat), fills,
 * arange, eye, index_select / embedding, gather and repeat. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "element_kind.h"
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

/* roll: dst[i...] = src[(i[d] - shift[d]) mod shape[d] ...], each shift already in
 * [0, shape[d]); both compact. */
void sc_k_roll(const void *src, void *dst, int32_t ndim, const int64_t *shape, const int64_t *shift, int64_t esize) {
  int64_t n = 1, st[16], at[16] = {0};
  if (ndim > 16) return;
  for (int32_t d = ndim - 1; d >= 0; d--) {
    st[d] = n;
    n *= shape[d];
  }
  const char *s = src;
  char *o = dst;
  for (int64_t e = 0; e < n; e++) {
    int64_t from = 0;
    for (int32_t d = 0; d < ndim; d++) {
      int64_t k = at[d] - shift[d];
      from += (k < 0 ? k + shape[d] : k) * st[d];
    }
    memcpy(o + e * esize, s + from * esize, (size_t)esize);
    for (int32_t d = ndim - 1; d >= 0 && ++at[d] == shape[d]; d--) at[d] = 0;
  }
}

/* diff along a dim of [outer, len, inner] pieces: the sequence prepend (lp), x (lx), append
 * (la) and out[j] = v[j + 1] - v[j]; kind 0 int64, 1 int32, 2 float32, 3 float64. */
static double diff_at(const void *p, int32_t kind, int64_t at) {
  return kind == 0 ? (double)((const int64_t *)p)[at] : kind == 1 ? ((const int32_t *)p)[at]
       : kind == 2 ? ((const float *)p)[at] : ((const double *)p)[at];
}

void sc_k_diff(const void *pre, const void *x, const void *app, void *out, int64_t outer, int64_t lp, int64_t lx,
               int64_t la, int64_t inner, int32_t kind) {
  int64_t total = lp + lx + la;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j + 1 < total; j++)
      for (int64_t i = 0; i < inner; i++) {
        int64_t a[2] = {j, j + 1};
        int64_t ints[2] = {0, 0};
        double v[2] = {0, 0};
        for (int t = 0; t < 2; t++) {
          int64_t k = a[t];
          const void *src = k < lp ? pre : k < lp + lx ? x : app;
          int64_t len = k < lp ? lp : k < lp + lx ? lx : la, at = k < lp ? k : k < lp + lx ? k - lp : k - lp - lx;
          int64_t flat = (o * len + at) * inner + i;
          if (kind == 0) ints[t] = ((const int64_t *)src)[flat];
          else if (kind == 1) ints[t] = ((const int32_t *)src)[flat];
          else v[t] = diff_at(src, kind, flat);
        }
        int64_t dst = (o * (total - 1) + j) * inner + i;
        if (kind == 0) ((int64_t *)out)[dst] = (int64_t)((uint64_t)ints[1] - (uint64_t)ints[0]);
        else if (kind == 1) ((int32_t *)out)[dst] = (int32_t)((uint32_t)ints[1] - (uint32_t)ints[0]);
        else if (kind == 2) ((float *)out)[dst] = (float)v[1] - (float)v[0];
        else ((double *)out)[dst] = v[1] - v[0];
      }
}

/* rand and randn: a per-thread xorshift generator seeded from the clock and the thread's
 * stack; torch's own generator and seed are not reproduced (docs/ops.md). */
static uint64_t next_random(void) {
  static _Thread_local uint64_t state;
  if (!state) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    state = ((uint64_t)t.tv_nsec * 0x9E3779B97F4A7C15ull) ^ (uint64_t)(uintptr_t)&t ^ 1;
  }
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

void sc_k_rand_f32(float *dst, int64_t n, int32_t normal) {
  for (int64_t i = 0; i < n; i++) {
    double u = (double)(next_random() >> 11) * 0x1.0p-53; /* [0, 1) */
    if (normal) { /* Box-Muller */
      double u2 = (double)((next_random() >> 11) + 1) * 0x1.0p-53;
      u = sqrt(-2.0 * log(u2)) * cos(6.283185307179586 * u);
    }
    dst[i] = normal ? (float)u : (float)u < 1.0f ? (float)u : 0x1.fffffep-1f;
  }
}

/* randperm: 0 .. n-1 shuffled (Fisher-Yates) with rand's generator, stored as kind */
static int64_t perm_get(const char *p, int32_t kind) {
  return sc_kind_is_float(kind) ? (int64_t)sc_kind_get_f(p, kind) : sc_kind_get_i(p, kind);
}

static void perm_put(char *p, int32_t kind, int64_t v) {
  if (sc_kind_is_float(kind))
    sc_kind_put_f(p, kind, (double)v);
  else
    sc_kind_put_i(p, kind, v);
}

void sc_k_randperm(void *dst, int64_t n, int32_t kind) {
  char *d = dst;
  int64_t size = sc_kind_size(kind);
  for (int64_t i = 0; i < n; i++) perm_put(d + i * size, kind, i);
  for (int64_t i = n - 1; i > 0; i--) {
    int64_t j = (int64_t)(next_random() % (uint64_t)(i + 1));
    int64_t a = perm_get(d + i * size, kind), b = perm_get(d + j * size, kind);
    perm_put(d + i * size, kind, b);
    perm_put(d + j * size, kind, a);
  }
}

void sc_k_arange(void *dst, int64_t n, double start, double step, int32_t kind) {
  for (int64_t i = 0; i < n; i++) {
    double v = start + step * (double)i;
    switch (kind) {
      case SC_ARANGE_F32: ((float *)dst)[i] = (float)v; break;
      case SC_ARANGE_F64: ((double *)dst)[i] = v; break;
      case SC_ARANGE_I32: ((int32_t *)dst)[i] = (int32_t)((int64_t)start + (int64_t)step * i); break;
      case SC_ARANGE_I16: ((int16_t *)dst)[i] = (int16_t)((int64_t)start + (int64_t)step * i); break;
      case SC_ARANGE_I8: ((int8_t *)dst)[i] = (int8_t)((int64_t)start + (int64_t)step * i); break;
      case SC_ARANGE_U8: ((uint8_t *)dst)[i] = (uint8_t)((int64_t)start + (int64_t)step * i); break;
      default: ((int64_t *)dst)[i] = (int64_t)start + (int64_t)step * i; break;
    }
  }
}

/* The position of the first index outside [0, size), or -1.  No op wraps a negative index
 * (torch raises on it), and a size of 0 leaves no index in range. */
static int64_t first_bad_index(const int64_t *index, int64_t n, int64_t size) {
  for (int64_t i = 0; i < n; i++)
    if ((uint64_t)index[i] >= (uint64_t)size) return i;
  return -1;
}

/* Torch's words (fmt, its arguments), then the node's name; SHAPEC_ERR_SHAPE. */
static int index_fail(char *err, size_t errlen, const char *node, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int index_fail(char *err, size_t errlen, const char *node, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    if (k >= 0 && (size_t)k < errlen && node) snprintf(err + k, errlen - (size_t)k, " (%s)", node);
  }
  return SHAPEC_ERR_SHAPE;
}

/* Sizes as torch prints them: "[4, 7]". */
static void sizes_text(char *buf, size_t n, const int64_t *shape, int32_t ndim) {
  size_t k = (size_t)snprintf(buf, n, "[");
  for (int32_t d = 0; d < ndim && k < n; d++)
    k += (size_t)snprintf(buf + k, n - k, "%s%lld", d ? ", " : "", (long long)shape[d]);
  if (k < n) snprintf(buf + k, n - k, "]");
}

/* index_select's failure for its first bad index (of n_index) in torch's words, which
 * depend on the source's rank, dim and emptiness (runtime_abi.h); SHAPEC_OK when none. */
static int check_select_indices(const int64_t *index, int64_t outer, int64_t n_src, int64_t n_index, int64_t inner,
                                int32_t ndim, int32_t dim, const char *node, char *err, size_t errlen) {
  if (n_index == 0) return SHAPEC_OK;
  bool empty = ndim > 1 && (outer == 0 || n_src == 0 || inner == 0);
  if (empty && n_src == 0) return index_fail(err, errlen, node, SC_INDEX_SELECT_EMPTY_MSG);
  int64_t bad = first_bad_index(index, n_index, n_src);
  if (bad < 0) return SHAPEC_OK;
  if (empty || (ndim > 1 && dim == 1))
    return index_fail(err, errlen, node, SC_INDEX_SELECT_DATA_BOUNDS_MSG, (long long)index[bad], (long long)n_src);
  return index_fail(err, errlen, node, SC_INDEX_SELECT_SELF_MSG);
}

/* src [outer, n_src, inner] -> dst [outer, n_index, inner], picking rows by index. */
int sc_k_index_select(const void *src, const int64_t *index, void *dst, int64_t outer, int64_t n_src, int64_t n_index,
                      int64_t inner, int64_t esize, int32_t ndim, int32_t dim, const char *node, char *err,
                      size_t errlen) {
  int rc = check_select_indices(index, outer, n_src, n_index, inner, ndim, dim, node, err, errlen);
  if (rc) return rc;
  const char *s = src;
  char *d = dst;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < n_index; i++)
      memcpy(d + ((o * n_index + i) * inner) * esize, s + ((o * n_src + index[i]) * inner) * esize,
             (size_t)(inner * esize));
  return SHAPEC_OK;
}

/* index_copy: dst [outer, n_dst, inner] (already holding self) gets src [outer, n_index,
 * inner]'s row i at row index[i]; a later duplicate wins, as in torch's CPU kernel.  Every
 * index is checked before a byte is written. */
int sc_k_index_copy(void *dst, const int64_t *index, const void *src, int64_t outer, int64_t n_dst, int64_t n_index,
                    int64_t inner, int64_t esize, int32_t dim, const char *node, char *err, size_t errlen) {
  int64_t bad = first_bad_index(index, n_index, n_dst);
  if (bad >= 0) return index_fail(err, errlen, node, SC_INDEX_COPY_MSG, (long long)index[bad], (int)dim, (long long)n_dst);
  const char *s = src;
  char *d = dst;
  size_t row = (size_t)(inner * esize);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < n_index; i++)
      memcpy(d + ((o * n_dst + index[i]) * inner) * esize, s + ((o * n_index + i) * inner) * esize, row);
  return SHAPEC_OK;
}

int sc_k_index_add(void *dst, const int64_t *index, const void *src, int64_t outer, int64_t n_dst, int64_t n_index,
                   int64_t inner, int32_t kind, double alpha, const char *node, char *err, size_t errlen) {
  if (first_bad_index(index, n_index, n_dst) >= 0) return index_fail(err, errlen, node, "%s", "index out of range in self");
  int64_t size = sc_kind_size(kind);
  bool fl = sc_kind_is_float(kind);
  char *d = dst;
  const char *s = src;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < n_index; i++)
      for (int64_t j = 0; j < inner; j++) {
        char *t = d + ((o * n_dst + index[i]) * inner + j) * size;
        const char *f = s + ((o * n_index + i) * inner + j) * size;
        if (fl) {
          double add = alpha == 1 ? sc_kind_get_f(f, kind) : alpha * sc_kind_get_f(f, kind);
          if (kind == SC_KIND_F32) add = (float)add; /* float32 adds as float32, as ATen's */
          sc_kind_put_f(t, kind, sc_kind_get_f(t, kind) + add);
        } else {
          uint64_t add = (uint64_t)sc_kind_get_i(f, kind) * (uint64_t)(int64_t)alpha;
          sc_kind_put_i(t, kind, (int64_t)((uint64_t)sc_kind_get_i(t, kind) + add));
        }
      }
  return SHAPEC_OK;
}

/* dst[i...] = src[i...] with i[dim] replaced by index[i...], over the index's shape: a row
 * of the index's last dim at a time, the source read with its own (compact) strides ss.
 * Elements of 1, 2, 4 and 8 bytes as loads and stores, not a memcpy call each. */
#define GATHER_ROW(T)                                                                                        \
  for (int64_t j = 0; j < len; j++) ((T *)dr)[j] = ((const T *)src)[base + j * step + ix[j] * pick];
static void gather_rows(const char *src, const int64_t *index, char *dst, int32_t ndim, int32_t dim, const int64_t *ss,
                        const int64_t *index_shape, int64_t n, int64_t esize) {
  int32_t last = ndim - 1;
  int64_t len = index_shape[last], rows = n / len, step = last == dim ? 0 : ss[last], pick = ss[dim];
  int64_t at[16] = {0}; /* the row's coordinates over dims [0, last) */
  for (int64_t row = 0; row < rows; row++) {
    int64_t base = 0;
    for (int32_t d = 0; d < last; d++)
      if (d != dim) base += at[d] * ss[d];
    const int64_t *ix = index + row * len;
    char *dr = dst + row * len * esize;
    switch (esize) {
      case 1: GATHER_ROW(uint8_t) break;
      case 2: GATHER_ROW(uint16_t) break;
      case 4: GATHER_ROW(uint32_t) break;
      case 8: GATHER_ROW(uint64_t) break;
      default:
        for (int64_t j = 0; j < len; j++)
          memcpy(dr + j * esize, src + (base + j * step + ix[j] * pick) * esize, (size_t)esize);
    }
    for (int32_t d = last - 1; d >= 0 && ++at[d] == index_shape[d]; d--) at[d] = 0;
  }
}
#undef GATHER_ROW

int sc_k_gather(const void *src, const int64_t *index, void *dst, int32_t ndim, int32_t dim, const int64_t *src_shape,
                const int64_t *index_shape, int64_t esize, const char *node, char *err, size_t errlen) {
  int64_t n = 1, ss[16];
  for (int32_t d = 0; d < ndim; d++) n *= index_shape[d];
  if (n == 0) return SHAPEC_OK;
  for (int32_t d = 0; d < ndim; d++) {
    if (d == dim || index_shape[d] <= src_shape[d]) continue;
    char is[400], xs[400];
    sizes_text(is, sizeof is, index_shape, ndim);
    sizes_text(xs, sizeof xs, src_shape, ndim);
    return index_fail(err, errlen, node, SC_GATHER_SIZE_MSG, (int)d, is, xs, (int)dim);
  }
  int64_t bad = first_bad_index(index, n, src_shape[dim]);
  if (bad >= 0) return index_fail(err, errlen, node, SC_INDEX_GATHER_MSG, (long long)index[bad], (int)dim,
                                  (long long)src_shape[dim]);
  int64_t st = 1;
  for (int32_t d = ndim - 1; d >= 0; d--) {
    ss[d] = st;
    st *= src_shape[d];
  }
  gather_rows(src, index, dst, ndim, dim, ss, index_shape, n, esize);
  return SHAPEC_OK;
}

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

void sc_k_all(const void *src, uint8_t *dst, int64_t outer, int64_t len, int64_t inner, int64_t esize, int32_t is_float) {
  const unsigned char *p = src;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      uint8_t all = 1;
      for (int64_t k = 0; k < len && all; k++) all = (uint8_t)is_nonzero(p + ((o * len + k) * inner + i) * esize, esize, is_float);
      dst[o * inner + i] = all;
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

/* masked_scatter: out over the broadcast shape, self's element where the mask is false and
 * source's next element (in order) where it is true; source must hold enough, checked
 * before anything is written, in torch's words. */
int sc_k_masked_scatter(const void *x, const int64_t *x_st, const uint8_t *mask, const int64_t *m_st, int32_t ndim,
                        const int64_t *shape, int64_t esize, const void *source, int64_t source_numel, void *out,
                        const char *node, char *err, size_t errlen) {
  if (sc_k_count_masked(mask, m_st, ndim, shape) > source_numel)
    return index_fail(err, errlen, node, "Number of elements of source < number of ones in mask");
  const unsigned char *src = x, *s = source;
  unsigned char *dst = out;
  FOR_EACH_INDEX(ndim, shape, x_st, m_st, xo, mo, {
    if (mask[mo]) {
      memcpy(dst, s, (size_t)esize);
      s += esize;
    } else {
      memcpy(dst, src + xo * esize, (size_t)esize);
    }
    dst += esize;
  });
  return SHAPEC_OK;
}

/* linspace: steps points from start to end, the first half counted from start and the
 * second from end (as ATen's CPU kernel, so that the last point is end exactly); float32
 * steps computed in float32. */
void sc_k_linspace(void *dst, int64_t steps, double start, double end, int32_t is_f64) {
  if (steps <= 0) return;
  int64_t half = steps / 2;
  if (is_f64) {
    double *y = dst, step = steps > 1 ? (end - start) / (double)(steps - 1) : 0;
    for (int64_t i = 0; i < steps; i++) y[i] = i < half ? start + step * (double)i : end - step * (double)(steps - i - 1);
    return;
  }
  float *y = dst, s = (float)start, e = (float)end, step = steps > 1 ? (e - s) / (float)(steps - 1) : 0;
  for (int64_t i = 0; i < steps; i++) y[i] = i < half ? s + step * (float)i : e - step * (float)(steps - i - 1);
}

/* triu / tril of [batch, rows, cols]: element (i, j) kept where j - i >= diagonal (upper)
 * or j - i <= diagonal (lower), else zero bits (0 of every dtype). */
void sc_k_triangle(const void *x, void *out, int64_t batch, int64_t rows, int64_t cols, int64_t diagonal, int32_t upper,
                   int64_t esize) {
  const char *src = x;
  char *dst = out;
  for (int64_t b = 0; b < batch; b++)
    for (int64_t i = 0; i < rows; i++)
      for (int64_t j = 0; j < cols; j++) {
        int64_t at = ((b * rows + i) * cols + j) * esize;
        bool keep = upper ? j - i >= diagonal : j - i <= diagonal;
        if (keep) memcpy(dst + at, src + at, (size_t)esize);
        else memset(dst + at, 0, (size_t)esize);
      }
}

void sc_k_eye(void *dst, int64_t rows, int64_t cols, int32_t kind) {
  char *d = dst;
  int64_t size = sc_kind_size(kind);
  memset(d, 0, (size_t)(rows * cols * size));
  for (int64_t i = 0; i < rows && i < cols; i++) perm_put(d + (i * cols + i) * size, kind, 1);
}

void sc_k_widen_i32(const int32_t *src, int64_t *dst, int64_t n) {
  for (int64_t i = 0; i < n; i++) dst[i] = src[i];
}

void sc_k_fill_diagonal(void *dst, int32_t rank, const int64_t *shape, double value, int32_t kind, int32_t wrap) {
  char *d = dst;
  int64_t size = sc_kind_size(kind), numel = 1, step = 0, stride = 1, count = INT64_MAX;
  for (int32_t i = rank - 1; i >= 0; i--) { /* the diagonal steps by the sum of the strides */
    step += stride;
    stride *= shape[i];
    numel *= shape[i];
    count = shape[i] < count ? shape[i] : count;
  }
  /* a tall matrix with wrap: the diagonal starts again every width + 1 rows, to the end */
  if (rank == 2 && wrap && shape[0] > shape[1] + 1) count = (numel + step - 1) / step;
  for (int64_t i = 0; i < count && i * step < numel; i++) {
    char *at = d + i * step * size;
    if (sc_kind_is_float(kind)) sc_kind_put_f(at, kind, value);
    else sc_kind_put_i(at, kind, (int64_t)value);
  }
}
