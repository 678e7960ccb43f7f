/* attention.c - softmax(q k^T * scale + mask) v, one block of query rows at a time.
 *
 * Computed as three kernels (the scores' product, a softmax, the product with v), every
 * score goes to memory and is read back twice, and oneDNN runs the scores' product, whose
 * depth is a head's width (64), at about half the FMA peak: the zoo's encoder at batch 8
 * spent 1.28 ms there for 67 MFLOP (AVX2, one core).  Here a block of ROWS query rows
 * computes its scores into a buffer that stays in L1, takes their softmax there and
 * multiplies by v, writing each output row once.
 *
 * Every operand is read through strides, so the heads split from a linear layer's output
 * ([b, l, h, e] viewed as [b, h, l, e]) and the output written back that way need no
 * transposing copy.  Batch items are indexed by two levels, outer and inner (batch and
 * heads).  k is packed per batch item into panels of 16 keys ([e][16] each, zero past s),
 * so each step of a score tile reads two vectors; v is read in place (its rows must be
 * contiguous).  The softmax's 1 / sum scales the output rows rather than the scores.
 *
 * Threads split the batch items (and, when there are fewer items than threads, blocks of
 * query rows); each uses its own slot of the scratch the caller gives, so a call allocates
 * nothing. */
#include <immintrin.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kernels.h"
#include "vec_exp.h"
#include "vec_transpose.h"

enum {
  ROWS = 6,    /* query rows per tile: 6 x 16 scores in twelve accumulators */
  BLOCK = 24,  /* query rows per block: each key panel and value tile is read from L1 by 4 tiles */
  KEYS = 256,  /* keys per chunk of the product with v: 24 KB of probabilities, 16 KB of a v tile */
  PANEL = 16,  /* keys per packed panel, output columns per tile */
  ALIGN = 64,
};

typedef struct attention_job {
  const float *q, *k, *v, *mask;
  float *out;
  int64_t outer, inner, l, s, e, ev;
  int64_t qs[4], ks[4], vs[3], os[3], ms[4]; /* outer, inner, row, col (v and out: col 1) */
  int64_t group;      /* inner items that share one key and value (grouped-query attention) */
  float scale;
  int causal;
  int wide;           /* AVX-512 tiles (a library built for AVX-512) */
  int64_t s_pad;      /* s rounded up to whole panels */
  int64_t chunk_rows; /* query rows per work item */
  int64_t chunks;     /* work items per batch item */
  int64_t items, slots;
  char *scratch;
  int64_t slot_bytes;
} attention_job;

static int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

/* The key and value's inner index of inner item i: heads that share one (grouped-query
 * attention: Llama's 32 query heads over 8 key/value heads) read the same. */
static inline int64_t kv_head(const attention_job *j, int64_t i) { return j->group == 1 ? i : i / j->group; }

/* A slot: k packed, then a block of scores. */
static int64_t keys_bytes(int64_t s, int64_t e) { return round_up(round_up(s, PANEL) * e * 4, ALIGN); }
static int64_t slot_bytes(int64_t s, int64_t e) { return keys_bytes(s, e) + round_up(BLOCK * round_up(s, PANEL) * 4, ALIGN); }

int64_t sc_k_attention_scratch_bytes(const int64_t *dims) {
  return (int64_t)sc_rt_num_threads() * slot_bytes(dims[3], dims[4]) + ALIGN;
}

/* k of batch item (o, i) as panels: kp[p][d][c] = k[key p * 16 + c][d], zero past s.
 * Key by key, so the reads follow k's rows. */
static void pack_keys(const attention_job *j, const float *k, float *kp) {
  int64_t panels = j->s_pad / PANEL;
  for (int64_t key = 0; key < j->s_pad; key++) {
    float *dst = kp + key / PANEL * j->e * PANEL + key % PANEL;
    if (key >= j->s) {
      for (int64_t d = 0; d < j->e; d++) dst[d * PANEL] = 0.0f;
      continue;
    }
    const float *src = k + key * j->ks[2];
    if (j->ks[3] == 1)
      for (int64_t d = 0; d < j->e; d++) dst[d * PANEL] = src[d];
    else
      for (int64_t d = 0; d < j->e; d++) dst[d * PANEL] = src[d * j->ks[3]];
  }
  (void)panels;
}

/* ---- AVX2 tiles --------------------------------------------------------------------- */

/* scores[r][0, 16) = scale * (q_r . panel keys), rows [0, R); with rowmax, each row's
 * largest of its first `valid` scores joins rowmax[r] (a NaN is ignored, as in max_row). */
__attribute__((target("avx2,fma"), always_inline)) static inline void score_tile(int R, const float *q, int64_t q_row,
                                                                                   int64_t q_col, const float *panel,
                                                                                   int64_t e, float *scores, int64_t ld,
                                                                                   __m256 scale, __m256 *rowmax,
                                                                                   int64_t valid) {
  __m256 acc[ROWS][2];
  for (int r = 0; r < R; r++) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  for (int64_t d = 0; d < e; d++) {
    __m256 b0 = _mm256_load_ps(panel + d * PANEL), b1 = _mm256_load_ps(panel + d * PANEL + 8);
    for (int r = 0; r < R; r++) {
      __m256 a = _mm256_broadcast_ss(q + r * q_row + d * q_col);
      acc[r][0] = _mm256_fmadd_ps(a, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(a, b1, acc[r][1]);
    }
  }
  for (int r = 0; r < R; r++) {
    __m256 y0 = _mm256_mul_ps(acc[r][0], scale), y1 = _mm256_mul_ps(acc[r][1], scale);
    _mm256_store_ps(scores + r * ld, y0);
    _mm256_store_ps(scores + r * ld + 8, y1);
    if (!rowmax) continue;
    if (valid < PANEL) { /* keys past s, zero-padded: out of the max */
      __m256 none = _mm256_set1_ps(-INFINITY);
      __m256 i0 = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7), i1 = _mm256_setr_ps(8, 9, 10, 11, 12, 13, 14, 15);
      __m256 lim = _mm256_set1_ps((float)valid);
      y0 = _mm256_blendv_ps(none, y0, _mm256_cmp_ps(i0, lim, _CMP_LT_OQ));
      y1 = _mm256_blendv_ps(none, y1, _mm256_cmp_ps(i1, lim, _CMP_LT_OQ));
    }
    rowmax[r] = _mm256_max_ps(y1, _mm256_max_ps(y0, rowmax[r]));
  }
}

/* The product with v over keys [0, s) of a chunk, rows [0, R), w <= 16 columns (the lanes
 * m0, m1 unless full): out[r][0, w) = sum_j p[r][j] v[j][0, w), plus what out holds when
 * `add` (the chunks before), times inv[r] when `last`. */
__attribute__((target("avx2,fma"), always_inline)) static inline void output_tile(int R, bool full, const float *p,
                                                                                    int64_t ld, const float *v,
                                                                                    int64_t v_row, int64_t s, __m256i m0,
                                                                                    __m256i m1, float *out, int64_t o_row,
                                                                                    const float *inv, bool add,
                                                                                    bool last) {
  __m256 acc[ROWS][2];
  for (int r = 0; r < R; r++) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  for (int64_t key = 0; key < s; key++) {
    const float *vr = v + key * v_row;
    __m256 b0 = full ? _mm256_loadu_ps(vr) : _mm256_maskload_ps(vr, m0);
    __m256 b1 = full ? _mm256_loadu_ps(vr + 8) : _mm256_maskload_ps(vr + 8, m1);
    for (int r = 0; r < R; r++) {
      __m256 a = _mm256_broadcast_ss(p + r * ld + key);
      acc[r][0] = _mm256_fmadd_ps(a, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(a, b1, acc[r][1]);
    }
  }
  for (int r = 0; r < R; r++) {
    float *o = out + r * o_row;
    __m256 y0 = acc[r][0], y1 = acc[r][1];
    if (add) {
      y0 = _mm256_add_ps(y0, full ? _mm256_loadu_ps(o) : _mm256_maskload_ps(o, m0));
      y1 = _mm256_add_ps(y1, full ? _mm256_loadu_ps(o + 8) : _mm256_maskload_ps(o + 8, m1));
    }
    if (last) {
      __m256 k = _mm256_broadcast_ss(inv + r);
      y0 = _mm256_mul_ps(y0, k);
      y1 = _mm256_mul_ps(y1, k);
    }
    if (full) {
      _mm256_storeu_ps(o, y0);
      _mm256_storeu_ps(o + 8, y1);
    } else {
      _mm256_maskstore_ps(o, m0, y0);
      _mm256_maskstore_ps(o + 8, m1, y1);
    }
  }
}

/* Lanes [0, n) of 8 set, n clamped to [0, 8]. */
__attribute__((target("avx2"))) static __m256i first_lanes(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n < 0 ? 0 : n > 8 ? 8 : n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* The largest of 8 lanes (a NaN lane is ignored unless all are). */
__attribute__((target("avx2"))) static float lanes_max(__m256 m) {
  float lanes[8], mx = -INFINITY;
  _mm256_storeu_ps(lanes, m);
  for (int t = 0; t < 8; t++) mx = lanes[t] > mx ? lanes[t] : mx;
  return mx;
}

/* The largest score of a row; a NaN is ignored (it makes the sum NaN later, as in ATen). */
__attribute__((target("avx2"))) static float max_row(const float *x, int64_t s) {
  __m256 m = _mm256_set1_ps(-INFINITY);
  int64_t c = 0;
  for (; c + 8 <= s; c += 8) m = _mm256_max_ps(_mm256_load_ps(x + c), m); /* a NaN lane keeps m */
  float mx = lanes_max(m);
  for (; c < s; c++) mx = x[c] > mx ? x[c] : mx;
  return mx;
}

/* A row of scores in place: exp(x - mx); returns 1 / their sum.  A NaN score, or an
 * infinite mx, gives NaN, as ATen's softmax does, but a row masked whole (mx = -inf) gives
 * zeros, as torch's scaled_dot_product_attention does since 2.5 (2.6 and 2.14 measured).
 * Float lanes, folded into a double every 1024 keys so that long rows stay accurate. */
__attribute__((target("avx2,fma"))) static float exp_row(float *x, int64_t s, float mx) {
  if (mx == -INFINITY) {
    for (int64_t c = 0; c < s; c++) x[c] = 0.0f;
    return 0.0f;
  }
  __m256 shift = _mm256_set1_ps(mx);
  double sum = 0;
  int64_t c = 0;
  while (c + 8 <= s) {
    int64_t stop = c + 1024 < s ? c + 1024 : s;
    __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
    for (; c + 16 <= stop; c += 16) {
      __m256 y0 = exp_nonpositive8(_mm256_sub_ps(_mm256_load_ps(x + c), shift));
      __m256 y1 = exp_nonpositive8(_mm256_sub_ps(_mm256_load_ps(x + c + 8), shift));
      _mm256_store_ps(x + c, y0);
      _mm256_store_ps(x + c + 8, y1);
      a0 = _mm256_add_ps(a0, y0);
      a1 = _mm256_add_ps(a1, y1);
    }
    if (c + 8 <= stop) {
      __m256 y0 = exp_nonpositive8(_mm256_sub_ps(_mm256_load_ps(x + c), shift));
      _mm256_store_ps(x + c, y0);
      a0 = _mm256_add_ps(a0, y0);
      c += 8;
    }
    __m256 a = _mm256_add_ps(a0, a1);
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    sum += _mm_cvtss_f32(_mm_add_ss(h, _mm_movehdup_ps(h)));
  }
  for (; c < s; c++) sum += (x[c] = expf(x[c] - mx));
  return (float)(1.0 / sum);
}

/* The mask's row added to a row of scores, and keys past `last` (causal) set to -inf. */
static void limit_row(const attention_job *j, float *x, const float *mrow, int64_t last) {
  if (mrow)
    for (int64_t c = 0; c < j->s; c++) x[c] += mrow[c * j->ms[3]];
  for (int64_t c = last + 1; c < j->s; c++) x[c] = -INFINITY;
}

/* score_tile with its row count, rows <= ROWS, as a constant. */
__attribute__((target("avx2,fma"))) static void score_tiles(const attention_job *j, int64_t rows, const float *q,
                                                             const float *panel, float *scores, __m256 *rowmax,
                                                             int64_t valid) {
  __m256 k = _mm256_set1_ps(j->scale);
  int64_t qr = j->qs[2], qc = j->qs[3], e = j->e, ld = j->s_pad;
  switch (rows) {
    case 6: score_tile(6, q, qr, qc, panel, e, scores, ld, k, rowmax, valid); break;
    case 5: score_tile(5, q, qr, qc, panel, e, scores, ld, k, rowmax, valid); break;
    case 4: score_tile(4, q, qr, qc, panel, e, scores, ld, k, rowmax, valid); break;
    case 3: score_tile(3, q, qr, qc, panel, e, scores, ld, k, rowmax, valid); break;
    case 2: score_tile(2, q, qr, qc, panel, e, scores, ld, k, rowmax, valid); break;
    default: score_tile(1, q, qr, qc, panel, e, scores, ld, k, rowmax, valid); break;
  }
}

/* output_tile with its row count (rows <= ROWS) and its variant as constants. */
__attribute__((target("avx2,fma"))) static void output_tiles(const attention_job *j, int64_t rows, bool full,
                                                              const float *p, const float *v, int64_t keys,
                                                              __m256i m0, __m256i m1, float *out, const float *inv,
                                                              bool add, bool last) {
  int64_t ld = j->s_pad, vr = j->vs[2], orow = j->os[2];
#define OUTPUT_TILE(R, FULL)                                                                   \
  do {                                                                                         \
    if (add && last) output_tile(R, FULL, p, ld, v, vr, keys, m0, m1, out, orow, inv, true, true);   \
    else if (add) output_tile(R, FULL, p, ld, v, vr, keys, m0, m1, out, orow, inv, true, false);     \
    else if (last) output_tile(R, FULL, p, ld, v, vr, keys, m0, m1, out, orow, inv, false, true);    \
    else output_tile(R, FULL, p, ld, v, vr, keys, m0, m1, out, orow, inv, false, false);             \
  } while (0)
  if (full) {
    switch (rows) {
      case 6: OUTPUT_TILE(6, true); break;
      case 5: OUTPUT_TILE(5, true); break;
      case 4: OUTPUT_TILE(4, true); break;
      case 3: OUTPUT_TILE(3, true); break;
      case 2: OUTPUT_TILE(2, true); break;
      default: OUTPUT_TILE(1, true); break;
    }
  } else {
    switch (rows) {
      case 6: OUTPUT_TILE(6, false); break;
      case 5: OUTPUT_TILE(5, false); break;
      case 4: OUTPUT_TILE(4, false); break;
      case 3: OUTPUT_TILE(3, false); break;
      case 2: OUTPUT_TILE(2, false); break;
      default: OUTPUT_TILE(1, false); break;
    }
  }
#undef OUTPUT_TILE
}

/* Rows [r0, r0 + rows) of batch item (o, i), rows <= BLOCK; kp holds its packed keys.  Each
 * key panel serves the block's tiles in turn, then each tile of v columns does. */
__attribute__((target("avx2,fma"))) static void block_rows(const attention_job *j, int64_t rows, const float *q,
                                                            const float *v, const float *mask, float *out, int64_t r0,
                                                            const float *kp, float *scores) {
  int64_t ld = j->s_pad, panels = j->s_pad / PANEL;
  __m256 rowmax[BLOCK];
  bool limited = mask || j->causal; /* then the max comes after the mask */
  for (int64_t r = 0; r < rows; r++) rowmax[r] = _mm256_set1_ps(-INFINITY);
  for (int64_t p = 0; p < panels; p++)
    for (int64_t t = 0; t < rows; t += ROWS)
      score_tiles(j, rows - t < ROWS ? rows - t : ROWS, q + (r0 + t) * j->qs[2], kp + p * j->e * PANEL,
                  scores + t * ld + p * PANEL, limited ? NULL : rowmax + t, j->s - p * PANEL);
  float inv[BLOCK];
  for (int64_t r = 0; r < rows; r++) {
    float *row = scores + r * ld;
    if (limited) limit_row(j, row, mask ? mask + (r0 + r) * j->ms[2] : NULL, j->causal ? r0 + r : j->s);
    inv[r] = exp_row(row, j->s, limited ? max_row(row, j->s) : lanes_max(rowmax[r]));
  }
  /* keys in chunks that keep the block's probabilities and a tile of v in L1 */
  for (int64_t k0 = 0; k0 < j->s; k0 += KEYS) {
    int64_t keys = j->s - k0 < KEYS ? j->s - k0 : KEYS;
    bool add = k0 > 0, last = k0 + keys == j->s;
    for (int64_t c = 0; c < j->ev; c += PANEL) {
      bool full = c + PANEL <= j->ev;
      __m256i m0 = first_lanes(j->ev - c), m1 = first_lanes(j->ev - c - 8);
      for (int64_t t = 0; t < rows; t += ROWS)
        output_tiles(j, rows - t < ROWS ? rows - t : ROWS, full, scores + t * ld + k0, v + k0 * j->vs[2] + c, keys, m0,
                     m1, out + (r0 + t) * j->os[2] + c, inv + t, add, last);
    }
  }
}

/* The cache lines of `rows` rows of `width` floats, `stride` apart, into L1 ahead of use. */
static void prefetch_rows(const float *x, int64_t rows, int64_t stride, int64_t width) {
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < width; c += 16) __builtin_prefetch(x + r * stride + c, 0, 3);
}

/* What a block of rows fetches ahead for the next batch item: its k and v rows, a share
 * per block (k, v and q come from other layers' writes, mostly beyond L2; a miss in the
 * middle of a tile stalls it). */
typedef struct ahead {
  const float *k, *v; /* NULL: no next batch item */
  int64_t per_block;  /* key rows per block */
} ahead;

static void block_rows16(const attention_job *j, int64_t rows, const float *q, const float *v, const float *mask,
                         float *out, int64_t r0, const float *kp, float *scores);

/* Rows [first, last) of batch item (o, i), in tiles of ROWS. */
__attribute__((target("avx2,fma"))) static void block_avx2(const attention_job *j, const float *q, const float *v,
                                                            const float *mask, float *out, int64_t first, int64_t last,
                                                            const float *kp, float *scores, ahead next) {
  int64_t fetched = 0;
  for (int64_t r = first; r < last; r += BLOCK) {
    int64_t rows = last - r < BLOCK ? last - r : BLOCK;
    if (r + BLOCK < last) /* the next block's queries */
      prefetch_rows(q + (r + BLOCK) * j->qs[2], last - r - BLOCK < BLOCK ? last - r - BLOCK : BLOCK, j->qs[2], j->e);
    if (next.k && fetched < j->s) {
      int64_t n = j->s - fetched < next.per_block ? j->s - fetched : next.per_block;
      prefetch_rows(next.k + fetched * j->ks[2], n, j->ks[2], j->e);
      prefetch_rows(next.v + fetched * j->vs[2], n, j->vs[2], j->ev);
      fetched += n;
    }
    if (j->wide) block_rows16(j, rows, q, v, mask, out, r, kp, scores);
    else block_rows(j, rows, q, v, mask, out, r, kp, scores);
  }
}

/* ---- AVX-512 tiles ------------------------------------------------------------------
 *
 * The same steps in 16 lanes, for libraries built for AVX-512: a score tile spans two key
 * panels (32 keys) and an output tile 32 columns, so each broadcast of a query or a
 * probability feeds two 16-lane FMAs, not two 8-lane ones.  On Zen 4, whose FMA units are
 * 256 bits wide, the FLOPs a cycle are the same; what the 8-lane tiles lose is issue width:
 * 12 FMAs and 8 loads per step of 6 cycles, against 12 and 8 per 12 cycles here (the
 * kernel ran at about 60 GFLOP/s against 117 for oneDNN's products beside it in
 * nn.TransformerEncoderLayer).  Each sum runs over d or over keys in the same order as
 * in the 8-lane tiles, so the outputs are the same bits. */

/* Lanes [0, n) of 16, n clamped to [0, 16]. */
static __mmask16 lanes16(int64_t n) { return (__mmask16)(n <= 0 ? 0 : n >= 16 ? 0xffff : (1u << n) - 1); }

/* score_tile over `panels` (1 or 2) consecutive panels: scores[r][0, 16 * panels). */
__attribute__((target("avx512f"), always_inline)) static inline void score_tile16(int R, int panels, const float *q,
                                                                                    int64_t q_row, int64_t q_col,
                                                                                    const float *panel, int64_t e,
                                                                                    float *scores, int64_t ld,
                                                                                    __m512 scale, __m512 *rowmax,
                                                                                    int64_t valid) {
  __m512 acc[ROWS][2];
  const float *next = panel + e * PANEL;
  for (int r = 0; r < R; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (int64_t d = 0; d < e; d++) {
    __m512 b0 = _mm512_load_ps(panel + d * PANEL), b1 = panels == 2 ? _mm512_load_ps(next + d * PANEL) : b0;
    for (int r = 0; r < R; r++) {
      __m512 a = _mm512_set1_ps(q[r * q_row + d * q_col]);
      acc[r][0] = _mm512_fmadd_ps(a, b0, acc[r][0]);
      if (panels == 2) acc[r][1] = _mm512_fmadd_ps(a, b1, acc[r][1]);
    }
  }
  for (int r = 0; r < R; r++)
    for (int h = 0; h < panels; h++) {
      __m512 y = _mm512_mul_ps(acc[r][h], scale);
      _mm512_store_ps(scores + r * ld + h * PANEL, y);
      /* keys past s (zero-padded) stay out of the max; a NaN score is ignored, as in max_row */
      if (rowmax) rowmax[r] = _mm512_mask_max_ps(rowmax[r], lanes16(valid - h * PANEL), y, rowmax[r]);
    }
}

/* output_tile over `halves` (1 or 2) sets of 16 columns, w <= 16 * halves of them. */
__attribute__((target("avx512f"), always_inline)) static inline void output_tile16(int R, int halves, const float *p,
                                                                                     int64_t ld, const float *v,
                                                                                     int64_t v_row, int64_t s, int64_t w,
                                                                                     float *out, int64_t o_row,
                                                                                     const float *inv, bool add,
                                                                                     bool last) {
  __m512 acc[ROWS][2];
  __mmask16 m[2] = {lanes16(w), lanes16(w - PANEL)};
  for (int r = 0; r < R; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (int64_t key = 0; key < s; key++) {
    const float *vr = v + key * v_row;
    __m512 b0 = _mm512_maskz_loadu_ps(m[0], vr), b1 = halves == 2 ? _mm512_maskz_loadu_ps(m[1], vr + PANEL) : b0;
    for (int r = 0; r < R; r++) {
      __m512 a = _mm512_set1_ps(p[r * ld + key]);
      acc[r][0] = _mm512_fmadd_ps(a, b0, acc[r][0]);
      if (halves == 2) acc[r][1] = _mm512_fmadd_ps(a, b1, acc[r][1]);
    }
  }
  for (int r = 0; r < R; r++)
    for (int h = 0; h < halves; h++) {
      float *o = out + r * o_row + h * PANEL;
      __m512 y = acc[r][h];
      if (add) y = _mm512_add_ps(y, _mm512_maskz_loadu_ps(m[h], o));
      if (last) y = _mm512_mul_ps(y, _mm512_set1_ps(inv[r]));
      if (m[h] == 0xffff) _mm512_storeu_ps(o, y);
      else _mm512_mask_storeu_ps(o, m[h], y);
    }
}

/* score_tile16 and output_tile16 with their row count (rows <= ROWS) and width as constants. */
#define ROW_CASES(CALL)      \
  switch (rows) {            \
    case 6: CALL(6); break;  \
    case 5: CALL(5); break;  \
    case 4: CALL(4); break;  \
    case 3: CALL(3); break;  \
    case 2: CALL(2); break;  \
    default: CALL(1); break; \
  }

__attribute__((target("avx512f"))) static void score_tiles16(const attention_job *j, int64_t rows, int panels,
                                                              const float *q, const float *panel, float *scores,
                                                              __m512 *rowmax, int64_t valid) {
  __m512 k = _mm512_set1_ps(j->scale);
  int64_t qr = j->qs[2], qc = j->qs[3], e = j->e, ld = j->s_pad;
#define SCORE(R)                                                                                         \
  (panels == 2 ? score_tile16(R, 2, q, qr, qc, panel, e, scores, ld, k, rowmax, valid)                   \
               : score_tile16(R, 1, q, qr, qc, panel, e, scores, ld, k, rowmax, valid))
  ROW_CASES(SCORE)
#undef SCORE
}

__attribute__((target("avx512f"))) static void output_tiles16(const attention_job *j, int64_t rows, int64_t w,
                                                               const float *p, const float *v, int64_t keys,
                                                               float *out, const float *inv, bool add, bool last) {
  int64_t ld = j->s_pad, vr = j->vs[2], orow = j->os[2];
#define OUTPUT(R)                                                                        \
  (w > PANEL ? output_tile16(R, 2, p, ld, v, vr, keys, w, out, orow, inv, add, last)     \
             : output_tile16(R, 1, p, ld, v, vr, keys, w, out, orow, inv, add, last))
  ROW_CASES(OUTPUT)
#undef OUTPUT
}
#undef ROW_CASES

/* The largest of 16 lanes (a NaN lane is ignored unless all are). */
__attribute__((target("avx512f"))) static float lanes_max16(__m512 m) {
  float lanes[16], mx = -INFINITY;
  _mm512_storeu_ps(lanes, m);
  for (int t = 0; t < 16; t++) mx = lanes[t] > mx ? lanes[t] : mx;
  return mx;
}

/* block_rows in 16 lanes. */
__attribute__((target("avx512f,avx2,fma"))) static void block_rows16(const attention_job *j, int64_t rows,
                                                                      const float *q, const float *v,
                                                                      const float *mask, float *out, int64_t r0,
                                                                      const float *kp, float *scores) {
  int64_t ld = j->s_pad, panels = j->s_pad / PANEL;
  __m512 rowmax[BLOCK];
  bool limited = mask || j->causal; /* then the max comes after the mask */
  for (int64_t r = 0; r < rows; r++) rowmax[r] = _mm512_set1_ps(-INFINITY);
  for (int64_t p = 0; p < panels; p += 2)
    for (int64_t t = 0; t < rows; t += ROWS)
      score_tiles16(j, rows - t < ROWS ? rows - t : ROWS, panels - p >= 2 ? 2 : 1, q + (r0 + t) * j->qs[2],
                    kp + p * j->e * PANEL, scores + t * ld + p * PANEL, limited ? NULL : rowmax + t, j->s - p * PANEL);
  float inv[BLOCK];
  for (int64_t r = 0; r < rows; r++) {
    float *row = scores + r * ld;
    if (limited) limit_row(j, row, mask ? mask + (r0 + r) * j->ms[2] : NULL, j->causal ? r0 + r : j->s);
    inv[r] = exp_row(row, j->s, limited ? max_row(row, j->s) : lanes_max16(rowmax[r]));
  }
  for (int64_t k0 = 0; k0 < j->s; k0 += KEYS) {
    int64_t keys = j->s - k0 < KEYS ? j->s - k0 : KEYS;
    bool add = k0 > 0, last = k0 + keys == j->s;
    for (int64_t c = 0; c < j->ev; c += 2 * PANEL) {
      int64_t w = j->ev - c < 2 * PANEL ? j->ev - c : 2 * PANEL;
      for (int64_t t = 0; t < rows; t += ROWS)
        output_tiles16(j, rows - t < ROWS ? rows - t : ROWS, w, scores + t * ld + k0, v + k0 * j->vs[2] + c, keys,
                       out + (r0 + t) * j->os[2] + c, inv + t, add, last);
    }
  }
}

/* ---- fewer keys than a panel (nn.MultiheadAttention over a few tokens) ------------- */

/* The lanes [0, w) of 8, as a maskload's mask. */
__attribute__((target("avx2"))) static __m256i lanes8(int64_t w) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(w < 8 ? w : 8)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* The largest lane; a NaN lane is ignored unless all are (then -inf), as lanes_max. */
__attribute__((target("avx2"))) static inline float lanes_max_shuffled(__m256 x) {
  x = _mm256_blendv_ps(x, _mm256_set1_ps(-INFINITY), _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
  __m128 h = _mm_max_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  return _mm_cvtss_f32(_mm_max_ss(h, _mm_movehdup_ps(h)));
}

/* The sum of the lanes. */
__attribute__((target("avx2"))) static inline float lanes_sum(__m256 x) {
  __m128 h = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
  h = _mm_add_ps(h, _mm_movehl_ps(h, h));
  return _mm_cvtss_f32(_mm_add_ss(h, _mm_movehdup_ps(h)));
}

/* k of a batch item with fewer keys than a panel: one panel, zero past s. */
static void pack_few_keys(const attention_job *j, const float *k, float *kp) {
  memset(kp, 0, (size_t)(j->e * PANEL) * sizeof *kp);
  for (int64_t key = 0; key < j->s; key++)
    for (int64_t d = 0; d < j->e; d++) kp[d * PANEL + key] = k[key * j->ks[2] + d * j->ks[3]];
}

/* Rows [r, r + R) when s < 16: the keys are one packed panel, so a row's scores are one
 * vector (two past 8 keys: `halves`), its softmax stays in registers, and its output is s
 * rows of v scaled and added, 8 columns at a time.  R rows go together so that their
 * chains (the products, the exponential's polynomial, the sums) overlap.  The tiles above
 * would compute and walk 16-key panels for a few keys, and the plain loop waited on one
 * addition at a time (the tiny attention's [2, 2, 8, 4] took 2.9 us). */
__attribute__((target("avx2,fma"), always_inline)) static inline void few_keys_rows(int R, int halves,
                                                                                   const attention_job *j,
                                                                                   const float *q, const float *v,
                                                                                   const float *mask, float *out,
                                                                                   int64_t r, const float *kp,
                                                                                   float *scores) {
  const __m256 scale = _mm256_set1_ps(j->scale), none = _mm256_set1_ps(-INFINITY);
  const __m256 in[2] = {_mm256_castsi256_ps(lanes8(j->s)), _mm256_castsi256_ps(lanes8(j->s - 8))};
  __m256 a[4][2], inv[4];
  for (int t = 0; t < R; t++) a[t][0] = a[t][1] = _mm256_setzero_ps();
  for (int64_t d = 0; d < j->e; d++)
    for (int h = 0; h < halves; h++) {
      __m256 kd = _mm256_load_ps(kp + d * PANEL + 8 * h);
      for (int t = 0; t < R; t++)
        a[t][h] = _mm256_fmadd_ps(_mm256_broadcast_ss(q + (r + t) * j->qs[2] + d * j->qs[3]), kd, a[t][h]);
    }
  for (int t = 0; t < R; t++) {
    float *row = scores + t * PANEL;
    for (int h = 0; h < halves; h++) a[t][h] = _mm256_mul_ps(a[t][h], scale);
    if (mask || j->causal) {
      for (int h = 0; h < halves; h++) _mm256_store_ps(row + 8 * h, a[t][h]);
      limit_row(j, row, mask ? mask + (r + t) * j->ms[2] : NULL, j->causal ? r + t : j->s);
      for (int h = 0; h < halves; h++) a[t][h] = _mm256_load_ps(row + 8 * h);
    }
    __m256 m = _mm256_blendv_ps(none, a[t][0], in[0]);
    if (halves == 2) m = _mm256_max_ps(_mm256_blendv_ps(none, a[t][1], in[1]), m); /* a NaN lane keeps m */
    float mx = lanes_max_shuffled(m);
    bool masked_whole = mx == -INFINITY; /* zeros, as torch (exp_row) */
    __m256 shift = _mm256_set1_ps(masked_whole ? 0.0f : mx), sum8 = _mm256_setzero_ps();
    for (int h = 0; h < halves; h++) { /* keys past s give 0 */
      __m256 p = _mm256_and_ps(exp_nonpositive8(_mm256_sub_ps(a[t][h], shift)), in[h]);
      _mm256_store_ps(row + 8 * h, p);
      sum8 = _mm256_add_ps(sum8, p);
    }
    float sum = lanes_sum(sum8);
    if (mx == INFINITY) sum = NAN; /* an infinite score: NaN, as ATen */
    inv[t] = _mm256_set1_ps(masked_whole ? 0.0f : 1.0f / sum); /* float inputs: as (float)(1.0 / sum) */
  }
  for (int64_t c = 0; c < j->ev; c += 8) {
    int64_t w = j->ev - c < 8 ? j->ev - c : 8;
    __m256i cols = lanes8(w);
    __m256 o[4];
    for (int t = 0; t < R; t++) o[t] = _mm256_setzero_ps();
    for (int64_t key = 0; key < j->s; key++) {
      __m256 b = _mm256_maskload_ps(v + key * j->vs[2] + c, cols);
      for (int t = 0; t < R; t++) o[t] = _mm256_fmadd_ps(_mm256_broadcast_ss(scores + t * PANEL + key), b, o[t]);
    }
    for (int t = 0; t < R; t++) {
      float *orow = out + (r + t) * j->os[2] + c, part[8];
      __m256 y = _mm256_mul_ps(o[t], inv[t]);
      if (w == 8) {
        _mm256_storeu_ps(orow, y);
        continue;
      }
      _mm256_storeu_ps(part, y); /* a masked store is microcoded on AMD: a few plain ones instead */
      for (int64_t x = 0; x < w; x++) orow[x] = part[x];
    }
  }
}

/* few_keys_rows over rows [first, last), four at a time, with R and halves as constants. */
__attribute__((target("avx2,fma"))) static void block_few_keys(const attention_job *j, const float *q, const float *v,
                                                                const float *mask, float *out, int64_t first,
                                                                int64_t last, const float *kp, float *scores) {
#define ROWS_OF(R) (j->s > 8 ? few_keys_rows(R, 2, j, q, v, mask, out, r, kp, scores) \
                             : few_keys_rows(R, 1, j, q, v, mask, out, r, kp, scores))
  int64_t r = first;
  for (; r + 4 <= last; r += 4) ROWS_OF(4);
  switch (last - r) {
    case 3: ROWS_OF(3); break;
    case 2: ROWS_OF(2); break;
    case 1: ROWS_OF(1); break;
    default: break;
  }
#undef ROWS_OF
}

/* ---- at most 8 keys: a row in each lane ---------------------------------------------- */

/* Whether few_keys_lanes takes this job: at most 8 keys, q's rows contiguous (as a linear
 * layer leaves them), row numbers and the mask's offsets within 8 rows in 32-bit lanes. */
static bool lanes_fit(const attention_job *j) {
  int64_t most = INT32_MAX / 8;
  return j->s <= 8 && j->qs[3] == 1 && j->l <= most && (!j->mask || (j->ms[2] >= 0 && j->ms[2] <= most));
}

/* Where the lanes' query rows come from: lanes 4 h to 4 h + 3 (half h) are rows first[h]
 * to first[h] + count[h] - 1 of a batch item's q, k, v and out.  Eight rows of one item
 * are its two halves; with at most four rows, two items share the lanes. */
typedef struct lane_rows {
  const float *q[2], *k[2], *v[2];
  float *out[2];
  int64_t first[2], count[2];
} lane_rows;

/* What lane t of half t / 4 holds for one (key, column): a broadcast, or with two items
 * (PAIR) the low half's and the high half's values side by side. */
__attribute__((target("avx2"), always_inline)) static inline __m256 per_half(int PAIR, const float *low,
                                                                            const float *high) {
  if (!PAIR) return _mm256_broadcast_ss(low);
  return _mm256_set_m128(_mm_broadcast_ss(high), _mm_broadcast_ss(low));
}

/* A row of q's we columns (1 to 8) from `row`, the rest zero: up to 4 as a 16-byte load.
 * A row a linear layer has just written arrives from its stores; a load of 32 bytes that
 * spans two of them (the second head's four columns) waits until they reach the cache,
 * and a masked load may not take a store's data at all. */
__attribute__((target("avx2"), always_inline)) static inline __m256 q_row(const float *row, int64_t we, __m256i cols) {
  if (we == 8) return _mm256_loadu_ps(row);
  if (we == 4) return _mm256_zextps128_ps256(_mm_loadu_ps(row));
  return _mm256_maskload_ps(row, cols);
}

/* The first w (1 to 8) floats of v to dst: whole vectors of 8 or 4 as one store, the rest
 * float by float (a masked store is microcoded on AMD). */
__attribute__((target("avx2"), always_inline)) static inline void store_row(float *dst, __m256 v, int64_t w) {
  if (w == 8) {
    _mm256_storeu_ps(dst, v);
    return;
  }
  int64_t x = 0;
  if (w >= 4) _mm_storeu_ps(dst, _mm256_castps256_ps128(v)), v = _mm256_permute2f128_ps(v, v, 0x01), x = 4;
  float part[4];
  _mm_storeu_ps(part, _mm256_castps256_ps128(v));
  for (; x < w; x++) dst[x] = part[x % 4];
}

/* Four floats of each of two rows (n of them, 1 to 4, the rest zero): the low half's from
 * `low`, the high half's from `high`. */
__attribute__((target("avx2"), always_inline)) static inline __m256 two_rows4(const float *low, const float *high,
                                                                             int64_t n) {
  if (n >= 4) return _mm256_set_m128(_mm_loadu_ps(high), _mm_loadu_ps(low));
  __m128i in = _mm_cmpgt_epi32(_mm_set1_epi32((int)n), _mm_setr_epi32(0, 1, 2, 3));
  return _mm256_set_m128(_mm_maskload_ps(high, in), _mm_maskload_ps(low, in));
}

/* Element x (a constant, 0 to 3) of each 128-bit half, in every lane of that half. */
__attribute__((target("avx2"), always_inline)) static inline __m256 each_half_lane(__m256 v, int x) {
  switch (x) {
    case 0: return _mm256_permute_ps(v, 0x00);
    case 1: return _mm256_permute_ps(v, 0x55);
    case 2: return _mm256_permute_ps(v, 0xAA);
    default: return _mm256_permute_ps(v, 0xFF);
  }
}

/* Up to 8 query rows with S <= 8 keys, a row a lane (lane_rows).  A key's scores for the
 * eight rows are one vector, so the softmax's maximum, exponentials, sum and division go
 * across S vectors, lane by lane, without one horizontal step; the output's columns come
 * out as vectors over the rows and are transposed eight at a time, as are the rows of q;
 * each key's k and v are read as broadcasts.  A group of rows is about 130 instructions,
 * where few_keys_rows took about 300 for four rows and waited on each row's horizontal
 * maximum, sum and division in turn: the tiny attention's four items of four rows (4 keys)
 * took 320 ns there.  With PAIR two items of at most four rows share a group, which halves
 * the groups, and so the chains of dependent steps, for a few more instructions per key
 * (no mask then: its rows would be two gathers' worth).  S and PAIR are constants where
 * this is inlined. */
__attribute__((target("avx2,fma"), always_inline)) static inline void few_keys_lanes(int S, int PAIR,
                                                                                    const attention_job *j,
                                                                                    const lane_rows *lr,
                                                                                    const float *mask) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256 none = _mm256_set1_ps(-INFINITY);
  const lane_rows held = *lr; /* a copy: read through lr, the fields were loaded again after every store */
  lr = &held;
  const int64_t rows = lr->count[0] + lr->count[1];
  __m256 score[8];
#pragma GCC unroll 8
  for (int key = 0; key < S; key++) score[key] = _mm256_setzero_ps();
  for (int64_t d0 = 0; d0 < j->e; d0 += 8) {
    /* qd[d]: q's column d0 + d over the rows, its rows loaded and transposed (a gather a
     * column cost 17% of this kernel on Zen 4) */
    int64_t we = j->e - d0 < 8 ? j->e - d0 : 8;
    __m256i cols = lanes8(we);
    __m256 qd[8];
#pragma GCC unroll 8
    for (int t = 0; t < 8; t++) { /* one item's rows in a row: no halves to tell apart (20% on long runs) */
      int h = t / 4;
      const float *qr = PAIR ? lr->q[h] + (lr->first[h] + t % 4) * j->qs[2] + d0 : lr->q[0] + (lr->first[0] + t) * j->qs[2] + d0;
      bool in = PAIR ? t % 4 < lr->count[h] : t < rows;
      qd[t] = !in ? _mm256_setzero_ps() : q_row(qr, we, cols);
    }
    transpose8(qd);
    /* d to the constant 8: qd and score indexed by a variable lived on the stack, stored
     * at every step */
    if (PAIR && j->ks[3] == 1) {
      /* each key's 4 columns of both items in one vector, a column spread over its half by
       * an in-lane permutation: 2 loads and a permutation per 4 columns and key, where a
       * column's two broadcasts and their join (per_half) were 3 instructions */
#pragma GCC unroll 2
      for (int d4 = 0; d4 < 8; d4 += 4) {
        if (d4 >= we) break;
#pragma GCC unroll 8
        for (int key = 0; key < S; key++) {
          int64_t at = key * j->ks[2] + d0 + d4;
          __m256 kk = two_rows4(lr->k[0] + at, lr->k[1] + at, we - d4);
#pragma GCC unroll 4
          for (int d = 0; d < 4; d++) {
            if (d4 + d >= we) break;
            score[key] = _mm256_fmadd_ps(qd[d4 + d], each_half_lane(kk, d), score[key]);
          }
        }
      }
      continue;
    }
#pragma GCC unroll 8
    for (int d = 0; d < 8; d++) {
      if (d >= we) break;
#pragma GCC unroll 8
      for (int key = 0; key < S; key++) {
        int64_t at = key * j->ks[2] + (d0 + d) * j->ks[3];
        score[key] = _mm256_fmadd_ps(qd[d], per_half(PAIR, lr->k[0] + at, lr->k[1] + at), score[key]);
      }
    }
  }
  const __m256 scale = _mm256_set1_ps(j->scale);
  /* one item's rows from first[0] on, 8 in a row (lanes_fit keeps them in 32 bits) */
  const __m256i m_rows = mask ? _mm256_mullo_epi32(lane, _mm256_set1_epi32((int)j->ms[2])) : _mm256_setzero_si256();
  const __m256 live = _mm256_castsi256_ps(lanes8(rows));
  const __m256i row = _mm256_add_epi32(_mm256_and_si256(lane, _mm256_set1_epi32(3)),
                                       _mm256_setr_m128i(_mm_set1_epi32((int)lr->first[0]), _mm_set1_epi32((int)lr->first[1])));
  __m256 top = none;
#pragma GCC unroll 8
  for (int key = 0; key < S; key++) {
    score[key] = _mm256_mul_ps(score[key], scale);
    if (!PAIR && mask)
      score[key] = _mm256_add_ps(score[key], _mm256_mask_i32gather_ps(_mm256_setzero_ps(),
                                                                     mask + lr->first[0] * j->ms[2] + key * j->ms[3],
                                                                     m_rows, live, 4));
    if (j->causal) /* keys past the row's own: -inf */
      score[key] = _mm256_blendv_ps(score[key], none, _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(key), row)));
    top = _mm256_max_ps(score[key], top); /* a NaN score keeps top, as lanes_max */
  }
  __m256 sum = _mm256_setzero_ps();
  /* a row masked whole (top = -inf) gives zeros, as torch (exp_row); an infinite score
   * leaves inf - inf = NaN among the exponentials, so its outputs are NaN, as ATen's */
  const __m256 whole = _mm256_cmp_ps(top, none, _CMP_EQ_OQ);
  top = _mm256_andnot_ps(whole, top);
#pragma GCC unroll 8
  for (int key = 0; key < S; key++) {
    score[key] = exp_nonpositive8(_mm256_sub_ps(score[key], top));
    sum = _mm256_add_ps(sum, score[key]);
  }
  __m256 inv = _mm256_andnot_ps(whole, _mm256_div_ps(_mm256_set1_ps(1.0f), sum));
  for (int64_t c = 0; c < j->ev; c += 8) {
    int64_t w = j->ev - c < 8 ? j->ev - c : 8;
    __m256 col[8];
#pragma GCC unroll 8
    for (int x = 0; x < 8; x++) col[x] = _mm256_setzero_ps();
    if (PAIR) { /* each key's 4 columns of v for both items in one vector, as k's above */
#pragma GCC unroll 2
      for (int x4 = 0; x4 < 8; x4 += 4) {
        if (x4 >= w) break;
#pragma GCC unroll 8
        for (int key = 0; key < S; key++) {
          int64_t at = key * j->vs[2] + c + x4;
          __m256 vv = two_rows4(lr->v[0] + at, lr->v[1] + at, w - x4);
#pragma GCC unroll 4
          for (int x = 0; x < 4; x++)
            if (x4 + x < w) col[x4 + x] = _mm256_fmadd_ps(score[key], each_half_lane(vv, x), col[x4 + x]);
        }
      }
    } else {
#pragma GCC unroll 8
      for (int x = 0; x < 8; x++) {
        if (x >= w) continue;
#pragma GCC unroll 8
        for (int key = 0; key < S; key++) {
          int64_t at = key * j->vs[2] + c + x;
          col[x] = _mm256_fmadd_ps(score[key], per_half(PAIR, lr->v[0] + at, lr->v[1] + at), col[x]);
        }
      }
    }
#pragma GCC unroll 8
    for (int x = 0; x < 8; x++) col[x] = _mm256_mul_ps(col[x], inv);
    transpose8(col); /* col[t]: lane t's row, 8 columns */
#pragma GCC unroll 8
    for (int t = 0; t < 8; t++) {
      int h = t / 4;
      if (PAIR ? t % 4 >= lr->count[h] : t >= rows) continue;
      float *orow = PAIR ? lr->out[h] + (lr->first[h] + t % 4) * j->os[2] + c : lr->out[0] + (lr->first[0] + t) * j->os[2] + c;
      store_row(orow, col[t], w);
    }
  }
}

#define WITH_KEYS(PAIR)                                                                                              \
  switch (j->s) {                                                                                                    \
    case 1: few_keys_lanes(1, PAIR, j, lr, mask); break;                                                             \
    case 2: few_keys_lanes(2, PAIR, j, lr, mask); break;                                                             \
    case 3: few_keys_lanes(3, PAIR, j, lr, mask); break;                                                             \
    case 4: few_keys_lanes(4, PAIR, j, lr, mask); break;                                                             \
    case 5: few_keys_lanes(5, PAIR, j, lr, mask); break;                                                             \
    case 6: few_keys_lanes(6, PAIR, j, lr, mask); break;                                                             \
    case 7: few_keys_lanes(7, PAIR, j, lr, mask); break;                                                             \
    default: few_keys_lanes(8, PAIR, j, lr, mask); break;                                                            \
  }

/* Two items of at most four rows each, with S as a constant. */
__attribute__((target("avx2,fma"))) static void lanes_pair(const attention_job *j, const lane_rows *lr) {
  const float *mask = NULL;
  WITH_KEYS(1)
}

/* Rows [first, last) of one batch item, eight at a time, with S as a constant. */
__attribute__((target("avx2,fma"))) static void block_few_keys_lanes(const attention_job *j, const float *q,
                                                                      const float *k, const float *v, const float *mask,
                                                                      float *out, int64_t first, int64_t last) {
  for (int64_t r = first; r < last; r += 8) {
    int64_t n = last - r < 8 ? last - r : 8;
    lane_rows group = {{q, q}, {k, k}, {v, v}, {out, out}, {r, r + 4}, {n < 4 ? n : 4, n > 4 ? n - 4 : 0}};
    const lane_rows *lr = &group;
    WITH_KEYS(0)
  }
}
#undef WITH_KEYS

/* ---- four items of at most four rows: a row in each of 16 lanes (AVX-512) ------------ */

/* Four items' q, k, v and out, at most four rows each (j->l), the same rows of each: lane t
 * of a 16-lane vector is row t % 4 of item t / 4. */
typedef struct quad_rows {
  const float *q[4], *k[4], *v[4];
  float *out[4];
} quad_rows;

/* Four floats from each item's p[i] + at (n of them, 1 to 4; the rest zero), item i's in
 * lanes 4 i to 4 i + 3. */
__attribute__((target("avx512f,avx2,fma"), always_inline)) static inline __m512 four_rows4(const float *const *p,
                                                                                         int64_t at, int64_t n) {
  __m128 r[4];
  __m128i in = _mm_cmpgt_epi32(_mm_set1_epi32((int)n), _mm_setr_epi32(0, 1, 2, 3));
  for (int i = 0; i < 4; i++) r[i] = n >= 4 ? _mm_loadu_ps(p[i] + at) : _mm_maskload_ps(p[i] + at, in);
  __m512 v = _mm512_castps128_ps512(r[0]);
  v = _mm512_insertf32x4(v, r[1], 1);
  v = _mm512_insertf32x4(v, r[2], 2);
  return _mm512_insertf32x4(v, r[3], 3);
}

/* Element x (a constant, 0 to 3) of each 128-bit quarter, in every lane of that quarter. */
__attribute__((target("avx512f"), always_inline)) static inline __m512 each_quarter_lane(__m512 v, int x) {
  switch (x) {
    case 0: return _mm512_permute_ps(v, 0x00);
    case 1: return _mm512_permute_ps(v, 0x55);
    case 2: return _mm512_permute_ps(v, 0xAA);
    default: return _mm512_permute_ps(v, 0xFF);
  }
}

/* Two 8-lane vectors as one of 16 (lo in lanes 0-7). */
__attribute__((target("avx512f"), always_inline)) static inline __m512 join16(__m256 lo, __m256 hi) {
  return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(lo)), _mm256_castps_pd(hi), 1));
}

/* Four items' scores over S keys in 16 lanes (lane t: item t / 4's row t % 4), in place:
 * scaled, limited where causal, less the row's maximum, exponentials; returns 1 / their sum. */
__attribute__((target("avx512f,avx2,fma"), always_inline)) static inline __m512 quad_softmax(int S, const attention_job *j,
                                                                                           __m512 *score) {
  const __m512 none = _mm512_set1_ps(-INFINITY), scale = _mm512_set1_ps(j->scale);
  const __m512i row = _mm512_and_si512(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                       _mm512_set1_epi32(3));
  __m512 top = none;
#pragma GCC unroll 8
  for (int key = 0; key < S; key++) {
    score[key] = _mm512_mul_ps(score[key], scale);
    if (j->causal) /* keys past the row's own: -inf */
      score[key] = _mm512_mask_blend_ps(_mm512_cmpgt_epi32_mask(_mm512_set1_epi32(key), row), score[key], none);
    top = _mm512_max_ps(score[key], top); /* a NaN score keeps top, as lanes_max */
  }
  const __mmask16 whole = _mm512_cmp_ps_mask(top, none, _CMP_EQ_OQ); /* zeros, as torch (exp_row) */
  top = _mm512_mask_blend_ps(whole, top, _mm512_setzero_ps());
#pragma GCC unroll 8
  for (int key = 0; key < S; key++) score[key] = exp_nonpositive16(_mm512_sub_ps(score[key], top));
  /* the sum from the first key's term: 0 + e is e for every e >= 0 (or NaN), one add less
   * on the chain, the same bits as the other paths' sums from 0 */
  __m512 sum = score[0];
#pragma GCC unroll 8
  for (int key = 1; key < S; key++) sum = _mm512_add_ps(sum, score[key]);
  return _mm512_mask_blend_ps(whole, _mm512_div_ps(_mm512_set1_ps(1.0f), sum), _mm512_setzero_ps());
}

/* few_keys_lanes with PAIR for four items at once in 16 lanes, k's columns contiguous: the
 * two pairs' chains of dependent steps (scores, maximum, exponentials, sum, division,
 * output) become one, each step on both halves of an AVX-512 vector.  q's rows are
 * transposed 8 at a time and joined; k's and v's rows for the four items are read 4
 * columns at a time, one per quarter, as few_keys_lanes's PAIR reads two. */
__attribute__((target("avx512f,avx2,fma"), always_inline)) static inline void few_keys_quad(int S, const attention_job *j,
                                                                                          const quad_rows *qr_in) {
  const quad_rows qr = *qr_in; /* a copy: read through the pointer, the fields were loaded again after every store */
  const int64_t rows = j->l;
  __m512 score[8];
#pragma GCC unroll 8
  for (int key = 0; key < S; key++) score[key] = _mm512_setzero_ps();
  for (int64_t d0 = 0; d0 < j->e; d0 += 8) {
    int64_t we = j->e - d0 < 8 ? j->e - d0 : 8;
    __m256i cols = lanes8(we);
    __m256 half[2][8]; /* items 0-1, then 2-3: 8 rows each, transposed */
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
#pragma GCC unroll 8
      for (int t = 0; t < 8; t++) {
        const float *row = qr.q[2 * h + t / 4] + (t % 4) * j->qs[2] + d0;
        half[h][t] = t % 4 >= rows ? _mm256_setzero_ps() : q_row(row, we, cols);
      }
      transpose8(half[h]);
    }
#pragma GCC unroll 2
    for (int d4 = 0; d4 < 8; d4 += 4) {
      if (d4 >= we) break;
#pragma GCC unroll 8
      for (int key = 0; key < S; key++) {
        __m512 kk = four_rows4(qr.k, key * j->ks[2] + d0 + d4, we - d4);
#pragma GCC unroll 4
        for (int d = 0; d < 4; d++) {
          if (d4 + d >= we) break;
          score[key] = _mm512_fmadd_ps(join16(half[0][d4 + d], half[1][d4 + d]), each_quarter_lane(kk, d), score[key]);
        }
      }
    }
  }
  __m512 inv = quad_softmax(S, j, score);
  for (int64_t c = 0; c < j->ev; c += 8) {
    int64_t w = j->ev - c < 8 ? j->ev - c : 8;
    __m512 col[8];
#pragma GCC unroll 8
    for (int x = 0; x < 8; x++) col[x] = _mm512_setzero_ps();
#pragma GCC unroll 2
    for (int x4 = 0; x4 < 8; x4 += 4) {
      if (x4 >= w) break;
#pragma GCC unroll 8
      for (int key = 0; key < S; key++) {
        __m512 vv = four_rows4(qr.v, key * j->vs[2] + c + x4, w - x4);
#pragma GCC unroll 4
        for (int x = 0; x < 4; x++)
          if (x4 + x < w) col[x4 + x] = _mm512_fmadd_ps(score[key], each_quarter_lane(vv, x), col[x4 + x]);
      }
    }
    __m256 out[2][8];
#pragma GCC unroll 8
    for (int x = 0; x < 8; x++) {
      __m512 y = _mm512_mul_ps(col[x], inv);
      out[0][x] = _mm512_castps512_ps256(y);
      out[1][x] = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(y), 1));
    }
#pragma GCC unroll 2
    for (int h = 0; h < 2; h++) {
      transpose8(out[h]); /* out[h][t]: lane t's row, 8 columns */
#pragma GCC unroll 8
      for (int t = 0; t < 8; t++) {
        if (t % 4 >= rows) continue;
        store_row(qr.out[2 * h + t / 4] + (t % 4) * j->os[2] + c, out[h][t], w);
      }
    }
  }
}

/* Whether four consecutive items go to few_keys_quad: AVX-512 (the library built for it),
 * at most 8 keys (lanes_fit) and 4 rows, whole items, no mask, k's columns contiguous. */
static bool quads_fit(const attention_job *j) {
  return j->wide && lanes_fit(j) && j->chunks == 1 && j->l <= 4 && !j->mask && j->ks[3] == 1;
}

/* Four 16-lane vectors transposed within each 128-bit quarter: out[c] lane 4 i + r is in[r]
 * lane 4 i + c (unpack pairs, then pairs of pairs: eight in-lane shuffles). */
__attribute__((target("avx512f"), always_inline)) static inline void transpose_quarters(const __m512 in[4], __m512 out[4]) {
  __m512 a = _mm512_unpacklo_ps(in[0], in[1]), b = _mm512_unpackhi_ps(in[0], in[1]);
  __m512 c = _mm512_unpacklo_ps(in[2], in[3]), d = _mm512_unpackhi_ps(in[2], in[3]);
  out[0] = _mm512_shuffle_ps(a, c, 0x44), out[1] = _mm512_shuffle_ps(a, c, 0xEE);
  out[2] = _mm512_shuffle_ps(b, d, 0x44), out[3] = _mm512_shuffle_ps(b, d, 0xEE);
}

/* few_keys_quad for heads of at most 4 columns (q, k and v; an 8-wide model's two heads):
 * the same arithmetic in the same order, so the same bits, with a quarter's transposes in
 * place of 8 x 8 ones.  q's row r of the four items is read into one vector (item i's 4
 * columns in quarter i), four of them transposed within quarters give column d of every
 * lane; the output goes back the same way, a quarter per item and row. */
__attribute__((target("avx512f,avx2,fma"), always_inline)) static inline void few_keys_quad4(int S, const attention_job *j,
                                                                                           const quad_rows *qr_in) {
  const quad_rows qr = *qr_in;
  const int64_t rows = j->l, e = j->e, ev = j->ev;
  __m512 q_rows[4], q_col[4], score[8];
#pragma GCC unroll 4
  for (int r = 0; r < 4; r++) q_rows[r] = r < rows ? four_rows4(qr.q, r * j->qs[2], e) : _mm512_setzero_ps();
  transpose_quarters(q_rows, q_col);
#pragma GCC unroll 8
  for (int key = 0; key < S; key++) {
    __m512 kk = four_rows4(qr.k, key * j->ks[2], e);
    /* the first product alone where the other paths add it to 0: only a zero's sign can
     * differ, which the maximum's subtraction and the exponential do not see */
    score[key] = _mm512_mul_ps(q_col[0], each_quarter_lane(kk, 0));
#pragma GCC unroll 4
    for (int d = 1; d < 4; d++)
      if (d < e) score[key] = _mm512_fmadd_ps(q_col[d], each_quarter_lane(kk, d), score[key]);
  }
  __m512 inv = quad_softmax(S, j, score);
  __m512 col[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()}, out[4];
#pragma GCC unroll 8
  for (int key = 0; key < S; key++) {
    __m512 vv = four_rows4(qr.v, key * j->vs[2], ev);
#pragma GCC unroll 4
    for (int x = 0; x < 4; x++)
      if (x < ev) col[x] = _mm512_fmadd_ps(score[key], each_quarter_lane(vv, x), col[x]);
  }
#pragma GCC unroll 4
  for (int x = 0; x < 4; x++) col[x] = _mm512_mul_ps(col[x], inv);
  transpose_quarters(col, out); /* out[r] quarter i: item i's row r */
#pragma GCC unroll 4
  for (int r = 0; r < 4; r++) {
    if (r >= rows) break;
    __m128 quarter[4] = {_mm512_castps512_ps128(out[r]), _mm512_extractf32x4_ps(out[r], 1),
                         _mm512_extractf32x4_ps(out[r], 2), _mm512_extractf32x4_ps(out[r], 3)};
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
      float *dst = qr.out[i] + r * j->os[2];
      if (ev == 4) {
        _mm_storeu_ps(dst, quarter[i]);
        continue;
      }
      float part[4]; /* fewer: float by float (a masked store is microcoded on AMD) */
      _mm_storeu_ps(part, quarter[i]);
      for (int64_t x = 0; x < ev; x++) dst[x] = part[x];
    }
  }
}

/* Four items, with S as a constant. */
#define QUAD_WITH_KEYS(FN)                                                                                           \
  switch (j->s) {                                                                                                    \
    case 1: FN(1, j, qr); break;                                                                                     \
    case 2: FN(2, j, qr); break;                                                                                     \
    case 3: FN(3, j, qr); break;                                                                                     \
    case 4: FN(4, j, qr); break;                                                                                     \
    case 5: FN(5, j, qr); break;                                                                                     \
    case 6: FN(6, j, qr); break;                                                                                     \
    case 7: FN(7, j, qr); break;                                                                                     \
    default: FN(8, j, qr); break;                                                                                    \
  }
__attribute__((target("avx512f,avx2,fma"))) static void lanes_quad(const attention_job *j, const quad_rows *qr) {
  if (j->e <= 4 && j->ev <= 4) {
    QUAD_WITH_KEYS(few_keys_quad4)
  } else {
    QUAD_WITH_KEYS(few_keys_quad)
  }
}
#undef QUAD_WITH_KEYS

/* ---- without AVX2: the same steps, one row at a time -------------------------------- */

static void block_plain(const attention_job *j, const float *q, const float *k, const float *v, const float *mask,
                        float *out, int64_t first, int64_t last, float *scores) {
  for (int64_t r = first; r < last; r++) {
    const float *qr = q + r * j->qs[2];
    float mx = -INFINITY;
    for (int64_t c = 0; c < j->s; c++) {
      float acc = 0;
      for (int64_t d = 0; d < j->e; d++) acc += qr[d * j->qs[3]] * k[c * j->ks[2] + d * j->ks[3]];
      scores[c] = acc * j->scale;
    }
    if (mask || j->causal) limit_row(j, scores, mask ? mask + r * j->ms[2] : NULL, j->causal ? r : j->s);
    for (int64_t c = 0; c < j->s; c++) mx = scores[c] > mx ? scores[c] : mx;
    bool whole = mx == -INFINITY; /* masked whole: zeros, as torch (exp_row) */
    double sum = 0;
    for (int64_t c = 0; c < j->s; c++) sum += (scores[c] = whole ? 0.0f : expf(scores[c] - mx));
    float inv = whole ? 0.0f : (float)(1.0 / sum);
    float *orow = out + r * j->os[2];
    for (int64_t c = 0; c < j->ev; c++) {
      float acc = 0;
      for (int64_t key = 0; key < j->s; key++) acc += scores[key] * v[key * j->vs[2] + c];
      orow[c] = acc * inv;
    }
  }
}

/* Where a work item is: batch item b = o inner + i, and its chunk of rows.  Found by
 * division for a slot's first item, then stepped: the divisions per item (up to 40 cycles
 * each) were a tenth of the tiny attention's kernel. */
typedef struct item_at {
  int64_t b, chunk, o, i;
} item_at;

static item_at item_position(const attention_job *j, int64_t it) {
  if (it == 0) return (item_at){0, 0, 0, 0}; /* one slot's first item: no division */
  item_at at = {it / j->chunks, it % j->chunks, 0, 0};
  at.o = at.b / j->inner, at.i = at.b % j->inner;
  return at;
}

static void next_item(const attention_job *j, item_at *at) {
  if (++at->chunk < j->chunks) return;
  at->chunk = 0, at->b++;
  if (++at->i < j->inner) return;
  at->i = 0, at->o++;
}

/* Slot t's share of the work items: whole batch items, or blocks of their rows. */
static void run_slots(void *arg, int64_t begin, int64_t end) {
  const attention_job *j = arg;
  int avx2 = sc_rt_has_avx2(), lanes = lanes_fit(j), quads = avx2 && quads_fit(j);
  for (int64_t t = begin; t < end; t++) {
    float *kp = (float *)(j->scratch + t * j->slot_bytes);
    float *scores = (float *)((char *)kp + keys_bytes(j->s, j->e));
    int64_t first = j->slots == 1 ? 0 : t * j->items / j->slots;
    const float *packed = NULL; /* the keys kp holds */
    int64_t last = j->slots == 1 ? j->items : (t + 1) * j->items / j->slots;
    item_at at = item_position(j, first);
    for (int64_t it = first; it < last; it++, next_item(j, &at)) {
      int64_t b = at.b, o = at.o, i = at.i;
      int64_t r0 = at.chunk * j->chunk_rows, r1 = r0 + j->chunk_rows < j->l ? r0 + j->chunk_rows : j->l;
      const float *q = j->q + o * j->qs[0] + i * j->qs[1], *k = j->k + o * j->ks[0] + kv_head(j, i) * j->ks[1];
      const float *v = j->v + o * j->vs[0] + kv_head(j, i) * j->vs[1];
      const float *mask = j->mask ? j->mask + o * j->ms[0] + i * j->ms[1] : NULL;
      float *out = j->out + o * j->os[0] + i * j->os[1];
      if (!avx2) {
        block_plain(j, q, k, v, mask, out, r0, r1, scores);
        continue;
      }
      item_at after = at; /* the next item */
      next_item(j, &after);
      if (quads && it + 3 < last) { /* this item and the next three */
        quad_rows qr;
        item_at each = at;
        for (int n = 0; n < 4; n++, next_item(j, &each)) {
          qr.q[n] = j->q + each.o * j->qs[0] + each.i * j->qs[1], qr.k[n] = j->k + each.o * j->ks[0] + kv_head(j, each.i) * j->ks[1];
          qr.v[n] = j->v + each.o * j->vs[0] + kv_head(j, each.i) * j->vs[1], qr.out[n] = j->out + each.o * j->os[0] + each.i * j->os[1];
        }
        lanes_quad(j, &qr);
        it += 3; /* the loop steps past the fourth */
        for (int n = 0; n < 3; n++) next_item(j, &at);
        continue;
      }
      if (lanes && j->chunks == 1 && j->l <= 4 && !mask && it + 1 < last) { /* this item and the next */
        int64_t o2 = after.o, i2 = after.i;
        lane_rows lr = {{q, j->q + o2 * j->qs[0] + i2 * j->qs[1]},
                        {k, j->k + o2 * j->ks[0] + kv_head(j, i2) * j->ks[1]},
                        {v, j->v + o2 * j->vs[0] + kv_head(j, i2) * j->vs[1]},
                        {out, j->out + o2 * j->os[0] + i2 * j->os[1]},
                        {0, 0},
                        {j->l, j->l}};
        lanes_pair(j, &lr);
        it++, at = after;
        continue;
      }
      if (lanes) {
        block_few_keys_lanes(j, q, k, v, mask, out, r0, r1);
        continue;
      }
      if (j->s < PANEL) {
        if (packed != k) pack_few_keys(j, k, kp);
        packed = k;
        block_few_keys(j, q, v, mask, out, r0, r1, kp, scores);
        continue;
      }
      if (packed != k) { /* consecutive items that read the same keys (a batch item's row blocks, the heads of
                          * a group) pack them once */
        pack_keys(j, k, kp);
        packed = k;
      }
      ahead next = {NULL, NULL, 0};
      if (it + 1 < last && after.b != b) { /* the next item starts another batch item */
        next.k = j->k + after.o * j->ks[0] + kv_head(j, after.i) * j->ks[1];
        next.v = j->v + after.o * j->vs[0] + kv_head(j, after.i) * j->vs[1];
        int64_t blocks = (r1 - r0 + BLOCK - 1) / BLOCK;
        next.per_block = (j->s + blocks - 1) / blocks;
      }
      block_avx2(j, q, v, mask, out, r0, r1, kp, scores, next);
    }
  }
}

/* How many keys count: one past the last key whose mask is not -inf in some query row.
 * A decoder with a static cache attends to all of its positions, masked past the filled
 * ones: GPT-2-small's decode step at context 128 read the 896 empty positions of its
 * 1024-position cache too (6 of its 26 ms).  The keys dropped are those every row gives
 * weight exactly 0, so the rows' sums and products are the same numbers; rows masked
 * everywhere leave none, and give zeros, as before.  Batch and head levels the mask
 * broadcasts over (stride 0) are read once; a row is read from its end until a key that
 * counts, or one already counted. */
static int64_t keys_that_count(const attention_job *j) {
  int64_t end = 0, outer = j->ms[0] ? j->outer : 1, inner = j->ms[1] ? j->inner : 1;
  for (int64_t o = 0; o < outer && end < j->s; o++)
    for (int64_t i = 0; i < inner && end < j->s; i++)
      for (int64_t r = 0; r < j->l && end < j->s; r++) {
        const float *row = j->mask + o * j->ms[0] + i * j->ms[1] + r * j->ms[2];
        for (int64_t key = j->s - 1; key >= end; key--)
          if (row[key * j->ms[3]] != -INFINITY) {
            end = key + 1;
            break;
          }
      }
  return end;
}

void sc_k_attention_f32(const float *q, const float *k, const float *v, const float *mask, float *out,
                        const int64_t *dims, const int64_t *strides, double scale, int32_t flags, void *scratch,
                        int64_t scratch_bytes) {
  /* field by field, every one set below: an initializer zeroed the whole job first (a `rep
   * stos`, a quarter of this function in the tiny attention) */
  attention_job j;
  j.q = q, j.k = k, j.v = v, j.mask = mask, j.out = out;
  j.outer = dims[0], j.inner = dims[1], j.l = dims[2], j.s = dims[3], j.e = dims[4], j.ev = dims[5];
  j.scale = (float)scale, j.causal = (flags & SC_ATTENTION_CAUSAL) != 0;
  j.group = flags >> SC_ATTENTION_GROUP_SHIFT > 1 ? flags >> SC_ATTENTION_GROUP_SHIFT : 1;
  memcpy(j.qs, strides, 4 * sizeof *strides);
  memcpy(j.ks, strides + 4, 4 * sizeof *strides);
  memcpy(j.vs, strides + 8, 3 * sizeof *strides);
  memcpy(j.os, strides + 11, 3 * sizeof *strides);
  memcpy(j.ms, strides + 14, 4 * sizeof *strides);
  int64_t batch = j.outer * j.inner;
  if (batch <= 0 || j.l <= 0 || j.ev <= 0) return;
  if (mask && j.s > 0) j.s = keys_that_count(&j);
  if (j.s <= 0) { /* no keys (or every one masked): an empty product, zeros, as in ATen */
    for (int64_t b = 0; b < batch; b++)
      for (int64_t r = 0; r < j.l; r++)
        memset(out + b / j.inner * j.os[0] + b % j.inner * j.os[1] + r * j.os[2], 0, (size_t)j.ev * sizeof *out);
    return;
  }
  j.s_pad = round_up(j.s, PANEL);
  j.wide = sc_rt_has_avx512();
  j.slot_bytes = slot_bytes(j.s, j.e);
  j.scratch = (char *)round_up((int64_t)(uintptr_t)scratch, ALIGN);
  /* (one thread, one slot: none of the divisions below, which showed in a tiny call) */
  int64_t threads = sc_rt_num_threads(), slots = threads == 1 ? 1 : (scratch_bytes - ALIGN) / j.slot_bytes;
  if (slots > threads) slots = threads;
  if (slots < 1) slots = 1; /* the caller sized the scratch for at least one */
  /* enough work items that every slot has two: blocks of rows when the batch is small */
  int64_t chunks = batch >= 2 * slots ? 1 : (2 * slots + batch - 1) / batch;
  j.chunk_rows = round_up(chunks == 1 ? j.l : (j.l + chunks - 1) / chunks, ROWS);
  j.chunks = chunks == 1 ? 1 : (j.l + j.chunk_rows - 1) / j.chunk_rows;
  j.items = batch * j.chunks;
  j.slots = slots < j.items ? slots : j.items;
  sc_rt_parallel_for(run_slots, &j, j.slots, 1);
}

/* A tiny call (a small model's heads): its items four at a time through lanes_quad on the
 * calling thread, with no scratch and none of sc_k_attention_f32's set-up, which cost as
 * much as the arithmetic (the entry takes this before it asks for scratch).  Such a call's
 * work is too short to share with another thread.  0 when the call is not such: the
 * caller then takes sc_k_attention_f32, with the same bits (its paths compute alike). */
enum { TINY_MACS = 16384 }; /* the call's multiply-adds at most */
int sc_k_attention_tiny_f32(const float *q, const float *k, const float *v, const float *mask, float *out,
                            const int64_t *dims, const int64_t *strides, double scale, int32_t flags) {
  attention_job j;
  j.outer = dims[0], j.inner = dims[1], j.l = dims[2], j.s = dims[3], j.e = dims[4], j.ev = dims[5];
  int64_t batch = j.outer * j.inner; /* the entry's sizes: each fits, and so does their product */
  if (mask || batch <= 0 || batch % 4 || j.l < 1 || j.l > 4 || j.s < 1 || j.s > 8 || j.e < 1 || j.e > 64 ||
      j.ev < 1 || j.ev > 64 || batch > TINY_MACS / (j.l * j.s * (j.e + j.ev)) || !sc_rt_has_avx512() || !sc_rt_has_avx2())
    return 0;
  j.q = q, j.k = k, j.v = v, j.mask = NULL, j.out = out;
  j.scale = (float)scale, j.causal = (flags & SC_ATTENTION_CAUSAL) != 0;
  j.group = flags >> SC_ATTENTION_GROUP_SHIFT > 1 ? flags >> SC_ATTENTION_GROUP_SHIFT : 1;
  memcpy(j.qs, strides, 4 * sizeof *strides);
  memcpy(j.ks, strides + 4, 4 * sizeof *strides);
  memcpy(j.vs, strides + 8, 3 * sizeof *strides);
  memcpy(j.os, strides + 11, 3 * sizeof *strides);
  j.wide = 1, j.chunks = 1;
  if (!quads_fit(&j)) return 0;
  int64_t o = 0, i = 0; /* batch item o inner + i, stepped (no divisions) */
  for (int64_t b = 0; b < batch; b += 4) {
    quad_rows qr;
    for (int n = 0; n < 4; n++) {
      qr.q[n] = q + o * j.qs[0] + i * j.qs[1], qr.k[n] = k + o * j.ks[0] + kv_head(&j, i) * j.ks[1];
      qr.v[n] = v + o * j.vs[0] + kv_head(&j, i) * j.vs[1], qr.out[n] = out + o * j.os[0] + i * j.os[1];
      if (++i == j.inner) i = 0, o++;
    }
    lanes_quad(&j, &qr);
  }
  return 1;
}

/* A boolean attention mask as the additive one the kernels read: true (attend) is 0,
 * false is -inf, as torch's scaled_dot_product_attention treats a bool mask. */
void sc_k_mask_to_additive_f32(const uint8_t *mask, float *out, int64_t n) {
  for (int64_t i = 0; i < n; i++) out[i] = mask[i] ? 0.0f : -INFINITY;
}
