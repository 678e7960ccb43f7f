/* ops.c - host-side launchers of the device kernels in backends/cuda/device/: each
 * sc_cu_X packs its small host arrays into sc_dims and launches the matching sc_d_
 * kernel over its work items (see ops.h for the contract). */
#include "ops.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/llvm/runtime_abi.h"
#include "cuda_rt.h"
#include "shapec/runtime.h"

/* Whether ndim fits a sc_dims; records an error when not. */
static int dims_ok(int32_t ndim, const char *what) {
  if (ndim >= 0 && ndim <= 16) return 1;
  sc_cu_fail("%s: %d dims (the CUDA kernels take at most 16)", what, (int)ndim);
  return 0;
}

static int64_t product(const int64_t *shape, int32_t ndim) {
  int64_t n = 1;
  for (int32_t d = 0; d < ndim; d++) n *= shape[d];
  return n;
}

/* Whether strides are the compact row-major strides of shape (extents of 1 ignored). */
static int compact(const int64_t *shape, const int64_t *strides, int32_t ndim) {
  int64_t st = 1;
  for (int32_t d = ndim - 1; d >= 0; d--) {
    if (shape[d] != 1 && strides[d] != st) return 0;
    st *= shape[d];
  }
  return 1;
}

/* ---- data movement ---- */

/* A copy between a compact side and a strided side: one device-to-device copy when the
 * strides are compact too, else `kernel` (strided_copy or copy_into) over the elements. */
static void copy_strided(const char *kernel, const void *src, void *dst, int32_t ndim, const int64_t *shape,
                         const int64_t *strides, int64_t esize) {
  if (!dims_ok(ndim, kernel)) return;
  int64_t n = product(shape, ndim);
  if (n <= 0) return;
  if (compact(shape, strides, ndim)) {
    sc_cu_copy_device(dst, src, n * esize);
    return;
  }
  sc_dims sh = sc_cu_dims(shape, ndim), st = sc_cu_dims(strides, ndim);
  void *p[] = {&src, &dst, &ndim, &sh, &st, &esize, &n};
  sc_cu_launch(kernel, n, p);
}

void sc_cu_strided_copy(const void *src, void *dst, int32_t ndim, const int64_t *shape, const int64_t *src_strides,
                        int64_t esize) {
  copy_strided("sc_d_strided_copy", src, dst, ndim, shape, src_strides, esize);
}

void sc_cu_copy_into(const void *src, void *dst, int32_t ndim, const int64_t *shape, const int64_t *dst_strides,
                     int64_t esize) {
  copy_strided("sc_d_copy_into", src, dst, ndim, shape, dst_strides, esize);
}

void sc_cu_fill(void *dst, int64_t n, const void *value, int64_t esize) {
  if (n <= 0) return;
  sc_dims v;
  memset(&v, 0, sizeof v);
  if (esize <= 0 || esize > (int64_t)sizeof v) {
    sc_cu_fail("fill: elements of %lld bytes (the CUDA kernel takes at most %d)", (long long)esize, (int)sizeof v);
    return;
  }
  memcpy(v.v, value, (size_t)esize);
  void *p[] = {&dst, &n, &v, &esize};
  sc_cu_launch("sc_d_fill", n, p);
}

void sc_cu_arange(void *dst, int64_t n, double start, double step, int32_t kind) {
  void *p[] = {&dst, &n, &start, &step, &kind};
  sc_cu_launch("sc_d_arange", n, p);
}

void sc_cu_any(const void *src, void *dst, int64_t outer, int64_t len, int64_t inner, int64_t esize, int32_t is_float) {
  void *p[] = {&src, &dst, &outer, &len, &inner, &esize, &is_float};
  sc_cu_launch("sc_d_any", outer * inner, p);
}

/* ---- reads at data-dependent indices: the kernel skips a bad index and raises a flag;
 * the launcher waits for it and, when raised, finds the first bad index on the host and
 * fails the call with torch's words (the CPU kernels' messages, copy.c) ---- */

/* Torch's words (fmt, its arguments), then the node's name; SHAPEC_ERR_SHAPE. */
static int index_fail(char *err, size_t errlen, const char *node, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int index_fail(char *err, size_t errlen, const char *node, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    if (k >= 0 && (size_t)k < errlen && node) snprintf(err + k, errlen - (size_t)k, " (%s)", node);
  }
  return SHAPEC_ERR_SHAPE;
}

/* A zeroed device flag for an index kernel; NULL on failure (recorded). */
static int32_t *index_flag(void) {
  int32_t zero = 0, *flag = sc_cu_alloc((int64_t)sizeof zero);
  if (flag) sc_cu_copy_to_device(flag, &zero, (int64_t)sizeof zero);
  return flag;
}

/* The position of the first of the n device indices outside [0, size), copied to the host
 * to find it (*value its value); -1 when none is, or on failure (recorded). */
static int64_t host_first_bad_index(const int64_t *d_index, int64_t n, int64_t size, int64_t *value) {
  int64_t *h = malloc((size_t)n * sizeof *h), bad = -1;
  if (!h) {
    sc_cu_fail("out of host memory for %lld indices", (long long)n);
    return -1;
  }
  sc_cu_copy_to_host(h, d_index, n * (int64_t)sizeof *h);
  for (int64_t i = 0; i < n && !sc_cu_status(); i++)
    if ((uint64_t)h[i] >= (uint64_t)size) {
      bad = i, *value = h[i];
      break;
    }
  free(h);
  return bad;
}

/* After the kernel (this waits for it): -1 when its flag stayed down, else the first bad
 * index as host_first_bad_index finds it.  Frees the flag. */
static int64_t flagged_bad_index(int32_t *flag, const int64_t *d_index, int64_t n, int64_t size, int64_t *value) {
  int32_t raised = 0;
  sc_cu_copy_to_host(&raised, flag, (int64_t)sizeof raised);
  sc_cu_free(flag);
  return raised && !sc_cu_status() ? host_first_bad_index(d_index, n, size, value) : -1;
}

int sc_cu_index_select(const void *src, const int64_t *index, void *dst, int64_t outer, int64_t n_src,
                       int64_t n_index, int64_t inner, int64_t esize, int32_t ndim, int32_t dim, const char *node,
                       char *err, size_t errlen) {
  int64_t value = 0, bad;
  if (n_index <= 0) return SHAPEC_OK;
  int empty = ndim > 1 && outer * n_src * inner == 0;
  if (empty && n_src == 0) return index_fail(err, errlen, node, SC_INDEX_SELECT_EMPTY_MSG);
  if (outer * inner == 0) { /* no thread would read the indices */
    bad = host_first_bad_index(index, n_index, n_src, &value);
  } else {
    int32_t *flag = index_flag();
    if (!flag) return sc_cu_status();
    void *p[] = {&src, &index, &dst, &outer, &n_src, &n_index, &inner, &esize, &flag};
    sc_cu_launch("sc_d_index_select", outer * n_index * inner, p);
    bad = flagged_bad_index(flag, index, n_index, n_src, &value);
  }
  if (bad < 0) return sc_cu_status();
  if (empty || (ndim > 1 && dim == 1))
    return index_fail(err, errlen, node, SC_INDEX_SELECT_DATA_BOUNDS_MSG, (long long)value, (long long)n_src);
  return index_fail(err, errlen, node, SC_INDEX_SELECT_SELF_MSG);
}

/* The first index of x[i0, i1, ...] out of range, in the CPU kernel's order (B's elements,
 * then the index tensors), with torch's words; the index tensors copied to the host. */
static int first_bad_tensor_index(int32_t n_index, const void *const *index_data, const int32_t *index_bytes,
                                  const int32_t *index_dim, const int64_t *index_strides, int32_t b_rank,
                                  const int64_t *b_shape, const int64_t *src_shape, const char *node, char *err,
                                  size_t errlen) {
  void *host[16] = {NULL};
  int rc = SHAPEC_OK, found = 0;
  for (int32_t k = 0; k < n_index && !sc_cu_status(); k++) {
    int64_t span = 1; /* the elements the strides reach over B */
    for (int32_t d = 0; d < b_rank; d++) span += (b_shape[d] - 1) * index_strides[k * b_rank + d];
    host[k] = malloc((size_t)(span * index_bytes[k]));
    if (!host[k]) sc_cu_fail("out of host memory for %lld indices", (long long)span);
    else sc_cu_copy_to_host(host[k], index_data[k], span * index_bytes[k]);
  }
  int64_t c[16] = {0};
  for (int done = 0; !done && !found && !sc_cu_status();) {
    for (int32_t k = 0; k < n_index && !found; k++) {
      int64_t at = 0;
      for (int32_t d = 0; d < b_rank; d++) at += c[d] * index_strides[k * b_rank + d];
      int64_t v = index_bytes[k] == 4 ? (int64_t)((int32_t *)host[k])[at] : ((int64_t *)host[k])[at];
      int64_t size = src_shape[index_dim[k]];
      if (v < -size || v >= size) {
        rc = index_fail(err, errlen, node, "index %lld is out of bounds for dimension %d with size %lld", (long long)v,
                        (int)index_dim[k], (long long)size);
        found = 1;
      }
    }
    done = 1;
    for (int32_t d = b_rank - 1; d >= 0 && done; d--) {
      if (++c[d] < b_shape[d]) done = 0;
      else c[d] = 0;
    }
  }
  for (int32_t k = 0; k < n_index; k++) free(host[k]);
  return sc_cu_status() ? sc_cu_status() : rc;
}

int sc_cu_index_tensor(const void *src, int32_t src_rank, const int64_t *src_shape, const int64_t *src_strides,
                       int32_t n_index, const void *const *index_data, const int32_t *index_bytes,
                       const int32_t *index_dim, const int64_t *index_strides, int32_t b_rank, const int64_t *b_shape,
                       int32_t b_at, void *out, int64_t esize, const char *node, char *err, size_t errlen) {
  if (src_rank > 16 || b_rank > 16 || n_index > src_rank || n_index * b_rank > 16) {
    sc_cu_fail("indexing a tensor of rank %d with %d index tensors of rank %d: more than the CUDA kernel takes (%s)",
               (int)src_rank, (int)n_index, (int)b_rank, node ? node : "index");
    return sc_cu_status();
  }
  int32_t rest[16], n_rest = 0;
  for (int32_t d = 0; d < src_rank; d++) {
    int picked = 0;
    for (int32_t k = 0; k < n_index; k++) picked |= index_dim[k] == d;
    if (!picked) rest[n_rest++] = d;
  }
  int32_t out_rank = n_rest + b_rank;
  if (out_rank > 16) {
    sc_cu_fail("indexing gives %d dims: more than the CUDA kernel takes (%s)", (int)out_rank, node ? node : "index");
    return sc_cu_status();
  }
  int64_t out_shape[16], rest_strides[16], n = 1;
  for (int32_t d = 0; d < out_rank; d++) {
    if (d >= b_at && d < b_at + b_rank) { /* B: the index tensors' broadcast shape */
      out_shape[d] = b_shape[d - b_at];
      rest_strides[d] = 0;
    } else { /* a dim no index picks, whole */
      int32_t r = d < b_at ? rest[d] : rest[d - b_rank];
      out_shape[d] = src_shape[r];
      rest_strides[d] = src_strides[r];
    }
    n *= out_shape[d];
  }
  if (n <= 0) return SHAPEC_OK;
  int64_t ptrs[16] = {0}, bytes[16] = {0}, sizes[16] = {0}, picks[16] = {0};
  for (int32_t k = 0; k < n_index; k++) {
    ptrs[k] = (int64_t)(uintptr_t)index_data[k];
    bytes[k] = index_bytes[k];
    sizes[k] = src_shape[index_dim[k]];
    picks[k] = src_strides[index_dim[k]];
  }
  int32_t *flag = index_flag();
  if (!flag) return sc_cu_status();
  sc_dims os = sc_cu_dims(out_shape, out_rank), rs = sc_cu_dims(rest_strides, out_rank), ip = sc_cu_dims(ptrs, n_index),
          ib = sc_cu_dims(bytes, n_index), ist = sc_cu_dims(index_strides, n_index * b_rank),
          ps = sc_cu_dims(sizes, n_index), pk = sc_cu_dims(picks, n_index);
  void *p[] = {&src, &out, &out_rank, &os, &rs, &n_index, &ip, &ib, &ist, &ps, &pk, &b_at, &b_rank, &esize, &n, &flag};
  sc_cu_launch("sc_d_index_tensor", n, p);
  int32_t raised = 0;
  sc_cu_copy_to_host(&raised, flag, (int64_t)sizeof raised);
  sc_cu_free(flag);
  if (!raised || sc_cu_status()) return sc_cu_status();
  return first_bad_tensor_index(n_index, index_data, index_bytes, index_dim, index_strides, b_rank, b_shape, src_shape,
                                node, err, errlen);
}

/* Sizes as torch prints them: "[4, 7]". */
static void sizes_text(char *buf, size_t n, const int64_t *shape, int32_t ndim) {
  size_t k = (size_t)snprintf(buf, n, "[");
  for (int32_t d = 0; d < ndim && k < n; d++)
    k += (size_t)snprintf(buf + k, n - k, "%s%lld", d ? ", " : "", (long long)shape[d]);
  if (k < n) snprintf(buf + k, n - k, "]");
}

int sc_cu_gather(const void *src, const int64_t *index, void *dst, int32_t ndim, int32_t dim, const int64_t *src_shape,
                 const int64_t *index_shape, int64_t esize, const char *node, char *err, size_t errlen) {
  if (!dims_ok(ndim, "gather")) return sc_cu_status();
  int64_t n = product(index_shape, ndim);
  if (n <= 0) return SHAPEC_OK;
  for (int32_t d = 0; d < ndim; d++) {
    if (d == dim || index_shape[d] <= src_shape[d]) continue;
    char is[400], xs[400];
    sizes_text(is, sizeof is, index_shape, ndim);
    sizes_text(xs, sizeof xs, src_shape, ndim);
    return index_fail(err, errlen, node, SC_GATHER_SIZE_MSG, (int)d, is, xs, (int)dim);
  }
  int64_t strides[16], st = 1, pick, n_src = src_shape[dim], value;
  for (int32_t d = ndim - 1; d >= 0; d--) {
    strides[d] = st;
    st *= src_shape[d];
  }
  pick = strides[dim];
  strides[dim] = 0;
  sc_dims ish = sc_cu_dims(index_shape, ndim), sst = sc_cu_dims(strides, ndim);
  int32_t *flag = index_flag();
  if (!flag) return sc_cu_status();
  void *p[] = {&src, &index, &dst, &ndim, &ish, &sst, &pick, &n_src, &esize, &n, &flag};
  sc_cu_launch("sc_d_gather", n, p);
  if (flagged_bad_index(flag, index, n, n_src, &value) >= 0)
    return index_fail(err, errlen, node, SC_INDEX_GATHER_MSG, (long long)value, (int)dim, (long long)n_src);
  return sc_cu_status();
}

void sc_cu_repeat(const void *src, void *dst, int32_t ndim, const int64_t *src_shape, const int64_t *out_shape,
                  int64_t esize) {
  if (!dims_ok(ndim, "repeat")) return;
  int64_t n = product(out_shape, ndim);
  if (n <= 0) return;
  sc_dims ss = sc_cu_dims(src_shape, ndim), os = sc_cu_dims(out_shape, ndim);
  void *p[] = {&src, &dst, &ndim, &ss, &os, &esize, &n};
  sc_cu_launch("sc_d_repeat", n, p);
}

/* ---- data-dependent sizes: chunk counts, then each chunk written from its offset ---- */

/* Chunks of at least 128 elements, at most 8192 of them. */
static int64_t chunk_count(int64_t n) {
  int64_t c = (n + 127) / 128;
  return c < 1 ? 1 : c > 8192 ? 8192 : c;
}

/* Copies the per-chunk counts back; *total = their sum; offsets (host, may be NULL) =
 * their exclusive prefix sums.  0 on failure (recorded). */
static int collect(const int64_t *d_counts, int64_t chunks, int64_t *offsets, int64_t *total) {
  int64_t *h = malloc((size_t)chunks * sizeof *h);
  if (!h) {
    sc_cu_fail("out of host memory for %lld chunk counts", (long long)chunks);
    return 0;
  }
  sc_cu_copy_to_host(h, d_counts, chunks * (int64_t)sizeof *h);
  if (sc_cu_status()) {
    free(h);
    return 0;
  }
  int64_t sum = 0;
  for (int64_t c = 0; c < chunks; c++) {
    if (offsets) offsets[c] = sum;
    sum += h[c];
  }
  free(h);
  *total = sum;
  return 1;
}

/* Counts the chunks of x into d_counts (device, chunks entries). */
static void count_nonzero_chunks(const void *x, int64_t n, int64_t esize, int32_t is_float, int64_t chunks,
                                 int64_t *d_counts) {
  void *p[] = {&x, &n, &esize, &is_float, &chunks, &d_counts};
  sc_cu_launch("sc_d_count_nonzero_chunks", chunks, p);
}

int64_t sc_cu_count_nonzero(const void *x, int64_t n, int64_t esize, int32_t is_float) {
  if (n <= 0) return 0;
  int64_t chunks = chunk_count(n), total = 0;
  int64_t *d_counts = sc_cu_alloc(chunks * (int64_t)sizeof(int64_t));
  if (!d_counts) return 0;
  count_nonzero_chunks(x, n, esize, is_float, chunks, d_counts);
  if (!collect(d_counts, chunks, NULL, &total)) total = 0;
  sc_cu_free(d_counts);
  return total;
}

/* Uploads host offsets into the second half of d_counts (2 * chunks entries) and returns it. */
static int64_t *upload_offsets(int64_t *d_counts, const int64_t *offsets, int64_t chunks) {
  int64_t *d_off = d_counts + chunks;
  sc_cu_copy_to_device(d_off, offsets, chunks * (int64_t)sizeof(int64_t));
  return d_off;
}

void sc_cu_nonzero(const void *x, int32_t ndim, const int64_t *shape, int64_t esize, int32_t is_float, int64_t *out) {
  if (!dims_ok(ndim, "nonzero")) return;
  int64_t n = product(shape, ndim);
  if (n <= 0 || ndim == 0) return; /* a scalar's rows have no columns */
  int64_t chunks = chunk_count(n), total = 0;
  int64_t *offsets = malloc((size_t)chunks * sizeof *offsets);
  if (!offsets) {
    sc_cu_fail("out of host memory for %lld chunk offsets", (long long)chunks);
    return;
  }
  int64_t *d_counts = sc_cu_alloc(2 * chunks * (int64_t)sizeof(int64_t));
  if (d_counts) {
    count_nonzero_chunks(x, n, esize, is_float, chunks, d_counts);
    if (collect(d_counts, chunks, offsets, &total) && total > 0) {
      int64_t *d_off = upload_offsets(d_counts, offsets, chunks);
      sc_dims sh = sc_cu_dims(shape, ndim);
      void *p[] = {&x, &ndim, &sh, &esize, &is_float, &n, &chunks, &d_off, &out};
      sc_cu_launch("sc_d_nonzero_write", chunks, p);
    }
    sc_cu_free(d_counts);
  }
  free(offsets);
}

static void count_masked_chunks(const uint8_t *mask, const int64_t *m_st, int32_t ndim, const int64_t *shape,
                                int64_t n, int64_t chunks, int64_t *d_counts) {
  sc_dims ms = sc_cu_dims(m_st, ndim), sh = sc_cu_dims(shape, ndim);
  void *p[] = {&mask, &ms, &ndim, &sh, &n, &chunks, &d_counts};
  sc_cu_launch("sc_d_count_masked_chunks", chunks, p);
}

int64_t sc_cu_count_masked(const uint8_t *mask, const int64_t *m_st, int32_t ndim, const int64_t *shape) {
  if (!dims_ok(ndim, "masked_select")) return 0;
  int64_t n = product(shape, ndim);
  if (n <= 0) return 0;
  int64_t chunks = chunk_count(n), total = 0;
  int64_t *d_counts = sc_cu_alloc(chunks * (int64_t)sizeof(int64_t));
  if (!d_counts) return 0;
  count_masked_chunks(mask, m_st, ndim, shape, n, chunks, d_counts);
  if (!collect(d_counts, chunks, NULL, &total)) total = 0;
  sc_cu_free(d_counts);
  return total;
}

void sc_cu_masked_select(const void *x, const int64_t *x_st, const uint8_t *mask, const int64_t *m_st, int32_t ndim,
                         const int64_t *shape, int64_t esize, void *out) {
  if (!dims_ok(ndim, "masked_select")) return;
  int64_t n = product(shape, ndim);
  if (n <= 0) return;
  int64_t chunks = chunk_count(n), total = 0;
  int64_t *offsets = malloc((size_t)chunks * sizeof *offsets);
  if (!offsets) {
    sc_cu_fail("out of host memory for %lld chunk offsets", (long long)chunks);
    return;
  }
  int64_t *d_counts = sc_cu_alloc(2 * chunks * (int64_t)sizeof(int64_t));
  if (d_counts) {
    count_masked_chunks(mask, m_st, ndim, shape, n, chunks, d_counts);
    if (collect(d_counts, chunks, offsets, &total) && total > 0) {
      int64_t *d_off = upload_offsets(d_counts, offsets, chunks);
      sc_dims xs = sc_cu_dims(x_st, ndim), ms = sc_cu_dims(m_st, ndim), sh = sc_cu_dims(shape, ndim);
      void *p[] = {&x, &xs, &mask, &ms, &ndim, &sh, &esize, &n, &chunks, &d_off, &out};
      sc_cu_launch("sc_d_masked_select_write", chunks, p);
    }
    sc_cu_free(d_counts);
  }
  free(offsets);
}

/* ---- matrix products ---- */

int sc_cu_bmm_f32(int64_t batch, int64_t m, int64_t n, int64_t k, const float *a, int64_t a_batch_stride,
                  int32_t trans_a, const float *b, int64_t b_batch_stride, int32_t trans_b, float *c, float alpha,
                  float beta) {
  if (batch <= 0 || m <= 0 || n <= 0 || sc_cu_status()) return sc_cu_status();
  if (!sc_cu_cublas_sgemm(batch, m, n, k, a, a_batch_stride, trans_a, b, b_batch_stride, trans_b, c, alpha, beta)) {
    void *p[] = {&batch, &m, &n, &k, &a, &a_batch_stride, &trans_a, &b, &b_batch_stride, &trans_b, &c, &alpha, &beta};
    sc_cu_launch("sc_d_gemm", batch * ((m + 3) / 4) * ((n + 3) / 4), p);
  }
  return sc_cu_status();
}

void sc_cu_to_half(const float *x, uint16_t *y, int64_t n, int32_t kind) {
  void *p[] = {&x, &y, &n, &kind};
  sc_cu_launch("sc_d_to_half", n, p);
}

/* One operand of a half-precision product in its dtype: the weights' mirror when it is a
 * weight, else a converted copy (*scratch, freed by the caller). */
static const void *half_operand(const float *x, int64_t elems, int32_t kind, void **scratch) {
  const void *mirror = sc_cu_weights_half(x, kind);
  if (mirror || sc_cu_status()) return mirror;
  uint16_t *copy = sc_cu_alloc(elems * (int64_t)sizeof(uint16_t));
  if (copy) sc_cu_to_half(x, copy, elems, kind);
  *scratch = copy;
  return copy;
}

int sc_cu_bmm_half(int64_t batch, int64_t m, int64_t n, int64_t k, const float *a, int64_t a_batch_stride,
                   int32_t trans_a, const float *b, int64_t b_batch_stride, int32_t trans_b, float *c, float alpha,
                   float beta, int32_t kind) {
  if (batch <= 0 || m <= 0 || n <= 0 || sc_cu_status()) return sc_cu_status();
  if (k <= 0 || !sc_cu_cublas_has_half())
    return sc_cu_bmm_f32(batch, m, n, k, a, a_batch_stride, trans_a, b, b_batch_stride, trans_b, c, alpha, beta);
  void *scratch_a = NULL, *scratch_b = NULL;
  /* the elements each operand spans: a batch stride of 0 reads one matrix for all */
  const void *ha = half_operand(a, (batch - 1) * a_batch_stride + m * k, kind, &scratch_a);
  const void *hb = ha ? half_operand(b, (batch - 1) * b_batch_stride + k * n, kind, &scratch_b) : NULL;
  int done = ha && hb && sc_cu_cublas_gemm_half(batch, m, n, k, ha, a_batch_stride, trans_a, hb, b_batch_stride, trans_b,
                                                c, alpha, beta, kind);
  sc_cu_free(scratch_a);
  sc_cu_free(scratch_b);
  if (!done && !sc_cu_status())
    return sc_cu_bmm_f32(batch, m, n, k, a, a_batch_stride, trans_a, b, b_batch_stride, trans_b, c, alpha, beta);
  return sc_cu_status();
}

/* ---- neural-network ops ---- */

/* One group: y[b] = W [o, c*kh*kw] @ col[b] [c*kh*kw, oh*ow] (+ bias), a batched product
 * (cuBLAS where present) over im2col columns built a bounded number of images at a time;
 * a 1x1 convolution with stride 1 and no padding reads x itself as the columns. */
static void conv_as_product(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c,
                            int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph,
                            int64_t pw, int64_t dh, int64_t dw, int64_t oh, int64_t ow) {
  enum { COL_BUDGET = 256 << 20 }; /* bytes of columns at a time */
  int64_t taps = c * kh * kw, pixels = oh * ow;
  float beta = 0;
  if (bias) {
    void *p[] = {&y, &bias, &n, &o, &pixels};
    sc_cu_launch("sc_d_bias_fill", n * o * pixels, p);
    beta = 1;
  }
  if (kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0 && oh == h && ow == wd) {
    sc_cu_bmm_f32(n, o, pixels, taps, w, 0, 0, x, c * h * wd, 0, y, 1, beta);
    return;
  }
  int64_t per_image = taps * pixels * (int64_t)sizeof(float);
  int64_t chunk = per_image > 0 && COL_BUDGET / per_image > 1 ? COL_BUDGET / per_image : 1;
  if (chunk > n) chunk = n;
  float *col = sc_cu_alloc(chunk * per_image);
  if (!col) return;
  for (int64_t b0 = 0; b0 < n && !sc_cu_status(); b0 += chunk) {
    int64_t nb = n - b0 < chunk ? n - b0 : chunk;
    const float *xb = x + b0 * c * h * wd;
    void *p[] = {&xb, &col, &nb, &c, &h, &wd, &kh, &kw, &sh, &sw, &ph, &pw, &dh, &dw, &oh, &ow};
    sc_cu_launch("sc_d_im2col", nb * c * pixels, p); /* a pixel's taps per work item */
    sc_cu_bmm_f32(nb, o, pixels, taps, w, 0, 0, col, taps * pixels, 0, y + b0 * o * pixels, 1, beta);
  }
  sc_cu_free(col); /* stream-ordered: after the products that read it */
}

int sc_cu_conv2d_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c, int64_t h,
                     int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                     int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow) {
  if (n <= 0 || o <= 0 || oh <= 0 || ow <= 0) return sc_cu_status();
  if (groups == 1 && c > 0) {
    conv_as_product(x, w, bias, y, n, c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow);
    return sc_cu_status();
  }
  /* grouped (depthwise) convolutions: each output element's few taps read directly */
  void *p[] = {&x, &w, &bias, &y, &n, &c, &h, &wd, &o, &kh, &kw, &sh, &sw, &ph, &pw, &dh, &dw, &groups, &oh, &ow};
  sc_cu_launch("sc_d_conv2d", n * o * oh * ow, p);
  return sc_cu_status();
}

int sc_cu_conv_transpose2d_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c,
                               int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                               int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow) {
  void *p[] = {&x, &w, &bias, &y, &n, &c, &h, &wd, &o, &kh, &kw, &sh, &sw, &ph, &pw, &dh, &dw, &groups, &oh, &ow};
  sc_cu_launch("sc_d_conv_transpose2d", n * o * oh * ow, p);
  return sc_cu_status();
}

void sc_cu_max_pool2d_f32(const float *x, float *y, int64_t *indices, int64_t nc, int64_t h, int64_t w, int64_t kh,
                          int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t oh,
                          int64_t ow) {
  void *p[] = {&x, &y, &indices, &nc, &h, &w, &kh, &kw, &sh, &sw, &ph, &pw, &dh, &dw, &oh, &ow};
  sc_cu_launch("sc_d_max_pool2d", nc * oh * ow, p);
}

void sc_cu_avg_pool2d_f32(const float *x, float *y, int64_t nc, int64_t h, int64_t w, int64_t kh, int64_t kw,
                          int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t oh, int64_t ow,
                          int32_t count_include_pad, int64_t divisor_override) {
  void *p[] = {&x, &y, &nc, &h, &w, &kh, &kw, &sh, &sw, &ph, &pw, &oh, &ow, &count_include_pad, &divisor_override};
  sc_cu_launch("sc_d_avg_pool2d", nc * oh * ow, p);
}

void sc_cu_adaptive_avg_pool2d_f32(const float *x, float *y, int64_t nc, int64_t h, int64_t w, int64_t oh, int64_t ow) {
  void *p[] = {&x, &y, &nc, &h, &w, &oh, &ow};
  sc_cu_launch("sc_d_adaptive_avg_pool2d", nc * oh * ow, p);
}

void sc_cu_batch_norm_f32(const float *x, float *y, const float *weight, const float *bias, const float *mean,
                          const float *var, int64_t n, int64_t c, int64_t inner, double eps) {
  void *p[] = {&x, &y, &weight, &bias, &mean, &var, &n, &c, &inner, &eps};
  sc_cu_launch("sc_d_batch_norm", n * c * inner, p);
}

void sc_cu_layer_norm_f32(const float *x, float *y, const float *weight, const float *bias, float *mean_out,
                          float *rstd_out, int64_t outer, int64_t inner, double eps) {
  void *p[] = {&x, &y, &weight, &bias, &mean_out, &rstd_out, &outer, &inner, &eps};
  sc_cu_launch("sc_d_layer_norm", outer * SC_ROW_THREADS, p); /* a warp a row */
}

void sc_cu_softmax_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner, int32_t log) {
  void *p[] = {&x, &y, &outer, &n, &inner, &log};
  sc_cu_launch("sc_d_softmax", inner == 1 ? outer * SC_ROW_THREADS : outer * inner, p); /* a warp a contiguous row */
}

int sc_cu_sdpa_f32(const float *q, const float *k, const float *v, const void *mask, int64_t mask_stride, float *out,
                   int64_t batch, int64_t l, int64_t s, int64_t e, int64_t ev, double scale, int32_t flags) {
  void *p[] = {&q, &k, &v, &mask, &mask_stride, &out, &batch, &l, &s, &e, &ev, &scale, &flags};
  sc_cu_launch("sc_d_sdpa", batch * l, p);
  return sc_cu_status();
}

void sc_cu_rms_norm_f32(const float *x, float *y, const float *weight, int64_t rows, int64_t cols, double eps) {
  void *p[] = {&x, &y, &weight, &rows, &cols, &eps};
  sc_cu_launch("sc_d_rms_norm", rows, p);
}

int sc_cu_upsample_bilinear2d_f32(const float *x, float *y, int64_t nc, int64_t h, int64_t w, int64_t oh, int64_t ow,
                                  int32_t align_corners, double scale_h, double scale_w) {
  if (nc <= 0 || oh <= 0 || ow <= 0 || h <= 0 || w <= 0) return sc_cu_status(); /* the analysis refused empty inputs */
  void *p[] = {&x, &y, &nc, &h, &w, &oh, &ow, &align_corners, &scale_h, &scale_w};
  sc_cu_launch("sc_d_upsample_bilinear2d", nc * oh * ow, p);
  return sc_cu_status();
}

/* ---- reductions ---- */

void sc_cu_weight_norm_f32(const float *v, const float *g, float *out, int64_t outer, int64_t n, int64_t inner) {
  void *p[] = {&v, &g, &out, &outer, &n, &inner};
  sc_cu_launch("sc_d_weight_norm", n, p);
}

void sc_cu_vector_norm_map_f32(const float *x, float *y, int64_t n, double ord) {
  void *p[] = {&x, &y, &n, &ord};
  sc_cu_launch("sc_d_vector_norm_map", n, p);
}

void sc_cu_vector_norm_finish_f32(float *y, int64_t n, double ord) {
  void *p[] = {&y, &n, &ord};
  sc_cu_launch("sc_d_vector_norm_finish", n, p);
}

void sc_cu_sum_i64(const void *x, int64_t *y, int32_t kind, int32_t ndim, const int64_t *shape, const int32_t *reduce) {
  if (!dims_ok(ndim, "sum")) return;
  int64_t out_n = 1, red_n = 1, mask[16];
  for (int32_t d = 0; d < ndim; d++) {
    mask[d] = reduce[d];
    if (reduce[d]) red_n *= shape[d];
    else out_n *= shape[d];
  }
  sc_dims sh = sc_cu_dims(shape, ndim), rd = sc_cu_dims(mask, ndim);
  void *p[] = {&x, &y, &kind, &ndim, &sh, &rd, &out_n, &red_n};
  sc_cu_launch("sc_d_sum_i64", out_n, p);
}

void sc_cu_i64_to_f32(const int64_t *x, float *y, int64_t n) {
  void *p[] = {&x, &y, &n};
  sc_cu_launch("sc_d_i64_to_f32", n, p);
}

int sc_cu_sort(const void *x, void *values, int64_t *indices, int64_t *scratch, int64_t outer, int64_t n, int64_t inner,
               int64_t k, int32_t kind, int32_t descending, const char *node, char *err, size_t errlen) {
  (void)scratch; /* one line's room on the CPU; every line works at once here */
  if (k < 0 || k > n) return index_fail(err, errlen, node ? node : "topk", SC_TOPK_RANGE_MSG);
  int64_t lines = outer * inner;
  if (lines <= 0 || n <= 0 || sc_cu_status()) return sc_cu_status();
  int64_t *room = sc_cu_alloc(2 * n * lines * (int64_t)sizeof(int64_t));
  if (!room) return sc_cu_status();
  void *p[] = {&x, &values, &indices, &room, &outer, &n, &inner, &k, &kind, &descending};
  sc_cu_launch("sc_d_sort", lines, p);
  sc_cu_free(room);
  return sc_cu_status();
}

static void cumulative_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner, int32_t prod) {
  void *p[] = {&x, &y, &outer, &n, &inner, &prod};
  sc_cu_launch("sc_d_cumulative_f32", outer * inner, p);
}

static void cumulative_i64(const void *x, int64_t *y, int32_t kind, int64_t outer, int64_t n, int64_t inner,
                           int32_t prod) {
  void *p[] = {&x, &y, &kind, &outer, &n, &inner, &prod};
  sc_cu_launch("sc_d_cumulative_i64", outer * inner, p);
}

void sc_cu_cumsum_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner) {
  cumulative_f32(x, y, outer, n, inner, 0);
}
void sc_cu_cumprod_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner) {
  cumulative_f32(x, y, outer, n, inner, 1);
}
void sc_cu_cumsum_i64(const void *x, int64_t *y, int32_t kind, int64_t outer, int64_t n, int64_t inner) {
  cumulative_i64(x, y, kind, outer, n, inner, 0);
}
void sc_cu_cumprod_i64(const void *x, int64_t *y, int32_t kind, int64_t outer, int64_t n, int64_t inner) {
  cumulative_i64(x, y, kind, outer, n, inner, 1);
}

void sc_cu_reduce_f32(const float *x, float *y, int32_t ndim, const int64_t *shape, const int32_t *reduce, int32_t op,
                      double correction) {
  if (!dims_ok(ndim, "reduce")) return;
  int64_t out_n = 1, red_n = 1, mask[16];
  for (int32_t d = 0; d < ndim; d++) {
    mask[d] = reduce[d] != 0;
    if (reduce[d]) red_n *= shape[d];
    else out_n *= shape[d];
  }
  if (out_n <= 0) return;
  sc_dims sh = sc_cu_dims(shape, ndim), rd = sc_cu_dims(mask, ndim);
  /* few outputs over long reductions: chunks of >= 2048 elements, about 64K work items */
  int64_t chunks = red_n / 2048, cap = 65536 / out_n;
  if (chunks > cap) chunks = cap;
  if (chunks <= 1) {
    void *p[] = {&x, &y, &ndim, &sh, &rd, &op, &correction, &out_n, &red_n};
    sc_cu_launch("sc_d_reduce", out_n, p);
    return;
  }
  double *part = sc_cu_alloc(out_n * chunks * 2 * (int64_t)sizeof(double));
  if (!part) return;
  void *p1[] = {&x, &part, &ndim, &sh, &rd, &op, &out_n, &red_n, &chunks};
  sc_cu_launch("sc_d_reduce_partial", out_n * chunks, p1);
  void *p2[] = {&part, &y, &op, &correction, &out_n, &red_n, &chunks};
  sc_cu_launch("sc_d_reduce_finish", out_n, p2);
  sc_cu_free(part);
}

void sc_cu_arg_reduce_f32(const float *x, float *values, int64_t *indices, int64_t outer, int64_t n, int64_t inner,
                          int32_t is_min) {
  void *p[] = {&x, &values, &indices, &outer, &n, &inner, &is_min};
  sc_cu_launch("sc_d_arg_reduce", outer * inner, p);
}
