/* sort.c - sort and topk along one dim of [outer, n, inner]: each line's positions ordered
 * by a stable merge sort, NaN after every number (first when descending), as torch orders
 * them; equal elements keep their order, so the indices are those of torch's stable sort.
 * topk takes the first k of the descending (largest) or ascending order. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "element_kind.h"
#include "kernels.h"

typedef struct line {
  const char *base; /* the line's first element */
  int64_t stride;   /* bytes between its elements */
  int32_t kind;
  int32_t descending;
} line;

static double float_at(const line *l, int64_t i) { return sc_kind_get_f(l->base + i * l->stride, l->kind); }

static int64_t int_at(const line *l, int64_t i) { return sc_kind_get_i(l->base + i * l->stride, l->kind); }

/* Whether element a goes strictly before element b. */
static bool before(const line *l, int64_t a, int64_t b) {
  if (l->kind == SC_KIND_F32 || l->kind == SC_KIND_F64) {
    double x = float_at(l, a), y = float_at(l, b);
    bool xn = isnan(x), yn = isnan(y);
    if (l->descending) return (xn && !yn) || (!xn && !yn && x > y);
    return (!xn && yn) || (!xn && !yn && x < y);
  }
  int64_t x = int_at(l, a), y = int_at(l, b);
  return l->descending ? x > y : x < y;
}

/* idx[0, n) sorted stably, tmp as room for n more. */
static void merge_sort(const line *l, int64_t *idx, int64_t *tmp, int64_t n) {
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = before(l, idx[j], idx[i]) ? idx[j++] : idx[i++];
      while (i < mid) tmp[k++] = idx[i++];
      while (j < hi) tmp[k++] = idx[j++];
    }
    memcpy(idx, tmp, (size_t)n * sizeof *idx);
  }
}

int sc_k_sort(const void *x, void *values, int64_t *indices, int64_t *scratch, int64_t outer, int64_t n, int64_t inner,
              int64_t k, int32_t kind, int32_t descending, const char *node, char *err, size_t errlen) {
  if (k < 0 || k > n) {
    if (err && errlen) snprintf(err, errlen, SC_TOPK_RANGE_MSG " (%s)", node ? node : "topk");
    return SHAPEC_ERR_SHAPE;
  }
  int64_t es = sc_kind_size(kind), *idx = scratch, *tmp = scratch + n;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < inner; j++) {
      line l = {(const char *)x + (o * n * inner + j) * es, inner * es, kind, descending};
      for (int64_t i = 0; i < n; i++) idx[i] = i;
      merge_sort(&l, idx, tmp, n);
      for (int64_t i = 0; i < k; i++) {
        int64_t at = (o * k + i) * inner + j;
        if (values) memcpy((char *)values + at * es, l.base + idx[i] * l.stride, (size_t)es);
        if (indices) indices[at] = idx[i];
      }
    }
  return SHAPEC_OK;
}
