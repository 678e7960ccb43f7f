/* data_dependent.c - nonzero and masked_select, whose output sizes depend on the data.
 *
 * Both run in two passes over a fixed number of contiguous chunks of the (row-major)
 * index space: the first counts each chunk's hits, the host turns the counts into
 * exclusive offsets, and the second writes each chunk's hits from its offset, which
 * keeps row-major order with every chunk independent.  Chunk c covers
 * [c * size, min((c + 1) * size, n)) with size = ceil(n / chunks). */
#include "device.h"

/* As the CPU kernel: floats by value (-0.0 is zero, NaN is not), others by their bytes. */
static inline int is_nonzero(const unsigned char *p, int64_t esize, int32_t is_float) {
  if (is_float && esize == 4) return *(const float *)p != 0.0f;
  if (is_float && esize == 8) return *(const double *)p != 0.0;
  switch (esize) {
    case 1: return *p != 0;
    case 2: return *(const uint16_t *)p != 0;
    case 4: return *(const uint32_t *)p != 0;
    case 8: return *(const uint64_t *)p != 0;
    default: break;
  }
  for (int64_t b = 0; b < esize; b++)
    if (p[b]) return 1;
  return 0;
}

/* dst[o, i] = whether any src[o, k, i] is nonzero (aten.any.dim): one work item per output. */
SC_KERNEL void sc_d_any(const unsigned char *src, unsigned char *dst, int64_t outer, int64_t len, int64_t inner,
                        int64_t esize, int32_t is_float) {
  SC_GRID_LOOP(t, outer * inner) {
    int64_t o = t / inner, i = t % inner;
    unsigned char any = 0;
    for (int64_t k = 0; k < len && !any; k++) any = (unsigned char)is_nonzero(src + ((o * len + k) * inner + i) * esize, esize, is_float);
    dst[t] = any;
  }
}

static inline void chunk_range(int64_t c, int64_t n, int64_t chunks, int64_t *begin, int64_t *end) {
  int64_t size = (n + chunks - 1) / chunks;
  *begin = c * size < n ? c * size : n;
  *end = *begin + size < n ? *begin + size : n;
}

/* counts[c] = the nonzero elements of x[0..n) in chunk c. */
SC_KERNEL void sc_d_count_nonzero_chunks(const unsigned char *x, int64_t n, int64_t esize, int32_t is_float,
                                         int64_t chunks, int64_t *counts) {
  SC_GRID_LOOP(c, chunks) {
    int64_t begin, end, count = 0;
    chunk_range(c, n, chunks, &begin, &end);
    for (int64_t i = begin; i < end; i++) count += is_nonzero(x + i * esize, esize, is_float);
    counts[c] = count;
  }
}

/* Writes the coordinates (int64 rows of ndim) of chunk c's nonzero elements from row offsets[c]. */
SC_KERNEL void sc_d_nonzero_write(const unsigned char *x, int32_t ndim, sc_dims shape, int64_t esize, int32_t is_float,
                                  int64_t n, int64_t chunks, const int64_t *offsets, int64_t *out) {
  SC_GRID_LOOP(c, chunks) {
    int64_t begin, end, row = offsets[c];
    chunk_range(c, n, chunks, &begin, &end);
    for (int64_t i = begin; i < end; i++) {
      if (!is_nonzero(x + i * esize, esize, is_float)) continue;
      int64_t rem = i;
      for (int32_t d = ndim - 1; d >= 0; d--) {
        out[row * ndim + d] = rem % shape.v[d];
        rem /= shape.v[d];
      }
      row++;
    }
  }
}

/* The coordinates of linear index lin over shape, and the strided offsets of two operands. */
static inline void start_at(int64_t lin, int32_t ndim, const sc_dims *shape, const sc_dims *st_a, const sc_dims *st_b,
                            int64_t *idx, int64_t *off_a, int64_t *off_b) {
  int64_t a = 0, b = 0;
  for (int32_t d = ndim - 1; d >= 0; d--) {
    idx[d] = lin % shape->v[d];
    lin /= shape->v[d];
    a += idx[d] * st_a->v[d];
    b += idx[d] * st_b->v[d];
  }
  *off_a = a;
  *off_b = b;
}

/* Steps the coordinates to the next row-major index, keeping both offsets. */
static inline void step(int32_t ndim, const sc_dims *shape, const sc_dims *st_a, const sc_dims *st_b, int64_t *idx,
                        int64_t *off_a, int64_t *off_b) {
  for (int32_t d = ndim - 1; d >= 0; d--) {
    if (++idx[d] < shape->v[d]) {
      *off_a += st_a->v[d];
      *off_b += st_b->v[d];
      return;
    }
    *off_a -= st_a->v[d] * (idx[d] - 1);
    *off_b -= st_b->v[d] * (idx[d] - 1);
    idx[d] = 0;
  }
}

/* counts[c] = the set mask elements (mask read with m_st over the broadcast shape, n
 * elements) in chunk c. */
SC_KERNEL void sc_d_count_masked_chunks(const uint8_t *mask, sc_dims m_st, int32_t ndim, sc_dims shape, int64_t n,
                                        int64_t chunks, int64_t *counts) {
  SC_GRID_LOOP(c, chunks) {
    int64_t begin, end, count = 0, idx[16], mo, unused;
    chunk_range(c, n, chunks, &begin, &end);
    if (begin < end) start_at(begin, ndim, &shape, &m_st, &m_st, idx, &mo, &unused);
    for (int64_t i = begin; i < end; i++) {
      count += mask[mo] != 0;
      step(ndim, &shape, &m_st, &m_st, idx, &mo, &unused);
    }
    counts[c] = count;
  }
}

/* Writes chunk c's selected elements of x (read with x_st) from element offsets[c] of out. */
SC_KERNEL void sc_d_masked_select_write(const char *x, sc_dims x_st, const uint8_t *mask, sc_dims m_st, int32_t ndim,
                                        sc_dims shape, int64_t esize, int64_t n, int64_t chunks,
                                        const int64_t *offsets, char *out) {
  SC_GRID_LOOP(c, chunks) {
    int64_t begin, end, idx[16], xo, mo, row = offsets[c];
    chunk_range(c, n, chunks, &begin, &end);
    if (begin < end) start_at(begin, ndim, &shape, &x_st, &m_st, idx, &xo, &mo);
    for (int64_t i = begin; i < end; i++) {
      if (mask[mo]) {
        char *d = out + row * esize;
        const char *s = x + xo * esize;
        if (esize == 1 || esize == 2 || esize == 4 || esize == 8) sc_copy_elem(d, s, esize);
        else
          for (int64_t b = 0; b < esize; b++) d[b] = s[b];
        row++;
      }
      step(ndim, &shape, &x_st, &m_st, idx, &xo, &mo);
    }
  }
}
