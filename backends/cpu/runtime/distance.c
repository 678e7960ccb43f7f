/* distance.c - p-norm distances between rows: cdist (every row of x1 against every row of
 * x2, per batch) and pdist (every pair i < j of one matrix's rows, in row-major order of
 * the upper triangle).  Each distance is summed in double from the element differences,
 * the direct definition; torch's CPU kernel does the same for p != 2 and for small p = 2
 * products (above 25 rows it takes a matrix product, whose rounding differs by ~1e-7). */
#include <math.h>

#include "kernels.h"

static float row_distance(const float *a, const float *b, int64_t m, double p) {
  double acc = 0;
  if (p == 0) {
    for (int64_t k = 0; k < m; k++) acc += a[k] != b[k];
    return (float)acc;
  }
  if (isinf(p)) {
    for (int64_t k = 0; k < m; k++) {
      double d = fabs((double)a[k] - b[k]);
      if (d > acc || d != d) acc = d;
    }
    return (float)acc;
  }
  for (int64_t k = 0; k < m; k++) {
    double d = fabs((double)a[k] - b[k]);
    acc += p == 1 ? d : p == 2 ? d * d : pow(d, p);
  }
  return (float)(p == 1 ? acc : p == 2 ? sqrt(acc) : pow(acc, 1.0 / p));
}

void sc_k_cdist_f32(const float *x1, const float *x2, float *out, int64_t batch, int64_t rows1, int64_t rows2, int64_t m,
                    double p) {
  for (int64_t b = 0; b < batch; b++)
    for (int64_t i = 0; i < rows1; i++)
      for (int64_t j = 0; j < rows2; j++)
        out[(b * rows1 + i) * rows2 + j] = row_distance(x1 + (b * rows1 + i) * m, x2 + (b * rows2 + j) * m, m, p);
}

void sc_k_pdist_f32(const float *x, float *out, int64_t n, int64_t m, double p) {
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = i + 1; j < n; j++) out[k++] = row_distance(x + i * m, x + j * m, m, p);
}
