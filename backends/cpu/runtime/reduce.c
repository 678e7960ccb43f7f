/* reduce.c - reductions over any set of dims (sum, mean, max, min, var) and argmax/argmin. */
#include <math.h>

#include "kernels.h"

void sc_k_reduce_f32(const float *x, float *y, int32_t ndim, const int64_t *shape, const int32_t *reduce, int32_t op,
                     double correction) {
  /* output index = input index with the reduced dims dropped */
  int64_t out_n = 1, red_n = 1;
  for (int32_t i = 0; i < ndim; i++) {
    if (reduce[i]) red_n *= shape[i];
    else out_n *= shape[i];
  }
  for (int64_t o = 0; o < out_n; o++) {
    y[o] = op == SC_REDUCE_MAX ? -INFINITY : op == SC_REDUCE_MIN ? INFINITY : 0.0f;
  }
  double *acc = (op == SC_REDUCE_SUM || op == SC_REDUCE_MEAN || op == SC_REDUCE_VAR) && out_n
                    ? sc_rt_alloc(out_n * (int64_t)sizeof(double) * 2)
                    : NULL;
  if (acc)
    for (int64_t o = 0; o < 2 * out_n; o++) acc[o] = 0;
  int64_t idx[16] = {0}, total = out_n * red_n;
  for (int64_t lin = 0; lin < total; lin++) {
    int64_t o = 0;
    for (int32_t i = 0; i < ndim; i++)
      if (!reduce[i]) o = o * shape[i] + idx[i];
    float v = x[lin];
    if (acc) {
      acc[o] += v;
      acc[out_n + o] += (double)v * v;
    } else if (op == SC_REDUCE_MAX) {
      if (v > y[o] || isnan(v)) y[o] = isnan(y[o]) ? y[o] : v;
    } else if (op == SC_REDUCE_MIN) {
      if (v < y[o] || isnan(v)) y[o] = isnan(y[o]) ? y[o] : v;
    }
    for (int32_t i = ndim - 1; i >= 0; i--) {
      if (++idx[i] < shape[i]) break;
      idx[i] = 0;
    }
  }
  if (acc) {
    for (int64_t o = 0; o < out_n; o++) {
      double n = (double)red_n, mean = red_n ? acc[o] / n : NAN;
      if (op == SC_REDUCE_SUM) y[o] = (float)acc[o];
      else if (op == SC_REDUCE_MEAN) y[o] = (float)mean;
      else y[o] = (float)((acc[out_n + o] - n * mean * mean) / (n - correction));
    }
    sc_rt_free(acc);
  }
}

void sc_k_sum_i64(const void *x, int64_t *y, int32_t kind, int32_t ndim, const int64_t *shape, const int32_t *reduce) {
  int64_t out_n = 1, total = 1;
  for (int32_t i = 0; i < ndim; i++) {
    total *= shape[i];
    if (!reduce[i]) out_n *= shape[i];
  }
  for (int64_t o = 0; o < out_n; o++) y[o] = 0;
  int64_t idx[16] = {0};
  for (int64_t lin = 0; lin < total; lin++) {
    int64_t o = 0;
    for (int32_t i = 0; i < ndim; i++)
      if (!reduce[i]) o = o * shape[i] + idx[i];
    int64_t v = kind == 0 ? ((const uint8_t *)x)[lin] : kind == 1 ? ((const int8_t *)x)[lin]
              : kind == 2 ? ((const int16_t *)x)[lin] : kind == 3 ? ((const int32_t *)x)[lin] : ((const int64_t *)x)[lin];
    y[o] = (int64_t)((uint64_t)y[o] + (uint64_t)v); /* wraps as torch's int64 sum does */
    for (int32_t i = ndim - 1; i >= 0; i--) {
      if (++idx[i] < shape[i]) break;
      idx[i] = 0;
    }
  }
}

void sc_k_arg_reduce_f32(const float *x, float *values, int64_t *indices, int64_t outer, int64_t n, int64_t inner,
                         int32_t is_min) {
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < inner; j++) {
      const float *xs = x + o * n * inner + j;
      int64_t best = 0;
      for (int64_t i = 1; i < n; i++) {
        float a = xs[i * inner], b = xs[best * inner];
        if (isnan(b)) break;
        if (isnan(a) || (is_min ? a < b : a > b)) best = i;
      }
      if (values) values[o * inner + j] = n ? xs[best * inner] : NAN;
      if (indices) indices[o * inner + j] = best;
    }
}
