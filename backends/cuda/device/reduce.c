/* reduce.c - reductions over any set of dims (sum, mean, max, min, var) and argmax /
 * argmin (the GPU side of backends/cpu/runtime/reduce.c).
 *
 * A reduction runs either in one pass, one work item per output element (sc_d_reduce),
 * or, when there are few outputs and long reductions, in two: sc_d_reduce_partial
 * reduces `chunks` contiguous ranges of each output's reduced elements into double
 * partials, and sc_d_reduce_finish combines them in order.  Sums and sums of squares are
 * kept in double, as on the CPU. */
#include "backends/llvm/runtime_abi.h"
#include "device.h"

static inline int is_nan(double v) { return v != v; }

/* The running value of max / min, with the CPU kernel's rule: the first NaN sticks. */
static inline double pick(double acc, double v, int32_t op) {
  if (op == SC_REDUCE_MAX ? (v > acc || is_nan(v)) : (v < acc || is_nan(v))) return is_nan(acc) ? acc : v;
  return acc;
}

/* Reduces the reduced elements [r0, r1) of output o: s0 = sum (or max / min), s1 = sum of squares. */
static inline void reduce_range(const float *x, int32_t ndim, const sc_dims *shape, const sc_dims *reduce, int32_t op,
                                int64_t o, int64_t r0, int64_t r1, double *s0, double *s1) {
  const int bounded = op == SC_REDUCE_MAX || op == SC_REDUCE_MIN;
  double a = op == SC_REDUCE_MAX ? -__builtin_inf() : op == SC_REDUCE_MIN ? __builtin_inf() : 0.0, b = 0.0;
  *s0 = a;
  *s1 = b;
  if (r0 >= r1) return; /* (a reduced extent may be 0) */
  int64_t stride[16], idx[16], base = 0, off = 0;
  int64_t st = 1;
  for (int32_t d = ndim - 1; d >= 0; d--) {
    stride[d] = st;
    st *= shape->v[d];
  }
  /* the kept dims' coordinates from o, the reduced dims' from r0 */
  int64_t ko = o, kr = r0;
  for (int32_t d = ndim - 1; d >= 0; d--) {
    int64_t extent = shape->v[d];
    if (reduce->v[d]) {
      idx[d] = kr % extent;
      kr /= extent;
      off += idx[d] * stride[d];
    } else {
      base += (ko % extent) * stride[d];
      ko /= extent;
    }
  }
  for (int64_t r = r0; r < r1; r++) {
    double v = x[base + off];
    if (bounded) a = pick(a, v, op);
    else {
      a += v;
      b += v * v;
    }
    for (int32_t d = ndim - 1; d >= 0; d--) {
      if (!reduce->v[d]) continue;
      if (++idx[d] < shape->v[d]) {
        off += stride[d];
        break;
      }
      off -= stride[d] * (idx[d] - 1);
      idx[d] = 0;
    }
  }
  *s0 = a;
  *s1 = b;
}

static inline float finish(double s0, double s1, int64_t red_n, int32_t op, double correction) {
  if (op == SC_REDUCE_MAX || op == SC_REDUCE_MIN || op == SC_REDUCE_SUM) return (float)s0;
  double n = (double)red_n, mean = red_n ? s0 / n : __builtin_nan("");
  if (op == SC_REDUCE_MEAN) return (float)mean;
  return (float)((s1 - n * mean * mean) / (n - correction));
}

/* One pass: y[o] for o in [0, out_n); reduce[d] != 0 marks a reduced dim; red_n = the
 * product of the reduced extents. */
SC_KERNEL void sc_d_reduce(const float *x, float *y, int32_t ndim, sc_dims shape, sc_dims reduce, int32_t op,
                           double correction, int64_t out_n, int64_t red_n) {
  SC_GRID_LOOP(o, out_n) {
    double s0, s1;
    reduce_range(x, ndim, &shape, &reduce, op, o, 0, red_n, &s0, &s1);
    y[o] = finish(s0, s1, red_n, op, correction);
  }
}

/* Pass 1 of 2: part[(o * chunks + c) * 2 + {0, 1}] = chunk c of output o. */
SC_KERNEL void sc_d_reduce_partial(const float *x, double *part, int32_t ndim, sc_dims shape, sc_dims reduce,
                                   int32_t op, int64_t out_n, int64_t red_n, int64_t chunks) {
  int64_t size = (red_n + chunks - 1) / chunks;
  SC_GRID_LOOP(t, out_n * chunks) {
    int64_t o = t / chunks, c = t % chunks;
    int64_t r0 = c * size < red_n ? c * size : red_n, r1 = r0 + size < red_n ? r0 + size : red_n;
    reduce_range(x, ndim, &shape, &reduce, op, o, r0, r1, &part[2 * t], &part[2 * t + 1]);
  }
}

/* Pass 2 of 2: y[o] from output o's chunk partials. */
SC_KERNEL void sc_d_reduce_finish(const double *part, float *y, int32_t op, double correction, int64_t out_n,
                                  int64_t red_n, int64_t chunks) {
  SC_GRID_LOOP(o, out_n) {
    const double *p = part + 2 * o * chunks;
    double s0 = op == SC_REDUCE_MAX ? -__builtin_inf() : op == SC_REDUCE_MIN ? __builtin_inf() : 0.0, s1 = 0.0;
    for (int64_t c = 0; c < chunks; c++) {
      if (op == SC_REDUCE_MAX || op == SC_REDUCE_MIN) s0 = pick(s0, p[2 * c], op);
      else {
        s0 += p[2 * c];
        s1 += p[2 * c + 1];
      }
    }
    y[o] = finish(s0, s1, red_n, op, correction);
  }
}

/* values / indices [outer, inner] = the first max (min) over the middle dim of x [outer,
 * n, inner]; a NaN wins.  Either output may be NULL. */
SC_KERNEL void sc_d_arg_reduce(const float *x, float *values, int64_t *indices, int64_t outer, int64_t n,
                               int64_t inner, int32_t is_min) {
  SC_GRID_LOOP(t, outer * inner) {
    int64_t o = t / inner, j = t % inner;
    const float *xs = x + o * n * inner + j;
    int64_t best = 0;
    float bv = n ? xs[0] : 0.0f;
    for (int64_t i = 1; i < n && bv == bv; i++) {
      float a = xs[i * inner];
      if (a != a || (is_min ? a < bv : a > bv)) {
        best = i;
        bv = a;
      }
    }
    if (values) values[t] = n ? bv : __builtin_nanf("");
    if (indices) indices[t] = best;
  }
}

/* cumsum (prod 0) or cumprod (prod 1) over the middle dim of [outer, n, inner], one line per
 * work item: float32 accumulated in double, as the CPU's (and ATen's) kernels. */
SC_KERNEL void sc_d_cumulative_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner, int32_t prod) {
  SC_GRID_LOOP(t, outer * inner) {
    int64_t o = t / inner, j = t % inner;
    double acc = prod ? 1 : 0;
    for (int64_t i = 0; i < n; i++) {
      int64_t at = (o * n + i) * inner + j;
      acc = prod ? acc * x[at] : acc + x[at];
      y[at] = (float)acc;
    }
  }
}

/* The same for integers and bools (kind: 0 uint8/bool, 1 int8, 2 int16, 3 int32, 4 int64)
 * into int64, wrapping as torch's do. */
SC_KERNEL void sc_d_cumulative_i64(const void *x, int64_t *y, int32_t kind, int64_t outer, int64_t n, int64_t inner,
                                   int32_t prod) {
  SC_GRID_LOOP(t, outer * inner) {
    int64_t o = t / inner, j = t % inner;
    uint64_t acc = prod ? 1 : 0;
    for (int64_t i = 0; i < n; i++) {
      int64_t at = (o * n + i) * inner + j;
      int64_t v = kind == 0 ? ((const uint8_t *)x)[at] : kind == 1 ? ((const int8_t *)x)[at]
                : kind == 2 ? ((const int16_t *)x)[at] : kind == 3 ? ((const int32_t *)x)[at] : ((const int64_t *)x)[at];
      acc = prod ? acc * (uint64_t)v : acc + (uint64_t)v;
      y[at] = (int64_t)acc;
    }
  }
}

/* _weight_norm (the CPU's sc_k_weight_norm_f32): each position j of [outer, n, inner]'s
 * middle dim scaled to g[j] / its norm over the other dims (squares summed in double), one
 * position per work item. */
SC_KERNEL void sc_d_weight_norm(const float *v, const float *g, float *out, int64_t outer, int64_t n, int64_t inner) {
  SC_GRID_LOOP(j, n) {
    double sq = 0;
    for (int64_t o = 0; o < outer; o++)
      for (int64_t i = 0; i < inner; i++) {
        double x = v[(o * n + j) * inner + i];
        sq += x * x;
      }
    float scale = (float)(g[j] / sc_sqrt(sq));
    for (int64_t o = 0; o < outer; o++)
      for (int64_t i = 0; i < inner; i++) out[(o * n + j) * inner + i] = v[(o * n + j) * inner + i] * scale;
  }
}

/* linalg_vector_norm's elementwise steps (the CPU's sc_k_vector_norm_map_f32 and _finish):
 * |x|^ord before the reduction (x^2 for 2, |x| for 1 and +-inf, x != 0 for 0), the root
 * after it. */
SC_KERNEL void sc_d_vector_norm_map(const float *x, float *y, int64_t n, double ord) {
  SC_GRID_LOOP(i, n) {
    float v = x[i];
    y[i] = ord == 2 ? v * v : ord == 1 || __builtin_isinf(ord) ? sc_fabsf(v) : ord == 0 ? (float)(v != 0.0f)
         : sc_powf(sc_fabsf(v), (float)ord);
  }
}

SC_KERNEL void sc_d_vector_norm_finish(float *y, int64_t n, double ord) {
  SC_GRID_LOOP(i, n) {
    if (ord == 2) y[i] = sc_sqrtf(y[i]);
    else if (ord != 1 && ord != 0 && !__builtin_isinf(ord)) y[i] = sc_powf(y[i], (float)(1.0 / ord));
  }
}

/* A sum of integers or bools (kind 0 uint8/bool .. 4 int64) into int64 over the dims
 * `reduce` marks (the CPU's sc_k_sum_i64), wrapping as torch's does: one output per work
 * item, its reduced elements visited in order. */
SC_KERNEL void sc_d_sum_i64(const void *x, int64_t *y, int32_t kind, int32_t ndim, sc_dims shape, sc_dims reduce,
                            int64_t out_n, int64_t red_n) {
  SC_GRID_LOOP(o, out_n) {
    int64_t base = 0, stride = 1, rest = o;
    for (int32_t d = ndim - 1; d >= 0; d--) { /* o's coordinates in the kept dims */
      if (!reduce.v[d]) {
        base += (rest % shape.v[d]) * stride;
        rest /= shape.v[d];
      }
      stride *= shape.v[d];
    }
    uint64_t acc = 0;
    for (int64_t r = 0; r < red_n; r++) {
      int64_t at = base, st = 1, left = r;
      for (int32_t d = ndim - 1; d >= 0; d--) {
        if (reduce.v[d]) {
          at += (left % shape.v[d]) * st;
          left /= shape.v[d];
        }
        st *= shape.v[d];
      }
      int64_t v = kind == 0 ? ((const uint8_t *)x)[at] : kind == 1 ? ((const int8_t *)x)[at]
                : kind == 2 ? ((const int16_t *)x)[at] : kind == 3 ? ((const int32_t *)x)[at] : ((const int64_t *)x)[at];
      acc += (uint64_t)v;
    }
    y[o] = (int64_t)acc;
  }
}

/* y[i] = x[i] as float32 (the nearest float): a count asked for in float32. */
SC_KERNEL void sc_d_i64_to_f32(const int64_t *x, float *y, int64_t n) {
  SC_GRID_LOOP(i, n) y[i] = (float)x[i];
}

/* One element of kind SC_KIND_* (U8, I8, I16, I32, I64, F32, F64) at p. */
static inline double kind_f(const char *p, int32_t kind) {
  return kind == SC_KIND_F32 ? (double)*(const float *)p : *(const double *)p;
}
static inline int64_t kind_i(const char *p, int32_t kind) {
  return kind == SC_KIND_U8 ? *(const uint8_t *)p : kind == SC_KIND_I8 ? *(const int8_t *)p
       : kind == SC_KIND_I16 ? *(const int16_t *)p : kind == SC_KIND_I32 ? *(const int32_t *)p : *(const int64_t *)p;
}

/* Whether element a of the line goes strictly before element b: NaN after every number
 * (first when descending), as the CPU's sort.c and torch order them. */
static inline int sorts_before(const char *base, int64_t stride, int32_t kind, int32_t descending, int64_t a, int64_t b) {
  if (kind == SC_KIND_F32 || kind == SC_KIND_F64) {
    double x = kind_f(base + a * stride, kind), y = kind_f(base + b * stride, kind);
    int xn = x != x, yn = y != y;
    if (descending) return (xn && !yn) || (!xn && !yn && x > y);
    return (!xn && yn) || (!xn && !yn && x < y);
  }
  int64_t x = kind_i(base + a * stride, kind), y = kind_i(base + b * stride, kind);
  return descending ? x > y : x < y;
}

/* sort / topk along the middle dim of [outer, n, inner] (the CPU's sc_k_sort): each line's
 * positions ordered by the same stable bottom-up merge sort, the first k written as values
 * (when given) and int64 indices [outer, k, inner]; one line per work item, its 2n int64
 * of scratch at scratch + 2n * line. */
SC_KERNEL void sc_d_sort(const char *x, char *values, int64_t *indices, int64_t *scratch, int64_t outer, int64_t n,
                         int64_t inner, int64_t k, int32_t kind, int32_t descending) {
  int64_t es = kind == SC_KIND_U8 || kind == SC_KIND_I8 ? 1 : kind == SC_KIND_I16 ? 2
             : kind == SC_KIND_I32 || kind == SC_KIND_F32 ? 4 : 8;
  SC_GRID_LOOP(t, outer * inner) {
    int64_t o = t / inner, j = t % inner, stride = inner * es;
    const char *base = x + (o * n * inner + j) * es;
    int64_t *idx = scratch + 2 * n * t, *tmp = idx + n;
    for (int64_t i = 0; i < n; i++) idx[i] = i;
    for (int64_t width = 1; width < n; width *= 2) {
      for (int64_t lo = 0; lo < n; lo += 2 * width) {
        int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
        int64_t a = lo, b = mid, c = lo;
        while (a < mid && b < hi) tmp[c++] = sorts_before(base, stride, kind, descending, idx[b], idx[a]) ? idx[b++] : idx[a++];
        while (a < mid) tmp[c++] = idx[a++];
        while (b < hi) tmp[c++] = idx[b++];
      }
      for (int64_t i = 0; i < n; i++) idx[i] = tmp[i];
    }
    for (int64_t i = 0; i < k; i++) {
      int64_t at = (o * k + i) * inner + j;
      if (values)
        for (int64_t byte = 0; byte < es; byte++) values[at * es + byte] = base[idx[i] * stride + byte];
      if (indices) indices[at] = idx[i];
    }
  }
}
