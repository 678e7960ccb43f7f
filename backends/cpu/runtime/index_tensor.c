/* index_tensor.c - x[i0, i1, ...] with integer index tensors (aten.index.Tensor): torch's
 * advanced indexing.  Each index tensor picks positions along one dim of the source; the
 * index tensors broadcast to one shape B, which replaces the indexed dims in the output
 * (where they are adjacent; else it comes first: the shape rule, passes/shape_rules.c,
 * decides and the lowering passes b_at).  Dims without an index are copied whole.
 *
 * Every index is checked before anything is written, with torch's words; a negative
 * index counts from the end, as in torch. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

enum { MAX_RANK = 16 };

static int64_t index_at(const void *data, int32_t bytes, int64_t at) {
  return bytes == 4 ? (int64_t)((const int32_t *)data)[at] : ((const int64_t *)data)[at];
}

/* Steps the coordinates c over shape (the last dim fastest); false after the last. */
static bool next_coord(int64_t *c, const int64_t *shape, int32_t rank) {
  for (int32_t d = rank - 1; d >= 0; d--) {
    if (++c[d] < shape[d]) return true;
    c[d] = 0;
  }
  return false;
}

/* The walk both directions share: every index checked first, then each element of the
 * indexed shape (rest[0, b_at), B, rest[b_at, n_rest)) visited with its offset in the
 * source.  mode READ copies source -> out (compact, that shape); PUT writes values (read
 * through values_strides over that shape: 0 where they broadcast) into the source;
 * ACCUMULATE adds them (elem: SC_ACC_* of the dtype). */
enum { READ, PUT, ACCUMULATE };

static void accumulate(char *at, const char *v, int32_t elem) {
  switch (elem) {
    case SC_ACC_F32: *(float *)at += *(const float *)v; break;
    case SC_ACC_F64: *(double *)at += *(const double *)v; break;
    case SC_ACC_I64: *(int64_t *)at += *(const int64_t *)v; break;
    case SC_ACC_I32: *(int32_t *)at += *(const int32_t *)v; break;
    case SC_ACC_BOOL: *(uint8_t *)at = *(uint8_t *)at | *(const uint8_t *)v; break;
    default: break;
  }
}

static int indexed_walk(int mode, void *src, int32_t src_rank, const int64_t *src_shape, const int64_t *src_strides,
                        int32_t n_index, const void *const *index_data, const int32_t *index_bytes,
                        const int32_t *index_dim, const int64_t *index_strides, int32_t b_rank, const int64_t *b_shape,
                        int32_t b_at, void *out, const int64_t *values_strides, int32_t elem, int64_t esize,
                        const char *node, char *err, size_t errlen) {
  if (src_rank > MAX_RANK || b_rank > MAX_RANK || n_index > src_rank) {
    if (err && errlen) snprintf(err, errlen, "indexing a tensor of rank %d with %d indices of rank %d (%s)", (int)src_rank,
                                (int)n_index, (int)b_rank, node ? node : "index");
    return SHAPEC_ERR_ARGUMENT;
  }
  int64_t b_count = 1;
  for (int32_t d = 0; d < b_rank; d++) b_count *= b_shape[d];
  /* the source's dims that no index picks, in order */
  int32_t rest[MAX_RANK], n_rest = 0;
  for (int32_t d = 0; d < src_rank; d++) {
    bool picked = false;
    for (int32_t k = 0; k < n_index; k++) picked |= index_dim[k] == d;
    if (!picked) rest[n_rest++] = d;
  }
  int64_t out_count = b_count;
  for (int32_t r = 0; r < n_rest; r++) out_count *= src_shape[rest[r]];
  if (out_count == 0) return SHAPEC_OK;
  /* every index in range, over B (broadcast positions read the same element again) */
  int64_t c[MAX_RANK] = {0};
  if (b_count > 0)
    do {
      for (int32_t k = 0; k < n_index; k++) {
        int64_t at = 0;
        for (int32_t d = 0; d < b_rank; d++) at += c[d] * index_strides[k * b_rank + d];
        int64_t v = index_at(index_data[k], index_bytes[k], at), size = src_shape[index_dim[k]];
        if (v < -size || v >= size) {
          if (err && errlen) {
            int w = snprintf(err, errlen, "index %lld is out of bounds for dimension %d with size %lld", (long long)v,
                             (int)index_dim[k], (long long)size);
            if (w >= 0 && (size_t)w < errlen && node) snprintf(err + w, errlen - (size_t)w, " (%s)", node);
          }
          return SHAPEC_ERR_SHAPE;
        }
      }
    } while (next_coord(c, b_shape, b_rank));
  /* the indexed shape: rest[0, b_at), B, rest[b_at, n_rest) */
  int32_t out_rank = n_rest + b_rank;
  int64_t out_shape[2 * MAX_RANK];
  for (int32_t d = 0; d < out_rank; d++)
    out_shape[d] = d < b_at ? src_shape[rest[d]] : d < b_at + b_rank ? b_shape[d - b_at] : src_shape[rest[d - b_rank]];
  int64_t o[2 * MAX_RANK] = {0};
  char *s = src, *dst = out;
  for (int64_t e = 0; e < out_count; e++) {
    int64_t off = 0;
    for (int32_t d = 0; d < b_at; d++) off += o[d] * src_strides[rest[d]];
    for (int32_t d = b_at + b_rank; d < out_rank; d++) off += o[d] * src_strides[rest[d - b_rank]];
    for (int32_t k = 0; k < n_index; k++) {
      int64_t at = 0;
      for (int32_t d = 0; d < b_rank; d++) at += o[b_at + d] * index_strides[k * b_rank + d];
      int64_t v = index_at(index_data[k], index_bytes[k], at), size = src_shape[index_dim[k]];
      off += (v < 0 ? v + size : v) * src_strides[index_dim[k]];
    }
    if (mode == READ) {
      memcpy(dst + e * esize, s + off * esize, (size_t)esize);
    } else {
      int64_t voff = 0;
      for (int32_t d = 0; d < out_rank; d++) voff += o[d] * values_strides[d];
      if (mode == PUT) memcpy(s + off * esize, dst + voff * esize, (size_t)esize);
      else accumulate(s + off * esize, dst + voff * esize, elem);
    }
    next_coord(o, out_shape, out_rank);
  }
  return SHAPEC_OK;
}

int sc_k_index_tensor(const void *src, int32_t src_rank, const int64_t *src_shape, const int64_t *src_strides,
                      int32_t n_index, const void *const *index_data, const int32_t *index_bytes,
                      const int32_t *index_dim, const int64_t *index_strides, int32_t b_rank, const int64_t *b_shape,
                      int32_t b_at, void *out, int64_t esize, const char *node, char *err, size_t errlen) {
  return indexed_walk(READ, (void *)src, src_rank, src_shape, src_strides, n_index, index_data, index_bytes, index_dim,
                      index_strides, b_rank, b_shape, b_at, out, NULL, 0, esize, node, err, errlen);
}

int sc_k_index_put(void *dst, int32_t dst_rank, const int64_t *dst_shape, const int64_t *dst_strides, int32_t n_index,
                   const void *const *index_data, const int32_t *index_bytes, const int32_t *index_dim,
                   const int64_t *index_strides, int32_t b_rank, const int64_t *b_shape, int32_t b_at,
                   const void *values, const int64_t *values_strides, int32_t accumulate_elem, int64_t esize,
                   const char *node, char *err, size_t errlen) {
  return indexed_walk(accumulate_elem ? ACCUMULATE : PUT, dst, dst_rank, dst_shape, dst_strides, n_index, index_data,
                      index_bytes, index_dim, index_strides, b_rank, b_shape, b_at, (void *)values, values_strides,
                      accumulate_elem, esize, node, err, errlen);
}

/* x[mask] = values: mask [n_mask] (bytes of 0/1) picks positions of dst's leading dims, each
 * a row of `inner` elements; values is one element for every row, one row for all, or a
 * row per picked position (n_true rows), as torch broadcasts them to [n_true, row...];
 * other counts fail with torch's words before anything is written. */
int sc_k_index_put_mask(void *dst, const uint8_t *mask, int64_t n_mask, int64_t inner, const void *values,
                        int64_t n_values, int32_t accumulate_elem, int64_t esize, const char *node, char *err,
                        size_t errlen) {
  int64_t n_true = 0;
  for (int64_t i = 0; i < n_mask; i++) n_true += mask[i] != 0;
  bool one = n_values == 1, row = n_values == inner, rows = n_values == n_true * inner;
  if (!one && !row && !rows && n_true > 0) {
    if (err && errlen)
      snprintf(err, errlen, "shape mismatch: value tensor of %lld elements cannot be broadcast to indexing result of "
               "%lld rows of %lld (%s)", (long long)n_values, (long long)n_true, (long long)inner, node);
    return SHAPEC_ERR_SHAPE;
  }
  char *d = dst;
  const char *v = values;
  for (int64_t i = 0, k = 0; i < n_mask; i++) {
    if (!mask[i]) continue;
    for (int64_t j = 0; j < inner; j++) {
      const char *src = v + (one ? 0 : (rows && !row ? k * inner + j : j)) * esize;
      char *at = d + (i * inner + j) * esize;
      if (accumulate_elem)
        accumulate(at, src, accumulate_elem);
      else
        memcpy(at, src, (size_t)esize);
    }
    k++;
  }
  return SHAPEC_OK;
}

/* The positions of the mask's true elements, row-major, k coordinates each (nonzero()). */
static int64_t mask_positions(const uint8_t *mask, const int64_t *strides, const int64_t *shape, int32_t k,
                              int64_t *positions) {
  int64_t total = 1, count = 0, c[MAX_RANK] = {0};
  for (int32_t d = 0; d < k; d++) total *= shape[d];
  for (int64_t e = 0; e < total; e++) {
    int64_t off = 0;
    for (int32_t d = 0; d < k; d++) off += c[d] * strides[d];
    if (mask[off]) {
      if (positions)
        for (int32_t d = 0; d < k; d++) positions[count * k + d] = c[d];
      count++;
    }
    next_coord(c, shape, k);
  }
  return count;
}

static void shape_text(char *buf, size_t size, const int64_t *shape, int32_t rank) {
  size_t at = 0;
  buf[0] = 0;
  for (int32_t d = 0; d < rank && at + 24 < size; d++)
    at += (size_t)snprintf(buf + at, size - at, "%s%lld", d ? ", " : "", (long long)shape[d]);
}

int sc_k_index_masked(int32_t mode, void *src, int32_t src_rank, const int64_t *src_shape, const int64_t *src_strides,
                      int32_t n_index, const void *const *index_data, const int32_t *index_bytes,
                      const int32_t *index_dim, const int64_t *index_strides, int32_t b_rank, const int64_t *b_shape,
                      int32_t b_at, void *out_or_values, const uint8_t *mask, const int64_t *mask_strides,
                      const int32_t *mask_place, const int64_t *values_strides, const int64_t *values_shape,
                      int64_t esize, const char *node, char *err, size_t errlen) {
  int32_t k = mask_place[0], mask_dim = mask_place[1], entry = mask_place[2], total = n_index + k;
  if (k < 1 || b_rank < 1 || b_rank > MAX_RANK || src_rank > MAX_RANK || total > src_rank || mask_dim + k > src_rank ||
      entry > n_index) {
    if (err && errlen) snprintf(err, errlen, "a mask of rank %d at dim %d among %d indices of a tensor of rank %d (%s)",
                                (int)k, (int)mask_dim, (int)n_index, (int)src_rank, node ? node : "index");
    return SHAPEC_ERR_ARGUMENT;
  }
  int64_t count = mask_positions(mask, mask_strides, src_shape + mask_dim, k, NULL);
  int64_t *positions = malloc((size_t)(count ? count : 1) * (size_t)k * sizeof *positions);
  if (!positions) return SHAPEC_ERR_MEMORY;
  mask_positions(mask, mask_strides, src_shape + mask_dim, k, positions);
  /* the entries with the mask's columns put in: column j reads positions[i * k + j] along
   * B's last dim (i), the same for every other B position */
  const void *data[MAX_RANK];
  int32_t bytes[MAX_RANK], dims[MAX_RANK];
  int64_t strides[MAX_RANK * MAX_RANK], b[MAX_RANK];
  for (int32_t e = 0, from = 0; e < total; e++) {
    bool column = e >= entry && e < entry + k;
    for (int32_t d = 0; d < b_rank; d++)
      strides[e * b_rank + d] = column ? (d == b_rank - 1 && count != 1 ? k : 0) : index_strides[from * b_rank + d];
    if (column) {
      data[e] = positions + (e - entry);
      bytes[e] = 8;
      dims[e] = mask_dim + (e - entry);
    } else {
      data[e] = index_data[from];
      bytes[e] = index_bytes[from];
      dims[e] = index_dim[from++];
    }
  }
  for (int32_t d = 0; d < b_rank; d++) b[d] = b_shape[d];
  b[b_rank - 1] = count;
  if (mode >= 0 && values_shape) { /* values broadcast to the indexed shape, or torch's words */
    int32_t rest[MAX_RANK], n_rest = 0, out_rank = src_rank - total + b_rank;
    for (int32_t d = 0; d < src_rank; d++) {
      bool picked = false;
      for (int32_t e = 0; e < total; e++) picked |= dims[e] == d;
      if (!picked) rest[n_rest++] = d;
    }
    int64_t shape[2 * MAX_RANK];
    for (int32_t d = 0; d < out_rank; d++)
      shape[d] = d < b_at ? src_shape[rest[d]] : d < b_at + b_rank ? b[d - b_at] : src_shape[rest[d - b_rank]];
    for (int32_t d = 0; d < out_rank; d++)
      if (values_shape[d] != 1 && values_shape[d] != shape[d]) {
        char vs[200], is[200];
        shape_text(vs, sizeof vs, values_shape, out_rank);
        shape_text(is, sizeof is, shape, out_rank);
        if (err && errlen)
          snprintf(err, errlen, "shape mismatch: value tensor of shape [%s] cannot be broadcast to indexing result of "
                   "shape [%s] (%s)", vs, is, node ? node : "index_put");
        free(positions);
        return SHAPEC_ERR_SHAPE;
      }
  }
  int rc = indexed_walk(mode < 0 ? READ : mode ? ACCUMULATE : PUT, src, src_rank, src_shape, src_strides, total, data,
                        bytes, dims, strides, b_rank, b, b_at, out_or_values, values_strides, mode > 0 ? mode : 0, esize,
                        node, err, errlen);
  free(positions);
  return rc;
}
