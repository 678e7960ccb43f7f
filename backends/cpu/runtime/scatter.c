/* scatter.c - scatter, scatter_add and scatter_reduce: out (a copy of self, or self where
 * the program's state is updated in place) receives src's elements, or one value, at the
 * positions index names along dim: out[..., index[i, j, ...], ...] (op)= src[i, j, ...].
 * sc_k_scatter_check checks every size and index first, with torch's words, before the
 * caller copies self into out (a failing call writes nothing); elements
 * are visited in index order, as ATen's CPU kernel visits them, so sums round alike and a
 * repeated index keeps the last write. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "element_kind.h"
#include "kernels.h"

static void sizes_text(char *buf, size_t n, const int64_t *shape, int32_t ndim) {
  size_t k = (size_t)snprintf(buf, n, "[");
  for (int32_t d = 0; d < ndim && k < n; d++) k += (size_t)snprintf(buf + k, n - k, "%s%lld", d ? ", " : "", (long long)shape[d]);
  if (k < n) snprintf(buf + k, n - k, "]");
}

static int fail(char *err, size_t errlen, const char *node, const char *what) {
  if (err && errlen) snprintf(err, errlen, "%s (%s)", what, node ? node : "scatter");
  return SHAPEC_ERR_SHAPE;
}

/* dst (op)= s, in the element's own arithmetic; float32 rounds after each step, as ATen's
 * float accumulation does.  Bools (u8 here) are logical: sum is or, prod is and. */
static void combine(char *dst, const char *s, int32_t kind, int32_t op, bool is_bool) {
  if (op == SC_SCATTER_SET) {
    memcpy(dst, s, (size_t)sc_kind_size(kind));
    return;
  }
  if (sc_kind_is_float(kind)) {
    double a = sc_kind_get_f(dst, kind), b = sc_kind_get_f(s, kind), r;
    switch (op) {
      case SC_SCATTER_PROD: r = a * b; break;
      case SC_SCATTER_AMAX: r = isnan(b) || isnan(a) ? (isnan(a) ? a : b) : (a > b ? a : b); break;
      case SC_SCATTER_AMIN: r = isnan(b) || isnan(a) ? (isnan(a) ? a : b) : (a < b ? a : b); break;
      default: r = a + b; break;
    }
    sc_kind_put_f(dst, kind, kind == SC_KIND_F32 ? (double)(float)r : r);
    return;
  }
  int64_t a = sc_kind_get_i(dst, kind), b = sc_kind_get_i(s, kind), r;
  switch (op) {
    case SC_SCATTER_PROD: r = is_bool ? (a && b) : (int64_t)((uint64_t)a * (uint64_t)b); break;
    case SC_SCATTER_AMAX: r = a > b ? a : b; break;
    case SC_SCATTER_AMIN: r = a < b ? a : b; break;
    default: r = is_bool ? (a || b) : (int64_t)((uint64_t)a + (uint64_t)b); break;
  }
  sc_kind_put_i(dst, kind, r);
}

/* The identity a position starts from when self is left out (include_self=False). */
static void put_identity(char *p, int32_t kind, int32_t op) {
  if (sc_kind_is_float(kind)) {
    sc_kind_put_f(p, kind, op == SC_SCATTER_PROD ? 1.0 : op == SC_SCATTER_AMAX ? -INFINITY : op == SC_SCATTER_AMIN ? INFINITY : 0.0);
    return;
  }
  int64_t lo = kind == SC_KIND_U8 ? 0 : kind == SC_KIND_I8 ? INT8_MIN : kind == SC_KIND_I16 ? INT16_MIN
             : kind == SC_KIND_I32 ? INT32_MIN : INT64_MIN;
  int64_t hi = kind == SC_KIND_U8 ? UINT8_MAX : kind == SC_KIND_I8 ? INT8_MAX : kind == SC_KIND_I16 ? INT16_MAX
             : kind == SC_KIND_I32 ? INT32_MAX : INT64_MAX;
  sc_kind_put_i(p, kind, op == SC_SCATTER_PROD ? 1 : op == SC_SCATTER_AMAX ? lo : op == SC_SCATTER_AMIN ? hi : 0);
}

/* Calls visit(out offset, src offset) for every element of index, in order. */
typedef struct walk {
  int32_t ndim, dim;
  const int64_t *index_shape;
  int64_t out_st[16], src_st[16];
} walk;

static int64_t walk_next(const walk *w, int64_t *pos) {
  for (int32_t d = w->ndim - 1; d >= 0; d--) {
    if (++pos[d] < w->index_shape[d]) return 1;
    pos[d] = 0;
  }
  return 0;
}

int sc_k_scatter_check(const int64_t *index, int32_t ndim, int32_t dim, const int64_t *out_shape,
                       const int64_t *index_shape, const int64_t *src_shape, int32_t has_src, const char *node, char *err,
                       size_t errlen) {
  if (ndim > 16) return fail(err, errlen, node, "scatter of more than 16 dims");
  int64_t n = 1;
  for (int32_t d = 0; d < ndim; d++) n *= index_shape[d];
  if (n == 0) return SHAPEC_OK;
  for (int32_t d = 0; d < ndim; d++) {
    bool wrong = (d != dim && index_shape[d] > out_shape[d]) || (has_src && index_shape[d] > src_shape[d]);
    if (!wrong) continue;
    char is[400], os[400], ss[400], msg[1400];
    sizes_text(is, sizeof is, index_shape, ndim);
    sizes_text(os, sizeof os, out_shape, ndim);
    if (has_src) {
      sizes_text(ss, sizeof ss, src_shape, ndim);
      snprintf(msg, sizeof msg, SC_SCATTER_SIZE_SRC_MSG, is, os, (int)dim, ss);
    } else {
      snprintf(msg, sizeof msg, SC_SCATTER_SIZE_MSG, is, os, (int)dim);
    }
    return fail(err, errlen, node, msg);
  }
  for (int64_t i = 0; i < n; i++)
    if (index[i] < 0 || index[i] >= out_shape[dim]) {
      char msg[300];
      snprintf(msg, sizeof msg, SC_INDEX_GATHER_MSG, (long long)index[i], (int)dim, (long long)out_shape[dim]);
      return fail(err, errlen, node, msg);
    }
  return SHAPEC_OK;
}

int sc_k_scatter(void *out, const int64_t *index, const void *src, const void *value, int32_t ndim, int32_t dim,
                 const int64_t *out_shape, const int64_t *index_shape, const int64_t *src_shape, int32_t kind,
                 int32_t is_bool, int32_t op, int32_t include_self, const char *node, char *err, size_t errlen) {
  int64_t n = 1;
  for (int32_t d = 0; d < ndim; d++) n *= index_shape[d];
  if (n == 0 || ndim > 16) return SHAPEC_OK;
  walk w = {ndim, dim, index_shape, {0}, {0}};
  int64_t so = 1, ss = 1;
  for (int32_t d = ndim - 1; d >= 0; d--) {
    w.out_st[d] = so;
    w.src_st[d] = ss;
    so *= out_shape[d];
    ss *= src ? src_shape[d] : 1;
  }
  int64_t es = sc_kind_size(kind), total = so;
  int32_t *count = NULL; /* mean: how many values each position averages */
  if (op == SC_SCATTER_MEAN) {
    count = calloc((size_t)total, sizeof *count);
    if (!count) {
      if (err && errlen) snprintf(err, errlen, "out of memory: scatter_reduce's counts (%s)", node ? node : "scatter");
      return SHAPEC_ERR_MEMORY;
    }
  }
  int32_t base_op = op == SC_SCATTER_MEAN ? SC_SCATTER_SUM : op;
  int64_t pos[16] = {0};
  if (!include_self && op != SC_SCATTER_SET) { /* every position written to starts from the identity */
    int64_t at = 0;
    do {
      int64_t o = 0;
      for (int32_t d = 0; d < ndim; d++) o += (d == dim ? index[at] : pos[d]) * w.out_st[d];
      put_identity((char *)out + o * es, kind, base_op);
      at++;
    } while (walk_next(&w, pos));
  }
  memset(pos, 0, sizeof pos);
  int64_t at = 0;
  do {
    int64_t o = 0, s = 0;
    for (int32_t d = 0; d < ndim; d++) {
      o += (d == dim ? index[at] : pos[d]) * w.out_st[d];
      s += pos[d] * w.src_st[d];
    }
    combine((char *)out + o * es, src ? (const char *)src + s * es : (const char *)value, kind, base_op, is_bool);
    if (count) count[o]++;
    at++;
  } while (walk_next(&w, pos));
  if (count) { /* the sum divided by the count (self counted when included); integers rounded down */
    for (int64_t o = 0; o < total; o++) {
      int64_t c = count[o] + (include_self ? 1 : 0);
      if (!count[o] || c <= 1) continue;
      char *p = (char *)out + o * es;
      if (sc_kind_is_float(kind)) {
        sc_kind_put_f(p, kind, sc_kind_get_f(p, kind) / (double)c);
      } else {
        int64_t v = sc_kind_get_i(p, kind), q = v / c;
        if ((v % c != 0) && ((v < 0) != (c < 0))) q--;
        sc_kind_put_i(p, kind, q);
      }
    }
    free(count);
  }
  return SHAPEC_OK;
}
