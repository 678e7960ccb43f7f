/* grouped_mm.c - the products of a mixture of experts, as transformers' custom operator
 * transformers::grouped_mm_fallback computes them (the path its MoE layers take under
 * torch.export): input's rows, sorted by expert, in groups that offs ends (cumulative int32
 * counts); group e times weight[e].  Rows past the last offset are zeros, as in its output
 * buffer.  Each group is one product of the library's GEMM. */
#include <stdio.h>
#include <string.h>

#include "kernels.h"

int sc_k_grouped_mm_f32(const float *input, const float *weight, const int32_t *offs, float *out, int64_t rows,
                        int64_t experts, int64_t k, int64_t n, const char *node, char *err, size_t errlen) {
  int64_t start = 0;
  for (int64_t e = 0; e < experts; e++) { /* checked first: a failing call writes nothing */
    int64_t end = offs[e];
    if (end < start || end > rows) {
      if (err && errlen)
        snprintf(err, errlen, "grouped_mm: offs[%lld] = %lld is outside [%lld, %lld]: the offsets must be cumulative row "
                 "counts of the input (%s)", (long long)e, (long long)end, (long long)start, (long long)rows,
                 node ? node : "grouped_mm");
      return SHAPEC_ERR_SHAPE;
    }
    start = end;
  }
  memset(out, 0, (size_t)(rows * n) * sizeof *out);
  start = 0;
  for (int64_t e = 0; e < experts; e++) {
    int64_t end = offs[e];
    if (end > start) {
      int rc = sc_k_bmm_f32(1, end - start, n, k, input + start * k, 0, 0, weight + e * k * n, 0, 0, out + start * n,
                            1.0f, 0.0f);
      if (rc) return rc;
    }
    start = end;
  }
  return SHAPEC_OK;
}

/* histc: counts of x's elements in bins equal parts of [lo, hi] (hi itself in the last),
 * others and NaN left out; where lo == hi the data's own minimum and maximum, widened by
 * 1 each way when those are equal too, as torch's CPU kernel does.  Float32. */
void sc_k_histc_f32(const float *x, int64_t n, float *out, int64_t bins, double lo_arg, double hi_arg) {
  float lo = (float)lo_arg, hi = (float)hi_arg;
  if (lo == hi && n > 0) {
    bool any = false;
    for (int64_t i = 0; i < n; i++) {
      if (x[i] != x[i]) continue;
      if (!any || x[i] < lo) lo = x[i];
      if (!any || x[i] > hi) hi = x[i];
      any = true;
    }
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  for (int64_t b = 0; b < bins; b++) out[b] = 0;
  for (int64_t i = 0; i < n; i++) {
    float v = x[i];
    if (!(v >= lo && v <= hi)) continue;
    int64_t pos = (int64_t)((v - lo) * (float)bins / (hi - lo));
    if (pos >= bins) pos = bins - 1;
    out[pos] += 1;
  }
}
