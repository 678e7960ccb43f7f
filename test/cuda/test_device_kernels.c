/* test_device_kernels.c - the CUDA kernels (backends/cuda/device/, through their
 * launchers in backends/cuda/runtime/ops.c) against the CPU runtime's kernels, on the
 * host: emulate.c runs each launch's threads one after another, with 1, 7 and 33
 * threads so that every grid-stride partition is exercised.  Each sc_cu_X gets the same
 * random inputs as sc_k_X; floats must agree within 1e-4 (relative + absolute), integers
 * and bytes exactly.  Device buffers are host memory here, pre-filled with a pattern
 * that differs from the CPU output's so that an element left unwritten shows. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/runtime/kernels.h"
#include "backends/cuda/runtime/ops.h"

#include "backends/cuda/emulate/emulate.h"

#include "backends/llvm/runtime_abi.h"
#include "ir/half.h"
int sc_cu_status(void); /* cuda_rt.h's, which cannot be included beside kernels.h's sc_dims users */
void *sc_cu_weights(const void *host, int64_t bytes);

static int cases, failures;
static char case_name[256];

static void begin_case(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void begin_case(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int len = snprintf(case_name, sizeof case_name, "[T=%lld] ", (long long)sc_emu_launch_threads);
  vsnprintf(case_name + len, sizeof case_name - (size_t)len, fmt, ap);
  va_end(ap);
  cases++;
  sc_emu_reset();
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "FAIL %s: ", case_name);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  failures++;
  return 0;
}

static void end_case(void) {
  if (sc_cu_status()) fail("recorded error: %s", sc_emu_message());
}

/* ---- random data ---- */

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}
static float frand(void) { return (float)((double)(next_u64() >> 11) / 9007199254740992.0 * 2.0 - 1.0); }
static int64_t irand(int64_t n) { return (int64_t)(next_u64() % (uint64_t)n); }

static void *xmalloc(int64_t bytes) {
  void *p = malloc(bytes > 0 ? (size_t)bytes : 1);
  if (!p) abort();
  return p;
}
static float *frandn(int64_t n) {
  float *p = xmalloc(n * 4);
  for (int64_t i = 0; i < n; i++) p[i] = frand();
  return p;
}
static void *brandn(int64_t bytes) {
  unsigned char *p = xmalloc(bytes);
  for (int64_t i = 0; i < bytes; i++) p[i] = (unsigned char)next_u64();
  return p;
}
/* An output buffer: the CPU's filled with zeros, the device's with 0xFF (NaN floats). */
static void *cpu_out(int64_t bytes) {
  void *p = xmalloc(bytes);
  memset(p, 0, bytes > 0 ? (size_t)bytes : 1);
  return p;
}
static void *dev_out(int64_t bytes) {
  void *p = xmalloc(bytes);
  memset(p, 0xFF, bytes > 0 ? (size_t)bytes : 1);
  return p;
}
static void *clone_buf(const void *src, int64_t bytes) {
  void *p = xmalloc(bytes);
  if (bytes > 0) memcpy(p, src, (size_t)bytes);
  return p;
}

/* ---- comparisons ---- */

static int same_f(const float *got, const float *want, int64_t n, const char *what) {
  for (int64_t i = 0; i < n; i++) {
    float a = got[i], b = want[i];
    if (isnan(a) && isnan(b)) continue;
    if (isinf(b) && a == b) continue;
    if (!(fabsf(a - b) <= 1e-4f + 1e-4f * fabsf(b))) return fail("%s[%lld] = %.9g, want %.9g", what, (long long)i, a, b);
  }
  return 1;
}
static int same_i64(const int64_t *got, const int64_t *want, int64_t n, const char *what) {
  for (int64_t i = 0; i < n; i++)
    if (got[i] != want[i])
      return fail("%s[%lld] = %lld, want %lld", what, (long long)i, (long long)got[i], (long long)want[i]);
  return 1;
}
static int same_bytes(const void *got, const void *want, int64_t n, const char *what) {
  const unsigned char *a = got, *b = want;
  for (int64_t i = 0; i < n; i++)
    if (a[i] != b[i]) return fail("%s: byte %lld = %u, want %u", what, (long long)i, a[i], b[i]);
  return 1;
}

static int64_t prod(const int64_t *s, int nd) {
  int64_t n = 1;
  for (int i = 0; i < nd; i++) n *= s[i];
  return n;
}
/* 1 + the largest offset reached by shape with strides (>= 0), 0 when empty. */
static int64_t span(const int64_t *s, const int64_t *st, int nd) {
  int64_t m = 0;
  for (int i = 0; i < nd; i++) {
    if (s[i] == 0) return 0;
    m += (s[i] - 1) * st[i];
  }
  return m + 1;
}

/* ---- data movement ---- */

static void test_strided_copy(void) {
  static const struct {
    int nd;
    int64_t shape[4], st[4];
  } t[] = {
      {3, {2, 3, 4}, {1, 2, 6}},      /* permute */
      {3, {2, 3, 4}, {12, 4, 1}},     /* compact */
      {3, {4, 3, 5}, {0, 5, 1}},      /* expand */
      {2, {3, 4}, {10, 2}},           /* slice with steps */
      {4, {2, 1, 3, 2}, {1, 7, 2, 9}}, /* odd */
      {0, {0}, {0}},                  /* scalar */
      {2, {3, 0}, {1, 3}},            /* empty */
  };
  static const int64_t esizes[] = {1, 2, 4, 8, 3};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    for (size_t e = 0; e < 5; e++) {
      int64_t es = esizes[e], n = prod(t[i].shape, t[i].nd), sp = t[i].nd ? span(t[i].shape, t[i].st, t[i].nd) : 1;
      begin_case("strided_copy case %zu esize %lld", i, (long long)es);
      unsigned char *src = brandn(sp * es + 16), *want = cpu_out(n * es), *got = dev_out(n * es);
      sc_k_strided_copy(src + 8, want, t[i].nd, t[i].shape, t[i].st, es);
      sc_cu_strided_copy(src + 8, got, t[i].nd, t[i].shape, t[i].st, es);
      same_bytes(got, want, n * es, "dst");
      end_case();
      free(src), free(want), free(got);
    }
}

static void test_copy_into(void) {
  static const struct {
    int nd;
    int64_t shape[3], st[3];
  } t[] = {{3, {2, 3, 4}, {1, 2, 6}}, {2, {3, 4}, {10, 2}}, {2, {3, 4}, {4, 1}}, {1, {0}, {1}}, {3, {2, 2, 3}, {30, 7, 2}}};
  static const int64_t esizes[] = {1, 4, 8, 6};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    for (size_t e = 0; e < 4; e++) {
      int64_t es = esizes[e], n = prod(t[i].shape, t[i].nd), sp = span(t[i].shape, t[i].st, t[i].nd);
      begin_case("copy_into case %zu esize %lld", i, (long long)es);
      unsigned char *src = brandn(n * es), *want = brandn(sp * es + 8), *got = clone_buf(want, sp * es + 8);
      sc_k_copy_into(src, want, t[i].nd, t[i].shape, t[i].st, es);
      sc_cu_copy_into(src, got, t[i].nd, t[i].shape, t[i].st, es);
      same_bytes(got, want, sp * es + 8, "dst");
      end_case();
      free(src), free(want), free(got);
    }
}

static void test_fill_arange(void) {
  static const int64_t esizes[] = {1, 2, 4, 8, 16}, ns[] = {0, 1, 37};
  for (int e = 0; e < 5; e++)
    for (int k = 0; k < 3; k++) {
      int64_t es = esizes[e], n = ns[k];
      begin_case("fill esize %lld n %lld", (long long)es, (long long)n);
      unsigned char *v = brandn(es), *want = cpu_out(n * es), *got = dev_out(n * es);
      sc_k_fill(want, n, v, es);
      sc_cu_fill(got, n, v, es);
      same_bytes(got, want, n * es, "dst");
      end_case();
      free(v), free(want), free(got);
    }
  for (int is_float = 0; is_float < 2; is_float++)
    for (int k = 0; k < 3; k++) {
      int64_t n = ns[k] * 3;
      begin_case("arange is_float %d n %lld", is_float, (long long)n);
      void *want = cpu_out(n * 8), *got = dev_out(n * 8);
      double start = is_float ? -1.25 : -7, step = is_float ? 0.3 : 3;
      sc_k_arange(want, n, start, step, is_float);
      sc_cu_arange(got, n, start, step, is_float);
      same_bytes(got, want, n * (is_float ? 4 : 8), "dst");
      end_case();
      free(want), free(got);
    }
}

/* Both sides failed with the same code and message. */
static void same_failure(int got, int want, const char *got_msg, const char *want_msg) {
  if (got != want) fail("code %d, want %d", got, want);
  else if (strcmp(got_msg, want_msg) != 0) fail("message '%s', want '%s'", got_msg, want_msg);
}

static void test_index_gather(void) {
  /* {outer, n_src, n_index, inner}; gather's index is [outer - cut, n_index, inner - cut] */
  static const int64_t dims[][4] = {{2, 5, 3, 4}, {1, 7, 9, 1}, {3, 4, 0, 2}, {0, 3, 2, 2}, {2, 6, 4, 5}, {3, 1, 5, 3}};
  static const int64_t esizes[] = {4, 8, 2};
  char want_msg[256], got_msg[256];
  for (int i = 0; i < 6; i++)
    for (int e = 0; e < 3; e++)
      for (int bad = 0; bad < 2; bad++) {
        int64_t outer = dims[i][0], n_src = dims[i][1], n_index = dims[i][2], inner = dims[i][3], es = esizes[e];
        int64_t cut = i % 2 && outer > 1 && inner > 1 ? 1 : 0, n_out = outer * n_index * inner;
        unsigned char *src = brandn(outer * n_src * inner * es + 1);
        int64_t n_ix = n_out > n_index ? n_out : n_index, *index = xmalloc(n_ix * 8 + 8);
        for (int64_t j = 0; j < n_ix + 1; j++) index[j] = irand(n_src);
        if (bad && n_index) index[irand(n_index)] = (i % 3 == 0 ? -1 : n_src) - (int64_t)irand(2) * ((int64_t)1 << 62);
        begin_case("index_select case %d esize %lld%s", i, (long long)es, bad ? " bad index" : "");
        void *want = cpu_out(n_out * es), *got = dev_out(n_out * es);
        int rw = sc_k_index_select(src, index, want, outer, n_src, n_index, inner, es, 3, 1 + i % 2, "node 'x'", want_msg,
                                   sizeof want_msg);
        int rg = sc_cu_index_select(src, index, got, outer, n_src, n_index, inner, es, 3, 1 + i % 2, "node 'x'", got_msg,
                                    sizeof got_msg);
        if (bad && n_index) same_failure(rg, rw, got_msg, want_msg);
        else if (rw || rg) fail("codes %d and %d for good indices", rg, rw);
        else same_bytes(got, want, n_out * es, "dst");
        end_case();
        free(want), free(got);
        begin_case("gather case %d esize %lld%s", i, (long long)es, bad ? " bad index" : "");
        int64_t ss[3] = {outer, n_src, inner}, is[3] = {outer - cut, n_index, inner - cut};
        int64_t n_g = is[0] * is[1] * is[2];
        for (int64_t j = 0; j < n_out; j++) index[j] = irand(n_src);
        if (bad && n_g) index[irand(n_g)] = (i % 3 == 0 ? -1 : n_src) - (int64_t)irand(2) * ((int64_t)1 << 62);
        want = cpu_out(n_g * es), got = dev_out(n_g * es);
        rw = sc_k_gather(src, index, want, 3, 1, ss, is, es, "node 'x'", want_msg, sizeof want_msg);
        rg = sc_cu_gather(src, index, got, 3, 1, ss, is, es, "node 'x'", got_msg, sizeof got_msg);
        if (bad && n_g) same_failure(rg, rw, got_msg, want_msg);
        else if (rw || rg) fail("codes %d and %d for good indices", rg, rw);
        else same_bytes(got, want, n_g * es, "dst");
        end_case();
        free(want), free(got), free(src), free(index);
      }
}

/* x[i0, i1, ...] with index tensors: sc_cu_index_tensor = sc_k_index_tensor, bytes for bytes,
 * over sources of rank 1-4 read through strides (a transposed view), one to three index
 * tensors of 4 or 8 bytes with negative entries and broadcast (stride 0) dims, B anywhere;
 * and a bad index fails with the CPU's words. */
static void test_index_tensor(void) {
  char want_msg[256], got_msg[256];
  for (int c = 0; c < 60; c++) {
    int32_t rank = 1 + c % 4, n_index = 1 + (int32_t)irand(rank < 3 ? rank : 3), b_rank = 1 + (int32_t)irand(2);
    int64_t shape[4], strides[4], es = c % 3 == 0 ? 8 : c % 3 == 1 ? 4 : 2, elems = 1;
    for (int d = 0; d < rank; d++) shape[d] = 1 + irand(4), elems *= shape[d];
    /* strides of the source: compact, or its last two dims swapped (a transposed view) */
    int64_t st = 1;
    for (int d = rank - 1; d >= 0; d--) strides[d] = st, st *= shape[d];
    if (rank >= 2 && c % 2) { /* the last two dims' memory order swapped */
      strides[rank - 2] = 1, strides[rank - 1] = shape[rank - 2];
      for (int d = rank - 3; d >= 0; d--) strides[d] = (d == rank - 3 ? shape[rank - 1] * shape[rank - 2] : strides[d + 1] * shape[d + 1]);
    }
    /* the index tensors pick dims 0..n_index-1 or the last ones; B at the first picked dim */
    int32_t first = c % 5 == 0 ? rank - n_index : 0, dim[3], bytes[3];
    int64_t b_shape[2], istrides[6];
    for (int d = 0; d < b_rank; d++) b_shape[d] = 1 + irand(3);
    void *data[3];
    int64_t *keep[3];
    int bad = c % 7 == 3;
    for (int32_t k = 0; k < n_index; k++) {
      dim[k] = first + k;
      bytes[k] = (c + k) % 2 ? 4 : 8;
      int64_t span = 1;
      for (int d = b_rank - 1; d >= 0; d--) {
        istrides[k * b_rank + d] = (k + d + c) % 3 == 0 ? 0 : span; /* stride 0: broadcast */
        span *= istrides[k * b_rank + d] ? b_shape[d] : 1;
      }
      keep[k] = xmalloc(span * 8);
      for (int64_t j = 0; j < span; j++) {
        int64_t v = irand(2 * shape[dim[k]]) - shape[dim[k]]; /* [-size, size) */
        if (bytes[k] == 4) ((int32_t *)keep[k])[j] = (int32_t)v;
        else keep[k][j] = v;
      }
      if (bad && k == n_index - 1) {
        if (bytes[k] == 4) ((int32_t *)keep[k])[span - 1] = (int32_t)shape[dim[k]];
        else keep[k][span - 1] = -shape[dim[k]] - 1;
      }
      data[k] = keep[k];
    }
    int32_t n_rest = rank - n_index, b_at = first;
    int64_t n_out = 1;
    for (int d = 0; d < b_rank; d++) n_out *= b_shape[d];
    for (int d = 0; d < rank; d++)
      if (d < first || d >= first + n_index) n_out *= shape[d];
    (void)n_rest;
    unsigned char *src = brandn(st * es + es);
    void *want = cpu_out(n_out * es), *got = dev_out(n_out * es);
    begin_case("index_tensor case %d rank %d indices %d of rank %d esize %lld%s", c, rank, n_index, b_rank,
               (long long)es, bad ? " bad index" : "");
    int rw = sc_k_index_tensor(src, rank, shape, strides, n_index, (const void *const *)data, bytes, dim, istrides,
                               b_rank, b_shape, b_at, want, es, "node 'ix'", want_msg, sizeof want_msg);
    int rg = sc_cu_index_tensor(src, rank, shape, strides, n_index, (const void *const *)data, bytes, dim, istrides,
                                b_rank, b_shape, b_at, got, es, "node 'ix'", got_msg, sizeof got_msg);
    if (bad) same_failure(rg, rw, got_msg, want_msg);
    else if (rw || rg) fail("codes %d and %d for good indices (%s)", rg, rw, want_msg);
    else same_bytes(got, want, n_out * es, "out");
    end_case();
    free(want), free(got), free(src);
    for (int32_t k = 0; k < n_index; k++) free(keep[k]);
  }
}

static void test_repeat(void) {
  static const struct {
    int nd;
    int64_t src[4], out[4];
  } t[] = {{3, {1, 2, 3}, {2, 4, 6}}, {2, {3, 1}, {6, 5}}, {4, {1, 2, 1, 3}, {3, 2, 2, 9}}, {2, {2, 3}, {0, 6}}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    for (int64_t es = 1; es <= 8; es *= 2) {
      begin_case("repeat case %zu esize %lld", i, (long long)es);
      int64_t n = prod(t[i].out, t[i].nd);
      unsigned char *src = brandn(prod(t[i].src, t[i].nd) * es), *want = cpu_out(n * es), *got = dev_out(n * es);
      sc_k_repeat(src, want, t[i].nd, t[i].src, t[i].out, es);
      sc_cu_repeat(src, got, t[i].nd, t[i].src, t[i].out, es);
      same_bytes(got, want, n * es, "dst");
      end_case();
      free(src), free(want), free(got);
    }
}

/* ---- data-dependent sizes ---- */

static void test_nonzero(void) {
  static const struct {
    int nd;
    int64_t shape[3];
    int64_t esize;
    int is_float;
  } t[] = {
      {2, {5, 7}, 4, 1},   {1, {5000}, 4, 1},   {3, {13, 17, 31}, 8, 0}, {2, {40, 50}, 1, 0},
      {3, {3, 0, 2}, 4, 1}, {0, {0}, 4, 1},      {2, {9, 300}, 8, 1},     {2, {33, 65}, 2, 0},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    int64_t n = prod(t[i].shape, t[i].nd), es = t[i].esize;
    unsigned char *x = cpu_out(n * es);
    /* sparse: about one element in 5 set, with -0.0 and NaN among floats */
    for (int64_t j = 0; j < n; j++) {
      unsigned char *p = x + j * es;
      int64_t r = irand(10);
      if (r < 2) {
        if (t[i].is_float && es == 4) *(float *)p = r ? frand() + 2 : NAN;
        else if (t[i].is_float && es == 8) *(double *)p = r ? 3.5 : NAN;
        else p[irand(es)] = (unsigned char)(1 + irand(255));
      } else if (r == 2 && t[i].is_float) {
        if (es == 4) *(float *)p = -0.0f;
        else *(double *)p = -0.0;
      }
    }
    begin_case("count_nonzero case %zu", i);
    int64_t want = sc_k_count_nonzero(x, n, es, t[i].is_float), got = sc_cu_count_nonzero(x, n, es, t[i].is_float);
    if (got != want) fail("count %lld, want %lld", (long long)got, (long long)want);
    end_case();
    begin_case("nonzero case %zu", i);
    int64_t rows = want * t[i].nd;
    int64_t *w = cpu_out(rows * 8), *g = dev_out(rows * 8);
    sc_k_nonzero(x, t[i].nd, t[i].shape, es, t[i].is_float, w);
    sc_cu_nonzero(x, t[i].nd, t[i].shape, es, t[i].is_float, g);
    same_i64(g, w, rows, "coordinates");
    end_case();
    free(x), free(w), free(g);
  }
}

static void test_masked_select(void) {
  static const struct {
    int nd;
    int64_t shape[3], x_st[3], m_st[3];
    int64_t x_n, m_n;
  } t[] = {
      {3, {4, 3, 5}, {5, 0, 1}, {0, 5, 1}, 20, 15},        /* both broadcast */
      {2, {50, 40}, {40, 1}, {40, 1}, 2000, 2000},         /* plain, many chunks */
      {2, {50, 40}, {1, 50}, {0, 1}, 2000, 40},            /* x transposed, mask a row */
      {3, {2, 0, 3}, {3, 3, 1}, {3, 3, 1}, 0, 0},          /* empty */
      {1, {9000}, {1}, {1}, 9000, 9000},                   /* long */
      {0, {0}, {0}, {0}, 1, 1},                            /* scalar */
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    for (int64_t es = 1; es <= 8; es *= 2) {
      uint8_t *mask = cpu_out(t[i].m_n);
      for (int64_t j = 0; j < t[i].m_n; j++) mask[j] = irand(3) == 0 ? (uint8_t)(1 + irand(3)) : 0;
      unsigned char *x = brandn(t[i].x_n * es);
      begin_case("count_masked case %zu", i);
      int64_t want = sc_k_count_masked(mask, t[i].m_st, t[i].nd, t[i].shape);
      int64_t got = sc_cu_count_masked(mask, t[i].m_st, t[i].nd, t[i].shape);
      if (got != want) fail("count %lld, want %lld", (long long)got, (long long)want);
      end_case();
      begin_case("masked_select case %zu esize %lld", i, (long long)es);
      void *w = cpu_out(want * es), *g = dev_out(want * es);
      sc_k_masked_select(x, t[i].x_st, mask, t[i].m_st, t[i].nd, t[i].shape, es, w);
      sc_cu_masked_select(x, t[i].x_st, mask, t[i].m_st, t[i].nd, t[i].shape, es, g);
      same_bytes(g, w, want * es, "out");
      end_case();
      free(mask), free(x), free(w), free(g);
    }
}

/* ---- matrix products ---- */

static void test_bmm(void) {
  static const int64_t shapes[][4] = {{1, 5, 7, 9}, {3, 4, 8, 16}, {2, 1, 13, 3}, {2, 6, 5, 0}, {2, 0, 4, 3}, {1, 33, 17, 21}};
  static const float ab[][2] = {{1, 0}, {0.5f, 2}, {-1.5f, 0}, {1, 1}};
  for (int s = 0; s < 6; s++)
    for (int ta = 0; ta < 2; ta++)
      for (int tb = 0; tb < 2; tb++)
        for (int f = 0; f < 4; f++)
          for (int bs = 0; bs < 2; bs++) {
            int64_t batch = shapes[s][0], m = shapes[s][1], n = shapes[s][2], k = shapes[s][3];
            /* batch strides: compact, or A broadcast and B padded */
            int64_t a_bs = bs ? 0 : m * k, b_bs = bs ? k * n + 3 : k * n;
            float *a = frandn(m * k * batch + 1), *b = frandn((k * n + 3) * batch + 1);
            float *want = frandn(batch * m * n), *got = clone_buf(want, batch * m * n * 4);
            if (ab[f][1] == 0)
              for (int64_t j = 0; j < batch * m * n; j++) got[j] = NAN; /* beta 0 must not read C */
            begin_case("bmm batch %lld m %lld n %lld k %lld trans %d%d alpha %g beta %g strides %d", (long long)batch,
                       (long long)m, (long long)n, (long long)k, ta, tb, ab[f][0], ab[f][1], bs);
            float *via_blas = clone_buf(got, batch * m * n * 4);
            int rc1 = sc_k_bmm_f32(batch, m, n, k, a, a_bs, ta, b, b_bs, tb, want, ab[f][0], ab[f][1]);
            setenv("SHAPEC_CUDA_NO_CUBLAS", "1", 1); /* shapec's own kernel */
            int rc2 = sc_cu_bmm_f32(batch, m, n, k, a, a_bs, ta, b, b_bs, tb, got, ab[f][0], ab[f][1]);
            unsetenv("SHAPEC_CUDA_NO_CUBLAS"); /* then cublas.c's call of the (emulated) cuBLAS */
            int64_t calls = sc_emu_cublas_calls[0];
            int rc3 = sc_cu_bmm_f32(batch, m, n, k, a, a_bs, ta, b, b_bs, tb, via_blas, ab[f][0], ab[f][1]);
            if (rc1 || rc2 || rc3) fail("rc %d / %d / %d", rc2, rc3, rc1);
            if (batch * m * n > 0 && sc_emu_cublas_calls[0] != calls + 1) fail("cuBLAS did not take the product");
            same_f(got, want, batch * m * n, "c");
            same_f(via_blas, want, batch * m * n, "c (cuBLAS)");
            end_case();
            free(a), free(b), free(want), free(got), free(via_blas);
          }
}

/* sc_d_to_half's bits are ir/half.h's (torch's rounding): ties, subnormals, overflow, NaN. */
static void test_to_half(void) {
  static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00001u, 0xffa00000u,
                                     0x477fe000u, 0x477ff000u, 0x477fefffu, 0x38800000u, 0x387fffffu, 0x33000000u,
                                     0x33000001u, 0x33c00000u, 0x34200000u, 0x00000001u, 0x3f808000u, 0x3f818000u,
                                     0x3f800fffu, 0x3f801000u, 0x3f803000u, 0x7f7fffffu, 0x3fffffffu};
  enum { N = 4096 };
  float *x = xmalloc(N * 4);
  for (int i = 0; i < N; i++) {
    uint32_t u = i < (int)(sizeof special / sizeof special[0]) ? special[i] : (uint32_t)next_u64();
    memcpy(&x[i], &u, 4);
  }
  for (int kind = SC_HALF_F16; kind <= SC_HALF_BF16; kind++) {
    begin_case("to_half %s", kind == SC_HALF_BF16 ? "bfloat16" : "float16");
    uint16_t *got = dev_out(N * 2);
    sc_cu_to_half(x, got, N, kind);
    for (int i = 0; i < N; i++) {
      uint16_t want = kind == SC_HALF_BF16 ? sc_f32_to_bf16(x[i]) : sc_f32_to_f16(x[i]);
      if (got[i] != want) {
        fail("%08x -> %04x, want %04x", sc_f32_bits(x[i]), got[i], want);
        break;
      }
    }
    end_case();
    free(got);
  }
  free(x);
}

/* A half-precision product (sc_cu_bmm_half): operands holding float16 / bfloat16 numbers,
 * one of them in the weights (read from its half mirror) or both activations (converted),
 * through the emulated cuBLAS in that dtype = the float32 product of the same numbers;
 * and without cuBLAS, shapec's own float32 kernel. */
static void test_bmm_half(void) {
  static const int64_t shapes[][4] = {{1, 5, 7, 9}, {3, 4, 8, 16}, {2, 1, 13, 3}, {1, 33, 17, 21}};
  for (int kind = SC_HALF_F16; kind <= SC_HALF_BF16; kind++)
    for (int s = 0; s < 4; s++)
      for (int tb = 0; tb < 2; tb++)
        for (int where = 0; where < 3; where++) { /* 0: no weights, 1: b in the weights, 2: b in the weights, broadcast */
          int64_t batch = shapes[s][0], m = shapes[s][1], n = shapes[s][2], k = shapes[s][3];
          int64_t a_bs = m * k, b_bs = where == 2 ? 0 : k * n;
          int64_t blob_floats = 7 + batch * k * n + 5; /* b at element 7 of a blob with other weights around it */
          float *blob = frandn(blob_floats), *a = frandn(batch * m * k);
          for (int64_t i = 0; i < blob_floats; i++)
            blob[i] = kind == SC_HALF_BF16 ? sc_bf16_to_f32(sc_f32_to_bf16(blob[i])) : sc_f16_to_f32(sc_f32_to_f16(blob[i]));
          for (int64_t i = 0; i < batch * m * k; i++)
            a[i] = kind == SC_HALF_BF16 ? sc_bf16_to_f32(sc_f32_to_bf16(a[i])) : sc_f16_to_f32(sc_f32_to_f16(a[i]));
          float *b = where ? blob + 7 : clone_buf(blob + 7, batch * k * n * 4);
          begin_case("bmm_half %s batch %lld m %lld n %lld k %lld trans_b %d weights %d",
                     kind == SC_HALF_BF16 ? "bfloat16" : "float16", (long long)batch, (long long)m, (long long)n,
                     (long long)k, tb, where);
          sc_cu_weights(blob, blob_floats * 4);
          float *want = cpu_out(batch * m * n * 4), *got = dev_out(batch * m * n * 4), *own = dev_out(batch * m * n * 4);
          int rc1 = sc_k_bmm_f32(batch, m, n, k, a, a_bs, 0, b, b_bs, tb, want, 1, 0);
          int64_t calls = sc_emu_cublas_calls[kind];
          int rc2 = sc_cu_bmm_half(batch, m, n, k, a, a_bs, 0, b, b_bs, tb, got, 1, 0, kind);
          if (sc_emu_cublas_calls[kind] != calls + 1) fail("cuBLAS did not take the product in its dtype");
          setenv("SHAPEC_CUDA_NO_CUBLAS", "1", 1);
          int rc3 = sc_cu_bmm_half(batch, m, n, k, a, a_bs, 0, b, b_bs, tb, own, 1, 0, kind);
          unsetenv("SHAPEC_CUDA_NO_CUBLAS");
          if (rc1 || rc2 || rc3) fail("rc %d / %d / %d", rc2, rc3, rc1);
          same_f(got, want, batch * m * n, "c (cuBLAS)");
          same_f(own, want, batch * m * n, "c (own kernel)");
          end_case();
          sc_cu_weights(NULL, 0);
          if (!where) free(b);
          free(blob), free(a), free(want), free(got), free(own);
        }
}

/* ---- neural-network ops ---- */

typedef struct conv_case {
  int64_t n, c, h, w, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, extra;
  int bias;
} conv_case;

static void test_conv(void) {
  static const conv_case t[] = {
      {2, 4, 7, 6, 6, 3, 2, 2, 1, 1, 0, 1, 2, 2, 0, 1}, /* stride, padding, dilation, groups */
      {1, 3, 8, 8, 3, 3, 3, 1, 1, 1, 1, 1, 1, 3, 0, 1}, /* depthwise */
      {2, 5, 4, 3, 7, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0}, /* pointwise, no bias */
      {1, 2, 9, 7, 4, 3, 3, 3, 2, 2, 1, 2, 1, 1, 1, 1}, /* big stride (transposed: output padding) */
      {0, 2, 5, 5, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, 1}, /* empty batch */
      {2, 6, 5, 5, 4, 2, 3, 1, 2, 0, 1, 1, 1, 2, 1, 0},
      {3, 3, 6, 9, 5, 3, 2, 2, 1, 2, 1, 2, 1, 1, 0, 1}, /* one group as a product: im2col, bias, batch 3 */
      {2, 4, 6, 6, 3, 1, 1, 2, 2, 0, 0, 1, 1, 1, 1, 1}, /* 1x1 with stride: im2col, not the pointwise path */
      {2, 4, 5, 3, 6, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 1}, /* pointwise with bias */
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    const conv_case *p = &t[i];
    int64_t cg = p->c / p->groups, og = p->o / p->groups;
    /* convolution */
    int64_t oh = (p->h + 2 * p->ph - p->dh * (p->kh - 1) - 1) / p->sh + 1;
    int64_t ow = (p->w + 2 * p->pw - p->dw * (p->kw - 1) - 1) / p->sw + 1;
    float *x = frandn(p->n * p->c * p->h * p->w), *wt = frandn(p->o * cg * p->kh * p->kw), *bias = frandn(p->o);
    int64_t ny = p->n * p->o * oh * ow;
    float *want = cpu_out(ny * 4), *got = dev_out(ny * 4);
    begin_case("conv2d case %zu", i);
    int rc1 = sc_k_conv2d_f32(x, wt, p->bias ? bias : NULL, want, p->n, p->c, p->h, p->w, p->o, p->kh, p->kw, p->sh,
                              p->sw, p->ph, p->pw, p->dh, p->dw, p->groups, oh, ow);
    int rc2 = sc_cu_conv2d_f32(x, wt, p->bias ? bias : NULL, got, p->n, p->c, p->h, p->w, p->o, p->kh, p->kw, p->sh,
                               p->sw, p->ph, p->pw, p->dh, p->dw, p->groups, oh, ow);
    if (rc1 || rc2) fail("rc %d / %d", rc2, rc1);
    same_f(got, want, ny, "y");
    end_case();
    free(wt), free(want), free(got);
    /* transposed: weight [c, o/groups, kh, kw], output padding `extra` */
    oh = (p->h - 1) * p->sh - 2 * p->ph + p->dh * (p->kh - 1) + 1 + p->extra;
    ow = (p->w - 1) * p->sw - 2 * p->pw + p->dw * (p->kw - 1) + 1 + p->extra;
    wt = frandn(p->c * og * p->kh * p->kw);
    ny = p->n * p->o * oh * ow;
    want = cpu_out(ny * 4), got = dev_out(ny * 4);
    begin_case("conv_transpose2d case %zu", i);
    rc1 = sc_k_conv_transpose2d_f32(x, wt, p->bias ? bias : NULL, want, p->n, p->c, p->h, p->w, p->o, p->kh, p->kw,
                                    p->sh, p->sw, p->ph, p->pw, p->dh, p->dw, p->groups, oh, ow);
    rc2 = sc_cu_conv_transpose2d_f32(x, wt, p->bias ? bias : NULL, got, p->n, p->c, p->h, p->w, p->o, p->kh, p->kw,
                                     p->sh, p->sw, p->ph, p->pw, p->dh, p->dw, p->groups, oh, ow);
    if (rc1 || rc2) fail("rc %d / %d", rc2, rc1);
    same_f(got, want, ny, "y");
    end_case();
    free(x), free(wt), free(bias), free(want), free(got);
  }
}

/* PyTorch's pooling output size, with ceil_mode's rule that the last window starts inside
 * the input or its left padding. */
static int64_t pool_out(int64_t h, int64_t k, int64_t s, int64_t p, int64_t d, int ceil_mode) {
  int64_t num = h + 2 * p - d * (k - 1) - 1;
  int64_t o = (ceil_mode ? (num + s - 1) / s : num / s) + 1;
  if (ceil_mode && (o - 1) * s >= h + p) o--;
  return o;
}

static void test_pools(void) {
  static const int64_t t[][10] = {
      /* nc, h, w, kh, kw, sh, sw, ph, pw, dh (dw = dh) */
      {3, 7, 6, 3, 3, 2, 2, 1, 1, 1}, {2, 8, 9, 2, 3, 2, 3, 0, 1, 1}, {4, 9, 9, 3, 2, 3, 2, 1, 0, 2},
      {1, 5, 5, 5, 5, 1, 1, 2, 2, 1}, {0, 4, 4, 2, 2, 2, 2, 0, 0, 1}, {2, 10, 7, 4, 3, 3, 2, 2, 1, 1},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    for (int ceil_mode = 0; ceil_mode < 2; ceil_mode++) {
      int64_t nc = t[i][0], h = t[i][1], w = t[i][2], kh = t[i][3], kw = t[i][4], sh = t[i][5], sw = t[i][6];
      int64_t ph = t[i][7], pw = t[i][8], d = t[i][9];
      float *x = frandn(nc * h * w);
      if (nc * h * w > 10) x[7] = NAN;
      int64_t oh = pool_out(h, kh, sh, ph, d, ceil_mode), ow = pool_out(w, kw, sw, pw, d, ceil_mode), ny = nc * oh * ow;
      for (int with_idx = 0; with_idx < 2; with_idx++) {
        begin_case("max_pool2d case %zu ceil %d indices %d", i, ceil_mode, with_idx);
        float *want = cpu_out(ny * 4), *got = dev_out(ny * 4);
        int64_t *wi = with_idx ? cpu_out(ny * 8) : NULL, *gi = with_idx ? dev_out(ny * 8) : NULL;
        sc_k_max_pool2d_f32(x, want, wi, nc, h, w, kh, kw, sh, sw, ph, pw, d, d, oh, ow);
        sc_cu_max_pool2d_f32(x, got, gi, nc, h, w, kh, kw, sh, sw, ph, pw, d, d, oh, ow);
        same_f(got, want, ny, "y");
        if (with_idx) same_i64(gi, wi, ny, "indices");
        end_case();
        free(want), free(got), free(wi), free(gi);
      }
      /* avg_pool has no dilation */
      oh = pool_out(h, kh, sh, ph, 1, ceil_mode), ow = pool_out(w, kw, sw, pw, 1, ceil_mode), ny = nc * oh * ow;
      for (int cip = 0; cip < 2; cip++)
        for (int64_t div = 0; div <= 3; div += 3) {
          begin_case("avg_pool2d case %zu ceil %d count_include_pad %d divisor %lld", i, ceil_mode, cip, (long long)div);
          float *want = cpu_out(ny * 4), *got = dev_out(ny * 4);
          sc_k_avg_pool2d_f32(x, want, nc, h, w, kh, kw, sh, sw, ph, pw, oh, ow, cip, div);
          sc_cu_avg_pool2d_f32(x, got, nc, h, w, kh, kw, sh, sw, ph, pw, oh, ow, cip, div);
          same_f(got, want, ny, "y");
          end_case();
          free(want), free(got);
        }
      free(x);
    }
  static const int64_t a[][5] = {{3, 7, 7, 3, 3}, {2, 5, 6, 5, 6}, {2, 4, 3, 6, 7}, {1, 9, 4, 1, 1}, {0, 4, 4, 2, 2}};
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
    int64_t nc = a[i][0], h = a[i][1], w = a[i][2], oh = a[i][3], ow = a[i][4], ny = nc * oh * ow;
    float *x = frandn(nc * h * w), *want = cpu_out(ny * 4), *got = dev_out(ny * 4);
    begin_case("adaptive_avg_pool2d case %zu", i);
    sc_k_adaptive_avg_pool2d_f32(x, want, nc, h, w, oh, ow);
    sc_cu_adaptive_avg_pool2d_f32(x, got, nc, h, w, oh, ow);
    same_f(got, want, ny, "y");
    end_case();
    free(x), free(want), free(got);
  }
}

static void test_norms(void) {
  static const int64_t bn[][3] = {{2, 3, 20}, {4, 5, 1}, {1, 7, 9}, {0, 3, 4}, {3, 2, 0}};
  for (size_t i = 0; i < sizeof bn / sizeof bn[0]; i++)
    for (int opt = 0; opt < 2; opt++) {
      int64_t n = bn[i][0], c = bn[i][1], inner = bn[i][2], ny = n * c * inner;
      float *x = frandn(ny), *wt = frandn(c), *b = frandn(c), *mean = frandn(c), *var = frandn(c);
      for (int64_t j = 0; j < c; j++) var[j] = fabsf(var[j]) + 0.1f;
      float *want = cpu_out(ny * 4), *got = dev_out(ny * 4);
      begin_case("batch_norm case %zu optional %d", i, opt);
      sc_k_batch_norm_f32(x, want, opt ? NULL : wt, opt ? NULL : b, opt ? NULL : mean, opt ? NULL : var, n, c, inner,
                          1e-5);
      sc_cu_batch_norm_f32(x, got, opt ? NULL : wt, opt ? NULL : b, opt ? NULL : mean, opt ? NULL : var, n, c, inner,
                           1e-5);
      same_f(got, want, ny, "y");
      end_case();
      free(x), free(wt), free(b), free(mean), free(var), free(want), free(got);
    }
  static const int64_t ln[][2] = {{6, 32}, {1, 1000}, {17, 3}, {0, 8}, {3, 0}};
  for (size_t i = 0; i < sizeof ln / sizeof ln[0]; i++)
    for (int opt = 0; opt < 2; opt++) {
      int64_t outer = ln[i][0], inner = ln[i][1], ny = outer * inner;
      float *x = frandn(ny), *wt = frandn(inner), *b = frandn(inner);
      for (int64_t j = 0; j < ny; j++) x[j] = x[j] * 3 + 1;
      float *want = cpu_out(ny * 4), *got = dev_out(ny * 4);
      float *wm = cpu_out(outer * 4), *gm = dev_out(outer * 4), *wr = cpu_out(outer * 4), *gr = dev_out(outer * 4);
      begin_case("layer_norm case %zu optional %d", i, opt);
      sc_k_layer_norm_f32(x, want, opt ? NULL : wt, opt ? NULL : b, opt ? NULL : wm, opt ? NULL : wr, outer, inner, 1e-5);
      sc_cu_layer_norm_f32(x, got, opt ? NULL : wt, opt ? NULL : b, opt ? NULL : gm, opt ? NULL : gr, outer, inner, 1e-5);
      same_f(got, want, ny, "y");
      if (!opt) same_f(gm, wm, outer, "mean"), same_f(gr, wr, outer, "rstd");
      end_case();
      free(x), free(wt), free(b), free(want), free(got), free(wm), free(gm), free(wr), free(gr);
    }
}

static void test_softmax(void) {
  static const int64_t t[][3] = {{5, 17, 1}, {3, 8, 4}, {1, 300, 1}, {2, 0, 3}, {0, 5, 1}, {4, 1, 1}, {2, 6, 7}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    for (int lg = 0; lg < 2; lg++) {
      int64_t outer = t[i][0], n = t[i][1], inner = t[i][2], ny = outer * n * inner;
      float *x = frandn(ny);
      for (int64_t j = 0; j < ny; j++) x[j] *= 8;
      if (ny > 4) x[3] = -INFINITY;
      float *want = cpu_out(ny * 4), *got = dev_out(ny * 4);
      begin_case("softmax case %zu log %d", i, lg);
      sc_k_softmax_f32(x, want, outer, n, inner, lg);
      sc_cu_softmax_f32(x, got, outer, n, inner, lg);
      same_f(got, want, ny, "y");
      end_case();
      free(x), free(want), free(got);
    }
}

/* The CPU kernel on contiguous [batch, rows, cols] operands, as sc_cu_sdpa_f32 takes them. */
static int cpu_sdpa(const float *q, const float *k, const float *v, const float *mask, int64_t mstride, float *out,
                    int64_t batch, int64_t l, int64_t s, int64_t e, int64_t ev, double scale, int causal) {
  int64_t dims[6] = {1, batch, l, s, e, ev};
  int64_t strides[18] = {0, l * e, e, 1, 0, s * e, e, 1, 0, s * ev, ev, 0, l * ev, ev, 0, mstride, s, 1};
  int64_t bytes = sc_k_attention_scratch_bytes(dims);
  void *scratch = malloc((size_t)bytes);
  if (!scratch) return SHAPEC_ERR_MEMORY;
  sc_k_attention_f32(q, k, v, mask, out, dims, strides, scale, causal ? SC_ATTENTION_CAUSAL : 0, scratch, bytes);
  free(scratch);
  return SHAPEC_OK;
}

static void test_sdpa(void) {
  static const int64_t t[][5] = {{3, 5, 7, 8, 6}, {2, 9, 4, 3, 5}, {1, 1, 1, 1, 1}, {2, 4, 0, 3, 2}, {0, 3, 3, 2, 2},
                                 {2, 6, 6, 16, 16}, {1, 3, 5, 0, 2}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    for (int mk = 0; mk < 6; mk++) /* no mask, per-batch mask, broadcast mask, mask with a fully masked row; bool masks
                                       (per batch, broadcast), against the additive mask they stand for */
      for (int causal = 0; causal < 2; causal++) {
        int64_t batch = t[i][0], l = t[i][1], s = t[i][2], e = t[i][3], ev = t[i][4];
        float *q = frandn(batch * l * e), *k = frandn(batch * s * e), *v = frandn(batch * s * ev);
        float *mask = frandn(batch * l * s + 1);
        int64_t mstride = mk == 2 || mk == 5 ? 0 : l * s;
        if (mk == 3 && batch * l * s > 0)
          for (int64_t j = 0; j < s; j++) mask[(l - 1) * s + j] = -INFINITY;
        unsigned char *keep = xmalloc(batch * l * s + 1);
        if (mk >= 4) /* a bool mask, a fully masked row among them; the float mask it means */
          for (int64_t j = 0; j < batch * l * s; j++) {
            keep[j] = j % 5 != 1 && j / (s ? s : 1) != 1;
            mask[j] = keep[j] ? 0.0f : -INFINITY;
          }
        int64_t ny = batch * l * ev;
        float *want = cpu_out(ny * 4), *got = dev_out(ny * 4);
        begin_case("sdpa case %zu mask %d causal %d", i, mk, causal);
        int rc1 = cpu_sdpa(q, k, v, mk ? mask : NULL, mstride, want, batch, l, s, e, ev, 1.0 / sqrt((double)e + 1), causal);
        int rc2 = sc_cu_sdpa_f32(q, k, v, mk >= 4 ? (const void *)keep : mk ? mask : NULL, mstride, got, batch, l, s, e,
                                 ev, 1.0 / sqrt((double)e + 1), (causal ? SC_SDPA_CAUSAL : 0) | (mk >= 4 ? SC_SDPA_BOOL_MASK : 0));
        if (rc1 || rc2) fail("rc %d / %d", rc2, rc1);
        same_f(got, want, ny, "out");
        end_case();
        free(q), free(k), free(v), free(mask), free(want), free(got), free(keep);
      }
}

/* rms_norm, bilinear upsampling (align_corners or not, sizes or scale factors, up and
 * down), cumsum and cumprod (float32, and integers of each width into int64): each device
 * kernel against its CPU kernel. */
static void test_more_nn(void) {
  static const int64_t rc[][2] = {{3, 7}, {1, 1}, {5, 64}, {0, 4}, {2, 0}};
  for (size_t i = 0; i < sizeof rc / sizeof rc[0]; i++)
    for (int has_w = 0; has_w < 2; has_w++) {
      int64_t rows = rc[i][0], cols = rc[i][1];
      float *x = frandn(rows * cols + 1), *w = frandn(cols + 1);
      float *want = cpu_out(rows * cols * 4 + 4), *got = dev_out(rows * cols * 4 + 4);
      begin_case("rms_norm rows %lld cols %lld weight %d", (long long)rows, (long long)cols, has_w);
      sc_k_rms_norm_f32(x, want, has_w ? w : NULL, rows, cols, 1e-6);
      sc_cu_rms_norm_f32(x, got, has_w ? w : NULL, rows, cols, 1e-6);
      same_f(got, want, rows * cols, "y");
      end_case();
      free(x), free(w), free(want), free(got);
    }
  static const struct {
    int64_t nc, h, w, oh, ow;
    double sh, sw;
  } up[] = {{2, 3, 4, 6, 8, 0, 0}, {1, 5, 5, 3, 2, 0, 0}, {3, 2, 3, 5, 7, 2.5, 2.25}, {1, 1, 1, 4, 3, 0, 0},
            {2, 4, 6, 4, 6, 0, 0}};
  for (size_t i = 0; i < sizeof up / sizeof up[0]; i++)
    for (int ac = 0; ac < 2; ac++) {
      int64_t nin = up[i].nc * up[i].h * up[i].w, nout = up[i].nc * up[i].oh * up[i].ow;
      float *x = frandn(nin), *want = cpu_out(nout * 4), *got = dev_out(nout * 4);
      begin_case("upsample_bilinear2d case %zu align_corners %d", i, ac);
      int r1 = sc_k_upsample_bilinear2d_f32(x, want, up[i].nc, up[i].h, up[i].w, up[i].oh, up[i].ow, ac, up[i].sh, up[i].sw);
      int r2 = sc_cu_upsample_bilinear2d_f32(x, got, up[i].nc, up[i].h, up[i].w, up[i].oh, up[i].ow, ac, up[i].sh, up[i].sw);
      if (r1 || r2) fail("rc %d / %d", r2, r1);
      same_bytes(got, want, nout * 4, "y (bit for bit)");
      end_case();
      free(x), free(want), free(got);
    }
  static const int64_t cs[][3] = {{2, 5, 3}, {1, 9, 1}, {3, 1, 4}, {0, 3, 2}, {2, 0, 2}};
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
    for (int prod = 0; prod < 2; prod++) {
      int64_t outer = cs[i][0], n = cs[i][1], inner = cs[i][2], all = outer * n * inner;
      float *x = frandn(all + 1), *want = cpu_out(all * 4 + 4), *got = dev_out(all * 4 + 4);
      begin_case("%s f32 [%lld, %lld, %lld]", prod ? "cumprod" : "cumsum", (long long)outer, (long long)n, (long long)inner);
      (prod ? sc_k_cumprod_f32 : sc_k_cumsum_f32)(x, want, outer, n, inner);
      (prod ? sc_cu_cumprod_f32 : sc_cu_cumsum_f32)(x, got, outer, n, inner);
      same_f(got, want, all, "y");
      end_case();
      free(x), free(want), free(got);
      for (int kind = 0; kind <= 4; kind++) {
        static const int64_t size[5] = {1, 1, 2, 4, 8};
        unsigned char *xi = brandn(all * size[kind] + 8);
        int64_t *wi = cpu_out(all * 8 + 8), *gi = dev_out(all * 8 + 8);
        begin_case("%s kind %d [%lld, %lld, %lld]", prod ? "cumprod" : "cumsum", kind, (long long)outer, (long long)n,
                   (long long)inner);
        (prod ? sc_k_cumprod_i64 : sc_k_cumsum_i64)(xi, wi, kind, outer, n, inner);
        (prod ? sc_cu_cumprod_i64 : sc_cu_cumsum_i64)(xi, gi, kind, outer, n, inner);
        same_i64(gi, wi, all, "y");
        end_case();
        free(xi), free(wi), free(gi);
      }
    }
}

/* _weight_norm, linalg_vector_norm's two elementwise steps (each order), integer sums into
 * int64 over any set of dims, and int64 counts as float32: device against CPU kernels. */
static void test_norms_sums(void) {
  static const int64_t wn[][3] = {{4, 3, 5}, {1, 6, 1}, {2, 1, 7}, {3, 0, 2}};
  for (size_t i = 0; i < sizeof wn / sizeof wn[0]; i++) {
    int64_t outer = wn[i][0], n = wn[i][1], inner = wn[i][2], all = outer * n * inner;
    float *v = frandn(all + 1), *gw = frandn(n + 1), *want = cpu_out(all * 4 + 4), *got = dev_out(all * 4 + 4);
    begin_case("weight_norm [%lld, %lld, %lld]", (long long)outer, (long long)n, (long long)inner);
    sc_k_weight_norm_f32(v, gw, want, outer, n, inner);
    sc_cu_weight_norm_f32(v, gw, got, outer, n, inner);
    same_f(got, want, all, "out");
    end_case();
    free(v), free(gw), free(want), free(got);
  }
  static const double ords[] = {2, 1, INFINITY, -INFINITY, 0, 3, 0.5};
  for (size_t i = 0; i < sizeof ords / sizeof ords[0]; i++) {
    int64_t n = 37;
    float *x = frandn(n), *want = cpu_out(n * 4), *got = dev_out(n * 4);
    x[3] = 0.0f;
    begin_case("vector_norm map and finish, ord %g", ords[i]);
    sc_k_vector_norm_map_f32(x, want, n, ords[i]);
    sc_cu_vector_norm_map_f32(x, got, n, ords[i]);
    same_f(got, want, n, "map");
    for (int64_t j = 0; j < n; j++) want[j] = got[j] = fabsf(x[j]) + 0.25f;
    sc_k_vector_norm_finish_f32(want, n, ords[i]);
    sc_cu_vector_norm_finish_f32(got, n, ords[i]);
    same_f(got, want, n, "finish");
    end_case();
    free(x), free(want), free(got);
  }
  static const struct {
    int nd;
    int64_t shape[4];
    int32_t reduce[4];
  } sums[] = {{3, {2, 3, 4}, {0, 1, 0}}, {3, {2, 3, 4}, {1, 0, 1}}, {2, {5, 7}, {1, 1}}, {1, {9}, {0}},
              {4, {2, 1, 3, 2}, {0, 1, 1, 0}}, {2, {3, 0}, {0, 1}}};
  for (size_t i = 0; i < sizeof sums / sizeof sums[0]; i++)
    for (int kind = 0; kind <= 4; kind++) {
      static const int64_t size[5] = {1, 1, 2, 4, 8};
      int64_t all = prod(sums[i].shape, sums[i].nd), out_n = 1;
      for (int d = 0; d < sums[i].nd; d++)
        if (!sums[i].reduce[d]) out_n *= sums[i].shape[d];
      unsigned char *x = brandn(all * size[kind] + 8);
      int64_t *want = cpu_out(out_n * 8 + 8), *got = dev_out(out_n * 8 + 8);
      begin_case("sum_i64 case %zu kind %d", i, kind);
      sc_k_sum_i64(x, want, kind, sums[i].nd, sums[i].shape, sums[i].reduce);
      sc_cu_sum_i64(x, got, kind, sums[i].nd, sums[i].shape, sums[i].reduce);
      same_i64(got, want, out_n, "y");
      float *fw = cpu_out(out_n * 4 + 4), *fg = dev_out(out_n * 4 + 4);
      sc_k_i64_to_f32(want, fw, out_n);
      sc_cu_i64_to_f32(want, fg, out_n);
      same_bytes(fg, fw, out_n * 4, "as float32");
      end_case();
      free(x), free(want), free(got), free(fw), free(fg);
    }
}

/* sort and topk: the device's stable merge sort per line = the CPU's, values and indices,
 * ascending and descending, floats with NaN and ties, every integer width; k out of range
 * fails with the CPU's words. */
static void test_sort(void) {
  static const int64_t shapes[][4] = {{2, 7, 3, 7}, {1, 16, 1, 5}, {3, 1, 2, 1}, {2, 9, 1, 0}, {0, 4, 2, 2}};
  static const int32_t kinds[] = {SC_KIND_F32, SC_KIND_F64, SC_KIND_U8, SC_KIND_I8, SC_KIND_I16, SC_KIND_I32, SC_KIND_I64};
  static const int64_t size[] = {1, 1, 2, 4, 8, 4, 8};
  char want_msg[256], got_msg[256];
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    for (size_t kk = 0; kk < sizeof kinds / sizeof kinds[0]; kk++)
      for (int desc = 0; desc < 2; desc++) {
        int64_t outer = shapes[i][0], n = shapes[i][1], inner = shapes[i][2], k = shapes[i][3], all = outer * n * inner;
        int32_t kind = kinds[kk];
        int64_t es = size[kind];
        unsigned char *x = brandn(all * es + 8);
        if (kind == SC_KIND_F32)
          for (int64_t j = 0; j < all; j++) ((float *)x)[j] = j % 5 == 2 ? NAN : (float)(irand(4)); /* ties, NaN */
        if (kind == SC_KIND_F64)
          for (int64_t j = 0; j < all; j++) ((double *)x)[j] = j % 6 == 1 ? NAN : (double)(irand(3)) - 1;
        int64_t nk = outer * k * inner;
        unsigned char *wv = cpu_out(nk * es + 8), *gv = dev_out(nk * es + 8);
        int64_t *wi = cpu_out(nk * 8 + 8), *gi = dev_out(nk * 8 + 8), *scratch = xmalloc((2 * n + 2) * 8);
        begin_case("sort [%lld, %lld, %lld] k %lld kind %d descending %d", (long long)outer, (long long)n, (long long)inner,
                   (long long)k, kind, desc);
        int r1 = sc_k_sort(x, wv, wi, scratch, outer, n, inner, k, kind, desc, "node 's'", want_msg, sizeof want_msg);
        int r2 = sc_cu_sort(x, gv, gi, NULL, outer, n, inner, k, kind, desc, "node 's'", got_msg, sizeof got_msg);
        if (r1 || r2) fail("rc %d / %d", r2, r1);
        same_i64(gi, wi, nk, "indices");
        same_bytes(gv, wv, nk * es, "values");
        end_case();
        free(x), free(wv), free(gv), free(wi), free(gi), free(scratch);
      }
  begin_case("topk with k past the dim");
  float x[4] = {1, 2, 3, 4};
  int64_t idx[8], scratch[16];
  int r1 = sc_k_sort(x, NULL, idx, scratch, 1, 4, 1, 5, SC_KIND_F32, 1, "node 't'", want_msg, sizeof want_msg);
  int r2 = sc_cu_sort(x, NULL, idx, NULL, 1, 4, 1, 5, SC_KIND_F32, 1, "node 't'", got_msg, sizeof got_msg);
  same_failure(r2, r1, got_msg, want_msg);
  sc_emu_reset();
  end_case();
}

/* ---- reductions ---- */

static void test_reduce(void) {
  static const struct {
    int nd;
    int64_t shape[4];
  } t[] = {{3, {3, 4, 5}}, {2, {2, 10000}}, {2, {100, 100}}, {2, {3, 0}}, {4, {2, 3, 1, 4}}, {1, {7}}, {2, {0, 4}}};
  static const double corrections[] = {0, 1};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    int nd = t[i].nd;
    int64_t n = prod(t[i].shape, nd);
    float *x = frandn(n);
    if (n > 50) x[n / 2] = NAN; /* max and min keep it */
    for (int mask = 1; mask < (1 << nd); mask++)
      for (int op = SC_REDUCE_SUM; op <= SC_REDUCE_VAR; op++)
        for (int c = 0; c < (op == SC_REDUCE_VAR ? 2 : 1); c++) {
          int32_t red[4];
          int64_t out_n = 1;
          for (int d = 0; d < nd; d++) {
            red[d] = (mask >> d) & 1;
            if (!red[d]) out_n *= t[i].shape[d];
          }
          float *want = cpu_out(out_n * 4), *got = dev_out(out_n * 4);
          begin_case("reduce case %zu mask %#x op %d correction %g", i, mask, op, corrections[c]);
          if (n > 50 && (op == SC_REDUCE_SUM || op == SC_REDUCE_MEAN || op == SC_REDUCE_VAR)) x[n / 2] = 0.5f;
          sc_k_reduce_f32(x, want, nd, t[i].shape, red, op, corrections[c]);
          sc_cu_reduce_f32(x, got, nd, t[i].shape, red, op, corrections[c]);
          same_f(got, want, out_n, "y");
          if (n > 50) x[n / 2] = NAN;
          end_case();
          free(want), free(got);
        }
    free(x);
  }
  static const int64_t a[][3] = {{3, 7, 4}, {1, 100, 1}, {5, 1, 3}, {2, 0, 3}, {0, 4, 2}, {4, 9, 1}};
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
    for (int is_min = 0; is_min < 2; is_min++)
      for (int outs = 0; outs < 3; outs++) { /* both, values only, indices only */
        int64_t outer = a[i][0], n = a[i][1], inner = a[i][2], ny = outer * inner;
        float *x = frandn(outer * n * inner);
        for (int64_t j = 0; j < outer * n * inner; j++) x[j] = (float)irand(4); /* ties */
        if (outer * n * inner > 20) x[13] = NAN;
        float *wv = cpu_out(ny * 4), *gv = dev_out(ny * 4);
        int64_t *wi = cpu_out(ny * 8), *gi = dev_out(ny * 8);
        begin_case("arg_reduce case %zu is_min %d outputs %d", i, is_min, outs);
        sc_k_arg_reduce_f32(x, outs == 2 ? NULL : wv, outs == 1 ? NULL : wi, outer, n, inner, is_min);
        sc_cu_arg_reduce_f32(x, outs == 2 ? NULL : gv, outs == 1 ? NULL : gi, outer, n, inner, is_min);
        if (outs != 2) same_f(gv, wv, ny, "values");
        if (outs != 1) same_i64(gi, wi, ny, "indices");
        end_case();
        free(x), free(wv), free(gv), free(wi), free(gi);
      }
}

int main(void) {
  static const int64_t thread_counts[] = {1, 7, 33};
  setenv("SHAPEC_CUDA_EMULATE_CUBLAS", "1", 1); /* SHAPEC_CUDA_NO_CUBLAS turns it off per product */
  for (int t = 0; t < 3; t++) {
    sc_emu_launch_threads = thread_counts[t];
    test_strided_copy();
    test_copy_into();
    test_fill_arange();
    test_index_gather();
    test_index_tensor();
    test_repeat();
    test_nonzero();
    test_masked_select();
    test_bmm();
    test_to_half();
    test_bmm_half();
    test_conv();
    test_pools();
    test_norms();
    test_softmax();
    test_sdpa();
    test_more_nn();
    test_norms_sums();
    test_sort();
    test_reduce();
  }
  printf("cuda device kernels: %d cases (%lld launches), %d failed\n", cases, (long long)sc_emu_launches, failures);
  return failures != 0;
}
