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
 * one store (a folded GELU is the runtime's pass after it).  One function per (n, k, activation, residual): 2,000 Linear(16, 16) layers
 * compile one.  Large batches split the rows over the thread team.
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
 * without one), as a new piece of the blob; NULL when they are no constants. */
static LLVMValueRef upright_piece(cg *g, const sc_value *w, const sc_value *bias, int64_t n, int64_t k) {
  int64_t n8 = (n + LANES - 1) / LANES * LANES;
  const float *wf = constant_rows(g, w, n * k), *bf = bias ? constant_rows(g, bias, n) : NULL;
  if (!wf || (bias && !bf)) return NULL;
  float *up = calloc((size_t)((k + 1) * n8), sizeof *up);
  if (!up) return NULL;
  for (int64_t j = 0; j < n; j++) {
    for (int64_t p = 0; p < k; p++) up[p * n8 + j] = wf[j * k + p];
    up[k * n8 + j] = bf ? bf[j] : 0.0f;
  }
  return cg_weights_add(g, up, (size_t)((k + 1) * n8) * sizeof *up, up);
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
  LLVMValueRef zero = LLVMConstNull(v8);
  for (int r = 0; r < rows; r++) {
    LLVMValueRef row_y = LLVMBuildMul(g->B, LLVMBuildAdd(g->B, i, cg_i64(g, r), "row"), cg_i64(g, t->n), "yrow");
    for (int64_t v = 0; v < vectors; v++) {
      LLVMValueRef y = acc[r * vectors + v];
      /* as the runtime's: NaN stays NaN, -0 stays -0 */
      if (t->act == SC_ACT_RELU)
        y = LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOLT, y, zero, "neg"), zero, y, "relu");
      int64_t lanes = t->n - LANES * v < LANES ? t->n - LANES * v : LANES;
      LLVMValueRef at = LLVMBuildAdd(g->B, row_y, cg_i64(g, LANES * v), "yv");
      if (lanes == LANES) { /* whole vectors */
        if (t->residual) {
          LLVMValueRef res = LLVMBuildLoad2(g->B, v8, float_at(g, ptrs[3], at), "res");
          LLVMSetAlignment(res, 4);
          y = LLVMBuildFAdd(g->B, y, res, "plus");
        }
        LLVMSetAlignment(LLVMBuildStore(g->B, y, float_at(g, ptrs[2], at)), 4);
        continue;
      }
      /* the row's last lanes one at a time: nothing past its end is read or written (a
       * masked store is microcoded on AMD) */
      for (int64_t l = 0; l < lanes; l++) {
        LLVMValueRef e = LLVMBuildExtractElement(g->B, y, cg_i64(g, l), "lane");
        LLVMValueRef el = LLVMBuildAdd(g->B, at, cg_i64(g, l), "yl");
        if (t->residual) e = LLVMBuildFAdd(g->B, e, LLVMBuildLoad2(g->B, g->f32, float_at(g, ptrs[3], el), "res"), "plus");
        LLVMBuildStore(g->B, e, float_at(g, ptrs[2], el));
      }
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

static LLVMValueRef function_for(cg *g, int64_t n, int64_t k, int act, bool residual) {
  for (int f = 0; f < g->n_tiny_fns; f++) {
    const tiny_fn *t = &g->tiny_fns[f];
    if (t->n == n && t->k == k && t->act == act && t->residual == residual) return t->fn;
  }
  tiny_fn *grown = realloc(g->tiny_fns, (size_t)(g->n_tiny_fns + 1) * sizeof *grown);
  if (!grown) return NULL;
  g->tiny_fns = grown;
  tiny_fn t = {n, k, act, residual, NULL};
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

bool cg_emit_tiny_linear(cg *g, const sc_node *node, cg_value *x, cg_value *w, cg_value *bias, cg_value *out,
                         cg_value *residual, int act, LLVMValueRef m) {
  int64_t n, k;
  if (g->cuda || g->has_cuda || g->external_path || !g->w || !has_feature(g, "avx2") || !has_feature(g, "fma")) return false;
  if (w->v->meta.rank != 2 || w->transposed || !sc_expr_is_const(w->v->shape[0], &n) ||
      !sc_expr_is_const(w->v->shape[1], &k) || n < 1 || k < 1 || n > MAX_SIDE || k > MAX_SIDE || n * k > MAX_WEIGHTS)
    return false;
  /* GELU (erf) follows as the runtime's pass over the output, as after oneDNN's product */
  bool gelu_after = act == SC_ACT_GELU && !residual;
  if (act != SC_ACT_NONE && act != SC_ACT_RELU && !gelu_after) return false;
  if (x->v->meta.dtype != SC_DTYPE_F32 || out->v->meta.dtype != SC_DTYPE_F32 || (bias && bias->v->meta.rank != 1))
    return false;
  size_t at = (size_t)(node - g->p->graph->nodes);
  if (!g->tiny_pieces && !(g->tiny_pieces = calloc(g->p->graph->n_nodes, sizeof *g->tiny_pieces))) return false;
  if (!g->tiny_pieces[at]) g->tiny_pieces[at] = upright_piece(g, w->v, bias ? bias->v : NULL, n, k);
  LLVMValueRef piece = g->tiny_pieces[at], fn = piece ? function_for(g, n, k, gelu_after ? SC_ACT_NONE : act, residual != NULL) : NULL;
  if (!fn) return false;
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
