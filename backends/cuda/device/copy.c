/* copy.c - data movement kernels (the GPU side of backends/cpu/runtime/copy.c): strided
 * copies, fills, arange, index_select, gather and repeat.  One work item per element
 * written.  Strides are in elements; esize is the element's size in bytes. */
#include "device.h"

/* Copies one element of any size (1, 2, 4 and 8 bytes in one access). */
static inline void copy_any(char *dst, const char *src, int64_t esize) {
  if (esize == 1 || esize == 2 || esize == 4 || esize == 8) {
    sc_copy_elem(dst, src, esize);
    return;
  }
  for (int64_t b = 0; b < esize; b++) dst[b] = src[b];
}

/* The strided offset of row-major linear index lin over shape[0..ndim). */
static inline int64_t strided_offset(int64_t lin, int32_t ndim, const sc_dims *shape, const sc_dims *strides) {
  int64_t off = 0;
  for (int32_t d = ndim - 1; d >= 0; d--) {
    int64_t extent = shape->v[d];
    off += (lin % extent) * strides->v[d];
    lin /= extent;
  }
  return off;
}

/* dst (compact, n elements) = src read with src_strides; ndim 0 copies one element. */
SC_KERNEL void sc_d_strided_copy(const char *src, char *dst, int32_t ndim, sc_dims shape, sc_dims src_strides,
                                 int64_t esize, int64_t n) {
  SC_GRID_LOOP(i, n) {
    int64_t off = strided_offset(i, ndim, &shape, &src_strides);
    copy_any(dst + i * esize, src + off * esize, esize);
  }
}

/* dst written with dst_strides = src (compact, n elements). */
SC_KERNEL void sc_d_copy_into(const char *src, char *dst, int32_t ndim, sc_dims shape, sc_dims dst_strides,
                              int64_t esize, int64_t n) {
  SC_GRID_LOOP(i, n) {
    int64_t off = strided_offset(i, ndim, &shape, &dst_strides);
    copy_any(dst + off * esize, src + i * esize, esize);
  }
}

/* dst[0..n) = value, whose esize (<= 128) bytes are the first bytes of `value`. */
SC_KERNEL void sc_d_fill(char *dst, int64_t n, sc_dims value, int64_t esize) {
  SC_GRID_LOOP(i, n) copy_any(dst + i * esize, (const char *)value.v, esize);
}

/* kind: SC_ARANGE_* (backends/llvm/runtime_abi.h), as the CPU's sc_k_arange */
SC_KERNEL void sc_d_arange(void *dst, int64_t n, double start, double step, int32_t kind) {
  SC_GRID_LOOP(i, n) {
    int64_t v = (int64_t)start + (int64_t)step * i;
    switch (kind) {
      case 1: ((float *)dst)[i] = (float)(start + step * (double)i); break;
      case 2: ((double *)dst)[i] = start + step * (double)i; break;
      case 3: ((int32_t *)dst)[i] = (int32_t)v; break;
      case 4: ((int16_t *)dst)[i] = (int16_t)v; break;
      case 5: ((int8_t *)dst)[i] = (int8_t)v; break;
      case 6: ((uint8_t *)dst)[i] = (uint8_t)v; break;
      default: ((int64_t *)dst)[i] = v; break;
    }
  }
}

/* src [outer, n_src, inner] -> dst [outer, n_index, inner], rows picked by index.  An index
 * outside [0, n_src) reads and writes nothing and sets *bad; the launcher then fails the
 * call with torch's words. */
SC_KERNEL void sc_d_index_select(const char *src, const int64_t *index, char *dst, int64_t outer, int64_t n_src,
                                 int64_t n_index, int64_t inner, int64_t esize, int32_t *bad) {
  SC_GRID_LOOP(t, outer * n_index * inner) {
    int64_t j = t % inner, oi = t / inner, i = oi % n_index, o = oi / n_index, r = index[i];
    if ((uint64_t)r >= (uint64_t)n_src) {
      *bad = 1;
      continue;
    }
    copy_any(dst + t * esize, src + ((o * n_src + r) * inner + j) * esize, esize);
  }
}

/* dst[i...] = src[i...] with i[dim] replaced by index[i...], over the index's n elements of
 * index_shape: the source offset from the other coordinates (src_strides, 0 at dim) plus
 * the index times pick, dim's stride.  A bad index as in sc_d_index_select. */
SC_KERNEL void sc_d_gather(const char *src, const int64_t *index, char *dst, int32_t ndim, sc_dims index_shape,
                           sc_dims src_strides, int64_t pick, int64_t n_src, int64_t esize, int64_t n, int32_t *bad) {
  SC_GRID_LOOP(t, n) {
    int64_t r = index[t];
    if ((uint64_t)r >= (uint64_t)n_src) {
      *bad = 1;
      continue;
    }
    int64_t off = strided_offset(t, ndim, &index_shape, &src_strides) + r * pick;
    copy_any(dst + t * esize, src + off * esize, esize);
  }
}

/* out[i] = src[i mod src_shape]; src_shape padded with leading 1s to ndim; n = out elements. */
SC_KERNEL void sc_d_repeat(const char *src, char *dst, int32_t ndim, sc_dims src_shape, sc_dims out_shape,
                           int64_t esize, int64_t n) {
  SC_GRID_LOOP(t, n) {
    int64_t lin = t, off = 0, mul = 1;
    for (int32_t d = ndim - 1; d >= 0; d--) {
      int64_t idx = lin % out_shape.v[d];
      lin /= out_shape.v[d];
      off += (idx % src_shape.v[d]) * mul;
      mul *= src_shape.v[d];
    }
    copy_any(dst + t * esize, src + off * esize, esize);
  }
}

/* float32 -> float16 / bfloat16 bits, round to nearest (ties to even) as torch rounds; a
 * NaN stays a quiet NaN.  Integer operations only, so that the GPU and the host emulation
 * give the same bits. */
static inline uint32_t f32_bits(float f) {
  union { float f; uint32_t u; } v = {.f = f};
  return v.u;
}

static inline uint16_t to_bf16(float f) {
  uint32_t u = f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
  return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

static inline uint16_t to_f16(float f) {
  uint32_t u = f32_bits(f), sign = (u >> 16) & 0x8000, a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00 | ((a >> 13) & 0x3ff)); /* NaN */
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00);                      /* past 65504: inf */
  if (a < 0x38800000u) { /* a subnormal (or zero): the fraction in units of 2^-24, rounded */
    uint32_t shift = 126 - (a >> 23), mant = (a & 0x7fffffu) | 0x800000u; /* value = mant * 2^-(shift+24) */
    if (a < 0x33000000u) return (uint16_t)sign;                            /* below half of 2^-24 */
    uint32_t q = mant >> shift, rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    q += rest > half || (rest == half && (q & 1));
    return (uint16_t)(sign | q);
  }
  return (uint16_t)(sign | ((a + 0xfffu + ((a >> 13) & 1) - 0x38000000u) >> 13));
}

/* y[i] = x[i] as float16 (SC_HALF_F16) or bfloat16 (SC_HALF_BF16) bits: the operands of
 * a half-precision product on cuBLAS (sc_cu_bmm_half). */
SC_KERNEL void sc_d_to_half(const float *x, uint16_t *y, int64_t n, int32_t kind) {
  SC_GRID_LOOP(i, n) y[i] = kind == SC_HALF_BF16 ? to_bf16(x[i]) : to_f16(x[i]);
}

/* x[i0, i1, ...] with integer index tensors (aten.index.Tensor; the CPU's sc_k_index_tensor):
 * out (compact, n elements over out_shape of out_rank dims) reads src at the offset of its
 * coordinates: rest_strides[d] for the dims no index picks (0 over B, the index tensors'
 * broadcast shape at out dims [b_at, b_at + b_rank)), plus, for each index tensor k (data
 * at index_ptrs.v[k], 4- or 8-byte elements, read at index_strides.v[k * b_rank + d] over
 * B), its value (negative: from the end) times pick_strides.v[k], within pick_sizes.v[k].
 * An index out of range reads nothing and sets *bad; the launcher then finds it and fails
 * the call with torch's words. */
SC_KERNEL void sc_d_index_tensor(const char *src, char *out, int32_t out_rank, sc_dims out_shape, sc_dims rest_strides,
                                 int32_t n_index, sc_dims index_ptrs, sc_dims index_bytes, sc_dims index_strides,
                                 sc_dims pick_sizes, sc_dims pick_strides, int32_t b_at, int32_t b_rank, int64_t esize,
                                 int64_t n, int32_t *bad) {
  SC_GRID_LOOP(e, n) {
    int64_t coord[16], lin = e, off = 0;
    for (int32_t d = out_rank - 1; d >= 0; d--) {
      coord[d] = lin % out_shape.v[d];
      lin /= out_shape.v[d];
      off += coord[d] * rest_strides.v[d];
    }
    int ok = 1;
    for (int32_t k = 0; k < n_index; k++) {
      int64_t at = 0;
      for (int32_t d = 0; d < b_rank; d++) at += coord[b_at + d] * index_strides.v[k * b_rank + d];
      const char *data = (const char *)(uintptr_t)index_ptrs.v[k];
      int64_t v = index_bytes.v[k] == 4 ? (int64_t)((const int32_t *)data)[at] : ((const int64_t *)data)[at];
      int64_t size = pick_sizes.v[k];
      if (v < -size || v >= size) {
        ok = 0;
        break;
      }
      off += (v < 0 ? v + size : v) * pick_strides.v[k];
    }
    if (!ok) {
      *bad = 1;
      continue;
    }
    copy_any(out + e * esize, src + off * esize, esize);
  }
}
