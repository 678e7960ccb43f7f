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
