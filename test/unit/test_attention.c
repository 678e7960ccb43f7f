/* softmax(q k^T * scale + mask) v in one kernel (sc_k_attention_f32,
 * backends/cpu/runtime/attention.c) against a double reference: heads read in place from
 * [b, l, h, e] rows (the layout a linear layer leaves) and written back that way, k read
 * transposed, query counts that leave partial tiles and blocks, key counts that leave
 * partial panels and span several chunks of the product with v, widths that leave masked
 * columns, fewer keys than a panel (a row's scores in two vectors), masks broadcast over batch items and
 * rows, causal limits, one and two threads;
 * and ATen's answers at the edges: no keys gives zeros, a fully masked row gives NaN. */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/runtime/kernels.h"
#include "backends/llvm/runtime_abi.h"
#include "run_suite.h"

typedef struct shape {
  int64_t outer, inner, l, s, e, ev;
} shape;

/* A value in [-1, 1) from an index, the same on every run. */
static float value(int64_t i, int64_t salt) { return (float)(((i * 7919 + salt * 104729) % 2001) / 1000.0 - 1.0); }

/* Fills x (n floats) and returns it. */
static float *filled(int64_t n, int64_t salt) {
  float *x = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
  for (int64_t i = 0; i < n; i++) x[i] = value(i, salt);
  return x;
}

/* The reference at one query row of one batch item, in double. */
static void reference_row(const float *q, const float *k, const float *v, const float *mask, const int64_t *st,
                          const shape *sh, int64_t o, int64_t i, int64_t r, double scale, int causal, double *out) {
  double *score = malloc(sizeof(double) * (size_t)(sh->s > 0 ? sh->s : 1)), mx = -INFINITY, sum = 0;
  for (int64_t c = 0; c < sh->s; c++) {
    double acc = 0;
    for (int64_t d = 0; d < sh->e; d++)
      acc += (double)q[o * st[0] + i * st[1] + r * st[2] + d * st[3]] * k[o * st[4] + i * st[5] + c * st[6] + d * st[7]];
    score[c] = (double)(float)(acc * scale);
    if (mask) score[c] += mask[o * st[14] + i * st[15] + r * st[16] + c * st[17]];
    if (causal && c > r) score[c] = -INFINITY;
    mx = fmax(mx, score[c]);
  }
  bool whole = mx == -INFINITY; /* every key masked: zeros, as torch 2.6 and 2.14 give */
  for (int64_t c = 0; c < sh->s; c++) sum += (score[c] = whole ? 0.0 : exp(score[c] - mx));
  for (int64_t x = 0; x < sh->ev; x++) {
    double acc = 0;
    for (int64_t c = 0; c < sh->s; c++) acc += score[c] * v[o * st[8] + i * st[9] + c * st[10] + x];
    out[x] = sh->s && !whole ? acc / sum : 0.0;
  }
  free(score);
}

/* Runs the kernel on `sh` with heads interleaved in rows ([outer, rows, inner, width]),
 * k transposed when asked, and checks every output against the reference. */
/* The kernel's 18 strides for heads interleaved in rows: q, v and out [outer, rows, inner,
 * width]; k that, or [outer, inner, e, s] when transposed; no mask. */
static void interleaved_strides(const shape *sh, int transposed_k, int64_t *st) {
  int64_t h = sh->inner;
  const int64_t all[18] = {sh->l * h * sh->e, sh->e, h * sh->e, 1,
                           transposed_k ? h * sh->e * sh->s : sh->s * h * sh->e, transposed_k ? sh->e * sh->s : sh->e,
                           transposed_k ? 1 : h * sh->e, transposed_k ? sh->s : 1,
                           sh->s * h * sh->ev, sh->ev, h * sh->ev,
                           sh->l * h * sh->ev, sh->ev, h * sh->ev,
                           0, 0, 0, 0};
  memcpy(st, all, sizeof all);
}

static void check_shape(const shape *sh, int transposed_k, int mask_kind, int causal, int threads) {
  int64_t o = sh->outer, h = sh->inner, st[18];
  interleaved_strides(sh, transposed_k, st);
  if (mask_kind == 1) { /* one [l, s] mask for every batch item */
    st[16] = sh->s, st[17] = 1;
  } else if (mask_kind == 2) { /* [outer, 1, 1, s]: per batch, broadcast over heads and rows (padding) */
    st[14] = sh->s, st[17] = 1;
  }
  float *q = filled(o * sh->l * h * sh->e, 1), *k = filled(o * sh->s * h * sh->e, 2);
  float *v = filled(o * sh->s * h * sh->ev, 3), *mask = mask_kind ? filled(o * sh->l * sh->s, 4) : NULL;
  float *out = filled(o * sh->l * h * sh->ev, 5);
  if (mask)
    for (int64_t x = 0; x < o * sh->l * sh->s; x++)
      if (x % 5 == 2) mask[x] = -INFINITY; /* masked keys, never a whole row: every row has key 0 or 1 */
  int64_t dims[6] = {o, h, sh->l, sh->s, sh->e, sh->ev};
  shapec_model_set_num_threads(threads);
  int64_t bytes = sc_k_attention_scratch_bytes(dims);
  void *scratch = malloc((size_t)bytes);
  double scale = 1.0 / sqrt((double)(sh->e > 0 ? sh->e : 1));
  sc_k_attention_f32(q, k, v, mask, out, dims, st, scale, causal ? SC_ATTENTION_CAUSAL : 0, scratch, bytes);
  double *want = malloc(sizeof(double) * (size_t)(sh->ev > 0 ? sh->ev : 1));
  for (int64_t a = 0; a < o; a++)
    for (int64_t b = 0; b < h; b++)
      for (int64_t r = 0; r < sh->l; r++) {
        reference_row(q, k, v, mask, st, sh, a, b, r, scale, causal, want);
        for (int64_t x = 0; x < sh->ev; x++) {
          float got = out[a * st[11] + b * st[12] + r * st[13] + x];
          bool same = isnan(want[x]) ? isnan(got) : fabs(got - want[x]) <= 2e-6 + 2e-5 * fabs(want[x]);
          ck_assert_msg(same,
                        "[%lld %lld %lld %lld %lld %lld] k^T %d mask %d causal %d threads %d: out[%lld][%lld][%lld][%lld] "
                        "= %.9g, want %.9g", (long long)o, (long long)h, (long long)sh->l, (long long)sh->s,
                        (long long)sh->e, (long long)sh->ev, transposed_k, mask_kind, causal, threads, (long long)a,
                        (long long)b, (long long)r, (long long)x, got, want[x]);
        }
      }
  free(q), free(k), free(v), free(mask), free(out), free(scratch), free(want);
}

static const shape shapes[] = {
      {2, 4, 128, 128, 64, 64}, /* the zoo encoder's heads */
      {1, 3, 29, 37, 5, 3},     /* partial tiles, a partial panel, 3 of 16 columns */
      {1, 2, 50, 300, 20, 20},  /* two chunks of keys, a tail of 4 columns */
      {2, 1, 7, 600, 8, 24},    /* three chunks; fewer rows than a block */
      {1, 1, 1, 1, 1, 1},
      {3, 2, 25, 17, 64, 16},   /* a block and one row */
      {2, 2, 9, 7, 5, 6},       /* fewer keys than a panel: one row at a time, 8 + 6 columns masked */
      {2, 2, 4, 4, 4, 4},       /* nn.MultiheadAttention(8, 2) over four tokens */
      {1, 3, 11, 15, 3, 37},    /* 15 keys (two vectors), three column steps, a tail of 5 */
      {2, 1, 5, 9, 17, 16},     /* 9 keys: one past the first vector */
      {1, 2, 13, 48, 7, 40},    /* an odd number of panels; 32 + 8 columns (16 lanes: one full tile, one half) */
      {1, 1, 6, 33, 3, 17},     /* one key past two panels; 16 + 1 columns */
      {1, 2, 19, 8, 6, 21},     /* 8 keys, a row a lane: 8 + 8 + 3 rows, 8 + 8 + 5 columns */
      {2, 1, 8, 3, 70, 9},      /* 3 keys, 70 products a score, 8 rows exactly, 8 + 1 columns */
      {1, 1, 3, 5, 2, 4},       /* 5 keys, 3 rows in 8 lanes, 4 columns */
      {3, 1, 3, 6, 5, 10},      /* 3 rows an item: two items share the lanes, the third alone */
      {1, 5, 2, 7, 9, 3},       /* 2 rows an item, five items over the heads */
      {2, 3, 3, 8, 4, 12},      /* 3 rows an item, six items: four in 16 lanes (AVX-512), then a pair; 8 + 4 columns */
      {1, 8, 1, 1, 1, 1},       /* one row, key and column an item: two groups of four */
      {4, 2, 4, 5, 13, 7},      /* eight items of 4 rows, 8 + 4 + 1 products a score, 7 columns */
      /* heads of at most 4 columns, four items in 16 lanes (AVX-512: q and out transposed
       * within quarters): rows, keys and columns short of 4 */
      {2, 2, 3, 5, 3, 2},       /* 3 rows, 5 keys, 3 products a score, 2 columns */
      {1, 4, 2, 8, 4, 3},       /* 2 rows, 8 keys, 3 columns */
      {2, 4, 4, 7, 2, 4},       /* two groups of four, 7 keys, 2 products */
      {3, 2, 1, 2, 4, 1},       /* one row, 2 keys, one column; six items: a group and a pair */
};

static void check_all_shapes(void) {
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
    for (int transposed_k = 0; transposed_k <= 1; transposed_k++)
      for (int mask_kind = 0; mask_kind <= 2; mask_kind++)
        for (int causal = 0; causal <= 1; causal++)
          for (int threads = 1; threads <= 2; threads++) check_shape(&shapes[i], transposed_k, mask_kind, causal, threads);
}

START_TEST(test_matches_reference) { check_all_shapes(); }
END_TEST

/* A library built for AVX-512 takes the 16-lane tiles (two key panels, 32 columns): every
 * shape again through them.  (Each test runs in its own process, so the verdict set here
 * stays here.) */
START_TEST(test_avx512_matches_reference) {
  char err[200];
  if (!sc_rt_has_avx2() || sc_rt_cpu_has("avx512f", 7) != 1) return; /* nothing to take here */
  ck_assert_int_eq(sc_rt_cpu_supported("avx2,fma,avx512f", err, sizeof err), SHAPEC_OK);
  ck_assert(sc_rt_has_avx512());
  check_all_shapes();
}
END_TEST

START_TEST(test_edges) {
  /* no keys: an empty product, zeros (ATen); no width: the uniform mean of v */
  shape none = {1, 2, 5, 0, 4, 3}, flat = {1, 1, 4, 6, 0, 2};
  check_shape(&none, 0, 0, 0, 1);
  check_shape(&flat, 0, 0, 0, 1);
  /* a fully masked row: zeros, as torch's scaled_dot_product_attention gives (2.6, 2.14) */
  int64_t dims[6] = {1, 1, 2, 3, 2, 2}, st[18] = {0, 0, 2, 1, 0, 0, 2, 1, 0, 0, 2, 0, 0, 2, 0, 0, 3, 1};
  float q[4] = {1, 2, 3, 4}, k[6] = {1, 0, 0, 1, 1, 1}, v[6] = {1, 2, 3, 4, 5, 6}, out[4];
  float mask[6] = {-INFINITY, -INFINITY, -INFINITY, 0, 0, 0};
  int64_t bytes = sc_k_attention_scratch_bytes(dims);
  void *scratch = malloc((size_t)bytes);
  sc_k_attention_f32(q, k, v, mask, out, dims, st, 1.0, 0, scratch, bytes);
  ck_assert(out[0] == 0.0f && out[1] == 0.0f);
  ck_assert(!isnan(out[2]) && !isnan(out[3]) && out[2] != 0.0f);
  free(scratch);
}
END_TEST

/* A static KV cache's mask: every key past the filled positions is -inf in every row (a
 * decode step of one row, a prompt of five).  The kernel drops those keys; its output is
 * the bits of the same call over the filled keys alone, for [1, 1, l, s] and per-batch
 * [b, 1, 1, s] masks, with the filled ends differing per batch item (the longest counts). */
START_TEST(test_masked_tail) {
  const int64_t s = 300, e = 16, h = 2, l_values[2] = {1, 5};
  for (int li = 0; li < 2; li++)
    for (int per_batch = 0; per_batch <= 1; per_batch++) {
      int64_t l = l_values[li], o = 2, filled_to[2] = {37, per_batch ? 29 : 37};
      shape full = {o, h, l, s, e, e}, cut = {o, h, l, filled_to[0] + l, e, e};
      int64_t st_full[18], st_cut[18];
      interleaved_strides(&full, 0, st_full);
      interleaved_strides(&cut, 0, st_cut);
      float *q = filled(o * l * h * e, 1), *k = filled(o * s * h * e, 2), *v = filled(o * s * h * e, 3);
      float *mask = malloc(sizeof(float) * (size_t)(o * l * s)), *cut_mask = malloc(sizeof(float) * (size_t)(o * l * s));
      for (int64_t b = 0; b < o; b++)
        for (int64_t r = 0; r < l; r++)
          for (int64_t c = 0; c < s; c++) /* row r of item b sees the filled keys and itself */
            mask[(b * l + r) * s + c] = c <= filled_to[per_batch ? b : 0] + r - 1 + (per_batch ? 0 : 1) ? 0.0f : -INFINITY;
      /* the same mask over the kept keys: [o or 1, 1, l, cut.s] */
      for (int64_t b = 0; b < o; b++)
        for (int64_t r = 0; r < l; r++)
          for (int64_t c = 0; c < cut.s; c++) cut_mask[(b * l + r) * cut.s + c] = mask[(b * l + r) * s + c];
      st_full[14] = per_batch ? l * s : 0, st_full[16] = s, st_full[17] = 1;
      st_cut[14] = per_batch ? l * cut.s : 0, st_cut[16] = cut.s, st_cut[17] = 1;
      /* k and v of the cut call: the first cut.s keys of the same rows (the full call's strides) */
      memcpy(st_cut + 4, st_full + 4, 4 * sizeof *st_cut);
      memcpy(st_cut + 8, st_full + 8, 3 * sizeof *st_cut);
      int64_t dims_full[6] = {o, h, l, s, e, e}, dims_cut[6] = {o, h, l, cut.s, e, e}, n_out = o * l * h * e;
      float *got = filled(n_out, 5), *want = filled(n_out, 6);
      for (int threads = 1; threads <= 2; threads++) {
        shapec_model_set_num_threads(threads);
        int64_t bytes = sc_k_attention_scratch_bytes(dims_full);
        void *scratch = malloc((size_t)bytes);
        sc_k_attention_f32(q, k, v, mask, got, dims_full, st_full, 0.25, 0, scratch, bytes);
        sc_k_attention_f32(q, k, v, cut_mask, want, dims_cut, st_cut, 0.25, 0, scratch, bytes);
        free(scratch);
        for (int64_t x = 0; x < n_out; x++)
          ck_assert_msg(memcmp(&got[x], &want[x], sizeof *got) == 0, "l %lld per-batch %d threads %d: out[%lld] = %.9g, "
                        "over the filled keys alone %.9g", (long long)l, per_batch, threads, (long long)x, got[x], want[x]);
        double ref[16];
        for (int64_t b = 0; b < o; b++) /* and both are softmax over every key, in double */
          for (int64_t i = 0; i < h; i++)
            for (int64_t r = 0; r < l; r++) {
              reference_row(q, k, v, mask, st_full, &full, b, i, r, 0.25, 0, ref);
              for (int64_t x = 0; x < e; x++) {
                float g = got[b * st_full[11] + i * st_full[12] + r * st_full[13] + x];
                ck_assert_msg(fabs(g - ref[x]) <= 2e-6 + 2e-5 * fabs(ref[x]), "l %lld per-batch %d: %.9g, want %.9g",
                              (long long)l, per_batch, g, ref[x]);
              }
            }
      }
      free(q), free(k), free(v), free(mask), free(cut_mask), free(got), free(want);
    }
}
END_TEST

/* The tiny entry (sc_k_attention_tiny_f32, no scratch, the calling thread) takes a small
 * call and gives the general kernel's bits, on one thread and two; it leaves anything else
 * (a mask, more rows or keys, items not in fours, k transposed, many multiply-adds) untouched
 * and says so. */
static int tiny_against_general(const shape *sh, int transposed_k, int with_mask, int causal) {
  int64_t o = sh->outer, h = sh->inner, st[18];
  interleaved_strides(sh, transposed_k, st);
  st[16] = sh->s, st[17] = 1; /* one [l, s] mask, where there is one */
  int64_t n_out = o * sh->l * h * sh->ev, dims[6] = {o, h, sh->l, sh->s, sh->e, sh->ev};
  float *q = filled(o * sh->l * h * sh->e, 1), *k = filled(o * sh->s * h * sh->e, 2);
  float *v = filled(o * sh->s * h * sh->ev, 3), *mask = with_mask ? filled(sh->l * sh->s, 4) : NULL;
  float *tiny = filled(n_out, 5), *general = filled(n_out, 6), *before = filled(n_out, 5);
  int flags = causal ? SC_ATTENTION_CAUSAL : 0, took = -1;
  double scale = 0.5;
  for (int threads = 1; threads <= 2; threads++) {
    shapec_model_set_num_threads(threads);
    int64_t bytes = sc_k_attention_scratch_bytes(dims);
    void *scratch = malloc((size_t)bytes);
    sc_k_attention_f32(q, k, v, mask, general, dims, st, scale, flags, scratch, bytes);
    free(scratch);
    memcpy(tiny, before, (size_t)n_out * sizeof *tiny);
    took = sc_k_attention_tiny_f32(q, k, v, mask, tiny, dims, st, scale, flags);
    ck_assert(took == 0 || took == 1);
    const float *want = took ? general : before; /* declined: nothing written */
    for (int64_t x = 0; x < n_out; x++)
      ck_assert_msg(memcmp(&tiny[x], &want[x], sizeof *tiny) == 0,
                    "[%lld %lld %lld %lld %lld %lld] k^T %d mask %d causal %d threads %d took %d: out[%lld] = %.9g, "
                    "want %.9g", (long long)o, (long long)h, (long long)sh->l, (long long)sh->s, (long long)sh->e,
                    (long long)sh->ev, transposed_k, with_mask, causal, threads, took, (long long)x, tiny[x], want[x]);
  }
  free(q), free(k), free(v), free(mask), free(tiny), free(general), free(before);
  return took;
}

START_TEST(test_tiny_entry) {
  char err[200];
  if (!sc_rt_has_avx2() || sc_rt_cpu_has("avx512f", 7) != 1) return; /* it takes nothing here */
  ck_assert_int_eq(sc_rt_cpu_supported("avx2,fma,avx512f", err, sizeof err), SHAPEC_OK);
  static const shape takes[] = {
      {2, 2, 4, 4, 4, 4},   /* nn.TransformerEncoderLayer(8, 2) at [2, 4, 8] */
      {1, 4, 3, 5, 3, 2},   /* short rows, keys and columns */
      {4, 2, 1, 8, 16, 16}, /* wider heads, 8 keys */
      {3, 4, 2, 7, 8, 5},   /* three groups of four */
  };
  for (size_t i = 0; i < sizeof takes / sizeof *takes; i++)
    for (int causal = 0; causal <= 1; causal++) ck_assert_int_eq(tiny_against_general(&takes[i], 0, 0, causal), 1);
  static const shape declines[] = {
      {1, 2, 4, 4, 4, 4},      /* two items, not four */
      {2, 2, 5, 4, 4, 4},      /* five rows */
      {2, 2, 4, 9, 4, 4},      /* nine keys */
      {2, 2, 4, 4, 65, 4},     /* heads 65 wide */
      {64, 4, 4, 8, 32, 32},   /* more multiply-adds than a tiny call's */
  };
  for (size_t i = 0; i < sizeof declines / sizeof *declines; i++) ck_assert_int_eq(tiny_against_general(&declines[i], 0, 0, 0), 0);
  ck_assert_int_eq(tiny_against_general(&takes[0], 1, 0, 0), 0); /* k transposed */
  ck_assert_int_eq(tiny_against_general(&takes[0], 0, 1, 0), 0); /* a mask */
}
END_TEST

/* Grouped-query attention: with group g in the flags, query head i reads key and value head
 * i / g of [outer, kvh, s, e] tensors, giving the same bits as the call over the keys and
 * values repeated head by head (what repeat_kv materializes); batches of 1 and 2, one key
 * and value head for all (multi-query), few keys (one panel) and many, a mask over the
 * keys, the tiny entry, one and two threads. */
START_TEST(test_grouped_heads) {
  static const int64_t cases[][6] = { /* outer, kvh, group, l, s, e */
      {1, 2, 3, 1, 37, 16}, {2, 2, 2, 5, 300, 32}, {1, 1, 4, 3, 9, 8}, {2, 4, 2, 1, 5, 16}, {1, 2, 2, 2, 4, 8}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
    for (int with_mask = 0; with_mask <= 1; with_mask++) {
      int64_t o = cases[c][0], kvh = cases[c][1], group = cases[c][2], l = cases[c][3], s = cases[c][4], e = cases[c][5];
      int64_t h = kvh * group;
      float *q = filled(o * h * l * e, 1), *k = filled(o * kvh * s * e, 2), *v = filled(o * kvh * s * e, 3);
      float *k_rep = malloc(sizeof(float) * (size_t)(o * h * s * e)), *v_rep = malloc(sizeof(float) * (size_t)(o * h * s * e));
      for (int64_t b = 0; b < o; b++)
        for (int64_t i = 0; i < h; i++) {
          memcpy(k_rep + (b * h + i) * s * e, k + (b * kvh + i / group) * s * e, sizeof(float) * (size_t)(s * e));
          memcpy(v_rep + (b * h + i) * s * e, v + (b * kvh + i / group) * s * e, sizeof(float) * (size_t)(s * e));
        }
      float *mask = NULL;
      if (with_mask) { /* [l, s], every row sees a prefix of the keys */
        mask = malloc(sizeof(float) * (size_t)(l * s));
        for (int64_t r = 0; r < l; r++)
          for (int64_t x = 0; x < s; x++) mask[r * s + x] = x <= (s - l + r) ? 0.0f : -INFINITY;
      }
      /* compact [outer, heads, rows, width] tensors */
      int64_t st_rep[18] = {h * l * e, l * e, e, 1, h * s * e, s * e, e, 1, h * s * e, s * e, e, h * l * e, l * e, e,
                            0, 0, with_mask ? s : 0, 1};
      int64_t st_grouped[18];
      memcpy(st_grouped, st_rep, sizeof st_rep);
      st_grouped[4] = kvh * s * e, st_grouped[8] = kvh * s * e; /* k and v: [outer, kvh, s, e] */
      int64_t dims[6] = {o, h, l, s, e, e}, n_out = o * h * l * e;
      float *got = filled(n_out, 5), *want = filled(n_out, 6);
      int flags = (int)(group << SC_ATTENTION_GROUP_SHIFT);
      for (int threads = 1; threads <= 2; threads++) {
        shapec_model_set_num_threads(threads);
        int64_t bytes = sc_k_attention_scratch_bytes(dims);
        void *scratch = malloc((size_t)bytes);
        sc_k_attention_f32(q, k, v, mask, got, dims, st_grouped, 0.25, flags, scratch, bytes);
        sc_k_attention_f32(q, k_rep, v_rep, mask, want, dims, st_rep, 0.25, 0, scratch, bytes);
        free(scratch);
        for (int64_t x = 0; x < n_out; x++)
          ck_assert_msg(memcmp(&got[x], &want[x], sizeof *got) == 0, "case %zu mask %d threads %d: out[%lld] = %.9g, "
                        "over repeated heads %.9g", c, with_mask, threads, (long long)x, got[x], want[x]);
        if (!with_mask && sc_k_attention_tiny_f32(q, k, v, NULL, got, dims, st_grouped, 0.25, flags)) {
          sc_k_attention_tiny_f32(q, k_rep, v_rep, NULL, want, dims, st_rep, 0.25, 0);
          for (int64_t x = 0; x < n_out; x++)
            ck_assert_msg(memcmp(&got[x], &want[x], sizeof *got) == 0, "case %zu (tiny entry): out[%lld] = %.9g, "
                          "over repeated heads %.9g", c, (long long)x, got[x], want[x]);
        }
      }
      free(q), free(k), free(v), free(k_rep), free(v_rep), free(mask), free(got), free(want);
    }
}
END_TEST

int main(void) {
  Suite *s = suite_create("attention");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_matches_reference);
  tcase_add_test(tc, test_edges);
  tcase_add_test(tc, test_avx512_matches_reference);
  tcase_add_test(tc, test_tiny_entry);
  tcase_add_test(tc, test_masked_tail);
  tcase_add_test(tc, test_grouped_heads);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
