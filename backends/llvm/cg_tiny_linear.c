/* cg_tiny_linear.c - small linear layers as vector code of their own.
 *
 * A linear layer of a few dozen inputs and outputs (nn.TransformerEncoderLayer(8, 2)'s four,
 * an MLP's 16 x 16) does a few hundred multiply-adds per row.  The runtime's kernel for it
 * takes its sizes at run time: one 12 KB function of eight blockings, its set-up and the
 * linear site's dispatch cost ~16 ns a call before the first multiply-add, and its loops
 * run 2-3x the multiply-adds' time (an 8 x 24 x 8 layer: 60 ns for 216 of them).  Up to
 * 64 x 64 this code also beat oneDNN's packed GEMMs at every batch measured (8 to 65,536 rows,
 * one thread and two, on a Zen 4).
 *
 * With the layer's sizes known at export, its code can be written for them: each row block
 * a straight run of broadcasts and multiply-adds over k unrolled steps, the weights upright
 * ([k, n] padded to whole vectors, then the bias) in a piece of the blob, so that each
 * step loads its vectors aligned, and a folded ReLU and the residual applied before the
 * one store (a folded GELU is the runtime's pass after it).  A layer norm over the rows
 * after it joins the same code (cg_plan_tiny_linear_norms).  One function per (n, k,
 * activation, residual, norm): 2,000 Linear(16, 16) layers compile one.  Large batches
 * split the rows over the thread team.
 *
 * The sums run in the order of the steps from the bias, one fused multiply-add each; the
 * runtime's kernel split them differently, so results differ from it in the last bits. */
#include <stdlib.h>
#include <string.h>

#include "lower.h"
#include "runtime_abi.h"

enum {
  LANES = 8,          /* AVX2 vectors: on AVX-512 CPUs, twice the lanes gave no more (Zen 4 splits them) */
  MAX_SIDE = 64,      /* n and k at most */
  MAX_WEIGHTS = 4096, /* n k at most: past that the packed GEMMs (oneDNN) pay */
  ACCUMULATORS = 12,  /* row block: rows x vectors of sums held in registers (8 and 24 measured slower) */
  SPLIT_MACS = 65536, /* a call of fewer multiply-adds runs on the calling thread */
};

typedef struct cg_tiny_fn {
  int64_t n, k;
  int act;
  bool residual;
  bool norm;   /* a layer norm over each row after the residual */
  double eps;  /* its eps */
  LLVMValueRef fn;
} tiny_fn;

/* The float32 constant behind v with `want` elements: a weight, or a part of one along its
 * first dim (nn.MultiheadAttention splits in_proj_weight when keys differ from queries). */
static const float *constant_rows(cg *g, const sc_value *v, int64_t want) {
  const float *whole = cg_constant_floats(g, v, want);
  if (whole || !v || v->def_node < 0) return whole;
  const sc_node *s = &g->p->graph->nodes[v->def_node];
  if (s->op->id != SC_OP_SPLIT_WITH_SIZES && s->op->id != SC_OP_SPLIT) return NULL;
  const sc_arg *dim = cg_node_arg(s, "dim");
  if (dim && dim->n_items && (dim->items[0].value || dim->items[0].i != 0)) return NULL;
  const sc_value *src = cg_tensor_input(s, "self");
  if (!src || !s->n_outputs) return NULL;
  int64_t cols = 1, rows = 0, before = -1, size;
  for (int d = 1; d < src->meta.rank; d++) {
    if (!sc_expr_is_const(src->shape[d], &size)) return NULL;
    cols *= size;
  }
  if (!sc_expr_is_const(src->shape[0], &rows)) return NULL;
  int64_t at = 0;
  for (size_t j = 0; j < s->outputs[0].n_items; j++) {
    const sc_value *part = s->outputs[0].items[j].value;
    if (part == v) {
      before = at;
      break;
    }
    if (!part || !part->meta.rank || !sc_expr_is_const(part->shape[0], &size)) return NULL;
    at += size;
  }
  const float *all = before < 0 ? NULL : cg_constant_floats(g, src, rows * cols);
  return all && before * cols + want <= rows * cols ? all + before * cols : NULL;
}

/* The layer's weights [n, k] upright and padded, [k, n8], then its bias [n8] (zeros
 * without one), and for a layer norm after it its weight and bias [n8] each (ones and
 * zeros without them), as a new piece of the blob; NULL when they are no constants. */
static LLVMValueRef upright_piece(cg *g, const sc_value *w, const sc_value *bias, const sc_node *norm, int64_t n,
                                  int64_t k) {
  int64_t n8 = (n + LANES - 1) / LANES * LANES, rows = k + (norm ? 3 : 1);
  const sc_value *gv = norm ? cg_tensor_input(norm, "weight") : NULL, *bv = norm ? cg_tensor_input(norm, "bias") : NULL;
  const float *wf = constant_rows(g, w, n * k), *bf = bias ? constant_rows(g, bias, n) : NULL;
  const float *gf = gv ? cg_constant_floats(g, gv, n) : NULL, *nf = bv ? cg_constant_floats(g, bv, n) : NULL;
  if (!wf || (bias && !bf) || (gv && !gf) || (bv && !nf)) return NULL;
  float *up = calloc((size_t)(rows * n8), sizeof *up);
  if (!up) return NULL;
  for (int64_t j = 0; j < n; j++) {
    for (int64_t p = 0; p < k; p++) up[p * n8 + j] = wf[j * k + p];
    up[k * n8 + j] = bf ? bf[j] : 0.0f;
    if (!norm) continue;
    up[(k + 1) * n8 + j] = gf ? gf[j] : 1.0f;
    up[(k + 2) * n8 + j] = nf ? nf[j] : 0.0f;
  }
  return cg_weights_add(g, up, (size_t)(rows * n8) * sizeof *up, up);
}

static bool has_feature(const cg *g, const char *name) {
  const char *f = g->cpu_features;
  size_t len = strlen(name);
  for (; f && (f = strstr(f, name)); f += len)
    if ((f == g->cpu_features || f[-1] == ',') && (f[len] == ',' || f[len] == '\0')) return true;
  return false;
}

static LLVMValueRef float_at(cg *g, LLVMValueRef base, LLVMValueRef index) {
  LLVMValueRef idx[1] = {index};
  return LLVMBuildGEP2(g->B, g->f32, base, idx, 1, "at");
}

/* Vector v of a row's sums through the folded ReLU and residual (its elements from `at`
 * on); the lanes past the row's end stay 0. */
static LLVMValueRef epilogue(cg *g, const tiny_fn *t, LLVMValueRef *ptrs, LLVMValueRef y, LLVMValueRef at, int64_t v) {
  LLVMTypeRef v8 = LLVMVectorType(g->f32, LANES);
  LLVMValueRef zero = LLVMConstNull(v8);
  /* as the runtime's: NaN stays NaN, -0 stays -0 */
  if (t->act == SC_ACT_RELU) y = LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOLT, y, zero, "neg"), zero, y, "relu");
  if (!t->residual) return y;
  int64_t lanes = t->n - LANES * v < LANES ? t->n - LANES * v : LANES;
  LLVMValueRef res = zero;
  if (lanes == LANES) {
    res = LLVMBuildLoad2(g->B, v8, float_at(g, ptrs[3], at), "res");
    LLVMSetAlignment(res, 4);
  } else { /* nothing past the row's end is read */
    for (int64_t l = 0; l < lanes; l++)
      res = LLVMBuildInsertElement(g->B, res, LLVMBuildLoad2(g->B, g->f32, float_at(g, ptrs[3], LLVMBuildAdd(g->B, at,
                                   cg_i64(g, l), "rl")), "r"), cg_i64(g, l), "res");
  }
  return LLVMBuildFAdd(g->B, y, res, "plus");
}

/* The sum of a vector's lanes, halves added three times. */
static LLVMValueRef lane_sum(cg *g, LLVMValueRef x) {
  for (int half = LANES / 2; half >= 1; half /= 2) {
    LLVMValueRef idx[LANES];
    for (int l = 0; l < LANES; l++) idx[l] = LLVMConstInt(g->i32, (unsigned)((l + half) % LANES), 0);
    x = LLVMBuildFAdd(g->B, x, LLVMBuildShuffleVector(g->B, x, LLVMGetUndef(LLVMTypeOf(x)), LLVMConstVector(idx, LANES), "hi"),
                      "fold");
  }
  return LLVMBuildExtractElement(g->B, x, cg_i64(g, 0), "sum");
}

static LLVMValueRef splat(cg *g, LLVMValueRef x) {
  LLVMTypeRef v8 = LLVMVectorType(g->f32, LANES);
  LLVMValueRef one = LLVMBuildInsertElement(g->B, LLVMGetUndef(v8), x, cg_i64(g, 0), "s1");
  return LLVMBuildShuffleVector(g->B, one, LLVMGetUndef(v8), LLVMConstNull(LLVMVectorType(g->i32, LANES)), "splat");
}

/* A row's n values (lanes past n are 0) normalized in place as the layer norm after the
 * layer: (y - mean) / sqrt(var + eps) * gamma + beta, in float as torch computes it, the
 * mean and the variance over the row's n values (two passes, in registers). */
static void normalize_row(cg *g, const tiny_fn *t, LLVMValueRef piece, LLVMValueRef *y) {
  LLVMTypeRef v8 = LLVMVectorType(g->f32, LANES);
  int64_t n8 = (t->n + LANES - 1) / LANES * LANES, vectors = n8 / LANES;
  LLVMValueRef total = y[0];
  for (int64_t v = 1; v < vectors; v++) total = LLVMBuildFAdd(g->B, total, y[v], "tot");
  LLVMValueRef count = LLVMConstReal(g->f32, (double)t->n);
  LLVMValueRef mean = splat(g, LLVMBuildFDiv(g->B, lane_sum(g, total), count, "mean"));
  LLVMValueRef d[MAX_SIDE / LANES], squares = NULL;
  for (int64_t v = 0; v < vectors; v++) {
    d[v] = LLVMBuildFSub(g->B, y[v], mean, "d");
    int64_t lanes = t->n - LANES * v < LANES ? t->n - LANES * v : LANES;
    if (lanes < LANES) { /* the padding's deviations are no part of the row */
      LLVMValueRef keep[LANES];
      for (int l = 0; l < LANES; l++) keep[l] = LLVMConstInt(g->i1, l < lanes, 0);
      d[v] = LLVMBuildSelect(g->B, LLVMConstVector(keep, LANES), d[v], LLVMConstNull(v8), "dpad");
    }
    LLVMValueRef sq = LLVMBuildFMul(g->B, d[v], d[v], "sq");
    squares = squares ? LLVMBuildFAdd(g->B, squares, sq, "sqs") : sq;
  }
  LLVMValueRef var = LLVMBuildFDiv(g->B, lane_sum(g, squares), count, "var");
  LLVMTypeRef f1[1] = {g->f32};
  LLVMValueRef arg[1] = {LLVMBuildFAdd(g->B, var, LLVMConstReal(g->f32, t->eps), "ve")};
  LLVMValueRef root = LLVMBuildCall2(g->B, LLVMFunctionType(g->f32, f1, 1, 0), cg_function(g, "llvm.sqrt.f32", g->f32, f1, 1, false),
                                     arg, 1, "root");
  LLVMValueRef rstd = splat(g, LLVMBuildFDiv(g->B, LLVMConstReal(g->f32, 1.0), root, "rstd"));
  LLVMTypeRef fma_params[3] = {v8, v8, v8};
  LLVMValueRef fma = cg_function(g, "llvm.fma.v8f32", v8, fma_params, 3, false);
  for (int64_t v = 0; v < vectors; v++) {
    LLVMValueRef gamma = LLVMBuildLoad2(g->B, v8, float_at(g, piece, cg_i64(g, (t->k + 1) * n8 + LANES * v)), "gamma");
    LLVMValueRef beta = LLVMBuildLoad2(g->B, v8, float_at(g, piece, cg_i64(g, (t->k + 2) * n8 + LANES * v)), "beta");
    LLVMSetAlignment(gamma, 32);
    LLVMSetAlignment(beta, 32);
    LLVMValueRef args[3] = {LLVMBuildFMul(g->B, d[v], rstd, "z"), gamma, beta};
    y[v] = LLVMBuildCall2(g->B, LLVMFunctionType(v8, fma_params, 3, 0), fma, args, 3, "normed");
  }
}

static LLVMValueRef shuffle(cg *g, LLVMValueRef a, LLVMValueRef b, const int *mask) {
  LLVMValueRef m[LANES];
  for (int l = 0; l < LANES; l++) m[l] = LLVMConstInt(g->i32, (unsigned)mask[l], 0);
  return LLVMBuildShuffleVector(g->B, a, b, LLVMConstVector(m, LANES), "sh");
}

/* Eight vectors of eight transposed: out[c] lane r is in[r] lane c (pairs interleaved,
 * then pairs of pairs, then halves; LLVM's unpck, shufps and perm2f128). */
static void transpose8(cg *g, const LLVMValueRef *in, LLVMValueRef *out) {
  static const int lo[LANES] = {0, 8, 1, 9, 4, 12, 5, 13}, hi[LANES] = {2, 10, 3, 11, 6, 14, 7, 15};
  static const int lo2[LANES] = {0, 1, 8, 9, 4, 5, 12, 13}, hi2[LANES] = {2, 3, 10, 11, 6, 7, 14, 15};
  static const int lo4[LANES] = {0, 1, 2, 3, 8, 9, 10, 11}, hi4[LANES] = {4, 5, 6, 7, 12, 13, 14, 15};
  LLVMValueRef t[LANES], u[LANES];
  for (int q = 0; q < LANES; q += 2) {
    t[q] = shuffle(g, in[q], in[q + 1], lo);
    t[q + 1] = shuffle(g, in[q], in[q + 1], hi);
  }
  for (int h = 0; h < LANES; h += 4)
    for (int s = 0; s < 2; s++) {
      u[h + 2 * s] = shuffle(g, t[h + s], t[h + s + 2], lo2);
      u[h + 2 * s + 1] = shuffle(g, t[h + s], t[h + s + 2], hi2);
    }
  for (int c = 0; c < 4; c++) {
    out[c] = shuffle(g, u[c], u[c + 4], lo4);
    out[c + 4] = shuffle(g, u[c], u[c + 4], hi4);
  }
}

/* x[0] + ... + x[n - 1] added in pairs, a chain of log2 n adds rather than n - 1 */
static LLVMValueRef tree_sum(cg *g, const LLVMValueRef *x, int n) {
  LLVMValueRef level[LANES];
  memcpy(level, x, (size_t)n * sizeof *level);
  while (n > 1) {
    int half = n / 2;
    for (int k = 0; k < half; k++) level[k] = LLVMBuildFAdd(g->B, level[2 * k], level[2 * k + 1], "pair");
    if (n % 2) level[half] = level[n - 1];
    n = half + n % 2;
  }
  return level[0];
}

/* normalize_row for up to eight rows of at most eight at once: transposed, lane r of vector
 * c is row r's value c, so each step is one vector operation for all eight rows (one square
 * root and one division instead of eight of each, which queued on the divider), then
 * transposed back.  Fewer rows than eight (a block's rows left over, which a thread's
 * share of a large batch can leave anywhere) take the same steps with rows of zeros beside
 * them, so that a row has the same bits wherever it falls. */
static void normalize_block(cg *g, const tiny_fn *t, LLVMValueRef piece, LLVMValueRef *y, int n_rows) {
  LLVMTypeRef v8 = LLVMVectorType(g->f32, LANES);
  LLVMValueRef rows[LANES];
  for (int r = 0; r < LANES; r++) rows[r] = r < n_rows ? y[r] : LLVMConstNull(v8);
  LLVMValueRef col[LANES], z[LANES], sq[LANES], count = splat(g, LLVMConstReal(g->f32, (double)t->n));
  LLVMTypeRef fma_params[3] = {v8, v8, v8};
  LLVMValueRef fma = cg_function(g, "llvm.fma.v8f32", v8, fma_params, 3, false);
  /* Where n is a power of 2, sum / n is exact (sum * (1 / n)), so the step after it fuses
   * with it and rounds as the two did (barring subnormal sums): two multiply-adds off the
   * chain's latency, which is the tiny layer's whole time. */
  bool exact_mean = (t->n & (t->n - 1)) == 0;
  LLVMValueRef inv_n = splat(g, LLVMConstReal(g->f32, 1.0 / (double)t->n)), eps = splat(g, LLVMConstReal(g->f32, t->eps));
  transpose8(g, rows, col);
  LLVMValueRef sum = tree_sum(g, col, (int)t->n), neg_sum = LLVMBuildFNeg(g->B, sum, "neg_sum");
  LLVMValueRef mean = exact_mean ? NULL : LLVMBuildFDiv(g->B, sum, count, "mean");
  for (int64_t c = 0; c < t->n; c++) {
    LLVMValueRef args[3] = {neg_sum, inv_n, col[c]};
    col[c] = exact_mean ? LLVMBuildCall2(g->B, LLVMFunctionType(v8, fma_params, 3, 0), fma, args, 3, "d")
                        : LLVMBuildFSub(g->B, col[c], mean, "d");
    sq[c] = LLVMBuildFMul(g->B, col[c], col[c], "sq");
  }
  LLVMValueRef squares = tree_sum(g, sq, (int)t->n), var;
  if (exact_mean) {
    LLVMValueRef args[3] = {squares, inv_n, eps};
    var = LLVMBuildCall2(g->B, LLVMFunctionType(v8, fma_params, 3, 0), fma, args, 3, "ve");
  } else {
    var = LLVMBuildFAdd(g->B, LLVMBuildFDiv(g->B, squares, count, "var"), eps, "ve");
  }
  LLVMTypeRef p1[1] = {v8};
  LLVMValueRef root = LLVMBuildCall2(g->B, LLVMFunctionType(v8, p1, 1, 0), cg_function(g, "llvm.sqrt.v8f32", v8, p1, 1, false),
                                     &var, 1, "root");
  LLVMValueRef rstd = LLVMBuildFDiv(g->B, splat(g, LLVMConstReal(g->f32, 1.0)), root, "rstd");
  for (int c = 0; c < LANES; c++) col[c] = c < t->n ? LLVMBuildFMul(g->B, col[c], rstd, "z") : LLVMConstNull(v8);
  transpose8(g, col, z);
  int64_t n8 = LANES;
  LLVMValueRef gamma = LLVMBuildLoad2(g->B, v8, float_at(g, piece, cg_i64(g, (t->k + 1) * n8)), "gamma");
  LLVMValueRef beta = LLVMBuildLoad2(g->B, v8, float_at(g, piece, cg_i64(g, (t->k + 2) * n8)), "beta");
  LLVMSetAlignment(gamma, 32);
  LLVMSetAlignment(beta, 32);
  for (int r = 0; r < n_rows; r++) {
    LLVMValueRef args[3] = {z[r], gamma, beta};
    y[r] = LLVMBuildCall2(g->B, LLVMFunctionType(v8, fma_params, 3, 0), fma, args, 3, "normed");
  }
}

/* Rows [i, i + rows) of y = act(x w + b) + residual, the sums of each row block in
 * registers; x [m, k], y and residual [m, n], w as upright_piece lays it out. */
static void emit_rows(cg *g, const tiny_fn *t, LLVMValueRef *ptrs, LLVMValueRef i, int rows) {
  LLVMTypeRef v8 = LLVMVectorType(g->f32, LANES);
  int64_t n8 = (t->n + LANES - 1) / LANES * LANES, vectors = n8 / LANES;
  LLVMTypeRef fma_params[3] = {v8, v8, v8};
  LLVMValueRef fma = cg_function(g, "llvm.fma.v8f32", v8, fma_params, 3, false);
  LLVMTypeRef fma_type = LLVMFunctionType(v8, fma_params, 3, 0);
  LLVMValueRef acc[ACCUMULATORS], row_x[ACCUMULATORS], zero_mask = LLVMConstNull(LLVMVectorType(g->i32, LANES));
  for (int r = 0; r < rows; r++)
    row_x[r] = LLVMBuildMul(g->B, LLVMBuildAdd(g->B, i, cg_i64(g, r), "row"), cg_i64(g, t->k), "xrow");
  for (int64_t v = 0; v < vectors; v++) {
    LLVMValueRef b = LLVMBuildLoad2(g->B, v8, float_at(g, ptrs[1], cg_i64(g, t->k * n8 + LANES * v)), "bias");
    LLVMSetAlignment(b, 32);
    for (int r = 0; r < rows; r++) acc[r * vectors + v] = b;
  }
  for (int64_t p = 0; p < t->k; p++) {
    LLVMValueRef wv[MAX_SIDE / LANES];
    for (int64_t v = 0; v < vectors; v++) {
      wv[v] = LLVMBuildLoad2(g->B, v8, float_at(g, ptrs[1], cg_i64(g, p * n8 + LANES * v)), "w");
      LLVMSetAlignment(wv[v], 32);
    }
    for (int r = 0; r < rows; r++) {
      LLVMValueRef xs = LLVMBuildLoad2(g->B, g->f32, float_at(g, ptrs[0], LLVMBuildAdd(g->B, row_x[r], cg_i64(g, p), "xp")), "x");
      LLVMValueRef one = LLVMBuildInsertElement(g->B, LLVMGetUndef(v8), xs, cg_i64(g, 0), "x1");
      LLVMValueRef xb = LLVMBuildShuffleVector(g->B, one, LLVMGetUndef(v8), zero_mask, "xb");
      for (int64_t v = 0; v < vectors; v++) {
        LLVMValueRef args[3] = {xb, wv[v], acc[r * vectors + v]};
        acc[r * vectors + v] = LLVMBuildCall2(g->B, fma_type, fma, args, 3, "acc");
      }
    }
  }
  for (int r = 0; r < rows; r++) { /* through the ReLU and the residual, in acc */
    LLVMValueRef row_y = LLVMBuildMul(g->B, LLVMBuildAdd(g->B, i, cg_i64(g, r), "row"), cg_i64(g, t->n), "yrow");
    for (int64_t v = 0; v < vectors; v++)
      acc[r * vectors + v] = epilogue(g, t, ptrs, acc[r * vectors + v], LLVMBuildAdd(g->B, row_y, cg_i64(g, LANES * v), "yv"), v);
  }
  if (t->norm && vectors == 1) normalize_block(g, t, ptrs[1], acc, rows);
  else if (t->norm)
    for (int r = 0; r < rows; r++) normalize_row(g, t, ptrs[1], acc + r * vectors);
  for (int r = 0; r < rows; r++) {
    LLVMValueRef row_y = LLVMBuildMul(g->B, LLVMBuildAdd(g->B, i, cg_i64(g, r), "row"), cg_i64(g, t->n), "yrow");
    for (int64_t v = 0; v < vectors; v++) {
      LLVMValueRef at = LLVMBuildAdd(g->B, row_y, cg_i64(g, LANES * v), "yv"), y = acc[r * vectors + v];
      int64_t lanes = t->n - LANES * v < LANES ? t->n - LANES * v : LANES;
      if (lanes == LANES) {
        LLVMSetAlignment(LLVMBuildStore(g->B, y, float_at(g, ptrs[2], at)), 4);
        continue;
      }
      /* the row's last lanes one at a time: nothing past its end is written (a masked
       * store is microcoded on AMD) */
      for (int64_t l = 0; l < lanes; l++)
        LLVMBuildStore(g->B, LLVMBuildExtractElement(g->B, y, cg_i64(g, l), "lane"),
                       float_at(g, ptrs[2], LLVMBuildAdd(g->B, at, cg_i64(g, l), "yl")));
    }
  }
}

/* The function sc_tiny_linear_N(ctx, begin, end) for t: rows [begin, end), ctx holding
 * the pointers x, the upright piece, y and the residual. */
static LLVMValueRef build_function(cg *g, const tiny_fn *t) {
  char name[48];
  snprintf(name, sizeof name, "sc_tiny_linear_%d", g->n_tiny_fns);
  LLVMTypeRef params[3] = {g->ptr, g->i64, g->i64};
  LLVMValueRef fn = LLVMAddFunction(g->M, name, LLVMFunctionType(g->voidt, params, 3, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMValueRef outer_fn = g->fn;
  LLVMBasicBlockRef resume = LLVMGetInsertBlock(g->B);
  g->fn = fn;
  LLVMBasicBlockRef entry = cg_block(g, "entry"), blocks = cg_block(g, "blocks"), block = cg_block(g, "block");
  LLVMBasicBlockRef singles = cg_block(g, "singles"), single = cg_block(g, "single"), done = cg_block(g, "done");
  LLVMPositionBuilderAtEnd(g->B, entry);
  LLVMValueRef ctx = LLVMGetParam(fn, 0), begin = LLVMGetParam(fn, 1), end = LLVMGetParam(fn, 2), ptrs[4];
  for (int k = 0; k < 4; k++) {
    LLVMValueRef idx[1] = {cg_i64(g, k)};
    ptrs[k] = LLVMBuildLoad2(g->B, g->ptr, LLVMBuildInBoundsGEP2(g->B, g->ptr, ctx, idx, 1, "slot"), "p");
  }
  int64_t vectors = (t->n + LANES - 1) / LANES;
  int64_t fit = ACCUMULATORS / vectors;
  int rb = (int)(fit > 8 ? 8 : fit > 1 ? fit : 1);
  LLVMBuildBr(g->B, blocks);
  /* whole blocks of rb rows */
  LLVMPositionBuilderAtEnd(g->B, blocks);
  LLVMValueRef i = LLVMBuildPhi(g->B, g->i64, "i");
  LLVMValueRef next = LLVMBuildAdd(g->B, i, cg_i64(g, rb), "next");
  LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntSLE, next, end, "whole"), block, singles);
  LLVMPositionBuilderAtEnd(g->B, block);
  emit_rows(g, t, ptrs, i, rb);
  LLVMBuildBr(g->B, blocks);
  LLVMValueRef i_in[2] = {begin, next};
  LLVMBasicBlockRef i_from[2] = {entry, LLVMGetInsertBlock(g->B)};
  LLVMAddIncoming(i, i_in, i_from, 2);
  /* then the rows left one at a time */
  LLVMPositionBuilderAtEnd(g->B, singles);
  LLVMValueRef j = LLVMBuildPhi(g->B, g->i64, "j");
  LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, j, end, "left"), single, done);
  LLVMPositionBuilderAtEnd(g->B, single);
  emit_rows(g, t, ptrs, j, 1);
  LLVMValueRef j_next = LLVMBuildAdd(g->B, j, cg_i64(g, 1), "jn");
  LLVMBuildBr(g->B, singles);
  LLVMValueRef j_in[2] = {i, j_next};
  LLVMBasicBlockRef j_from[2] = {blocks, LLVMGetInsertBlock(g->B)};
  LLVMAddIncoming(j, j_in, j_from, 2);
  LLVMPositionBuilderAtEnd(g->B, done);
  LLVMBuildRetVoid(g->B);
  g->fn = outer_fn;
  LLVMPositionBuilderAtEnd(g->B, resume);
  return fn;
}

static LLVMValueRef function_for(cg *g, const tiny_fn *want) {
  for (int f = 0; f < g->n_tiny_fns; f++) {
    const tiny_fn *t = &g->tiny_fns[f];
    if (t->n == want->n && t->k == want->k && t->act == want->act && t->residual == want->residual &&
        t->norm == want->norm && t->eps == want->eps)
      return t->fn;
  }
  tiny_fn *grown = realloc(g->tiny_fns, (size_t)(g->n_tiny_fns + 1) * sizeof *grown);
  if (!grown) return NULL;
  g->tiny_fns = grown;
  tiny_fn t = *want;
  t.fn = build_function(g, &t);
  g->tiny_fns[g->n_tiny_fns++] = t;
  return t.fn;
}

void cg_tiny_linear_free(cg *g) {
  free(g->tiny_fns);
  free(g->tiny_pieces);
  g->tiny_fns = NULL;
  g->tiny_pieces = NULL;
  g->n_tiny_fns = 0;
}

/* Whether linear node `node` (x w^T + bias) runs code of its own: on the host path of a CPU
 * with AVX2 and FMA, float32, weights [n, k] of at most MAX_SIDE x MAX_SIDE and MAX_WEIGHTS
 * whose values are known at export, a 1-D bias or none. */
static bool applies(cg *g, const sc_node *node, const sc_value *x, const sc_value *w, const sc_value *bias, int64_t *n,
                    int64_t *k) {
  if (g->cuda || g->has_cuda || g->external_path || !g->w || !has_feature(g, "avx2") || !has_feature(g, "fma")) return false;
  const sc_value *out = node->n_outputs && node->outputs[0].n_items ? node->outputs[0].items[0].value : NULL;
  if (!w || w->meta.rank != 2 || !sc_expr_is_const(w->shape[0], n) || !sc_expr_is_const(w->shape[1], k) || *n < 1 ||
      *k < 1 || *n > MAX_SIDE || *k > MAX_SIDE || *n * *k > MAX_WEIGHTS)
    return false;
  if (!x || x->meta.dtype != SC_DTYPE_F32 || !out || out->meta.dtype != SC_DTYPE_F32 || (bias && bias->meta.rank != 1))
    return false;
  return constant_rows(g, w, *n * *k) && (!bias || constant_rows(g, bias, *n));
}

static double eps_of(const sc_node *ln) {
  const sc_arg *a = cg_node_arg(ln, "eps");
  if (!a || !a->n_items || a->items[0].value) return 1e-5;
  return a->kind == SC_ARG_FLOAT ? a->items[0].f : a->kind == SC_ARG_INT ? (double)a->items[0].i : 1e-5;
}

/* Whether layer norm node ln normalizes rows of n (its last dim alone), with constant
 * weight and bias or none, its mean and 1 / std read by nothing. */
static bool norm_of_rows(cg *g, const sc_node *ln, int64_t n) {
  if (ln->op->id != SC_OP_LAYER_NORM && ln->op->id != SC_OP_NATIVE_LAYER_NORM) return false;
  const sc_arg *shape = cg_node_arg(ln, "normalized_shape");
  if (!shape || shape->n_items != 1 || shape->items[0].value || shape->items[0].i != n) return false;
  for (size_t k = 1; k < ln->n_outputs; k++)
    for (size_t j = 0; j < ln->outputs[k].n_items; j++)
      if (ln->outputs[k].items[j].value && cg_get(g, ln->outputs[k].items[j].value)->uses) return false;
  const sc_value *gv = cg_tensor_input(ln, "weight"), *bv = cg_tensor_input(ln, "bias");
  const sc_value *out = ln->outputs[0].items[0].value;
  return out && out->meta.dtype == SC_DTYPE_F32 && (!gv || cg_constant_floats(g, gv, n)) &&
         (!bv || cg_constant_floats(g, bv, n));
}

void cg_plan_tiny_linear_norms(cg *g) {
  const sc_graph *gr = g->p->graph;
  for (size_t i = 0; i < gr->n_nodes; i++) {
    const sc_node *ln = &gr->nodes[i];
    if (ln->op->id != SC_OP_LAYER_NORM && ln->op->id != SC_OP_NATIVE_LAYER_NORM) continue;
    const sc_value *x = cg_tensor_input(ln, "input");
    if (!x || x->def_node < 0 || cg_get(g, x)->uses != 1) continue;
    /* x is the layer's output, or the residual add that took the layer's buffer (cg_epilogue.c) */
    cg_value *into = g->folded[x->def_node].into;
    const sc_value *y = into ? into->v : x;
    if (y->def_node < 0 || (into && !g->folded[y->def_node].residual)) continue;
    const sc_node *l = &gr->nodes[y->def_node];
    int64_t n, k;
    if (l->op->id != SC_OP_LINEAR || g->folded[y->def_node].layer_norm || cg_get(g, y)->uses != 1 ||
        (g->folded[y->def_node].act != SC_ACT_NONE && g->folded[y->def_node].act != SC_ACT_RELU) ||
        !applies(g, l, cg_tensor_input(l, "input"), cg_tensor_input(l, "weight"), cg_tensor_input(l, "bias"), &n, &k) ||
        !norm_of_rows(g, ln, n))
      continue;
    g->folded[y->def_node].layer_norm = (int)i + 1;
    g->folded[i].into = cg_get(g, y);
  }
}

bool cg_emit_tiny_linear(cg *g, const sc_node *node, cg_value *x, cg_value *w, cg_value *bias, cg_value *out,
                         cg_value *residual, int act, LLVMValueRef m) {
  int64_t n, k;
  if (w->transposed || !applies(g, node, x->v, w->v, bias ? bias->v : NULL, &n, &k)) return false;
  /* GELU (erf) follows as the runtime's pass over the output, as after oneDNN's product */
  bool gelu_after = act == SC_ACT_GELU && !residual;
  if (act != SC_ACT_NONE && act != SC_ACT_RELU && !gelu_after) return false;
  int norm_at = g->folded[node - g->p->graph->nodes].layer_norm;
  const sc_node *norm = norm_at ? &g->p->graph->nodes[norm_at - 1] : NULL;
  tiny_fn want = {n, k, gelu_after ? SC_ACT_NONE : act, residual != NULL, norm != NULL,
                  norm ? eps_of(norm) : 0, NULL};
  size_t at = (size_t)(node - g->p->graph->nodes);
  if (!g->tiny_pieces && !(g->tiny_pieces = calloc(g->p->graph->n_nodes, sizeof *g->tiny_pieces))) return false;
  if (!g->tiny_pieces[at]) g->tiny_pieces[at] = upright_piece(g, w->v, bias ? bias->v : NULL, norm, n, k);
  LLVMValueRef piece = g->tiny_pieces[at], fn = piece ? function_for(g, &want) : NULL;
  if (!fn && norm) /* the plan counted on this code for the layer norm after it: stop the export */
    cg_error(g, SC_DIAG_CODEGEN, node->path, "internal error: %s lost the code its layer norm was planned into",
             node->target);
  if (!fn) return norm != NULL;
  LLVMValueRef ctx = cg_entry_array(g, g->ptr, 4, "tiny.ctx");
  LLVMValueRef vals[4] = {x->data, piece, out->data, residual ? residual->data : LLVMConstNull(g->ptr)};
  for (int s = 0; s < 4; s++) {
    LLVMValueRef idx[1] = {cg_i64(g, s)};
    LLVMBuildStore(g->B, vals[s], LLVMBuildInBoundsGEP2(g->B, g->ptr, ctx, idx, 1, "slot"));
  }
  /* a large batch splits its rows over the thread team, chunks of SPLIT_MACS / 2 or more */
  LLVMBasicBlockRef here = cg_block(g, "tiny.here"), split = cg_block(g, "tiny.split"), after = cg_block(g, "tiny.after");
  LLVMValueRef big = LLVMBuildICmp(g->B, LLVMIntSGE, m, cg_i64(g, SPLIT_MACS / (n * k) + 1), "big");
  LLVMBuildCondBr(g->B, big, split, here);
  LLVMTypeRef lp[3] = {g->ptr, g->i64, g->i64};
  LLVMPositionBuilderAtEnd(g->B, here);
  LLVMValueRef direct[3] = {ctx, cg_i64(g, 0), m};
  LLVMBuildCall2(g->B, LLVMFunctionType(g->voidt, lp, 3, 0), fn, direct, 3, "");
  LLVMBuildBr(g->B, after);
  LLVMPositionBuilderAtEnd(g->B, split);
  LLVMTypeRef pp[4] = {g->ptr, g->ptr, g->i64, g->i64};
  LLVMValueRef pa[4] = {fn, ctx, m, cg_i64(g, SPLIT_MACS / 2 / (n * k) + 1)};
  cg_call(g, "sc_rt_parallel_for", g->voidt, pp, 4, pa, 4, false);
  LLVMBuildBr(g->B, after);
  LLVMPositionBuilderAtEnd(g->B, after);
  if (gelu_after) {
    LLVMTypeRef ap[3] = {g->ptr, g->i64, g->i32};
    LLVMValueRef aa[3] = {out->data, LLVMBuildMul(g->B, m, cg_i64(g, n), "numel"), LLVMConstInt(g->i32, SC_ACT_GELU, 0)};
    cg_call(g, "sc_k_activation_f32", g->voidt, ap, 3, aa, 3, false);
  }
  return true;
}
