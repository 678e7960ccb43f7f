/* embedding_bag.c - nn.EmbeddingBag's forward: rows of a table gathered by index and
 * reduced per bag (sum, mean or max), the bags cut from the index list by offsets.
 *
 * Bag b is indices[offsets[b] .. offsets[b + 1]) (the last bag runs to the end unless
 * include_last_offset makes the final offset its end).  Offsets that start elsewhere than
 * 0, pass the end or go down are refused (torch refuses the first two; the third reads
 * out of bounds there).  An index equal to padding_idx
 * (>= 0; negative means none) is left out, and not counted by mean.  An empty bag is
 * zeros, as in ATen.  Sums accumulate in the table's dtype, one index after another,
 * scaled by per_sample_weights where given (mode sum only); max keeps the first element
 * unless a later one compares greater, so a NaN that comes first stays.
 *
 * Only the first of torch's four results is computed: the others (offset2bag, bag_size,
 * max_indices) serve the backward pass, and their CPU values depend on ATen's code path;
 * the lowering refuses a program that reads them. */
#include "backends/cpu/runtime/element_kind.h"
#include "backends/cpu/runtime/kernels.h"

enum { MODE_SUM, MODE_MEAN, MODE_MAX };

int sc_k_embedding_bag(const void *table, int32_t kind, int64_t rows, int64_t width, const void *indices,
                       int32_t index_kind, int64_t n_indices, const void *offsets, int32_t offset_kind,
                       int64_t n_offsets, int32_t include_last_offset, int32_t mode, const void *sample_weights,
                       int64_t padding_idx, void *out, const char *node, char *err, size_t errlen) {
  int64_t esize = sc_kind_size(kind), isize = sc_kind_size(index_kind), osize = sc_kind_size(offset_kind);
  int64_t bags = n_offsets - (include_last_offset ? 1 : 0);
  if (bags < 0) return sc_rt_fail(err, errlen, "include_last_offset: numBags should be at least 1 (%s)", node);
  const char *ix = indices, *ox = offsets;
  /* ATen's checks on the offsets, then every index before any row is read */
  if (n_offsets > 0) {
    int64_t first = sc_kind_get_i(ox, offset_kind), last = sc_kind_get_i(ox + (n_offsets - 1) * osize, offset_kind);
    if (first != 0)
      return sc_rt_fail(err, errlen, "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                        "from position 0. However, got %lld (%s)", (long long)first, node);
    if (last > n_indices)
      return sc_rt_fail(err, errlen, "offsets[-1] can not be greater than input's length %lld but got offsets[-1] of "
                        "%lld (%s)", (long long)n_indices, (long long)last, node);
    for (int64_t b = 1; b < n_offsets; b++)
      if (sc_kind_get_i(ox + b * osize, offset_kind) < sc_kind_get_i(ox + (b - 1) * osize, offset_kind))
        return sc_rt_fail(err, errlen, "embedding_bag: offsets must be non-decreasing, but offsets[%lld] is less "
                          "than offsets[%lld] (%s)", (long long)b, (long long)(b - 1), node);
  }
  for (int64_t i = 0; i < n_indices; i++) {
    int64_t idx = sc_kind_get_i(ix + i * isize, index_kind);
    if (idx < 0 || idx >= rows)
      return sc_rt_fail(err, errlen, "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be "
                        "%lld (%s)", (long long)idx, node);
  }
  const char *t = table, *sw = sample_weights;
  char *o = out;
  for (int64_t b = 0; b < bags; b++) {
    int64_t start = sc_kind_get_i(ox + b * osize, offset_kind);
    int64_t end = b + 1 < n_offsets ? sc_kind_get_i(ox + (b + 1) * osize, offset_kind) : n_indices;
    char *row = o + b * width * esize;
    int64_t count = 0;
    for (int64_t j = 0; j < width; j++) sc_kind_put_f(row + j * esize, kind, 0);
    for (int64_t i = start; i < end; i++) {
      int64_t idx = sc_kind_get_i(ix + i * isize, index_kind);
      if (padding_idx >= 0 && idx == padding_idx) continue;
      const char *src = t + idx * width * esize;
      double scale = sw ? sc_kind_get_f(sw + i * esize, kind) : 1;
      for (int64_t j = 0; j < width; j++) {
        double v = sc_kind_get_f(src + j * esize, kind), cur = sc_kind_get_f(row + j * esize, kind);
        if (mode == MODE_MAX) {
          if (count == 0 || v > cur) sc_kind_put_f(row + j * esize, kind, v);
        } else {
          /* each step rounded to the table's dtype, as ATen adds in it (a weighted one fused) */
          sc_kind_put_f(row + j * esize, kind, cur + scale * v);
        }
      }
      count++;
    }
    if (mode == MODE_MEAN && count > 0)
      for (int64_t j = 0; j < width; j++)
        sc_kind_put_f(row + j * esize, kind, sc_kind_get_f(row + j * esize, kind) / (double)count);
  }
  return SHAPEC_OK;
}
