/* reduce.c - reductions over any set of dims (sum, mean, max, min, var) and argmax/argmin.
 *
 * Float reductions whose reduced dims are one block of adjacent dims (x.sum(-1),
 * x.mean(1), x.mean((2, 3)), x.sum(), ...) see the input as [outer, len, inner] and run
 * vectorized on the pool: sums in double, as before; the variance in two passes (the
 * mean, then the squared deviations); max and min NaN if any element is.  Each output is
 * computed by one task in a fixed order, and a long row in chunks of a fixed length whose
 * results add up in order, so the result does not depend on the thread count.  Other
 * reductions (dims 0 and 2 of three) walk the input element by element. */
#include <immintrin.h>
#include <math.h>
#include <string.h>
#include <stdbool.h>

#include "kernels.h"

/* The shape as [outer, len, inner], the reduced dims in len, when they are adjacent
 * (dims of size 1 do not count); false when kept dims separate them. */
static bool as_outer_len_inner(int32_t ndim, const int64_t *shape, const int32_t *reduce, int64_t *outer, int64_t *len,
                               int64_t *inner) {
  int64_t part[3] = {1, 1, 1};
  int stage = 0; /* 0: the kept dims before the reduced ones, 1: the reduced ones, 2: the kept ones after */
  for (int32_t i = 0; i < ndim; i++) {
    if (shape[i] == 1) continue;
    if (reduce[i]) {
      if (stage == 2) return false;
      stage = 1;
    } else if (stage == 1) {
      stage = 2;
    }
    part[stage] *= shape[i];
  }
  *outer = part[0], *len = part[1], *inner = part[2];
  return true;
}

/* ---- rows: inner == 1 ---- */

/* The sum of x[0, n) in double, eight running sums (the vectorizer's lanes). */
__attribute__((always_inline)) static inline double sum_span(const float *x, int64_t n) {
  double a[8] = {0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; k++) a[k] += x[i + k];
  double s = ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]));
  for (; i < n; i++) s += x[i];
  return s;
}

/* The sum of (x[i] - mean)^2 over [0, n) in double. */
__attribute__((always_inline)) static inline double squares_span(const float *x, int64_t n, double mean) {
  double a[8] = {0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; k++) {
      double d = x[i + k] - mean;
      a[k] += d * d;
    }
  double s = ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]));
  for (; i < n; i++) s += (x[i] - mean) * (x[i] - mean);
  return s;
}

/* The largest (is_min: smallest) of x[0, n), n > 0; NaN if any element is. */
__attribute__((always_inline)) static inline double extreme_span(const float *x, int64_t n, bool is_min) {
  float m[8];
  int nan[8] = {0};
  for (int k = 0; k < 8; k++) m[k] = is_min ? INFINITY : -INFINITY;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; k++) {
      float v = x[i + k];
      m[k] = (is_min ? v < m[k] : v > m[k]) ? v : m[k];
      nan[k] |= v != v;
    }
  float best = is_min ? INFINITY : -INFINITY;
  int any_nan = 0;
  for (int k = 0; k < 8; k++) {
    best = (is_min ? m[k] < best : m[k] > best) ? m[k] : best;
    any_nan |= nan[k];
  }
  for (; i < n; i++) {
    best = (is_min ? x[i] < best : x[i] > best) ? x[i] : best;
    any_nan |= x[i] != x[i];
  }
  return any_nan ? NAN : best;
}

/* what a chunk computes: sums, squared deviations from its row's mean, or an extreme */
enum { PART_SUM, PART_SQUARES, PART_MAX, PART_MIN };

__attribute__((always_inline)) static inline double span_part(const float *x, int64_t n, int what, double mean) {
  return what == PART_SUM ? sum_span(x, n) : what == PART_SQUARES ? squares_span(x, n, mean)
                                                                   : extreme_span(x, n, what == PART_MIN);
}
/* The AVX2 spans: 32 elements a step in four float vectors, each lane adding at most
 * eight of them in float before the vectors fold into double (one fold per 256 elements):
 * as accurate as the double sums above, at the speed of the loads. */
enum { FOLD_STEPS = 8 };

__attribute__((target("avx2,fma"))) static inline void fold_into(__m256d *acc, __m256 a) {
  acc[0] = _mm256_add_pd(acc[0], _mm256_cvtps_pd(_mm256_castps256_ps128(a)));
  acc[1] = _mm256_add_pd(acc[1], _mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)));
}

__attribute__((target("avx2,fma"))) static double hsum_pd(__m256d a, __m256d b) {
  __m256d s = _mm256_add_pd(a, b);
  __m128d h = _mm_add_pd(_mm256_castpd256_pd128(s), _mm256_extractf128_pd(s, 1));
  return _mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
}

/* sum of x, or with `squares` of (x - mean)^2, over [0, n) */
__attribute__((target("avx2,fma"), always_inline)) static inline double sum_span_avx2(const float *x, int64_t n,
                                                                                     bool squares, double mean) {
  __m256d acc[2] = {_mm256_setzero_pd(), _mm256_setzero_pd()};
  __m256 m = _mm256_set1_ps((float)mean);
  int64_t i = 0;
  while (i + 32 <= n) {
    __m256 a[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    for (int step = 0; step < FOLD_STEPS && i + 32 <= n; step++, i += 32)
      for (int k = 0; k < 4; k++) {
        __m256 v = _mm256_loadu_ps(x + i + 8 * k);
        if (squares) {
          v = _mm256_sub_ps(v, m);
          a[k] = _mm256_fmadd_ps(v, v, a[k]);
        } else {
          a[k] = _mm256_add_ps(a[k], v);
        }
      }
    fold_into(acc, _mm256_add_ps(_mm256_add_ps(a[0], a[1]), _mm256_add_ps(a[2], a[3])));
  }
  for (; i < n; i += 8) { /* short rows: not one scalar chain of dependent adds; the last lanes masked */
    __m256i lanes = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n - i < 8 ? n - i : 8)),
                                       _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    __m256 v = _mm256_maskload_ps(x + i, lanes);
    if (squares) {
      v = _mm256_sub_ps(v, m);
      v = _mm256_and_ps(_mm256_mul_ps(v, v), _mm256_castsi256_ps(lanes));
    }
    fold_into(acc, v);
  }
  return hsum_pd(acc[0], acc[1]);
}

/* the largest (is_min: smallest) of x[0, n), NaN if any element is */
__attribute__((target("avx2,fma"))) static double extreme_span_avx2(const float *x, int64_t n, bool is_min) {
  __m256 m[4], nan = _mm256_setzero_ps();
  for (int k = 0; k < 4; k++) m[k] = _mm256_set1_ps(is_min ? INFINITY : -INFINITY);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; k++) {
      __m256 v = _mm256_loadu_ps(x + i + 8 * k);
      m[k] = is_min ? _mm256_min_ps(v, m[k]) : _mm256_max_ps(v, m[k]); /* a NaN v keeps m[k] */
      nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    }
  float lanes[32];
  for (int k = 0; k < 4; k++) _mm256_storeu_ps(lanes + 8 * k, m[k]);
  float rest = lanes[0];
  for (int k = 1; k < 32; k++) rest = (is_min ? lanes[k] < rest : lanes[k] > rest) ? lanes[k] : rest;
  if (_mm256_movemask_ps(nan) || (i < n && isnan(extreme_span(x + i, n - i, is_min)))) return NAN;
  if (i == n) return rest;
  double tail = extreme_span(x + i, n - i, is_min);
  return is_min ? fmin(rest, tail) : fmax(rest, tail);
}

__attribute__((target("avx2,fma"))) static double span_part_avx2(const float *x, int64_t n, int what, double mean) {
  if (what == PART_SUM) return sum_span_avx2(x, n, false, 0);
  if (what == PART_SQUARES) return sum_span_avx2(x, n, true, mean);
  return extreme_span_avx2(x, n, what == PART_MIN);
}
static double span_part_base(const float *x, int64_t n, int what, double mean) { return span_part(x, n, what, mean); }

/* Rows are cut in chunks of this many elements whatever the thread count: long rows
 * spread over the threads and add up the same way on any number of them. */
enum { ROW_CHUNK = 1 << 15 };
enum { SMALL_ROWS = 64 }; /* partial sums kept on the stack up to this many */
enum { FEW_ROWS_FLOATS = 16384 }; /* at most this many elements in rows of at most SMALL_ROWS: one task */

typedef struct rows_job {
  const float *x;
  int64_t len, chunks; /* chunks per row */
  int what;
  const double *mean; /* per row, for PART_SQUARES */
  double *part;       /* [rows * chunks] */
} rows_job;

static void row_chunks(void *arg, int64_t begin, int64_t end) {
  const rows_job *j = arg;
  bool avx2 = sc_rt_has_avx2();
  for (int64_t t = begin; t < end; t++) {
    int64_t row = t / j->chunks, from = (t % j->chunks) * ROW_CHUNK;
    int64_t n = j->len - from < ROW_CHUNK ? j->len - from : ROW_CHUNK;
    const float *x = j->x + row * j->len + from;
    double mean = j->mean ? j->mean[row] : 0;
    j->part[t] = avx2 ? span_part_avx2(x, n, j->what, mean) : span_part_base(x, n, j->what, mean);
  }
}

/* One pass over rows [outer, len]: out[r] = the row's chunks combined, in order.  False
 * when out of memory. */
static bool rows_pass(const float *x, int64_t outer, int64_t len, int what, const double *mean, double *out) {
  int64_t chunks = (len + ROW_CHUNK - 1) / ROW_CHUNK;
  double small[SMALL_ROWS]; /* a tiny model's reduction makes no call to malloc */
  double *part = outer * chunks <= SMALL_ROWS ? small : sc_rt_alloc(outer * chunks * (int64_t)sizeof(double));
  if (!part) return false;
  rows_job j = {x, len, chunks, what, mean, part};
  sc_rt_parallel_for(row_chunks, &j, outer * chunks, 16384 / (len < ROW_CHUNK ? len : ROW_CHUNK) + 1);
  for (int64_t r = 0; r < outer; r++) {
    const double *p = part + r * chunks;
    double v = p[0];
    for (int64_t c = 1; c < chunks; c++)
      v = what <= PART_SQUARES ? v + p[c] : isnan(v) || isnan(p[c]) ? NAN : (what == PART_MIN ? fmin(v, p[c]) : fmax(v, p[c]));
    out[r] = v;
  }
  if (part != small) sc_rt_free(part);
  return true;
}

enum { SHORT_ROW = 64 }; /* a row summed in float before its lanes are added in double */

/* The sums of rows of at most SHORT_ROW floats: a row's blocks of 8 (the last masked) added
 * in float in two running sums, as sum_span_avx2 adds up to 32 in float before its double
 * sums, then its lanes in double (a tree of the blocks, indexed at run time, went through
 * the stack and was slower than before).  A row's adds were a chain of double folds, one per block: 6 ns a
 * row of 36, a global average pool's whole time. */
__attribute__((target("avx2,fma"))) static void short_row_sums_avx2(const float *x, int64_t outer, int64_t len,
                                                                    double *out) {
  const int64_t blocks = (len + 7) / 8;
  const __m256i last = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(len - 8 * (blocks - 1))),
                                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  for (int64_t r = 0; r < outer; r++, x += len) {
    __m256 even = _mm256_maskload_ps(x + 8 * (blocks - 1), last), odd = _mm256_setzero_ps();
    int64_t k = 0;
    for (; k + 2 < blocks; k += 2) {
      even = _mm256_add_ps(even, _mm256_loadu_ps(x + 8 * k));
      odd = _mm256_add_ps(odd, _mm256_loadu_ps(x + 8 * k + 8));
    }
    if (k + 1 < blocks) even = _mm256_add_ps(even, _mm256_loadu_ps(x + 8 * k));
    __m256 sum = _mm256_add_ps(even, odd);
    out[r] = hsum_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(sum)), _mm256_cvtps_pd(_mm256_extractf128_ps(sum, 1)));
  }
}

/* A few short rows' sums or extremes (one task's worth, one chunk a row), without
 * rows_pass's job: that was a third of a tiny model's global average pool. */
static void few_rows(const float *x, int64_t outer, int64_t len, int what, double *out) {
  bool avx2 = sc_rt_has_avx2();
  if (avx2 && what == PART_SUM && len >= 1 && len <= SHORT_ROW) {
    short_row_sums_avx2(x, outer, len, out);
    return;
  }
  for (int64_t r = 0; r < outer; r++, x += len) out[r] = avx2 ? span_part_avx2(x, len, what, 0) : span_part_base(x, len, what, 0);
}

static bool reduce_rows(const float *x, float *y, int64_t outer, int64_t len, int op, double correction) {
  double small[2 * SMALL_ROWS];
  double *v = outer <= SMALL_ROWS ? small : sc_rt_alloc(2 * outer * (int64_t)sizeof(double));
  if (!v) return false;
  double *mean = v + outer;
  int what = op == SC_REDUCE_MAX ? PART_MAX : op == SC_REDUCE_MIN ? PART_MIN : PART_SUM;
  bool ok = true;
  if (outer <= SMALL_ROWS && len <= FEW_ROWS_FLOATS / SMALL_ROWS && op != SC_REDUCE_VAR) few_rows(x, outer, len, what, v);
  else ok = rows_pass(x, outer, len, what, NULL, v);
  if (ok && op == SC_REDUCE_VAR) {
    for (int64_t r = 0; r < outer; r++) mean[r] = v[r] / (double)len;
    ok = rows_pass(x, outer, len, PART_SQUARES, mean, v);
  }
  for (int64_t r = 0; ok && r < outer; r++)
    y[r] = (float)(op == SC_REDUCE_MEAN ? v[r] / (double)len : op == SC_REDUCE_VAR ? v[r] / ((double)len - correction) : v[r]);
  if (v != small) sc_rt_free(v);
  return ok;
}

/* ---- columns: inner > 1, each output a column of [len, inner] ---- */

enum { COLUMNS = 256 }; /* columns a task keeps running sums for */

typedef struct columns_job {
  const float *x;
  float *y;
  int64_t len, inner, blocks; /* blocks of COLUMNS per outer index */
  int op;
  double correction;
} columns_job;

/* Columns [c0, c0 + w) of one [len, inner] slab into y[c0, c0 + w). */
__attribute__((always_inline)) static inline void column_block(const float *x, float *y, int64_t len, int64_t inner,
                                                               int64_t w, int op, double correction) {
  if (op == SC_REDUCE_MAX || op == SC_REDUCE_MIN) {
    bool is_min = op == SC_REDUCE_MIN;
    float m[COLUMNS];
    int nan[COLUMNS];
    for (int64_t c = 0; c < w; c++) m[c] = is_min ? INFINITY : -INFINITY, nan[c] = 0;
    for (int64_t r = 0; r < len; r++)
      for (int64_t c = 0; c < w; c++) {
        float v = x[r * inner + c];
        m[c] = (is_min ? v < m[c] : v > m[c]) ? v : m[c];
        nan[c] |= v != v;
      }
    for (int64_t c = 0; c < w; c++) y[c] = nan[c] ? NAN : m[c];
    return;
  }
  /* eight rows at a time in float, then into the double sums */
  double s[COLUMNS];
  float eight[COLUMNS];
  for (int64_t c = 0; c < w; c++) s[c] = 0;
  int64_t r = 0;
  for (; r + 8 <= len; r += 8) {
    for (int64_t c = 0; c < w; c++) eight[c] = x[r * inner + c];
    for (int64_t k = 1; k < 8; k++)
      for (int64_t c = 0; c < w; c++) eight[c] += x[(r + k) * inner + c];
    for (int64_t c = 0; c < w; c++) s[c] += eight[c];
  }
  for (; r < len; r++)
    for (int64_t c = 0; c < w; c++) s[c] += x[r * inner + c];
  if (op != SC_REDUCE_VAR) {
    for (int64_t c = 0; c < w; c++) y[c] = (float)(op == SC_REDUCE_MEAN ? s[c] / (double)len : s[c]);
    return;
  }
  double q[COLUMNS];
  for (int64_t c = 0; c < w; c++) s[c] /= (double)len, q[c] = 0;
  for (r = 0; r < len; r++)
    for (int64_t c = 0; c < w; c++) {
      double d = x[r * inner + c] - s[c];
      q[c] += d * d;
    }
  for (int64_t c = 0; c < w; c++) y[c] = (float)(q[c] / ((double)len - correction));
}
__attribute__((target("avx2,fma"))) static void column_block_avx2(const float *x, float *y, int64_t len, int64_t inner,
                                                                  int64_t w, int op, double correction) {
  column_block(x, y, len, inner, w, op, correction);
}
static void column_block_base(const float *x, float *y, int64_t len, int64_t inner, int64_t w, int op, double correction) {
  column_block(x, y, len, inner, w, op, correction);
}

static void column_blocks(void *arg, int64_t begin, int64_t end) {
  const columns_job *j = arg;
  bool avx2 = sc_rt_has_avx2();
  for (int64_t t = begin; t < end; t++) {
    int64_t o = t / j->blocks, c0 = (t % j->blocks) * COLUMNS, w = j->inner - c0 < COLUMNS ? j->inner - c0 : COLUMNS;
    const float *x = j->x + o * j->len * j->inner + c0;
    float *y = j->y + o * j->inner + c0;
    if (avx2) column_block_avx2(x, y, j->len, j->inner, w, j->op, j->correction);
    else column_block_base(x, y, j->len, j->inner, w, j->op, j->correction);
  }
}

static void reduce_columns(const float *x, float *y, int64_t outer, int64_t len, int64_t inner, int op, double correction) {
  int64_t blocks = (inner + COLUMNS - 1) / COLUMNS, per_task = len * (inner < COLUMNS ? inner : COLUMNS);
  columns_job j = {x, y, len, inner, blocks, op, correction};
  sc_rt_parallel_for(column_blocks, &j, outer * blocks, 16384 / (per_task > 0 ? per_task : 1) + 1);
}

/* ---- reduced dims that kept dims separate: spans of the innermost dims ---- */

/* x.mean((0, 2)) of [64, 512, 64] and the like: the dims as alternating groups of kept and
 * reduced dims, the innermost group a span of adjacent elements; each span adds into its
 * output (a reduced span as one sum, a kept span element by element into as many outputs),
 * in the order of the input, on one thread.  The variance takes a second pass with each
 * output's mean.  (Element by element, with an index computed per element: 11.8x torch's
 * time.)  False when out of memory. */
static bool reduce_spans(const float *x, float *y, int32_t ndim, const int64_t *shape, const int32_t *reduce, int op,
                         double correction, int64_t out_n, int64_t red_n) {
  int64_t size[16];
  int32_t red[16], groups = 0;
  for (int32_t i = 0; i < ndim; i++) {
    if (shape[i] == 1) continue;
    if (groups && red[groups - 1] == (reduce[i] != 0)) size[groups - 1] *= shape[i];
    else size[groups] = shape[i], red[groups++] = reduce[i] != 0;
  }
  if (!groups) size[0] = 1, red[groups++] = 1;
  int64_t span = size[groups - 1], spans = out_n * red_n / span;
  bool span_reduced = red[groups - 1];
  bool extreme = op == SC_REDUCE_MAX || op == SC_REDUCE_MIN, is_min = op == SC_REDUCE_MIN;
  double *acc = sc_rt_alloc(2 * out_n * (int64_t)sizeof(double));
  if (!acc) return false;
  double *mean = acc + out_n;
  bool avx2 = sc_rt_has_avx2();
  for (int pass = 0; pass < (op == SC_REDUCE_VAR ? 2 : 1); pass++) {
    for (int64_t o = 0; o < out_n; o++) acc[o] = extreme ? (is_min ? INFINITY : -INFINITY) : 0;
    int what = extreme ? (is_min ? PART_MIN : PART_MAX) : pass ? PART_SQUARES : PART_SUM;
    int64_t idx[16] = {0};
    for (int64_t sp = 0; sp < spans; sp++) {
      int64_t o = 0; /* the span's first output: the kept groups' coordinates, row-major */
      for (int32_t g = 0; g < groups - 1; g++)
        if (!red[g]) o = o * size[g] + idx[g];
      const float *xs = x + sp * span;
      if (span_reduced) {
        double v = avx2 ? span_part_avx2(xs, span, what, pass ? mean[o] : 0) : span_part_base(xs, span, what, pass ? mean[o] : 0);
        acc[o] = !extreme ? acc[o] + v : isnan(acc[o]) || isnan(v) ? NAN : is_min ? fmin(acc[o], v) : fmax(acc[o], v);
      } else {
        double *a = acc + o * span;
        const double *m = mean + o * span;
        if (extreme)
          for (int64_t i = 0; i < span; i++)
            a[i] = isnan(a[i]) || isnan(xs[i]) ? NAN : is_min ? fmin(a[i], xs[i]) : fmax(a[i], xs[i]);
        else if (pass)
          for (int64_t i = 0; i < span; i++) a[i] += (xs[i] - m[i]) * (xs[i] - m[i]);
        else
          for (int64_t i = 0; i < span; i++) a[i] += xs[i];
      }
      for (int32_t g = groups - 2; g >= 0; g--) { /* the next span's coordinates */
        if (++idx[g] < size[g]) break;
        idx[g] = 0;
      }
    }
    if (op == SC_REDUCE_VAR && !pass)
      for (int64_t o = 0; o < out_n; o++) mean[o] = acc[o] / (double)red_n;
  }
  for (int64_t o = 0; o < out_n; o++)
    y[o] = (float)(op == SC_REDUCE_MEAN ? acc[o] / (double)red_n : op == SC_REDUCE_VAR ? acc[o] / ((double)red_n - correction)
                                                                                     : acc[o]);
  sc_rt_free(acc);
  return true;
}

/* ---- any dims, element by element ---- */

static void reduce_any_f32(const float *x, float *y, int32_t ndim, const int64_t *shape, const int32_t *reduce, int32_t op,
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

void sc_k_reduce_f32(const float *x, float *y, int32_t ndim, const int64_t *shape, const int32_t *reduce, int32_t op,
                     double correction) {
  int64_t outer, len, inner;
  if (as_outer_len_inner(ndim, shape, reduce, &outer, &len, &inner) && outer > 0 && len > 0 && inner > 0) {
    if (inner > 1) {
      reduce_columns(x, y, outer, len, inner, op, correction);
      return;
    }
    if (reduce_rows(x, y, outer, len, op, correction)) return;
  }
  int64_t out_n = 1, red_n = 1;
  for (int32_t i = 0; i < ndim; i++) *(reduce[i] ? &red_n : &out_n) *= shape[i];
  if (ndim <= 16 && out_n > 0 && red_n > 0 && reduce_spans(x, y, ndim, shape, reduce, op, correction, out_n, red_n)) return;
  reduce_any_f32(x, y, ndim, shape, reduce, op, correction); /* empty, or out of memory */
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

/* argmax/argmin (and max/min over a dim) of integers or bools, kind as sc_k_sum_i64's
 * (0 uint8/bool, 1 int8, 2 int16, 3 int32, 4 int64): the first extreme, values in the
 * input's own type. */
static int64_t int_at(const void *x, int32_t kind, int64_t at) {
  return kind == 0 ? ((const uint8_t *)x)[at] : kind == 1 ? ((const int8_t *)x)[at] : kind == 2 ? ((const int16_t *)x)[at]
       : kind == 3 ? ((const int32_t *)x)[at] : ((const int64_t *)x)[at];
}

void sc_k_arg_reduce_int(const void *x, void *values, int64_t *indices, int64_t outer, int64_t n, int64_t inner,
                         int32_t kind, int32_t is_min) {
  static const int64_t esize[5] = {1, 1, 2, 4, 8};
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < inner; j++) {
      int64_t base = o * n * inner + j, best = 0, bv = n ? int_at(x, kind, base) : 0;
      for (int64_t i = 1; i < n; i++) {
        int64_t a = int_at(x, kind, base + i * inner);
        if (is_min ? a < bv : a > bv) best = i, bv = a;
      }
      if (values && n) memcpy((char *)values + (o * inner + j) * esize[kind], (const char *)x + (base + best * inner) * esize[kind],
                              (size_t)esize[kind]);
      if (indices) indices[o * inner + j] = best;
    }
}

/* _weight_norm: out = v * g / |v|, the norm over every dim but dim; v viewed as
 * [outer, n, inner] with dim in the middle, g holding n values. */
void sc_k_weight_norm_f32(const float *v, const float *g, float *out, int64_t outer, int64_t n, int64_t inner) {
  for (int64_t j = 0; j < n; j++) {
    double sq = 0;
    for (int64_t o = 0; o < outer; o++)
      for (int64_t i = 0; i < inner; i++) {
        double x = v[(o * n + j) * inner + i];
        sq += x * x;
      }
    float scale = (float)(g[j] / sqrt(sq));
    for (int64_t o = 0; o < outer; o++)
      for (int64_t i = 0; i < inner; i++) out[(o * n + j) * inner + i] = v[(o * n + j) * inner + i] * scale;
  }
}

/* ---- linalg_vector_norm's elementwise steps (the sum between them is sc_k_reduce_f32's) */

void sc_k_vector_norm_map_f32(const float *x, float *y, int64_t n, double ord) {
  if (ord == 2) {
    for (int64_t i = 0; i < n; i++) y[i] = x[i] * x[i];
  } else if (ord == 1 || isinf(ord)) {
    for (int64_t i = 0; i < n; i++) y[i] = fabsf(x[i]);
  } else if (ord == 0) { /* the count of nonzeros (NaN counts, as in torch) */
    for (int64_t i = 0; i < n; i++) y[i] = x[i] != 0.0f;
  } else {
    for (int64_t i = 0; i < n; i++) y[i] = powf(fabsf(x[i]), (float)ord);
  }
}

void sc_k_vector_norm_finish_f32(float *y, int64_t n, double ord) {
  if (ord == 2) {
    for (int64_t i = 0; i < n; i++) y[i] = sqrtf(y[i]);
  } else if (ord != 1 && ord != 0 && !isinf(ord)) {
    for (int64_t i = 0; i < n; i++) y[i] = powf(y[i], (float)(1.0 / ord));
  }
}

void sc_k_sqrt_f32(float *y, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = sqrtf(y[i]);
}

/* ---- cumsum ------------------------------------------------------------------------- */

void sc_k_cumsum_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner) {
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < inner; j++) {
      double acc = 0;
      for (int64_t i = 0; i < n; i++) {
        int64_t at = (o * n + i) * inner + j;
        acc += x[at];
        y[at] = (float)acc;
      }
    }
}

void sc_k_cumsum_i64(const void *x, int64_t *y, int32_t kind, int64_t outer, int64_t n, int64_t inner) {
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < inner; j++) {
      uint64_t acc = 0; /* wraps as torch's int64 sums do */
      for (int64_t i = 0; i < n; i++) {
        int64_t at = (o * n + i) * inner + j;
        int64_t v = kind == 0 ? ((const uint8_t *)x)[at] : kind == 1 ? ((const int8_t *)x)[at]
                  : kind == 2 ? ((const int16_t *)x)[at] : kind == 3 ? ((const int32_t *)x)[at] : ((const int64_t *)x)[at];
        acc += (uint64_t)v;
        y[at] = (int64_t)acc;
      }
    }
}

/* One element of kind k (SC_KIND_*) at p, as a double and as an int64. */
static double kind_f(const void *p, int32_t k, int64_t at) {
  switch (k) {
    case SC_KIND_F32: return ((const float *)p)[at];
    case SC_KIND_F64: return ((const double *)p)[at];
    case SC_KIND_U8: return ((const uint8_t *)p)[at];
    case SC_KIND_I8: return ((const int8_t *)p)[at];
    case SC_KIND_I16: return ((const int16_t *)p)[at];
    case SC_KIND_I32: return ((const int32_t *)p)[at];
    default: return (double)((const int64_t *)p)[at];
  }
}

static int64_t kind_i(const void *p, int32_t k, int64_t at) {
  if (k == SC_KIND_F32 || k == SC_KIND_F64) { /* C's conversion: toward zero, as torch's cast */
    double v = kind_f(p, k, at);
    return v != v ? 0 : v >= 9.2233720368547758e18 ? INT64_MAX : v <= -9.2233720368547758e18 ? INT64_MIN : (int64_t)v;
  }
  switch (k) {
    case SC_KIND_U8: return ((const uint8_t *)p)[at];
    case SC_KIND_I8: return ((const int8_t *)p)[at];
    case SC_KIND_I16: return ((const int16_t *)p)[at];
    case SC_KIND_I32: return ((const int32_t *)p)[at];
    default: return ((const int64_t *)p)[at];
  }
}

static void kind_store(void *p, int32_t k, int64_t at, double f, int64_t i) {
  switch (k) {
    case SC_KIND_F32: ((float *)p)[at] = (float)f; break;
    case SC_KIND_F64: ((double *)p)[at] = f; break;
    case SC_KIND_U8: ((uint8_t *)p)[at] = (uint8_t)i; break;
    case SC_KIND_I8: ((int8_t *)p)[at] = (int8_t)i; break;
    case SC_KIND_I16: ((int16_t *)p)[at] = (int16_t)i; break;
    case SC_KIND_I32: ((int32_t *)p)[at] = (int32_t)i; break;
    default: ((int64_t *)p)[at] = i; break;
  }
}

/* cumsum(x, dtype=...) for any pair of kinds: each element converted to the output's kind
 * first (torch casts the input to dtype), then summed: floats in double, integers in int64
 * stored in their width (wrapping as torch's narrower sums do). */
void sc_k_cumsum_cast(const void *x, int32_t in_kind, void *y, int32_t out_kind, int64_t outer, int64_t n, int64_t inner) {
  bool fl = out_kind == SC_KIND_F32 || out_kind == SC_KIND_F64;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < inner; j++) {
      double facc = 0;
      uint64_t iacc = 0;
      for (int64_t i = 0; i < n; i++) {
        int64_t at = (o * n + i) * inner + j;
        if (fl) {
          double v = kind_f(x, in_kind, at);
          if (out_kind == SC_KIND_F32) v = (float)v;
          facc += v;
        } else {
          int64_t v = kind_i(x, in_kind, at);
          if (out_kind == SC_KIND_U8 && in_kind == SC_KIND_U8) v = v != 0; /* bools stay 0/1 before summing */
          iacc += (uint64_t)v;
        }
        kind_store(y, out_kind, at, facc, (int64_t)iacc);
      }
    }
}

/* logsumexp over the middle dim of [outer, n, inner], float32: log(sum(exp(x - m))) + m
 * with m the line's maximum (0 where it is infinite, as ATen does), summed in double. */
void sc_k_logsumexp_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner) {
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < inner; j++) {
      float m = -INFINITY;
      for (int64_t i = 0; i < n; i++) {
        float v = x[(o * n + i) * inner + j];
        if (v > m || v != v) m = v;
      }
      float shift = isinf(m) ? 0.0f : m;
      double sum = 0;
      for (int64_t i = 0; i < n; i++) sum += exp((double)x[(o * n + i) * inner + j] - shift);
      y[o * inner + j] = (float)(log(sum) + shift);
    }
}

/* prod over the middle dim of [outer, n, inner], float32: multiplied in float32 in order,
 * as ATen's CPU reduction accumulates a float product (1 for nothing). */
void sc_k_prod_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner) {
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < inner; j++) {
      float acc = 1.0f;
      for (int64_t i = 0; i < n; i++) acc *= x[(o * n + i) * inner + j];
      y[o * inner + j] = acc;
    }
}

/* prod of integers or bools (kind as for sc_k_sum_i64) into int64, wrapping as torch's
 * int64 product does. */
void sc_k_prod_i64(const void *x, int64_t *y, int32_t kind, int64_t outer, int64_t n, int64_t inner) {
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < inner; j++) {
      uint64_t acc = 1;
      for (int64_t i = 0; i < n; i++) {
        int64_t at = (o * n + i) * inner + j;
        int64_t v = kind == 0 ? ((const uint8_t *)x)[at] : kind == 1 ? ((const int8_t *)x)[at]
                  : kind == 2 ? ((const int16_t *)x)[at] : kind == 3 ? ((const int32_t *)x)[at] : ((const int64_t *)x)[at];
        acc *= (uint64_t)v;
      }
      y[o * inner + j] = (int64_t)acc;
    }
}

void sc_k_i64_to_f32(const int64_t *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = (float)x[i];
}
