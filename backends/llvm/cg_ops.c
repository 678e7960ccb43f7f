/* cg_ops.c - lowering of the non-elementwise ops: views share their input's buffer;
 * layout changes (permute, expand, slice, split, cat) are strided copies; matrix
 * products go to OpenBLAS; convolution, pooling, normalization, softmax and reductions
 * call the runtime kernels with sizes computed from the solved symbols. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/base/strbuf.h"
#include "ir/einsum_equation.h"
#include "ir/half.h"
#include "lower.h"
#include "runtime_abi.h"

/* ---- argument access -------------------------------------------------------------------- */

static const sc_arg *arg(const sc_node *n, const char *name) {
  for (size_t k = 0; k < n->n_inputs; k++)
    if (strcmp(n->inputs[k].name, name) == 0) return &n->inputs[k].arg;
  return NULL;
}

static bool arg_none(const sc_arg *a) {
  return !a || a->kind == SC_ARG_NONE || !a->n_items || (a->n_items == 1 && a->items[0].is_none && !a->items[0].value);
}

static cg_value *tensor(cg *g, const sc_node *n, const char *name) {
  const sc_arg *a = arg(n, name);
  if (arg_none(a) || !a->items[0].value || a->items[0].value->kind != SC_VALUE_TENSOR) return NULL;
  return cg_get(g, a->items[0].value);
}

static int64_t int_arg(const sc_node *n, const char *name, int64_t def) {
  const sc_arg *a = arg(n, name);
  if (arg_none(a) || a->items[0].value) return def;
  if (a->kind == SC_ARG_BOOL) return a->items[0].b;
  return a->kind == SC_ARG_INT || a->kind == SC_ARG_SYM_INT ? a->items[0].i : def;
}

static double float_arg(const sc_node *n, const char *name, double def) {
  const sc_arg *a = arg(n, name);
  if (arg_none(a) || a->items[0].value) return def;
  if (a->kind == SC_ARG_FLOAT) return a->items[0].f;
  if (a->kind == SC_ARG_INT) return (double)a->items[0].i;
  if (a->kind == SC_ARG_BOOL) return a->items[0].b;
  return def;
}

/* An int or SymInt argument as a run-time i64. */
static LLVMValueRef int_value(cg *g, const sc_node *n, const char *name, int64_t def) {
  const sc_arg *a = arg(n, name);
  if (arg_none(a)) return cg_i64(g, def);
  if (a->items[0].value) return cg_expr(g, a->items[0].value->sym);
  return cg_i64(g, a->kind == SC_ARG_BOOL ? a->items[0].b : a->items[0].i);
}

static int ints(const sc_node *n, const char *name, int64_t *out, int max) {
  const sc_arg *a = arg(n, name);
  if (arg_none(a)) return 0;
  int k = 0;
  for (size_t i = 0; i < a->n_items && k < max; i++) out[k++] = a->items[i].i;
  return k;
}

static int norm_dim(int64_t d, int rank) { return (int)(d < 0 ? d + (rank ? rank : 1) : d); }

static sc_value *output(const sc_node *n, int k) {
  int seen = 0;
  for (size_t i = 0; i < n->n_outputs; i++)
    for (size_t j = 0; j < n->outputs[i].n_items; j++, seen++)
      if (seen == k) return n->outputs[i].items[j].value;
  return NULL;
}

/* ---- run-time helpers ---------------------------------------------------------------------- */

static LLVMValueRef array_i64(cg *g, LLVMValueRef *vals, int n) {
  LLVMValueRef a = LLVMBuildArrayAlloca(g->B, g->i64, cg_i64(g, n ? n : 1), "arr");
  for (int i = 0; i < n; i++) {
    LLVMValueRef idx[1] = {cg_i64(g, i)};
    LLVMBuildStore(g->B, vals[i], LLVMBuildGEP2(g->B, g->i64, a, idx, 1, "e"));
  }
  return a;
}

static LLVMValueRef array_i32(cg *g, const int32_t *vals, int n) {
  LLVMValueRef a = LLVMBuildArrayAlloca(g->B, g->i32, cg_i64(g, n ? n : 1), "arr");
  for (int i = 0; i < n; i++) {
    LLVMValueRef idx[1] = {cg_i64(g, i)};
    LLVMBuildStore(g->B, LLVMConstInt(g->i32, (unsigned)vals[i], 0), LLVMBuildGEP2(g->B, g->i32, a, idx, 1, "e"));
  }
  return a;
}

/* A fresh buffer for a node output; sets its dims. */
cg_value *cg_produce(cg *g, const sc_value *v) {
  cg_value *cv = cg_get(g, v);
  cg_set_dims(g, cv);
  cv->data = cg_alloc_buffer(g, cv, LLVMBuildMul(g->B, cv->numel, cg_elem_size(g, v->meta.dtype), "bytes"));
  cv->ready = true;
  return cv;
}

static LLVMValueRef offset_ptr(cg *g, LLVMValueRef base, LLVMValueRef elems, sc_dtype dt) {
  LLVMValueRef idx[1] = {LLVMBuildMul(g->B, elems, cg_elem_size(g, dt), "ob")};
  return LLVMBuildGEP2(g->B, g->i8, base, idx, 1, "at");
}

/* Contiguous strides (in elements) of a value. */
static void strides_of(cg *g, const cg_value *cv, LLVMValueRef *st) {
  LLVMValueRef acc = cg_i64(g, 1);
  for (int j = cv->v->meta.rank - 1; j >= 0; j--) {
    int d = cv->held_swapped && j < 2 ? 1 - j : j; /* the buffer's dim j (cg_batch_first.c) */
    st[d] = acc;
    acc = LLVMBuildMul(g->B, acc, cv->dims[d], "s");
  }
}

static void strided_copy(cg *g, LLVMValueRef src, LLVMValueRef dst, int ndim, LLVMValueRef *shape, LLVMValueRef *src_st,
                         sc_dtype dt) {
  LLVMTypeRef p[6] = {g->ptr, g->ptr, g->i32, g->ptr, g->ptr, g->i64};
  LLVMValueRef a[6] = {src, dst, LLVMConstInt(g->i32, (unsigned)ndim, 0), array_i64(g, shape, ndim),
                       array_i64(g, src_st, ndim), cg_elem_size(g, dt)};
  cg_call(g, "sc_k_strided_copy", g->voidt, p, 6, a, 6, false);
}

/* A kernel's return code: on failure the call stops with a message naming the node. */
static void check_rc(cg *g, LLVMValueRef rc) {
  char node[256] = "a kernel";
  if (g->node >= 0 && (size_t)g->node < g->p->graph->n_nodes) {
    const sc_node *n = &g->p->graph->nodes[g->node];
    snprintf(node, sizeof node, "%s (node %s)", n->target ? n->target : "?", n->name ? n->name : "?");
  }
  cg_fail_kernel_if(g, rc, node);
}

static LLVMValueRef f32c(cg *g, double v) { return LLVMConstReal(g->f32, v); }

/* SC_HALF_BF16 / SC_HALF_F16 when both operands of a product hold numbers of that dtype
 * (passes/half_precision.h), else 0. */
static int half_operands(const cg_value *a, const cg_value *b) {
  sc_dtype t = a->v->meta.rounds_to;
  if (t != b->v->meta.rounds_to) return 0;
  return t == SC_DTYPE_BF16 ? SC_HALF_BF16 : t == SC_DTYPE_F16 ? SC_HALF_F16 : 0;
}

/* c = alpha op(a) op(b) + beta c over `batch` matrices.  On the device path, operands that
 * hold half-precision numbers (`half`: half_operands) take cuBLAS's products in that dtype
 * (sc_cu_bmm_half); on the CPU they go through the float32 product. */
static LLVMValueRef bmm(cg *g, LLVMValueRef batch, LLVMValueRef m, LLVMValueRef n, LLVMValueRef k, LLVMValueRef a,
                        LLVMValueRef a_stride, int ta, LLVMValueRef b, LLVMValueRef b_stride, int tb, LLVMValueRef c,
                        double alpha, double beta, int half) {
  LLVMTypeRef p[14] = {g->i64, g->i64, g->i64, g->i64, g->ptr, g->i64, g->i32, g->ptr, g->i64, g->i32, g->ptr, g->f32, g->f32,
                       g->i32};
  LLVMValueRef v[14] = {batch, m, n, k, a, a_stride, LLVMConstInt(g->i32, (unsigned)ta, 0), b, b_stride,
                        LLVMConstInt(g->i32, (unsigned)tb, 0), c, f32c(g, alpha), f32c(g, beta),
                        LLVMConstInt(g->i32, (unsigned)half, 0)};
  g->blas_products++;
  bool on_half = g->cuda && half;
  LLVMValueRef rc = cg_call(g, on_half ? "sc_k_bmm_half" : "sc_k_bmm_f32", g->i32, p, on_half ? 14 : 13, v,
                            on_half ? 14 : 13, false);
  check_rc(g, rc);
  return rc;
}

/* Writes src broadcast to out's shape into out (for biases). */
static void broadcast_into(cg *g, cg_value *src, cg_value *out) {
  int r = out->v->meta.rank, rs = src->v->meta.rank;
  LLVMValueRef st[CG_MAX_RANK], src_st[CG_MAX_RANK];
  strides_of(g, src, src_st);
  for (int d = 0; d < r; d++) {
    int k = d - (r - rs);
    int64_t one;
    st[d] = (k < 0 || (sc_expr_is_const(src->v->shape[k], &one) && one == 1)) ? cg_i64(g, 0) : src_st[k];
  }
  strided_copy(g, src->data, out->data, r, out->dims, st, out->v->meta.dtype);
}

/* ---- op families ------------------------------------------------------------------------------ */

/* view / reshape with a -1: where the other sizes multiply to 0 the -1 could be anything,
 * and torch refuses (with the input's 0 elements); so does the library. */
static void check_inferred_size(cg *g, const sc_node *n) {
  const sc_arg *a = arg(n, n->op->id == SC_OP_RESHAPE ? "shape" : "size");
  if (arg_none(a) || a->n_items > CG_MAX_RANK) return;
  int inferred = -1;
  for (size_t i = 0; i < a->n_items; i++)
    if (!a->items[i].value && a->items[i].i == -1) inferred = (int)i;
  if (inferred < 0) return;
  LLVMValueRef dims[CG_MAX_RANK], product = cg_i64(g, 1);
  char shape[200] = "";
  int n_dims = 0;
  for (size_t i = 0; i < a->n_items; i++) {
    strncat(shape, i ? ", " : "", sizeof shape - strlen(shape) - 1);
    if ((int)i == inferred) {
      strncat(shape, "-1", sizeof shape - strlen(shape) - 1);
      continue;
    }
    strncat(shape, "%lld", sizeof shape - strlen(shape) - 1);
    dims[n_dims] = a->items[i].value ? cg_expr(g, a->items[i].value->sym) : cg_i64(g, a->items[i].i);
    product = LLVMBuildMul(g->B, product, dims[n_dims++], "others");
  }
  char fmt[400];
  snprintf(fmt, sizeof fmt, "cannot reshape tensor of 0 elements into shape [%s] because the unspecified dimension "
           "size -1 can be any value and is ambiguous (node '%s')", shape, n->name);
  cg_fail_msg_if(g, LLVMBuildICmp(g->B, LLVMIntEQ, product, cg_i64(g, 0), "ambiguous"), fmt, dims, n_dims);
}

/* Whether a piece of compact x cut along dim d (a split's part, a slice of step 1, a
 * select or a narrow) is compact itself: every dim before d has size 1, so the piece is one
 * run of x's memory, which it can name instead of a copy (the rows of in_proj_weight that
 * nn.MultiheadAttention splits off for keys other than its queries: four copies a call). */
static bool piece_is_compact(const cg_value *x, int d) {
  for (int k = 0; k < d; k++) {
    int64_t size;
    if (!sc_expr_is_const(x->v->shape[k], &size) || size != 1) return false;
  }
  return true;
}

/* select at an index from data (an item()): the guards checked only what the analysis
 * knew, so the index is checked here before it addresses memory, in torch's words. */
static void check_select_index(cg *g, const sc_node *n, cg_value *x, int d, LLVMValueRef at) {
  int rx = x->v->meta.rank;
  LLVMValueRef size = x->dims[d], args[1 + CG_MAX_RANK] = {at};
  LLVMValueRef bad = LLVMBuildOr(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, at, LLVMBuildNeg(g->B, size, "lo"), "under"),
                                 LLVMBuildICmp(g->B, LLVMIntSGE, at, size, "over"), "bad");
  sc_strbuf fmt = {0};
  sc_strbuf_append(&fmt, "select(): index %lld out of range for tensor of size [");
  for (int k = 0; k < rx; k++) {
    sc_strbuf_append(&fmt, k ? ", %lld" : "%lld");
    args[1 + k] = x->dims[k];
  }
  sc_strbuf_printf(&fmt, "] at dimension %d (node '", d);
  for (const char *c = n->name; c && *c; c++) sc_strbuf_append(&fmt, *c == '%' ? "%%" : (char[2]){*c, 0});
  sc_strbuf_append(&fmt, "')");
  cg_fail_msg_if(g, bad, sc_strbuf_cstr(&fmt), args, (unsigned)(1 + rx));
  sc_strbuf_free(&fmt);
}

static bool lower_view(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, n->op->id == SC_OP_DROPOUT ? "input" : "self");
  sc_value *out = output(n, 0);
  if (!x) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: no input", n->target);
  if (n->op->id == SC_OP_VIEW || n->op->id == SC_OP_UNSAFE_VIEW || n->op->id == SC_OP_RESHAPE)
    check_inferred_size(g, n);
  cg_value *co = cg_get(g, out);
  cg_set_dims(g, co);
  if (co->chain_base) { /* a step of a chain attention reads in place (cg_view_chains.c) */
    co->data = co->chain_offset ? offset_ptr(g, co->chain_base->data, cg_expr(g, co->chain_offset), out->meta.dtype)
                                : co->chain_base->data;
    cg_note_alias(g, co, co->chain_base);
    co->ready = true;
    return true;
  }
  int r = out->meta.rank, rx = x->v->meta.rank;
  LLVMValueRef xs[CG_MAX_RANK], st[CG_MAX_RANK];
  strides_of(g, x, xs);
  LLVMValueRef base = x->data;
  switch (n->op->id) {
    case SC_OP_VIEW: case SC_OP_UNSAFE_VIEW: case SC_OP_RESHAPE: case SC_OP_FLATTEN: case SC_OP_UNSQUEEZE:
    case SC_OP_SQUEEZE_DIM: case SC_OP_SQUEEZE_DIMS: case SC_OP_ALIAS: case SC_OP_CONTIGUOUS: case SC_OP_CLONE:
    case SC_OP_DROPOUT: case SC_OP_DETACH: case SC_OP_DETACH_: case SC_OP_LIFT_FRESH_COPY: case SC_OP_UNFLATTEN:
    case SC_OP_VIEW_AS:
      co->data = x->data; /* every tensor is compact: these only rename */
      if (x->strided) { /* but a view on its way to fused loops (cg_strided_views.c) */
        if (!co->strided)
          return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: a view read in place reached a reader that is no loop",
                          n->target);
        memcpy(co->view_strides, x->view_strides, sizeof co->view_strides);
      }
      cg_note_alias(g, co, x);
      co->ready = true;
      return true;
    case SC_OP_T: case SC_OP_TRANSPOSE: case SC_OP_PERMUTE: {
      cg_value *into = g->folded[n - g->p->graph->nodes].into;
      if (into) { /* batch-first rows: the linear layer's buffer as it is (cg_batch_first.c) */
        co->data = into->data;
        cg_note_alias(g, co, into);
        co->ready = true;
        return true;
      }
      if (co->written_by_producer) { /* the product before it wrote it (cg_transpose.c) */
        co->ready = true;
        return true;
      }
      if (co->view_base) { /* read in place by the products that use it (cg_transpose.c) */
        co->data = co->view_base->data;
        cg_note_alias(g, co, co->view_base);
        co->ready = true;
        return true;
      }
      int perm[CG_MAX_RANK];
      for (int d = 0; d < r; d++) perm[d] = d;
      if (n->op->id == SC_OP_PERMUTE) {
        int64_t dims[CG_MAX_RANK] = {0};
        ints(n, "dims", dims, CG_MAX_RANK);
        for (int d = 0; d < r; d++) perm[d] = norm_dim(dims[d], r);
      } else if (r >= 2) {
        int a = n->op->id == SC_OP_T ? 0 : norm_dim(int_arg(n, "dim0", 0), r);
        int b = n->op->id == SC_OP_T ? 1 : norm_dim(int_arg(n, "dim1", 1), r);
        perm[a] = b;
        perm[b] = a;
      }
      for (int d = 0; d < r; d++) st[d] = xs[perm[d]];
      break;
    }
    case SC_OP_EXPAND: case SC_OP_EXPAND_AS:
      for (int d = 0; d < r; d++) {
        int k = d - (r - rx);
        int64_t one;
        st[d] = (k < 0 || (sc_expr_is_const(x->v->shape[k], &one) && one == 1)) ? cg_i64(g, 0) : xs[k];
        /* a size that may be 1 only when it runs (Min(1, b)) repeats then, as in the fused loops */
        if (k >= 0 && x->v->shape[k] != out->shape[d] && !sc_expr_is_const(x->v->shape[k], &one))
          st[d] = LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntEQ, x->dims[k], cg_i64(g, 1), "one"), cg_i64(g, 0),
                                  st[d], "bst");
      }
      break;
    case SC_OP_SLICE: {
      int d = norm_dim(int_arg(n, "dim", 0), rx);
      int64_t step = int_arg(n, "step", 1);
      LLVMValueRef size = x->dims[d], start = int_value(g, n, "start", 0);
      /* negative starts count from the end; then clamp to [0, size] as ATen does */
      LLVMValueRef neg = LLVMBuildICmp(g->B, LLVMIntSLT, start, cg_i64(g, 0), "neg");
      start = LLVMBuildSelect(g->B, neg, LLVMBuildAdd(g->B, start, size, "w"), start, "s");
      start = LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, start, cg_i64(g, 0), "lt"), cg_i64(g, 0), start, "s");
      start = LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntSGT, start, size, "gt"), size, start, "s");
      for (int k = 0; k < r; k++) st[k] = xs[k];
      st[d] = LLVMBuildMul(g->B, xs[d], cg_i64(g, step), "st");
      base = offset_ptr(g, x->data, LLVMBuildMul(g->B, start, xs[d], "o"), x->v->meta.dtype);
      break;
    }
    case SC_OP_SELECT: case SC_OP_NARROW: {
      int d = norm_dim(int_arg(n, "dim", 0), rx);
      LLVMValueRef at = int_value(g, n, n->op->id == SC_OP_SELECT ? "index" : "start", 0);
      if (n->op->id == SC_OP_SELECT && !LLVMIsConstant(at)) check_select_index(g, n, x, d, at);
      LLVMValueRef neg = LLVMBuildICmp(g->B, LLVMIntSLT, at, cg_i64(g, 0), "neg");
      at = LLVMBuildSelect(g->B, neg, LLVMBuildAdd(g->B, at, x->dims[d], "w"), at, "at");
      base = offset_ptr(g, x->data, LLVMBuildMul(g->B, at, xs[d], "o"), x->v->meta.dtype);
      for (int k = 0, o = 0; k < rx; k++)
        if (n->op->id == SC_OP_NARROW || k != d) st[o++] = xs[k];
      break;
    }
    default: return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has no CPU lowering", n->target);
  }
  if (co->strided) { /* its readers' loops read it where it is (cg_strided_views.c) */
    co->data = base;
    for (int d = 0; d < r; d++) co->view_strides[d] = st[d];
    cg_note_alias(g, co, x);
    co->ready = true;
    return true;
  }
  bool piece = n->op->id == SC_OP_SELECT || n->op->id == SC_OP_NARROW ||
               (n->op->id == SC_OP_SLICE && int_arg(n, "step", 1) == 1);
  if (piece && piece_is_compact(x, norm_dim(int_arg(n, "dim", 0), rx))) {
    co->data = base;
    cg_note_alias(g, co, x);
    co->ready = true;
    return true;
  }
  co->data = cg_alloc_buffer(g, co, LLVMBuildMul(g->B, co->numel, cg_elem_size(g, out->meta.dtype), "bytes"));
  co->ready = true;
  strided_copy(g, base, co->data, r, co->dims, st, out->meta.dtype);
  return true;
}

static bool lower_split(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, "self");
  int rx = x->v->meta.rank;
  int d = norm_dim(int_arg(n, "dim", 0), rx);
  LLVMValueRef xs[CG_MAX_RANK];
  strides_of(g, x, xs);
  LLVMValueRef at = cg_i64(g, 0);
  for (int k = 0;; k++) {
    sc_value *ov = output(n, k);
    if (!ov) {
      if (k < 64 && k < (int)n->outputs[0].n_items + (int)n->n_outputs) continue;
      break;
    }
    cg_value *co = cg_get(g, ov);
    cg_set_dims(g, co);
    LLVMValueRef from = offset_ptr(g, x->data, LLVMBuildMul(g->B, at, xs[d], "o"), ov->meta.dtype);
    co->ready = true;
    if (piece_is_compact(x, d)) {
      co->data = from;
      cg_note_alias(g, co, x);
    } else {
      co->data = cg_alloc_buffer(g, co, LLVMBuildMul(g->B, co->numel, cg_elem_size(g, ov->meta.dtype), "bytes"));
      LLVMValueRef st[CG_MAX_RANK];
      for (int j = 0, o = 0; j < rx; j++)
        if (n->op->id != SC_OP_UNBIND || j != d) st[o++] = xs[j];
      strided_copy(g, from, co->data, ov->meta.rank, co->dims, st, ov->meta.dtype);
    }
    at = LLVMBuildAdd(g->B, at, n->op->id == SC_OP_UNBIND ? cg_i64(g, 1) : co->dims[d], "at");
  }
  return true;
}

static bool lower_cat(cg *g, const sc_node *n, bool stack) {
  const sc_arg *ts = arg(n, "tensors");
  if (!stack && !g->cuda) { /* a KV cache grown in the caller's buffer (cg_cache_append.c) */
    cg_value *y = cg_get(g, output(n, 0));
    if (y->append || y->past_of || cg_cat_of_input_alone(g, n)) return cg_lower_cache_cat(g, n);
  }
  cg_value *out = cg_produce(g, output(n, 0));
  int r = out->v->meta.rank;
  int d = norm_dim(int_arg(n, "dim", 0), stack ? r : r);
  LLVMValueRef os[CG_MAX_RANK];
  strides_of(g, out, os);
  LLVMValueRef at = cg_i64(g, 0);
  for (size_t i = 0; i < ts->n_items; i++) {
    cg_value *x = cg_get(g, ts->items[i].value);
    int64_t z;
    if (!stack && x->v->meta.rank == 1 && r > 1 && sc_expr_is_const(x->v->shape[0], &z) && z == 0) continue;
    LLVMValueRef dst_st[CG_MAX_RANK], shape[CG_MAX_RANK];
    int nd = x->v->meta.rank;
    for (int k = 0, o = 0; k < r; k++) {
      if (stack && k == d) continue;
      dst_st[o] = os[k];
      shape[o] = x->dims[o];
      o++;
    }
    LLVMTypeRef p[6] = {g->ptr, g->ptr, g->i32, g->ptr, g->ptr, g->i64};
    LLVMValueRef a[6] = {x->data, offset_ptr(g, out->data, LLVMBuildMul(g->B, at, os[d], "o"), out->v->meta.dtype),
                         LLVMConstInt(g->i32, (unsigned)nd, 0), array_i64(g, shape, nd), array_i64(g, dst_st, nd),
                         cg_elem_size(g, out->v->meta.dtype)};
    cg_call(g, "sc_k_copy_into", g->voidt, p, 6, a, 6, false);
    at = LLVMBuildAdd(g->B, at, stack ? cg_i64(g, 1) : x->dims[d], "at");
  }
  return true;
}

/* vstack / hstack: each tensor, lifted with leading dims of size 1 to the output's rank,
 * copied into its place along dim 0 (vstack, or hstack of vectors) or 1. */
static bool lower_hv_stack(cg *g, const sc_node *n) {
  const sc_arg *ts = arg(n, "tensors");
  cg_value *out = cg_produce(g, output(n, 0));
  int r = out->v->meta.rank, d = n->op->id == SC_OP_VSTACK || r == 1 ? 0 : 1;
  LLVMValueRef os[CG_MAX_RANK];
  strides_of(g, out, os);
  LLVMValueRef at = cg_i64(g, 0);
  for (size_t i = 0; i < ts->n_items; i++) {
    cg_value *x = cg_get(g, ts->items[i].value);
    if (x->v->meta.dtype != out->v->meta.dtype)
      return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of a %s tensor into %s has no CPU lowering", n->target,
                      sc_dtype_name(x->v->meta.dtype), sc_dtype_name(out->v->meta.dtype));
    int lead = r - x->v->meta.rank;
    LLVMValueRef shape[CG_MAX_RANK];
    for (int k = 0; k < r; k++) shape[k] = k < lead ? cg_i64(g, 1) : x->dims[k - lead];
    LLVMTypeRef p[6] = {g->ptr, g->ptr, g->i32, g->ptr, g->ptr, g->i64};
    LLVMValueRef a[6] = {x->data, offset_ptr(g, out->data, LLVMBuildMul(g->B, at, os[d], "o"), out->v->meta.dtype),
                         LLVMConstInt(g->i32, (unsigned)r, 0), array_i64(g, shape, r), array_i64(g, os, r),
                         cg_elem_size(g, out->v->meta.dtype)};
    cg_call(g, "sc_k_copy_into", g->voidt, p, 6, a, 6, false);
    at = LLVMBuildAdd(g->B, at, shape[d], "at");
  }
  return true;
}

/* A position along a dim of size `size` as slice and select take it: a negative one counts
 * from the end; clamped to [0, size] (a slice's bounds; select's index is checked by the
 * shape rule's guards or here). */
static LLVMValueRef clamp_position(cg *g, LLVMValueRef at, LLVMValueRef size) {
  LLVMValueRef zero = cg_i64(g, 0);
  at = LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, at, zero, "neg"), LLVMBuildAdd(g->B, at, size, "w"), at, "p");
  at = LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, at, zero, "lo"), zero, at, "p");
  return LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntSGT, at, size, "hi"), size, at, "p");
}

/* slice_scatter(self, src, dim, start, end, step), select_scatter(self, src, dim, index) and
 * diagonal_scatter(self, src, offset, dim1, dim2): self copied, then src written over the
 * slice (every step-th position from start), the selected position of dim or the diagonal
 * (as diagonal reads it: the other dims in order, the diagonal last); src has the view's
 * shape (the decomposed IR's in-place writes into views: x[:, 1:] = y, x[:, 0] = v). */
static bool lower_scatter_view(cg *g, const sc_node *n) {
  cg_value *self = tensor(g, n, "self"), *src = tensor(g, n, "src");
  if (!self || !src) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: a tensor argument is missing", n->target);
  cg_value *out = cg_produce(g, output(n, 0));
  int r = out->v->meta.rank, d = norm_dim(int_arg(n, "dim", 0), r);
  sc_dtype dt = out->v->meta.dtype;
  if (src->v->meta.dtype != dt)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of a %s source into %s has no CPU lowering", n->target,
                    sc_dtype_name(src->v->meta.dtype), sc_dtype_name(dt));
  LLVMValueRef os[CG_MAX_RANK], ss[CG_MAX_RANK];
  strides_of(g, out, os);
  strides_of(g, self, ss);
  strided_copy(g, self->data, out->data, r, self->dims, ss, dt);
  LLVMValueRef at, dst_st[CG_MAX_RANK];
  int k = 0;
  if (n->op->id == SC_OP_DIAGONAL_SCATTER) { /* the strides lower_diagonal reads with */
    int a = norm_dim(int_arg(n, "dim1", 0), r), b = norm_dim(int_arg(n, "dim2", 1), r);
    int64_t off = int_arg(n, "offset", 0);
    for (int j = 0; j < r; j++)
      if (j != a && j != b) dst_st[k++] = os[j];
    dst_st[k++] = LLVMBuildAdd(g->B, os[a], os[b], "diag");
    LLVMValueRef start = LLVMBuildMul(g->B, cg_i64(g, off >= 0 ? off : -off), off >= 0 ? os[b] : os[a], "start");
    if (src->v->meta.rank != k)
      return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: src of rank %d for a diagonal of rank %d", n->target,
                      src->v->meta.rank, k);
    LLVMTypeRef p[6] = {g->ptr, g->ptr, g->i32, g->ptr, g->ptr, g->i64};
    LLVMValueRef v[6] = {src->data, offset_ptr(g, out->data, start, dt), LLVMConstInt(g->i32, (unsigned)k, 0),
                         array_i64(g, src->dims, k), array_i64(g, dst_st, k), cg_elem_size(g, dt)};
    cg_call(g, "sc_k_copy_into", g->voidt, p, 6, v, 6, false);
    return true;
  }
  if (n->op->id == SC_OP_SLICE_SCATTER) {
    at = clamp_position(g, int_value(g, n, "start", 0), out->dims[d]);
    LLVMValueRef step = int_value(g, n, "step", 1);
    for (int j = 0; j < r; j++) dst_st[k++] = j == d ? LLVMBuildMul(g->B, os[j], step, "st") : os[j];
  } else {
    at = int_value(g, n, "index", 0);
    at = LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, at, cg_i64(g, 0), "neg"), LLVMBuildAdd(g->B, at, out->dims[d], "w"), at, "i");
    for (int j = 0; j < r; j++)
      if (j != d) dst_st[k++] = os[j];
  }
  if (src->v->meta.rank != k)
    return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: src of rank %d for a %s of rank %d", n->target, src->v->meta.rank,
                    n->op->id == SC_OP_SLICE_SCATTER ? "slice" : "select", k);
  LLVMTypeRef p[6] = {g->ptr, g->ptr, g->i32, g->ptr, g->ptr, g->i64};
  LLVMValueRef a[6] = {src->data, offset_ptr(g, out->data, LLVMBuildMul(g->B, at, os[d], "o"), dt),
                       LLVMConstInt(g->i32, (unsigned)k, 0), array_i64(g, src->dims, k), array_i64(g, dst_st, k),
                       cg_elem_size(g, dt)};
  cg_call(g, "sc_k_copy_into", g->voidt, p, 6, a, 6, false);
  return true;
}

static LLVMValueRef prod(cg *g, LLVMValueRef *dims, int from, int to) {
  LLVMValueRef acc = cg_i64(g, 1);
  for (int i = from; i < to; i++) acc = LLVMBuildMul(g->B, acc, dims[i], "p");
  return acc;
}

/* A matmul operand with batch dims as [out's batch dims..., rows, cols]: the operand itself
 * when its batch dims are the output's, else a scratch copy broadcast to them. */
static LLVMValueRef batch_operand(cg *g, cg_value *x, cg_value *out, int nb, LLVMValueRef rows, LLVMValueRef cols) {
  int rx = x->v->meta.rank, xb = rx - 2;
  bool same = xb == nb;
  for (int d = 0; same && d < nb; d++) same = x->v->shape[d] == out->v->shape[d];
  if (same) return x->data;
  LLVMValueRef xs[CG_MAX_RANK], st[CG_MAX_RANK], shape[CG_MAX_RANK];
  strides_of(g, x, xs);
  for (int d = 0; d < nb; d++) {
    int k = d - (nb - xb);
    int64_t one;
    bool bcast = k < 0 || (sc_expr_is_const(x->v->shape[k], &one) && one == 1);
    st[d] = bcast ? cg_i64(g, 0) : xs[k];
    shape[d] = out->dims[d];
  }
  st[nb] = xs[rx - 2];
  st[nb + 1] = xs[rx - 1];
  shape[nb] = rows;
  shape[nb + 1] = cols;
  cg_value *scratch = sc_arena_alloc(&g->ctx->arena, sizeof *scratch);
  scratch->last_use = g->node; /* freed after this node */
  LLVMValueRef elems = LLVMBuildMul(g->B, prod(g, out->dims, 0, nb), LLVMBuildMul(g->B, rows, cols, "rc"), "n");
  LLVMValueRef data = cg_alloc_buffer(g, scratch, LLVMBuildMul(g->B, elems, cg_elem_size(g, x->v->meta.dtype), "bytes"));
  strided_copy(g, x->data, data, nb + 2, shape, st, x->v->meta.dtype);
  return data;
}

/* A strided product's operand (or result) x as sc_k_bmm_strided_f32 takes it: strides of
 * its nb (at most 2) batch dims and its leading dim; whether its matrices are stored
 * transposed.  x is compact, or a view of a compact tensor (cg_transpose.c). */
static int matrix_strides(cg *g, cg_value *x, int nb, LLVMValueRef *st) {
  cg_value *base = x->view_base ? x->view_base : x;
  int r = x->v->meta.rank;
  LLVMValueRef bs[CG_MAX_RANK], s[CG_MAX_RANK];
  strides_of(g, base, bs);
  for (int d = 0; d < r; d++) s[d] = bs[x->view_base ? x->view_perm[d] : d];
  st[0] = nb == 2 ? s[0] : cg_i64(g, 0);
  st[1] = nb >= 1 ? s[nb - 1] : cg_i64(g, 0);
  bool rows_contiguous = x->view_base && x->view_perm[r - 1] != r - 1; /* then its rows dim is */
  st[2] = rows_contiguous ? s[r - 1] : s[r - 2];
  return rows_contiguous;
}

/* A strided product's output: its own buffer, or, when the plan says so, the permutation
 * that reads it, which the product fills in place (cg_transpose.c). */
static cg_value *product_output(cg *g, const sc_value *ov) {
  cg_value *out = cg_get(g, ov);
  if (!out->writes_into_base) return cg_produce(g, ov);
  cg_produce(g, out->view_base->v);
  cg_set_dims(g, out);
  out->data = out->view_base->data;
  cg_note_alias(g, out, out->view_base);
  out->ready = true;
  return out;
}

/* bmm or a batched matmul through strides: views read in place, and the result written
 * into the permutation that reads it when the plan says so (cg_transpose.c). */
static void strided_product(cg *g, cg_value *a, cg_value *b, const sc_value *ov, double alpha) {
  cg_value *out = product_output(g, ov);
  int r = ov->meta.rank, nb = r - 2;
  LLVMValueRef shape[5] = {nb == 2 ? out->dims[0] : cg_i64(g, 1), nb >= 1 ? out->dims[nb - 1] : cg_i64(g, 1),
                           out->dims[r - 2], out->dims[r - 1], a->dims[r - 1]};
  LLVMValueRef as[3], bs[3], cs[3];
  int ta = matrix_strides(g, a, nb, as), tb = matrix_strides(g, b, nb, bs);
  matrix_strides(g, out, nb, cs);
  /* oneDNN's matmul keeps a primitive per shape in the site (backends/cpu/runtime/onednn.c) */
  LLVMValueRef site = LLVMAddGlobal(g->M, g->ptr, "shapec_product_site");
  LLVMSetInitializer(site, LLVMConstNull(g->ptr));
  LLVMSetLinkage(site, LLVMInternalLinkage);
  LLVMTypeRef p[11] = {g->ptr, g->ptr, g->ptr, g->ptr, g->i32, g->ptr, g->ptr, g->i32, g->ptr, g->ptr, g->f32};
  LLVMValueRef v[11] = {site, array_i64(g, shape, 5), a->data, array_i64(g, as, 3), LLVMConstInt(g->i32, (unsigned)ta, 0),
                        b->data, array_i64(g, bs, 3), LLVMConstInt(g->i32, (unsigned)tb, 0), out->data,
                        array_i64(g, cs, 3), f32c(g, alpha)};
  g->onednn_sites++;
  check_rc(g, cg_call(g, "sc_k_bmm_strided_site_f32", g->i32, p, 11, v, 11, false));
}

/* The scale a strided product absorbed from the node after it (cg_epilogue.c), or 1. */
static double product_alpha(cg *g, const sc_node *n) {
  double scale = g->folded[n - g->p->graph->nodes].scale;
  return scale ? scale : 1.0;
}

/* ---- attention (backends/cpu/runtime/attention.c) ---------------------------------------- */

/* x's strides as sc_k_attention_f32 takes them: its two batch levels (the output's last two
 * batch dims, 0 where x has no such dim or broadcasts over it), rows, cols.  x is compact,
 * or a view of a compact tensor (cg_transpose.c); nb: the output's batch dims, at most 2. */
static void attention_strides(cg *g, const cg_value *x, const cg_value *out, int nb, LLVMValueRef *st) {
  const cg_value *base = x->view_base ? x->view_base : x;
  int r = x->v->meta.rank, xb = r - 2;
  LLVMValueRef bs[CG_MAX_RANK], s[CG_MAX_RANK];
  strides_of(g, base, bs);
  for (int d = 0; d < r; d++)
    s[d] = x->chain_offset ? cg_expr(g, x->chain_strides[d])
           : x->append     ? x->grown_strides[d] /* a cache grown in the caller's buffer */
                           : bs[x->view_base ? x->view_perm[d] : d];
  for (int level = 0; level < 2; level++) {
    int d = nb - 2 + level, k = d - (nb - xb); /* the output's dim, x's dim */
    int64_t one;
    bool none = d < 0 || k < 0 || (sc_expr_is_const(x->v->shape[k], &one) && one == 1 &&
                                   !(sc_expr_is_const(out->v->shape[d], &one) && one == 1));
    st[level] = none ? cg_i64(g, 0) : s[k];
  }
  for (int d = 0; d < 2; d++) { /* a row or column of one broadcasts */
    int64_t one;
    st[2 + d] = sc_expr_is_const(x->v->shape[r - 2 + d], &one) && one == 1 ? cg_i64(g, 0) : s[r - 2 + d];
  }
}

/* Whether an attention's sizes (outer, inner, l, s, e, ev) make it one that
 * sc_k_attention_tiny_f32 may take: at most 4 queries over at most 8 keys, heads at most
 * 64 wide, all known at export (the batch may vary). */
static bool tiny_attention(LLVMValueRef *dims) {
  static const int64_t most[4] = {4, 8, 64, 64};
  for (int d = 0; d < 4; d++)
    if (!LLVMIsAConstantInt(dims[2 + d]) || LLVMConstIntGetSExtValue(dims[2 + d]) < 1 ||
        LLVMConstIntGetSExtValue(dims[2 + d]) > most[d])
      return false;
  return true;
}

/* out = softmax(q k^T * scale + mask) v: dims (outer, inner, l, s, e, ev) and the 18
 * strides of sc_k_attention_f32; its scratch from the workspace, dead after this node. */
static void attention_call(cg *g, LLVMValueRef q, LLVMValueRef k, LLVMValueRef v, LLVMValueRef mask, LLVMValueRef out,
                           LLVMValueRef *dims, LLVMValueRef *strides, LLVMValueRef scale, int flags) {
  LLVMValueRef dims_at = array_i64(g, dims, 6), strides_at = array_i64(g, strides, 18);
  LLVMBasicBlockRef done = NULL;
  if (cg_has_avx512(g) && LLVMIsNull(mask) && tiny_attention(dims)) { /* first on the calling thread, no scratch */
    LLVMTypeRef tp[9] = {g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->f64, g->i32};
    LLVMValueRef ta[9] = {q, k, v, mask, out, dims_at, strides_at, scale, LLVMConstInt(g->i32, (unsigned)flags, 0)};
    LLVMValueRef took = cg_call(g, "sc_k_attention_tiny_f32", g->i32, tp, 9, ta, 9, false);
    LLVMBasicBlockRef general = cg_block(g, "attention.general");
    done = cg_block(g, "attention.done");
    LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntNE, took, LLVMConstInt(g->i32, 0, 0), "took"), done, general);
    LLVMPositionBuilderAtEnd(g->B, general);
  }
  LLVMTypeRef sp[1] = {g->ptr};
  LLVMValueRef bytes = cg_call(g, "sc_k_attention_scratch_bytes", g->i64, sp, 1, &dims_at, 1, false);
  cg_value *scratch = sc_arena_alloc(&g->ctx->arena, sizeof *scratch);
  scratch->last_use = g->node;
  LLVMValueRef at = cg_alloc_buffer(g, scratch, bytes);
  LLVMTypeRef p[11] = {g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->f64, g->i32, g->ptr, g->i64};
  LLVMValueRef a[11] = {q, k, v, mask, out, dims_at, strides_at, scale, LLVMConstInt(g->i32, (unsigned)flags, 0), at, bytes};
  cg_call(g, "sc_k_attention_f32", g->voidt, p, 11, a, 11, false);
  if (done) {
    LLVMBuildBr(g->B, done);
    LLVMPositionBuilderAtEnd(g->B, done);
  }
}

/* The output's batch levels for sc_k_attention_f32: its last two batch dims. */
static void attention_batch(cg *g, const cg_value *out, int nb, LLVMValueRef *dims) {
  dims[0] = nb >= 2 ? out->dims[nb - 2] : cg_i64(g, 1);
  dims[1] = nb >= 1 ? out->dims[nb - 1] : cg_i64(g, 1);
}

/* softmax(q @ k^T * c) @ v planned as one kernel (cg_attention.c), at the second product n:
 * q and k^T are the first product's operands, c its absorbed scale. */
static void fused_attention(cg *g, const sc_node *n, const sc_value *ov) {
  const sc_node *first = &g->p->graph->nodes[g->folded[n - g->p->graph->nodes].attention_scores - 1];
  bool bmm_first = first->op->id == SC_OP_BMM, bmm_second = n->op->id == SC_OP_BMM;
  cg_value *q = tensor(g, first, "self"), *kt = tensor(g, first, bmm_first ? "mat2" : "other");
  cg_value *v = tensor(g, n, bmm_second ? "mat2" : "other");
  cg_value *out = product_output(g, ov);
  int r = ov->meta.rank, nb = r - 2;
  LLVMValueRef dims[6], st[18], kst[4];
  attention_batch(g, out, nb, dims);
  dims[2] = out->dims[r - 2];
  dims[3] = v->dims[r - 2];
  dims[4] = q->dims[r - 1];
  dims[5] = out->dims[r - 1];
  attention_strides(g, q, out, nb, st);
  attention_strides(g, kt, out, nb, kst); /* k^T's (depth, key) strides are k's (key, depth) */
  st[4] = kst[0], st[5] = kst[1], st[6] = kst[3], st[7] = kst[2];
  attention_strides(g, v, out, nb, kst);
  memcpy(st + 8, kst, 3 * sizeof *st);
  attention_strides(g, out, out, nb, kst);
  memcpy(st + 11, kst, 3 * sizeof *st);
  for (int i = 14; i < 18; i++) st[i] = cg_i64(g, 0);
  attention_call(g, q->data, kt->data, v->data, LLVMConstNull(g->ptr), out->data, dims, st,
                 LLVMConstReal(g->f64, product_alpha(g, first)), 0);
}

/* scaled_dot_product_attention's scale: its argument, or 1 / sqrt(e). */
static LLVMValueRef sdpa_scale(cg *g, const sc_node *n, LLVMValueRef e) {
  double scale = float_arg(n, "scale", NAN);
  if (!isnan(scale)) return LLVMConstReal(g->f64, scale);
  LLVMTypeRef f1[1] = {g->f64};
  LLVMValueRef x[1] = {LLVMBuildSIToFP(g->B, e, g->f64, "e")};
  LLVMValueRef root = LLVMBuildCall2(g->B, LLVMFunctionType(g->f64, f1, 1, 0), cg_function(g, "sqrt", g->f64, f1, 1, false),
                                     x, 1, "sq");
  return LLVMBuildFDiv(g->B, LLVMConstReal(g->f64, 1), root, "sc");
}

/* scaled_dot_product_attention on the host: operands read through broadcasting strides
 * when the output has at most two batch dims, else copied compact and broadcast first. */
/* A bool attention mask as an additive float32 one in a scratch buffer of the same shape,
 * freed after this node: the kernels read additive masks only. */
static cg_value *additive_mask(cg *g, cg_value *m) {
  sc_value *fv = sc_arena_alloc(&g->ctx->arena, sizeof *fv);
  *fv = *m->v;
  fv->meta.dtype = SC_DTYPE_F32;
  cg_value *f = sc_arena_alloc(&g->ctx->arena, sizeof *f);
  memset(f, 0, sizeof *f);
  f->v = fv;
  memcpy(f->dims, m->dims, sizeof f->dims);
  f->numel = m->numel;
  f->held_swapped = m->held_swapped;
  f->ready = true;
  f->last_use = g->node; /* freed after this node */
  f->data = cg_alloc_buffer(g, f, LLVMBuildMul(g->B, m->numel, cg_i64(g, 4), "bytes"));
  LLVMTypeRef p[3] = {g->ptr, g->ptr, g->i64};
  LLVMValueRef a[3] = {m->data, f->data, m->numel};
  cg_call(g, "sc_k_mask_to_additive_f32", g->voidt, p, 3, a, 3, false);
  return f;
}

static bool sdpa_host(cg *g, const sc_node *n, const sc_value *ov) {
  cg_value *q = tensor(g, n, "query"), *kk = tensor(g, n, "key"), *v = tensor(g, n, "value"), *mask = tensor(g, n, "attn_mask");
  /* grouped-query attention: key and value heads shared by `group` query heads, read in
   * place (cg_grouped_kv.c) */
  int64_t group = 1;
  if (!kk->grouped_from != !v->grouped_from || (kk->grouped_from && kk->group != v->group))
    return cg_error(g, SC_DIAG_CODEGEN, n->path, "internal error: key and value of attention grouped differently");
  if (kk->grouped_from) {
    group = kk->group;
    kk = kk->grouped_from;
    v = v->grouped_from;
  }
  if (mask && mask->v->meta.dtype == SC_DTYPE_BOOL && !mask->strided && !mask->view_base && !mask->transposed)
    mask = additive_mask(g, mask);
  if (mask && mask->v->meta.dtype != SC_DTYPE_F32)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "attention with a %s mask has no CPU lowering yet (use "
                    "an additive float32 mask)", sc_dtype_name(mask->v->meta.dtype));
  if (mask && mask->v->meta.rank < 2)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "attention with a %d-D mask has no CPU lowering yet (give "
                    "the mask its [..., L, S] dims)", mask->v->meta.rank);
  cg_value *out = product_output(g, ov); /* maybe the permutation after it (cg_transpose.c) */
  int r = out->v->meta.rank, nb = r - 2, rq = q->v->meta.rank;
  LLVMValueRef dims[6], st[18];
  dims[2] = out->dims[r - 2];
  dims[3] = kk->dims[kk->v->meta.rank - 2];
  dims[4] = q->dims[rq - 1];
  dims[5] = out->dims[r - 1];
  LLVMValueRef qd = q->data, kd = kk->data, vd = v->data, md = mask ? mask->data : LLVMConstNull(g->ptr);
  cg_value *operands[5] = {q, kk, v, out, mask};
  LLVMValueRef *at[5] = {st, st + 4, st + 8, st + 11, st + 14}, tmp[4];
  if (nb <= 2) {
    attention_batch(g, out, nb, dims);
    for (int i = 0; i < 5; i++) {
      if (!operands[i]) {
        for (int j = 0; j < 4; j++) at[i][j] = cg_i64(g, 0);
        continue;
      }
      attention_strides(g, operands[i], out, nb, tmp);
      memcpy(at[i], tmp, (i == 2 || i == 3 ? 3 : 4) * sizeof *tmp);
    }
  } else { /* every batch dim folded into the inner level */
    dims[0] = cg_i64(g, 1);
    dims[1] = prod(g, out->dims, 0, nb);
    LLVMValueRef *data[5] = {&qd, &kd, &vd, NULL, &md};
    for (int i = 0; i < 5; i++) {
      cg_value *x = operands[i];
      if (!x) {
        for (int j = 0; j < 4; j++) at[i][j] = cg_i64(g, 0);
        continue;
      }
      int rx = x->v->meta.rank;
      LLVMValueRef rows = x->dims[rx - 2 < 0 ? 0 : rx - 2], cols = x->dims[rx - 1];
      if (rx < 2) rows = cg_i64(g, 1);
      if (data[i] && rx > 2) *data[i] = batch_operand(g, x, out, nb, rows, cols);
      int64_t one;
      bool one_row = rx < 2 || (sc_expr_is_const(x->v->shape[rx - 2], &one) && one == 1);
      bool one_col = sc_expr_is_const(x->v->shape[rx - 1], &one) && one == 1;
      at[i][0] = cg_i64(g, 0);
      at[i][1] = rx > 2 ? LLVMBuildMul(g->B, rows, cols, "mat") : cg_i64(g, 0);
      at[i][2] = one_row ? cg_i64(g, 0) : cols;
      if (i != 2 && i != 3) at[i][3] = one_col ? cg_i64(g, 0) : cg_i64(g, 1);
    }
  }
  attention_call(g, qd, kd, vd, md, out->data, dims, st, sdpa_scale(g, n, dims[4]),
                 (int_arg(n, "is_causal", 0) ? SC_ATTENTION_CAUSAL : 0) | (int)(group << SC_ATTENTION_GROUP_SHIFT));
  return true;
}

/* The device path's attention: query, key, value (and a batched mask) compact and broadcast
 * to the output's batch dims first. */
/* The attention mask as the device kernel reads it, in its own dtype: one compact [l, s]
 * matrix per batch item (*stride l*s), or one for all (*stride 0).  The mask broadcasts as
 * torch broadcasts it against [batch..., l, s]: a dim it lacks or holds once (a padding
 * mask [b, 1, 1, s]) is read with stride 0, copied out to the full matrix where needed. */
static LLVMValueRef device_mask(cg *g, cg_value *mask, cg_value *out, int nb, const sc_expr *l_size, LLVMValueRef l,
                                const sc_expr *s_size, LLVMValueRef s, LLVMValueRef *stride) {
  int rm = mask->v->meta.rank, total = nb + 2;
  /* already the kernel's layout: [l, s] for all, or [batch..., l, s] */
  bool direct = rm >= 2 && mask->v->shape[rm - 2] == l_size && mask->v->shape[rm - 1] == s_size &&
                (rm == 2 || rm == total);
  for (int d = 0; direct && rm == total && d < nb; d++) direct = mask->v->shape[d] == out->v->shape[d];
  if (direct) {
    *stride = rm == 2 ? cg_i64(g, 0) : LLVMBuildMul(g->B, l, s, "ms");
    return mask->data;
  }
  LLVMValueRef xs[CG_MAX_RANK], st[CG_MAX_RANK], shape[CG_MAX_RANK];
  strides_of(g, mask, xs);
  bool per_batch = false; /* a batch dim the mask does not broadcast over */
  for (int t = 0; t < total; t++) {
    int k = t - (total - rm);
    int64_t one;
    bool bcast = k < 0 || (sc_expr_is_const(mask->v->shape[k], &one) && one == 1);
    st[t] = bcast ? cg_i64(g, 0) : xs[k];
    shape[t] = t < nb ? out->dims[t] : t == nb ? l : s;
    if (t < nb) per_batch |= !bcast;
  }
  int first = per_batch ? 0 : nb; /* one matrix serves every batch item: that one alone */
  cg_value *scratch = sc_arena_alloc(&g->ctx->arena, sizeof *scratch);
  scratch->last_use = g->node; /* freed after this node */
  LLVMValueRef bytes = LLVMBuildMul(g->B, prod(g, shape, first, total), cg_elem_size(g, mask->v->meta.dtype), "bytes");
  LLVMValueRef data = cg_alloc_buffer(g, scratch, bytes);
  strided_copy(g, mask->data, data, total - first, shape + first, st + first, mask->v->meta.dtype);
  *stride = per_batch ? LLVMBuildMul(g->B, l, s, "ms") : cg_i64(g, 0);
  return data;
}

static bool sdpa_device(cg *g, const sc_node *n, const sc_value *ov) {
  cg_value *q = tensor(g, n, "query"), *kk = tensor(g, n, "key"), *v = tensor(g, n, "value"), *mask = tensor(g, n, "attn_mask");
  cg_value *out = cg_produce(g, ov);
  int r = out->v->meta.rank, nb = r - 2;
  LLVMValueRef l = q->dims[q->v->meta.rank - 2], e = q->dims[q->v->meta.rank - 1];
  LLVMValueRef s = kk->dims[kk->v->meta.rank - 2], ev = v->dims[v->v->meta.rank - 1];
  if (mask && mask->v->meta.dtype != SC_DTYPE_F32 && mask->v->meta.dtype != SC_DTYPE_BOOL)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "attention with a %s mask has no CUDA lowering yet "
                    "(export for the CPU, or give a bool or an additive float32 mask)", sc_dtype_name(mask->v->meta.dtype));
  /* query, key and value broadcast to the output's batch dims */
  LLVMValueRef qd = batch_operand(g, q, out, nb, l, e), kd = batch_operand(g, kk, out, nb, s, e);
  LLVMValueRef vd = batch_operand(g, v, out, nb, s, ev);
  LLVMValueRef md = LLVMConstNull(g->ptr), mstride = cg_i64(g, 0);
  if (mask)
    md = device_mask(g, mask, out, nb, q->v->shape[q->v->meta.rank - 2], l, kk->v->shape[kk->v->meta.rank - 2], s,
                     &mstride);
  LLVMValueRef sc = sdpa_scale(g, n, e);
  int flags = (int_arg(n, "is_causal", 0) ? SC_SDPA_CAUSAL : 0) |
              (mask && mask->v->meta.dtype == SC_DTYPE_BOOL ? SC_SDPA_BOOL_MASK : 0);
  LLVMTypeRef p[13] = {g->ptr, g->ptr, g->ptr, g->ptr, g->i64, g->ptr, g->i64, g->i64, g->i64, g->i64, g->i64, g->f64, g->i32};
  LLVMValueRef a[13] = {qd, kd, vd, md, mstride, out->data, prod(g, out->dims, 0, nb), l, s, e, ev, sc,
                        LLVMConstInt(g->i32, (unsigned)flags, 0)};
  check_rc(g, cg_call(g, "sc_k_sdpa_f32", g->i32, p, 13, a, 13, false));
  return true;
}

/* einsum of one or two float32 operands (runtime einsum.c); more operands are refused. */
static bool lower_einsum(cg *g, const sc_node *n) {
  const sc_arg *ts = arg(n, "tensors"), *eq = arg(n, "equation");
  int k = ts ? (int)ts->n_items : 0, ranks[2];
  if (k < 1 || k > 2 || g->cuda)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %d operands has no %s lowering (one or two on the "
                    "CPU have one; torch's run_decompositions() writes more as products)", n->target, k, g->cuda ? "CUDA" : "CPU");
  cg_value *x[2] = {NULL, NULL};
  for (int i = 0; i < k; i++) {
    x[i] = cg_get(g, ts->items[i].value);
    if (x[i]->v->meta.dtype != SC_DTYPE_F32)
      return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s has a CPU lowering for float32 only", n->target,
                      sc_dtype_name(x[i]->v->meta.dtype));
    ranks[i] = x[i]->v->meta.rank;
  }
  sc_einsum e;
  char err[200];
  if (!sc_einsum_parse(eq->items[0].s, ranks, k, &e, err, sizeof err))
    return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s", err);
  cg_value *out = cg_produce(g, output(n, 0));
  LLVMValueRef lab[3][CG_MAX_RANK];
  for (int i = 0; i < k; i++)
    for (int d = 0; d < e.rank[i]; d++) lab[i][d] = LLVMConstInt(g->i32, (unsigned)e.labels[i][d], 0);
  for (int d = 0; d < e.out_rank; d++) lab[2][d] = LLVMConstInt(g->i32, (unsigned)e.out[d], 0);
  LLVMValueRef labels[3];
  for (int i = 0; i < 3; i++) {
    int cnt = i < 2 ? (i < k ? e.rank[i] : 0) : e.out_rank;
    labels[i] = LLVMBuildArrayAlloca(g->B, g->i32, cg_i64(g, cnt ? cnt : 1), "labels");
    for (int d = 0; d < cnt; d++) {
      LLVMValueRef idx[1] = {cg_i64(g, d)};
      LLVMBuildStore(g->B, lab[i][d], LLVMBuildGEP2(g->B, g->i32, labels[i], idx, 1, "l"));
    }
  }
  LLVMTypeRef p[12] = {g->ptr, g->i32, g->ptr, g->ptr, g->ptr, g->i32, g->ptr, g->ptr, g->ptr, g->i32, g->ptr, g->ptr};
  LLVMValueRef a[12] = {x[0]->data, LLVMConstInt(g->i32, (unsigned)ranks[0], 0), labels[0], array_i64(g, x[0]->dims, ranks[0]),
                        k > 1 ? x[1]->data : LLVMConstNull(g->ptr), LLVMConstInt(g->i32, k > 1 ? (unsigned)ranks[1] : 0, 0),
                        labels[1], k > 1 ? array_i64(g, x[1]->dims, ranks[1]) : array_i64(g, NULL, 0), out->data,
                        LLVMConstInt(g->i32, (unsigned)e.out_rank, 0), labels[2], array_i64(g, out->dims, e.out_rank)};
  check_rc(g, cg_call(g, "sc_k_einsum_f32", g->i32, p, 12, a, 12, false));
  return true;
}

/* transformers' grouped_mm_fallback and ATen's _grouped_mm (runtime grouped_mm.c): float32
 * (a half-precision program's, widened), int32 offsets. */
static bool lower_grouped_mm(cg *g, const sc_node *n) {
  bool aten = n->op->id == SC_OP_GROUPED_MM;
  cg_value *x = tensor(g, n, aten ? "self" : "input"), *w = tensor(g, n, aten ? "mat2" : "weight"), *offs = tensor(g, n, "offs");
  if (!x || !w || !offs) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: a tensor argument is missing", n->target);
  if (g->cuda || w->v->meta.dtype != SC_DTYPE_F32 || x->v->meta.dtype != SC_DTYPE_F32 || offs->v->meta.dtype != SC_DTYPE_I32)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has a CPU lowering for float32 operands and int32 "
                    "offsets only", n->target);
  cg_value *out = cg_produce(g, output(n, 0));
  LLVMValueRef node = cg_cstr(g, sc_arena_printf(&g->ctx->arena, "node '%s', %s", n->name, n->target));
  LLVMTypeRef p[11] = {g->ptr, g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->i64, g->i64, g->ptr, g->ptr, g->i64};
  LLVMValueRef a[11] = {x->data, w->data, offs->data, out->data, x->dims[0], w->dims[0], w->dims[1], w->dims[2],
                        node, g->err, g->errlen};
  LLVMValueRef rc = cg_call(g, "sc_k_grouped_mm_f32", g->i32, p, 11, a, 11, false);
  cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "badoffs"), rc);
  return true;
}

/* out = act(x w^T + bias) + residual through the runtime's linear-layer site (oneDNN's inner
 * product, its weights packed once per site when constant: backends/cpu/runtime/onednn.c);
 * w [n, k], or [k, n] when `upright`. */
static void linear_site(cg *g, cg_value *x, cg_value *w, cg_value *bias, cg_value *out, LLVMValueRef m, LLVMValueRef nn,
                        LLVMValueRef k, int act, cg_value *residual, bool upright) {
  LLVMValueRef site = LLVMAddGlobal(g->M, g->ptr, "shapec_linear_site");
  LLVMSetInitializer(site, LLVMConstNull(g->ptr));
  LLVMSetLinkage(site, LLVMInternalLinkage);
  LLVMTypeRef lp[12] = {g->ptr, g->i32, g->ptr, g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->i64, g->i32, g->ptr, g->i32};
  LLVMValueRef la[12] = {site, LLVMConstInt(g->i32, cg_is_constant_weight(g, w->v) ? 1 : 0, 0), x->data, w->data,
                         bias ? bias->data : LLVMConstNull(g->ptr), out->data, m, nn, k,
                         LLVMConstInt(g->i32, (unsigned)act, 0), residual ? residual->data : LLVMConstNull(g->ptr),
                         LLVMConstInt(g->i32, upright ? 1 : 0, 0)};
  g->onednn_sites++;
  /* operands that hold bfloat16 numbers (passes/half_precision.h) take bfloat16 products */
  bool bf16 = x->v->meta.rounds_to == SC_DTYPE_BF16 && w->v->meta.rounds_to == SC_DTYPE_BF16;
  check_rc(g, cg_call(g, bf16 ? "sc_k_linear_site_bf16" : "sc_k_linear_site_f32", g->i32, lp, 12, la, 12, false));
}

static bool lower_matmul(cg *g, const sc_node *n) {
  sc_value *ov = output(n, 0);
  if (ov->meta.dtype != SC_DTYPE_F32)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s on %s has no CPU lowering", n->target, sc_dtype_name(ov->meta.dtype));
  switch (n->op->id) {
    case SC_OP_GROUPED_MM_FALLBACK: case SC_OP_GROUPED_MM: return lower_grouped_mm(g, n);
    case SC_OP_EINSUM: return lower_einsum(g, n);
    case SC_OP_MM: case SC_OP_ADDMM: case SC_OP_BMM: case SC_OP_BADDBMM: {
      if (!g->cuda && n->op->id == SC_OP_BMM && g->folded[n - g->p->graph->nodes].attention_scores) {
        fused_attention(g, n, ov);
        return true;
      }
      if (!g->cuda && n->op->id == SC_OP_BMM) {
        strided_product(g, tensor(g, n, "self"), tensor(g, n, "mat2"), ov, product_alpha(g, n));
        return true;
      }
      bool add = n->op->id == SC_OP_ADDMM || n->op->id == SC_OP_BADDBMM, batched = n->op->id == SC_OP_BMM || n->op->id == SC_OP_BADDBMM;
      cg_value *a = tensor(g, n, add ? (batched ? "batch1" : "mat1") : "self");
      cg_value *b = tensor(g, n, add ? (batched ? "batch2" : "mat2") : "mat2");
      cg_value *out = cg_produce(g, ov);
      /* addmm(bias, x, t(w)) or mm(x, t(w)), as older exports write nn.Linear: a linear layer
       * (x's rows compact: not a transpose that the product would read by BLAS's flag) */
      cg_value *bias = add ? tensor(g, n, "self") : NULL;
      if (!batched && b->transposed && b->view_base && a->v->meta.rank == 2 && !a->transposed && !a->view_base && float_arg(n, "alpha", 1) == 1 &&
          (!add || float_arg(n, "beta", 1) == 1) && (!bias || bias->v->meta.rank == 1) &&
          cg_emit_tiny_linear(g, n, a, b->view_base, bias, out, NULL, SC_ACT_NONE, a->dims[0]))
        return true;
      /* addmm(bias, x, w) or mm(x, w) with constant weights w [k, n] (GPT-2's Conv1D): a linear
       * layer whose weights oneDNN lays out once from that layout (onednn.c) */
      if (!g->cuda && !batched && a->v->meta.rank == 2 && !a->transposed && !a->view_base && b->v->meta.rank == 2 &&
          !b->transposed && !b->view_base && cg_is_constant_weight(g, b->v) && float_arg(n, "alpha", 1) == 1 &&
          (!add || float_arg(n, "beta", 1) == 1) &&
          (!bias || (bias->v->meta.rank == 1 && bias->v->shape[0] == b->v->shape[1]))) { /* not a broadcast [1] */
        linear_site(g, a, b, bias, out, a->dims[0], b->dims[1], a->dims[1], SC_ACT_NONE, NULL, true);
        return true;
      }
      int o = batched ? 1 : 0;
      LLVMValueRef m = a->dims[o], k = a->dims[o + 1], nn = b->dims[o + 1];
      double beta = 0;
      if (add) {
        broadcast_into(g, tensor(g, n, "self"), out);
        beta = float_arg(n, "beta", 1);
      }
      LLVMValueRef batch = batched ? a->dims[0] : cg_i64(g, 1);
      bmm(g, batch, m, nn, k, a->data, LLVMBuildMul(g->B, m, k, "sa"), a->transposed, b->data,
          LLVMBuildMul(g->B, k, nn, "sb"), b->transposed, out->data, float_arg(n, "alpha", 1), beta, half_operands(a, b));
      return true;
    }
    case SC_OP_MV: {
      cg_value *a = tensor(g, n, "self"), *v = tensor(g, n, "vec");
      cg_value *out = cg_produce(g, ov);
      bmm(g, cg_i64(g, 1), a->dims[0], cg_i64(g, 1), a->dims[1], a->data, cg_i64(g, 0), 0, v->data, cg_i64(g, 0), 0,
          out->data, 1, 0, half_operands(a, v));
      return true;
    }
    case SC_OP_LINEAR: {
      cg_value *x = tensor(g, n, "input"), *w = tensor(g, n, "weight"), *bias = tensor(g, n, "bias");
      cg_value *out = cg_produce(g, ov);
      int rx = x->v->meta.rank;
      LLVMValueRef k = x->dims[rx - 1], nn = w->v->meta.rank == 2 ? w->dims[0] : cg_i64(g, 1);
      LLVMValueRef m = prod(g, x->dims, 0, rx - 1);
      /* a ReLU or GELU after the layer, applied here (cg_fold.c): the activation node aliases out */
      int act = g->folded[n - g->p->graph->nodes].act;
      /* a tensor the add after the layer adds to its output (cg_epilogue.c): that add aliases out */
      cg_value *residual = g->folded[n - g->p->graph->nodes].residual;
      if (cg_emit_tiny_linear(g, n, x, w, bias, out, residual, act, m)) return true; /* code of its own */
      if (!g->cuda && w->v->meta.rank == 2 && !w->transposed && (!bias || bias->v->meta.rank == 1)) {
        linear_site(g, x, w, bias, out, m, nn, k, act, residual, false);
        return true;
      }
      if (residual) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: a residual planned off the layer's path", n->target);
      if (bias) broadcast_into(g, bias, out);
      bmm(g, cg_i64(g, 1), m, nn, k, x->data, cg_i64(g, 0), 0, w->data, cg_i64(g, 0), 1, out->data, 1, bias ? 1 : 0,
          half_operands(x, w));
      if (act) {
        LLVMTypeRef ap[3] = {g->ptr, g->i64, g->i32};
        LLVMValueRef aa[3] = {out->data, out->numel, LLVMConstInt(g->i32, (unsigned)act, 0)};
        cg_call(g, "sc_k_activation_f32", g->voidt, ap, 3, aa, 3, false);
      }
      return true;
    }
    case SC_OP_MATMUL: {
      if (!g->cuda && g->folded[n - g->p->graph->nodes].attention_scores) {
        fused_attention(g, n, ov);
        return true;
      }
      if (!g->cuda && cg_is_strided_product(n)) {
        strided_product(g, tensor(g, n, "self"), tensor(g, n, "other"), ov, product_alpha(g, n));
        return true;
      }
      cg_value *a = tensor(g, n, "self"), *b = tensor(g, n, "other");
      cg_value *out = cg_produce(g, ov);
      int ra = a->v->meta.rank, rb = b->v->meta.rank;
      LLVMValueRef k = a->dims[ra - 1];
      LLVMValueRef m = ra >= 2 ? a->dims[ra - 2] : cg_i64(g, 1), nn = rb >= 2 ? b->dims[rb - 1] : cg_i64(g, 1);
      if (rb <= 2) { /* fold a's batch into its rows */
        LLVMValueRef rows = ra >= 2 ? prod(g, a->dims, 0, ra - 1) : cg_i64(g, 1);
        bmm(g, cg_i64(g, 1), rows, nn, k, a->data, cg_i64(g, 0), a->transposed, b->data, cg_i64(g, 0), b->transposed,
            out->data, 1, 0, half_operands(a, b));
        return true;
      }
      /* batched: each side's batch dims equal the output's, none (stride 0), or are
       * broadcast (then expanded into a scratch buffer first) */
      int nb = out->v->meta.rank - (ra >= 2) - 1;
      LLVMValueRef batch = prod(g, out->dims, 0, nb);
      LLVMValueRef a_data = a->data, a_stride = cg_i64(g, 0);
      if (ra > 2) {
        a_data = batch_operand(g, a, out, nb, m, k);
        a_stride = LLVMBuildMul(g->B, m, k, "sa");
      }
      LLVMValueRef b_data = batch_operand(g, b, out, nb, k, nn);
      bmm(g, batch, m, nn, k, a_data, a_stride, a->transposed, b_data, LLVMBuildMul(g->B, k, nn, "sb"), b->transposed,
          out->data, 1, 0, half_operands(a, b));
      return true;
    }
    case SC_OP_SDPA: return g->cuda ? sdpa_device(g, n, ov) : sdpa_host(g, n, ov);
    default: return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has no CPU lowering", n->target);
  }
}

static int spatial(const sc_node *n, const char *name, int64_t *out, int count, int64_t def) {
  int64_t v[CG_MAX_RANK];
  int m = ints(n, name, v, CG_MAX_RANK);
  for (int i = 0; i < count; i++) out[i] = m == 0 ? def : m == 1 ? v[0] : v[i];
  return m;
}

/* torch's convolution and pooling kernels refuse an input smaller than the (dilated)
 * kernel, which is where an output size drops below 1: so does the library, rather than
 * compute an empty or negative extent.  Sizes of 0 and 1 reach here when the program's
 * own ranges leave them unchecked (tracing assumed 2 or more). */
static void check_spatial_output(cg *g, const sc_node *n, cg_value *out, int first) {
  int r = out->v->meta.rank;
  for (int d = first; d < r; d++) {
    char fmt[400];
    snprintf(fmt, sizeof fmt, "Output size is too small: dim %d of node '%s' (%s) would be %%lld; the input is smaller "
             "than the kernel", d, n->name, n->target);
    LLVMValueRef args[1] = {out->dims[d]};
    cg_fail_msg_if(g, LLVMBuildICmp(g->B, LLVMIntSLT, out->dims[d], cg_i64(g, 1), "small"), fmt, args, 1);
  }
}

/* A value that only convolutions and max pools read: in their kernel library's layout,
 * behind a header (cg_conv_layout.c). */
static cg_value *produce_in_kernel_layout(cg *g, const sc_value *v) {
  cg_value *out = cg_get(g, v);
  cg_set_dims(g, out);
  out->data = cg_alloc_buffer(g, out, cg_kernel_layout_bytes(g, out));
  out->ready = true;
  return out;
}

/* The kernel keeps what it prepares for each input shape (oneDNN's plans, the weights in
 * its layout) in a pointer of its own, one per node (backends/cpu/runtime/onednn.c). */
static LLVMValueRef new_site(cg *g, const char *name) {
  LLVMValueRef site = LLVMAddGlobal(g->M, g->ptr, name);
  LLVMSetInitializer(site, LLVMConstNull(g->ptr));
  LLVMSetLinkage(site, LLVMInternalLinkage);
  return site;
}

/* ATen refuses a transposed convolution of an empty image unless the batch or the
 * channels are empty too (c: the channel dim). */
static void check_transposed_input(cg *g, cg_value *x, int c) {
  int r = x->v->meta.rank;
  LLVMValueRef empty = LLVMConstInt(g->i1, 0, 0), zero = cg_i64(g, 0);
  for (int d = c + 1; d < r; d++) empty = LLVMBuildOr(g->B, empty, LLVMBuildICmp(g->B, LLVMIntEQ, x->dims[d], zero, "e"), "e");
  LLVMValueRef items = prod(g, x->dims, 0, c + 1);
  char fmt[160] = "Only zero batch or zero channel inputs are supported, but got input shape: [";
  for (int d = 0; d < r; d++) strncat(fmt, d ? ", %lld" : "%lld", sizeof fmt - strlen(fmt) - 1);
  strncat(fmt, "]", sizeof fmt - strlen(fmt) - 1);
  cg_fail_msg_if(g, LLVMBuildAnd(g->B, empty, LLVMBuildICmp(g->B, LLVMIntNE, items, zero, "some"), "bad"), fmt, x->dims,
                 (unsigned)r);
}

/* A 3-D convolution (conv3d, conv_transpose3d, or convolution with a 5-D weight): vol2col
 * and GEMM, or GEMM and col2vol when transposed (runtime conv3d.c), batched NCDHW float32. */
static bool lower_conv3d(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, "input"), *w = tensor(g, n, "weight"), *b = tensor(g, n, "bias");
  bool transposed = int_arg(n, "transposed", 0) || n->op->id == SC_OP_CONV_TRANSPOSE3D;
  if (g->cuda || x->v->meta.rank != 5 || x->v->meta.dtype != SC_DTYPE_F32 || w->v->meta.dtype != SC_DTYPE_F32)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s: a 3-D convolution has a CPU lowering for batched "
                    "float32 inputs", n->target);
  cg_value *out = cg_produce(g, output(n, 0));
  if (transposed) check_transposed_input(g, x, 1);
  else check_spatial_output(g, n, out, 2);
  int64_t geom[9];
  spatial(n, "stride", geom, 3, 1);
  spatial(n, "padding", geom + 3, 3, 0);
  spatial(n, "dilation", geom + 6, 3, 1);
  LLVMValueRef dims[12] = {x->dims[0], x->dims[1], x->dims[2], x->dims[3], x->dims[4], transposed ? out->dims[1] : w->dims[0],
                           w->dims[2], w->dims[3], w->dims[4], out->dims[2], out->dims[3], out->dims[4]};
  LLVMValueRef gv[9];
  for (int i = 0; i < 9; i++) gv[i] = cg_i64(g, geom[i]);
  LLVMTypeRef p[7] = {g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->i64};
  LLVMValueRef a[7] = {x->data, w->data, b ? b->data : LLVMConstNull(g->ptr), out->data, array_i64(g, dims, 12),
                       array_i64(g, gv, 9), cg_i64(g, int_arg(n, "groups", 1))};
  g->blas_products++; /* the kernels' products may take OpenBLAS's */
  check_rc(g, cg_call(g, transposed ? "sc_k_conv_transpose3d_f32" : "sc_k_conv3d_f32", g->i32, p, 7, a, 7, false));
  return true;
}

/* 3-D pools over [.., d, h, w] float32 (runtime pool3d.c). */
static bool lower_pool3d(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, "self");
  if (x->v->meta.dtype != SC_DTYPE_F32 || g->cuda)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has a CPU lowering for float32 only", n->target);
  cg_value *out = cg_produce(g, output(n, 0));
  int r = x->v->meta.rank, id = n->op->id;
  LLVMValueRef nc = prod(g, x->dims, 0, r - 3), in = array_i64(g, x->dims + r - 3, 3), od = array_i64(g, out->dims + r - 3, 3);
  if (id == SC_OP_ADAPTIVE_AVG_POOL3D) {
    LLVMTypeRef p[5] = {g->ptr, g->ptr, g->i64, g->ptr, g->ptr};
    LLVMValueRef a[5] = {x->data, out->data, nc, in, od};
    cg_call(g, "sc_k_adaptive_avg_pool3d_f32", g->voidt, p, 5, a, 5, false);
    return true;
  }
  check_spatial_output(g, n, out, r - 3);
  int64_t k[3], st[3], pad[3], dil[3];
  spatial(n, "kernel_size", k, 3, 1);
  if (!spatial(n, "stride", st, 3, 0)) memcpy(st, k, sizeof st);
  spatial(n, "padding", pad, 3, 0);
  spatial(n, "dilation", dil, 3, 1);
  LLVMValueRef kv[3], sv[3], pv[3], dv[3];
  for (int i = 0; i < 3; i++) kv[i] = cg_i64(g, k[i]), sv[i] = cg_i64(g, st[i]), pv[i] = cg_i64(g, pad[i]), dv[i] = cg_i64(g, dil[i]);
  if (id == SC_OP_AVG_POOL3D) {
    LLVMTypeRef p[10] = {g->ptr, g->ptr, g->i64, g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->i32, g->i64};
    LLVMValueRef a[10] = {x->data, out->data, nc, in, od, array_i64(g, kv, 3), array_i64(g, sv, 3), array_i64(g, pv, 3),
                          LLVMConstInt(g->i32, (unsigned)int_arg(n, "count_include_pad", 1), 0),
                          cg_i64(g, int_arg(n, "divisor_override", 0))};
    cg_call(g, "sc_k_avg_pool3d_f32", g->voidt, p, 10, a, 10, false);
    return true;
  }
  sc_value *iv = id == SC_OP_MAX_POOL3D_INDICES ? output(n, 1) : NULL;
  cg_value *idx = iv ? cg_produce(g, iv) : NULL;
  LLVMTypeRef p[10] = {g->ptr, g->ptr, g->ptr, g->i64, g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->ptr};
  LLVMValueRef a[10] = {x->data, out->data, idx ? idx->data : LLVMConstNull(g->ptr), nc, in, od, array_i64(g, kv, 3),
                        array_i64(g, sv, 3), array_i64(g, pv, 3), array_i64(g, dv, 3)};
  cg_call(g, "sc_k_max_pool3d_f32", g->voidt, p, 10, a, 10, false);
  return true;
}

static bool lower_conv(cg *g, const sc_node *n) {
  const sc_value *wv = cg_tensor_input(n, "weight");
  if (n->op->id == SC_OP_CONV3D || n->op->id == SC_OP_CONV_TRANSPOSE3D || (wv && wv->meta.rank == 5)) return lower_conv3d(g, n);
  bool transposed = int_arg(n, "transposed", 0) != 0 || n->op->id == SC_OP_CONV_TRANSPOSE1D ||
                    n->op->id == SC_OP_CONV_TRANSPOSE2D;
  cg_value *x = tensor(g, n, "input"), *w = tensor(g, n, "weight"), *b = tensor(g, n, "bias");
  const struct cg_folded *f = &g->folded[n - g->p->graph->nodes]; /* a batch norm folded in (cg_fold.c) */
  cg_value *out;
  if (f->mean_hw) { /* it computes the global average pool after it (cg_conv_pool.c): into the pool's output */
    cg_value *means = cg_produce(g, f->mean_hw->v);
    out = cg_get(g, output(n, 0));
    cg_set_dims(g, out); /* its planes are never written: the nodes folded after it alias them, unread */
    out->data = means->data;
    cg_note_alias(g, out, means);
    out->ready = true;
  } else {
    out = f->kernel_layout_out ? produce_in_kernel_layout(g, output(n, 0)) : cg_produce(g, output(n, 0));
  }
  int sp = w->v->meta.rank - 2;
  if (sp < 1 || sp > 2) return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%d-D convolution has no CPU lowering yet", sp);
  int64_t st[2], pad[2], dil[2];
  spatial(n, "stride", st, sp, 1);
  spatial(n, "padding", pad, sp, 0);
  spatial(n, "dilation", dil, sp, 1);
  bool batched = x->v->meta.rank == sp + 2;
  int c = batched ? 1 : 0;
  if (!transposed) cg_check_conv_input(g, x, w, sp, batched, pad, dil);
  if (transposed) check_transposed_input(g, x, c);
  LLVMValueRef one = cg_i64(g, 1);
  LLVMValueRef h = sp == 2 ? x->dims[c + 1] : one, wd = x->dims[c + sp];
  LLVMValueRef oh = sp == 2 ? out->dims[c + 1] : one, ow = out->dims[c + sp];
  LLVMValueRef kh = sp == 2 ? w->dims[2] : one, kw = w->dims[1 + sp];
  LLVMTypeRef p[20];
  /* out channels: the weight's first dim, or for a transposed convolution the output's */
  LLVMValueRef wdata = f->weight ? f->weight : w->data, bdata = f->bias ? f->bias : b ? b->data : LLVMConstNull(g->ptr);
  if (g->cuda && f->weight) { /* the folded pieces in the device's copy of the blob */
    wdata = cg_weights_on_device(g, f->weight);
    bdata = cg_weights_on_device(g, f->bias);
  }
  LLVMValueRef a[20] = {x->data, wdata, bdata, out->data, batched ? x->dims[0] : one,
                        x->dims[c], h, wd, transposed ? out->dims[c] : w->dims[0], kh, kw,
                        cg_i64(g, sp == 2 ? st[0] : 1), cg_i64(g, st[sp - 1]), cg_i64(g, sp == 2 ? pad[0] : 0),
                        cg_i64(g, pad[sp - 1]), cg_i64(g, sp == 2 ? dil[0] : 1), cg_i64(g, dil[sp - 1]),
                        cg_i64(g, int_arg(n, "groups", 1)), oh, ow};
  for (int i = 0; i < 20; i++) p[i] = i < 4 ? g->ptr : g->i64;
  if (transposed || g->cuda) { /* the device path has no plans to keep (nor epilogues, cg_fold.c) */
    if (f->mean_hw) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: a global average pool planned off the convolution's path", n->target);
    if (f->residual) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: a residual planned off the convolution's path", n->target);
    g->blas_products++; /* the runtime's convolutions may take OpenBLAS's products */
    check_rc(g, cg_call(g, transposed ? "sc_k_conv_transpose2d_f32" : "sc_k_conv2d_f32", g->i32, p, 20, a, 20, false));
    return true;
  }
  LLVMValueRef site = new_site(g, "shapec_conv_site");
  bool constant = f->weight || cg_is_constant_weight(g, w->v);
  LLVMTypeRef sp_[25];
  LLVMValueRef sa[25];
  sp_[0] = g->ptr;
  sa[0] = site;
  sp_[1] = g->i32;
  sa[1] = LLVMConstInt(g->i32, constant ? 1 : 0, 0);
  for (int i = 0; i < 20; i++) {
    sp_[i + 2] = p[i];
    sa[i + 2] = a[i];
  }
  sp_[22] = g->i32; /* a ReLU after it runs in the kernel (cg_fold.c) */
  sa[22] = LLVMConstInt(g->i32, (unsigned)f->act, 0);
  sp_[23] = g->ptr; /* a residual added before it (cg_epilogue.c) */
  sa[23] = f->residual ? f->residual->data : LLVMConstNull(g->ptr);
  sp_[24] = g->i32;
  sa[24] = LLVMConstInt(g->i32, (f->kernel_layout_in ? SC_CONV_IN_KERNEL_LAYOUT : 0) | (f->mean_hw ? SC_CONV_MEAN_HW : 0) |
                                    (f->kernel_layout_out ? SC_CONV_OUT_KERNEL_LAYOUT : 0) |
                                    (f->kernel_layout_residual ? SC_CONV_RESIDUAL_KERNEL_LAYOUT : 0) |
                                    (x->v->meta.rounds_to == SC_DTYPE_BF16 && w->v->meta.rounds_to == SC_DTYPE_BF16
                                         ? SC_CONV_BF16 : 0) |
                                    (f->round_to == SC_DTYPE_BF16 ? SC_CONV_ROUND_BF16 : 0) |
                                    (f->round_to == SC_DTYPE_F16 ? SC_CONV_ROUND_F16 : 0), 0);
  g->onednn_sites++;
  check_rc(g, cg_call(g, "sc_k_conv2d_site_f32", g->i32, sp_, 25, sa, 25, false));
  return true;
}

static bool lower_pool(cg *g, const sc_node *n) {
  if (n->op->id == SC_OP_MAX_POOL3D || n->op->id == SC_OP_MAX_POOL3D_INDICES || n->op->id == SC_OP_AVG_POOL3D ||
      n->op->id == SC_OP_ADAPTIVE_AVG_POOL3D)
    return lower_pool3d(g, n);
  const struct cg_folded *f = &g->folded[n - g->p->graph->nodes];
  if (f->pooled_by_conv) { /* the convolution before it wrote the means (cg_conv_pool.c) */
    if (!cg_get(g, output(n, 0))->ready)
      return cg_error(g, SC_DIAG_CODEGEN, n->path, "internal error: %s: its convolution did not run first", n->target);
    return true;
  }
  cg_value *x = tensor(g, n, "self");
  cg_value *out = f->kernel_layout_out ? produce_in_kernel_layout(g, output(n, 0)) : cg_produce(g, output(n, 0));
  int r = x->v->meta.rank;
  /* a 1-D pool is the 2-D one over [nc, 1, w] with a kernel of height 1 */
  bool one_d = n->op->id == SC_OP_MAX_POOL1D || n->op->id == SC_OP_AVG_POOL1D || n->op->id == SC_OP_ADAPTIVE_AVG_POOL1D;
  int sp = one_d ? 1 : 2;
  LLVMValueRef nc = prod(g, x->dims, 0, r - sp), h = one_d ? cg_i64(g, 1) : x->dims[r - 2], w = x->dims[r - 1];
  LLVMValueRef oh = one_d ? cg_i64(g, 1) : out->dims[r - 2], ow = out->dims[r - 1];
  bool adaptive = n->op->id == SC_OP_ADAPTIVE_AVG_POOL2D || n->op->id == SC_OP_ADAPTIVE_AVG_POOL2D_ ||
                  n->op->id == SC_OP_ADAPTIVE_AVG_POOL1D;
  bool max_pool = n->op->id == SC_OP_MAX_POOL1D || n->op->id == SC_OP_MAX_POOL2D || n->op->id == SC_OP_MAX_POOL2D_INDICES;
  if (!adaptive) cg_check_pool_input(g, x, out, one_d, max_pool);
  if (adaptive) {
    LLVMTypeRef p[7] = {g->ptr, g->ptr, g->i64, g->i64, g->i64, g->i64, g->i64};
    LLVMValueRef a[7] = {x->data, out->data, nc, h, w, oh, ow};
    cg_call(g, "sc_k_adaptive_avg_pool2d_f32", g->voidt, p, 7, a, 7, false);
    return true;
  }
  int64_t k[2] = {1, 1}, st[2] = {1, 1}, pad[2] = {0, 0}, dil[2] = {1, 1};
  int wd = one_d ? 1 : 0; /* a 1-D pool's numbers are the width's */
  spatial(n, "kernel_size", k + wd, sp, 1);
  if (!spatial(n, "stride", st + wd, sp, 0)) st[0] = k[0], st[1] = k[1];
  spatial(n, "padding", pad + wd, sp, 0);
  spatial(n, "dilation", dil + wd, sp, 1);
  if (n->op->id == SC_OP_AVG_POOL2D || n->op->id == SC_OP_AVG_POOL1D) {
    LLVMTypeRef p[15] = {g->ptr, g->ptr, g->i64, g->i64, g->i64, g->i64, g->i64, g->i64, g->i64, g->i64, g->i64, g->i64, g->i64, g->i32, g->i64};
    LLVMValueRef a[15] = {x->data, out->data, nc, h, w, cg_i64(g, k[0]), cg_i64(g, k[1]), cg_i64(g, st[0]), cg_i64(g, st[1]),
                          cg_i64(g, pad[0]), cg_i64(g, pad[1]), oh, ow,
                          LLVMConstInt(g->i32, (unsigned)int_arg(n, "count_include_pad", 1), 0),
                          cg_i64(g, int_arg(n, "divisor_override", 0))};
    cg_call(g, "sc_k_avg_pool2d_f32", g->voidt, p, 15, a, 15, false);
    return true;
  }
  if (f->kernel_layout_in || f->kernel_layout_out) { /* between convolutions (cg_conv_layout.c) */
    LLVMTypeRef p[18] = {g->ptr, g->ptr, g->ptr};
    for (int i = 3; i < 17; i++) p[i] = g->i64;
    p[17] = g->i32;
    LLVMValueRef a[18] = {new_site(g, "shapec_pool_site"), x->data, out->data, x->dims[0], x->dims[1], h, w,
                          cg_i64(g, k[0]), cg_i64(g, k[1]), cg_i64(g, st[0]), cg_i64(g, st[1]), cg_i64(g, pad[0]),
                          cg_i64(g, pad[1]), cg_i64(g, dil[0]), cg_i64(g, dil[1]), oh, ow,
                          LLVMConstInt(g->i32, (f->kernel_layout_in ? SC_CONV_IN_KERNEL_LAYOUT : 0) |
                                                   (f->kernel_layout_out ? SC_CONV_OUT_KERNEL_LAYOUT : 0), 0)};
    check_rc(g, cg_call(g, "sc_k_max_pool2d_site_f32", g->i32, p, 18, a, 18, false));
    return true;
  }
  /* the indices of max_pool2d_with_indices are written only when a later node reads them
   * (the decomposed IR asks for them, and nothing reads them in inference) */
  sc_value *iv = output(n, 1);
  int at = (int)(n - g->p->graph->nodes);
  cg_value *idx = iv && cg_get(g, iv)->last_use > at ? cg_produce(g, iv) : NULL;
  LLVMTypeRef p[16] = {g->ptr, g->ptr, g->ptr};
  for (int i = 3; i < 16; i++) p[i] = g->i64;
  LLVMValueRef a[16] = {x->data, out->data, idx ? idx->data : LLVMConstNull(g->ptr), nc, h, w, cg_i64(g, k[0]),
                        cg_i64(g, k[1]), cg_i64(g, st[0]), cg_i64(g, st[1]), cg_i64(g, pad[0]), cg_i64(g, pad[1]),
                        cg_i64(g, dil[0]), cg_i64(g, dil[1]), oh, ow};
  cg_call(g, "sc_k_max_pool2d_f32", g->voidt, p, 16, a, 16, false);
  return true;
}

static bool lower_norm(cg *g, const sc_node *n) {
  switch (n->op->id) {
    case SC_OP_BATCH_NORM_INFER: case SC_OP_BATCH_NORM: {
      cg_value *x = tensor(g, n, "input");
      cg_value *into = g->folded[n - g->p->graph->nodes].into;
      if (into) { /* folded into the convolution that computed x: the same buffer */
        cg_value *out = cg_get(g, output(n, 0));
        cg_set_dims(g, out);
        out->data = into->data;
        cg_note_alias(g, out, into);
        out->ready = true;
        for (int k = 1; k < 3; k++)
          if (output(n, k)) cg_produce(g, output(n, k));
        return true;
      }
      cg_value *out = cg_produce(g, output(n, 0));
      cg_value *w = tensor(g, n, "weight"), *b = tensor(g, n, "bias"), *m = tensor(g, n, "running_mean"), *v = tensor(g, n, "running_var");
      int r = x->v->meta.rank;
      if (n->op->id == SC_OP_BATCH_NORM && int_arg(n, "training", 0)) { /* the batch's own statistics */
        if (m || v)
          return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s in training mode updates its running statistics, "
                          "which shapec does not keep: export the model after model.eval()", n->target);
        /* F.batch_norm(w, None, None, training=True): BiT's weight-standardized convolutions */
        LLVMTypeRef sp[10] = {g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->i64, g->f64};
        LLVMValueRef sa[10] = {x->data, out->data, w ? w->data : LLVMConstNull(g->ptr), b ? b->data : LLVMConstNull(g->ptr),
                               LLVMConstNull(g->ptr), LLVMConstNull(g->ptr), x->dims[0], r > 1 ? x->dims[1] : cg_i64(g, 1),
                               prod(g, x->dims, 2, r), LLVMConstReal(g->f64, float_arg(n, "eps", 1e-5))};
        cg_call(g, "sc_k_batch_stats_norm_f32", g->voidt, sp, 10, sa, 10, false);
        return true;
      }
      LLVMTypeRef p[10] = {g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->i64, g->f64};
      LLVMValueRef a[10] = {x->data, out->data, w ? w->data : LLVMConstNull(g->ptr), b ? b->data : LLVMConstNull(g->ptr),
                            m ? m->data : LLVMConstNull(g->ptr), v ? v->data : LLVMConstNull(g->ptr), x->dims[0], x->dims[1],
                            prod(g, x->dims, 2, r), LLVMConstReal(g->f64, float_arg(n, "eps", 1e-5))};
      cg_call(g, "sc_k_batch_norm_f32", g->voidt, p, 10, a, 10, false);
      for (int k = 1; k < 3; k++)
        if (output(n, k)) cg_produce(g, output(n, k)); /* the saved statistics are empty */
      return true;
    }
    case SC_OP_RMS_NORM: { /* over the trailing normalized_shape dims; eps None is float32's epsilon, as torch */
      cg_value *x = tensor(g, n, "input"), *w = tensor(g, n, "weight");
      if (x->v->meta.dtype != SC_DTYPE_F32)
        return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s has no CPU lowering (float32 has one)",
                        n->target, sc_dtype_name(x->v->meta.dtype));
      cg_value *out = cg_produce(g, output(n, 0));
      int64_t norm[CG_MAX_RANK];
      int k = ints(n, "normalized_shape", norm, CG_MAX_RANK), r = x->v->meta.rank;
      LLVMTypeRef p[6] = {g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->f64};
      LLVMValueRef a[6] = {x->data, out->data, w ? w->data : LLVMConstNull(g->ptr), prod(g, x->dims, 0, r - k),
                           prod(g, x->dims, r - k, r), LLVMConstReal(g->f64, float_arg(n, "eps", FLT_EPSILON))};
      cg_call(g, "sc_k_rms_norm_f32", g->voidt, p, 6, a, 6, false);
      return true;
    }
    case SC_OP_NATIVE_LAYER_NORM: case SC_OP_LAYER_NORM: {
      cg_value *into = g->folded[n - g->p->graph->nodes].into;
      if (into) { /* computed by the small linear layer before it (cg_tiny_linear.c): its buffer */
        cg_value *out = cg_get(g, output(n, 0));
        cg_set_dims(g, out);
        out->data = into->data;
        cg_note_alias(g, out, into);
        out->ready = true;
        return true;
      }
      cg_value *x = tensor(g, n, "input");
      cg_value *out = cg_produce(g, output(n, 0));
      cg_value *w = tensor(g, n, "weight"), *b = tensor(g, n, "bias");
      int64_t norm[CG_MAX_RANK];
      int k = ints(n, "normalized_shape", norm, CG_MAX_RANK), r = x->v->meta.rank;
      cg_value *mean = output(n, 1) ? cg_produce(g, output(n, 1)) : NULL, *rstd = output(n, 2) ? cg_produce(g, output(n, 2)) : NULL;
      LLVMTypeRef p[9] = {g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->f64};
      LLVMValueRef a[9] = {x->data, out->data, w ? w->data : LLVMConstNull(g->ptr), b ? b->data : LLVMConstNull(g->ptr),
                           mean ? mean->data : LLVMConstNull(g->ptr), rstd ? rstd->data : LLVMConstNull(g->ptr),
                           prod(g, x->dims, 0, r - k), prod(g, x->dims, r - k, r), LLVMConstReal(g->f64, float_arg(n, "eps", 1e-5))};
      cg_call(g, "sc_k_layer_norm_f32", g->voidt, p, 9, a, 9, false);
      return true;
    }
    case SC_OP_BATCH_NORM_STATS: { /* each channel normalized by its own mean and variance over batch and pixels */
      cg_value *x = tensor(g, n, "input"), *w = tensor(g, n, "weight"), *b = tensor(g, n, "bias");
      cg_value *out = cg_produce(g, output(n, 0));
      cg_value *mean = output(n, 1) ? cg_produce(g, output(n, 1)) : NULL, *rstd = output(n, 2) ? cg_produce(g, output(n, 2)) : NULL;
      LLVMTypeRef p[10] = {g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->i64, g->f64};
      LLVMValueRef a[10] = {x->data, out->data, w ? w->data : LLVMConstNull(g->ptr), b ? b->data : LLVMConstNull(g->ptr),
                            mean ? mean->data : LLVMConstNull(g->ptr), rstd ? rstd->data : LLVMConstNull(g->ptr), x->dims[0],
                            x->v->meta.rank > 1 ? x->dims[1] : cg_i64(g, 1), prod(g, x->dims, 2, x->v->meta.rank),
                            LLVMConstReal(g->f64, float_arg(n, "eps", 1e-5))};
      cg_call(g, "sc_k_batch_stats_norm_f32", g->voidt, p, 10, a, 10, false);
      return true;
    }
    case SC_OP_INSTANCE_NORM: /* a group per channel with the sample's own statistics; else the running ones */
      if (!int_arg(n, "use_input_stats", 1)) {
        cg_value *x = tensor(g, n, "input"), *out = cg_produce(g, output(n, 0));
        cg_value *w = tensor(g, n, "weight"), *b = tensor(g, n, "bias"), *rm = tensor(g, n, "running_mean"),
                 *rv = tensor(g, n, "running_var");
        if (!rm || !rv)
          return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "Expected running_mean and running_var to be defined "
                          "when use_input_stats is false");
        LLVMTypeRef bp[10] = {g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->i64, g->f64};
        LLVMValueRef ba[10] = {x->data, out->data, w ? w->data : LLVMConstNull(g->ptr), b ? b->data : LLVMConstNull(g->ptr),
                               rm->data, rv->data, x->dims[0], x->dims[1], prod(g, x->dims, 2, x->v->meta.rank),
                               LLVMConstReal(g->f64, float_arg(n, "eps", 1e-5))};
        cg_call(g, "sc_k_batch_norm_f32", g->voidt, bp, 10, ba, 10, false);
        return true;
      }
      /* fall through */
    case SC_OP_GROUP_NORM: case SC_OP_NATIVE_GROUP_NORM: {
      /* each group of a sample, [c / groups, ...] elements, is a row of a layer norm without
       * weights (its mean and 1 / std are native_group_norm's [n, groups] outputs); then the
       * channels' weight and bias as a batch norm with mean 0 and variance 1 (exactly
       * x * w + b: 1 / sqrt(1 + 0) is 1) */
      bool native = n->op->id == SC_OP_NATIVE_GROUP_NORM;
      cg_value *x = tensor(g, n, "input");
      cg_value *out = cg_produce(g, output(n, 0));
      cg_value *w = tensor(g, n, "weight"), *b = tensor(g, n, "bias");
      cg_value *mean = native && output(n, 1) ? cg_produce(g, output(n, 1)) : NULL;
      cg_value *rstd = native && output(n, 2) ? cg_produce(g, output(n, 2)) : NULL;
      int r = x->v->meta.rank;
      LLVMValueRef groups = n->op->id == SC_OP_INSTANCE_NORM ? x->dims[1] : cg_i64(g, int_arg(n, native ? "group" : "num_groups", 1));
      LLVMValueRef pixels = prod(g, x->dims, 2, r), rows = LLVMBuildMul(g->B, x->dims[0], groups, "rows");
      LLVMValueRef shown[1] = {pixels}; /* ATen's group norm refuses empty images; instance norm returns them */
      if (n->op->id != SC_OP_INSTANCE_NORM)
        cg_fail_msg_if(g, LLVMBuildICmp(g->B, LLVMIntSLE, pixels, cg_i64(g, 0), "empty"),
                       "Expected HxW to be greater than 0, got %lld", shown, 1);
      /* the row length from the channels: x->dims[1] / groups (whole: the shape rule checked it) */
      LLVMValueRef inner = LLVMBuildMul(g->B, LLVMBuildSDiv(g->B, x->dims[1], groups, "cg"), pixels, "inner");
      LLVMTypeRef p[9] = {g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->f64};
      LLVMValueRef a[9] = {x->data, out->data, LLVMConstNull(g->ptr), LLVMConstNull(g->ptr),
                           mean ? mean->data : LLVMConstNull(g->ptr), rstd ? rstd->data : LLVMConstNull(g->ptr), rows,
                           inner, LLVMConstReal(g->f64, float_arg(n, "eps", 1e-5))};
      cg_call(g, "sc_k_layer_norm_f32", g->voidt, p, 9, a, 9, false);
      if (!w && !b) return true;
      LLVMTypeRef bp[10] = {g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->i64, g->f64};
      LLVMValueRef ba[10] = {out->data, out->data, w ? w->data : LLVMConstNull(g->ptr), b ? b->data : LLVMConstNull(g->ptr),
                             LLVMConstNull(g->ptr), LLVMConstNull(g->ptr), x->dims[0], x->dims[1], pixels,
                             LLVMConstReal(g->f64, 0.0)};
      cg_call(g, "sc_k_batch_norm_f32", g->voidt, bp, 10, ba, 10, false);
      return true;
    }
    case SC_OP_SOFTMAX: case SC_OP_SOFTMAX_INT: case SC_OP_LOG_SOFTMAX: case SC_OP_LOG_SOFTMAX_INT: {
      cg_value *x = tensor(g, n, "self");
      cg_value *out = cg_produce(g, output(n, 0));
      int r = x->v->meta.rank, d = r ? norm_dim(int_arg(n, "dim", -1), r) : 0;
      bool log = n->op->id == SC_OP_LOG_SOFTMAX || n->op->id == SC_OP_LOG_SOFTMAX_INT;
      LLVMTypeRef p[6] = {g->ptr, g->ptr, g->i64, g->i64, g->i64, g->i32};
      LLVMValueRef a[6] = {x->data, out->data, prod(g, x->dims, 0, d), r ? x->dims[d] : cg_i64(g, 1), prod(g, x->dims, d + 1, r),
                           LLVMConstInt(g->i32, log, 0)};
      cg_call(g, "sc_k_softmax_f32", g->voidt, p, 6, a, 6, false);
      return true;
    }
    default: return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has no CPU lowering", n->target);
  }
}

/* linalg_vector_norm: |x|^ord into a scratch buffer, the reduction over it, the root. */
static bool lower_vector_norm(cg *g, const sc_node *n, cg_value *x) {
  if (x->v->meta.dtype != SC_DTYPE_F32 || !arg_none(arg(n, "dtype")))
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s (or with a dtype) has no CPU lowering (float32 "
                    "has one)", n->target, sc_dtype_name(x->v->meta.dtype));
  double ord = float_arg(n, "ord", 2);
  if (isnan(ord)) return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s with a NaN order", n->target);
  int r = x->v->meta.rank;
  int64_t dims[CG_MAX_RANK];
  int k = ints(n, "dim", dims, CG_MAX_RANK);
  if (n->op->id == SC_OP_LINALG_NORM) { /* linalg.norm: a vector norm, or Frobenius's over two dims */
    const sc_arg *oa = arg(n, "ord");
    bool given = !arg_none(oa), named = given && oa->kind == SC_ARG_STRING;
    int over = k ? k : r;
    if (named && strcmp(oa->items[0].s, "fro") != 0)
      return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s with ord='%s' (a matrix norm through singular "
                      "values) has no lowering; 'fro' and vector norms have one", n->target, oa->items[0].s);
    if (named && over != 2)
      return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "linalg.matrix_norm: dim must be a 2-tuple. Got %d dims",
                      over);
    if (given && !named && over == 2)
      return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s with ord=%g over two dims (a matrix norm) has no "
                      "lowering; ord=None, 'fro' and vector norms have one", n->target, ord);
    if (given && !named && !k && r > 2)
      return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "linalg.norm: If dim is not specified but ord is, the "
                      "input must be 1D or 2D. Got %dD.", r);
    if (named) ord = 2;
  }
  cg_value *out = cg_produce(g, output(n, 0));
  int32_t mask[CG_MAX_RANK] = {0};
  for (int i = 0; i < r; i++) mask[i] = k == 0;
  for (int i = 0; i < k; i++) mask[norm_dim(dims[i], r)] = 1;
  if (ord < 0 || ord == INFINITY) { /* no identity: ATen refuses an empty reduction, with these words */
    char shown[32];
    if (isinf(ord)) snprintf(shown, sizeof shown, "%s", ord > 0 ? "inf" : "-inf");
    else if (ord == floor(ord)) snprintf(shown, sizeof shown, "%lld", (long long)ord);
    else snprintf(shown, sizeof shown, "%g", ord);
    char fmt[300];
    if (k == 0) {
      snprintf(fmt, sizeof fmt, "linalg.vector_norm cannot compute the %s norm on an empty tensor because the operation "
               "does not have an identity", shown);
      cg_fail_msg_if(g, LLVMBuildICmp(g->B, LLVMIntEQ, x->numel, cg_i64(g, 0), "empty"), fmt, NULL, 0);
    }
    for (int i = 0; i < k; i++) {
      snprintf(fmt, sizeof fmt, "linalg.vector_norm cannot compute the %s norm on the dimension %lldbecause this "
               "dimension is empty and the operation does not have an identity", shown, (long long)dims[i]);
      cg_fail_msg_if(g, LLVMBuildICmp(g->B, LLVMIntEQ, x->dims[norm_dim(dims[i], r)], cg_i64(g, 0), "empty"), fmt, NULL, 0);
    }
  }
  cg_value *scratch = sc_arena_alloc(&g->ctx->arena, sizeof *scratch);
  scratch->last_use = g->node;
  LLVMValueRef tmp = cg_alloc_buffer(g, scratch, LLVMBuildMul(g->B, x->numel, cg_i64(g, 4), "bytes"));
  LLVMTypeRef mp[4] = {g->ptr, g->ptr, g->i64, g->f64};
  LLVMValueRef ma[4] = {x->data, tmp, x->numel, LLVMConstReal(g->f64, ord)};
  cg_call(g, "sc_k_vector_norm_map_f32", g->voidt, mp, 4, ma, 4, false);
  int op = isinf(ord) ? (ord > 0 ? SC_REDUCE_MAX : SC_REDUCE_MIN) : SC_REDUCE_SUM;
  LLVMTypeRef p[7] = {g->ptr, g->ptr, g->i32, g->ptr, g->ptr, g->i32, g->f64};
  LLVMValueRef a[7] = {tmp, out->data, LLVMConstInt(g->i32, (unsigned)r, 0), array_i64(g, x->dims, r), array_i32(g, mask, r),
                       LLVMConstInt(g->i32, (unsigned)op, 0), LLVMConstReal(g->f64, 0)};
  cg_call(g, "sc_k_reduce_f32", g->voidt, p, 7, a, 7, false);
  LLVMTypeRef fp[3] = {g->ptr, g->i64, g->f64};
  LLVMValueRef fa[3] = {out->data, out->numel, LLVMConstReal(g->f64, ord)};
  cg_call(g, "sc_k_vector_norm_finish_f32", g->voidt, fp, 3, fa, 3, false);
  return true;
}

/* A kernel over the middle dim of [outer, len, inner] with a float32 form (BASE_f32, float32
 * into float32) and an integer one (BASE_i64: integers and bools, kind as sc_k_sum_i64's,
 * into int64): true, the call emitted, where one of them fits x and out. */
static bool line_kernel(cg *g, const char *base, cg_value *x, cg_value *out, LLVMValueRef outer, LLVMValueRef len,
                        LLVMValueRef inner) {
  sc_dtype in_dt = x->v->meta.dtype, out_dt = out->v->meta.dtype;
  int kind = in_dt == SC_DTYPE_BOOL || in_dt == SC_DTYPE_U8 ? 0 : in_dt == SC_DTYPE_I8 ? 1 : in_dt == SC_DTYPE_I16 ? 2
           : in_dt == SC_DTYPE_I32 ? 3 : in_dt == SC_DTYPE_I64 ? 4 : -1;
  char name[64];
  if (in_dt == SC_DTYPE_F32 && out_dt == SC_DTYPE_F32) {
    snprintf(name, sizeof name, "%s_f32", base);
    LLVMTypeRef p[5] = {g->ptr, g->ptr, g->i64, g->i64, g->i64};
    LLVMValueRef a[5] = {x->data, out->data, outer, len, inner};
    cg_call(g, sc_arena_strdup(&g->ctx->arena, name), g->voidt, p, 5, a, 5, false);
    return true;
  }
  if (kind >= 0 && out_dt == SC_DTYPE_I64) {
    snprintf(name, sizeof name, "%s_i64", base);
    LLVMTypeRef p[6] = {g->ptr, g->ptr, g->i32, g->i64, g->i64, g->i64};
    LLVMValueRef a[6] = {x->data, out->data, LLVMConstInt(g->i32, (unsigned)kind, 0), outer, len, inner};
    cg_call(g, sc_arena_strdup(&g->ctx->arena, name), g->voidt, p, 6, a, 6, false);
    return true;
  }
  return false;
}

/* The runtime's element kind (SC_KIND_*) of a dtype; -1 where sort and scatter have none. */
static int element_kind(sc_dtype dt) {
  switch (dt) {
    case SC_DTYPE_BOOL: case SC_DTYPE_U8: return SC_KIND_U8;
    case SC_DTYPE_I8: return SC_KIND_I8;
    case SC_DTYPE_I16: return SC_KIND_I16;
    case SC_DTYPE_I32: return SC_KIND_I32;
    case SC_DTYPE_I64: return SC_KIND_I64;
    case SC_DTYPE_F32: return SC_KIND_F32;
    case SC_DTYPE_F64: return SC_KIND_F64;
    default: return -1;
  }
}

/* cumsum and cumprod over one dim: float32 into float32, integers and bools into int64
 * (torch's default); cumsum also into another dtype asked for (cast first). */
static bool lower_cumulative(cg *g, const sc_node *n, cg_value *x) {
  bool sum = n->op->id == SC_OP_CUMSUM;
  cg_value *out = cg_produce(g, output(n, 0));
  int r = x->v->meta.rank, d = r ? norm_dim(int_arg(n, "dim", 0), r) : 0;
  LLVMValueRef outer = prod(g, x->dims, 0, d), len = r ? x->dims[d] : cg_i64(g, 1), inner = prod(g, x->dims, d + 1, r);
  sc_dtype in_dt = x->v->meta.dtype, out_dt = out->v->meta.dtype;
  if (line_kernel(g, sum ? "sc_k_cumsum" : "sc_k_cumprod", x, out, outer, len, inner)) return true;
  int ik = element_kind(in_dt), ok = element_kind(out_dt); /* another dtype asked for: cast, then summed */
  if (sum && ik >= 0 && ok >= 0) {
    LLVMTypeRef p[7] = {g->ptr, g->i32, g->ptr, g->i32, g->i64, g->i64, g->i64};
    LLVMValueRef a[7] = {x->data, LLVMConstInt(g->i32, (unsigned)ik, 0), out->data, LLVMConstInt(g->i32, (unsigned)ok, 0),
                         outer, len, inner};
    cg_call(g, "sc_k_cumsum_cast", g->voidt, p, 7, a, 7, false);
    return true;
  }
  return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s into %s has no CPU lowering (floats, integers and "
                  "bools have one)", n->target, sc_dtype_name(in_dt), sc_dtype_name(out_dt));
}

/* cummax / cummin over one dim: the running extreme in x's dtype and its index. */
static bool lower_cum_extreme(cg *g, const sc_node *n, cg_value *x) {
  int kind = element_kind(x->v->meta.dtype);
  if (g->cuda || kind < 0)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s has no %s lowering (float32, float64, integers "
                    "and bools on the CPU have one)", n->target, sc_dtype_name(x->v->meta.dtype), g->cuda ? "CUDA" : "CPU");
  cg_value *values = cg_produce(g, output(n, 0)), *indices = cg_produce(g, output(n, 1));
  int r = x->v->meta.rank, d = r ? norm_dim(int_arg(n, "dim", 0), r) : 0;
  LLVMTypeRef p[8] = {g->ptr, g->ptr, g->ptr, g->i32, g->i32, g->i64, g->i64, g->i64};
  LLVMValueRef a[8] = {x->data, values->data, indices->data, LLVMConstInt(g->i32, (unsigned)kind, 0),
                       LLVMConstInt(g->i32, n->op->id == SC_OP_CUMMIN, 0), prod(g, x->dims, 0, d),
                       r ? x->dims[d] : cg_i64(g, 1), prod(g, x->dims, d + 1, r)};
  cg_call(g, "sc_k_cum_extreme", g->voidt, p, 8, a, 8, false);
  return true;
}

/* outer(x, y) and kron(a, b) (runtime kron.c): operands and result of one dtype. */
static bool lower_kron(cg *g, const sc_node *n) {
  bool outer = n->op->id == SC_OP_OUTER;
  cg_value *a = tensor(g, n, "self"), *b = tensor(g, n, outer ? "vec2" : "other");
  if (!a || !b) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: a tensor argument is missing", n->target);
  cg_value *out = cg_produce(g, output(n, 0));
  sc_dtype dt = out->v->meta.dtype;
  int kind = element_kind(dt);
  if (g->cuda || kind < 0 || a->v->meta.dtype != dt || b->v->meta.dtype != dt)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s and %s has no %s lowering (operands of the "
                    "result's dtype on the CPU have one)", n->target, sc_dtype_name(a->v->meta.dtype),
                    sc_dtype_name(b->v->meta.dtype), g->cuda ? "CUDA" : "CPU");
  int ra = a->v->meta.rank, rb = b->v->meta.rank, r = ra > rb ? ra : rb;
  if (r == 0) r = 1;
  LLVMValueRef as[CG_MAX_RANK], bs[CG_MAX_RANK];
  for (int k = 0; k < r; k++) {
    int ka = k - (r - ra), kb = k - (r - rb);
    as[k] = ka < 0 ? cg_i64(g, 1) : a->dims[ka];
    bs[k] = kb < 0 ? cg_i64(g, 1) : b->dims[kb];
  }
  LLVMTypeRef p[7] = {g->ptr, g->ptr, g->ptr, g->i32, g->i32, g->ptr, g->ptr};
  LLVMValueRef v[7] = {a->data, b->data, out->data, LLVMConstInt(g->i32, (unsigned)kind, 0),
                       LLVMConstInt(g->i32, (unsigned)r, 0), array_i64(g, as, r), array_i64(g, bs, r)};
  cg_call(g, "sc_k_kron", g->voidt, p, 7, v, 7, false);
  return true;
}

/* _weight_norm(v, g, dim): v scaled per position along dim to g's norm (wav2vec2's
 * positional convolution); float32 on the CPU. */
static bool lower_weight_norm(cg *g, const sc_node *n) {
  cg_value *v = tensor(g, n, "v"), *gv = tensor(g, n, "g");
  if (!v || !gv) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: a tensor argument is missing", n->target);
  if (v->v->meta.dtype != SC_DTYPE_F32 || gv->v->meta.dtype != SC_DTYPE_F32)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has a lowering for float32 only", n->target);
  int r = v->v->meta.rank, d = norm_dim(int_arg(n, "dim", 0), r);
  cg_value *out = cg_produce(g, output(n, 0));
  LLVMTypeRef p[6] = {g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->i64};
  LLVMValueRef a[6] = {v->data, gv->data, out->data, prod(g, v->dims, 0, d), v->dims[d], prod(g, v->dims, d + 1, r)};
  cg_call(g, "sc_k_weight_norm_f32", g->voidt, p, 6, a, 6, false);
  return true;
}

/* glu(self, dim) (runtime nn.c): the first half of dim times the sigmoid of the second;
 * float32 and float64 on the CPU. */
static bool lower_glu(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, "self");
  int kind = x ? element_kind(x->v->meta.dtype) : -1;
  if (!x || g->cuda || (kind != SC_KIND_F32 && kind != SC_KIND_F64))
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has a CPU lowering for float32 and float64", n->target);
  int r = x->v->meta.rank, d = norm_dim(int_arg(n, "dim", -1), r);
  cg_value *out = cg_produce(g, output(n, 0));
  LLVMTypeRef p[6] = {g->ptr, g->ptr, g->i32, g->i64, g->i64, g->i64};
  LLVMValueRef a[6] = {x->data, out->data, LLVMConstInt(g->i32, (unsigned)kind, 0), prod(g, x->dims, 0, d), out->dims[d],
                       prod(g, x->dims, d + 1, r)};
  cg_call(g, "sc_k_glu", g->voidt, p, 6, a, 6, false);
  return true;
}

/* The dims an any / prod node reduces as one block [first, last): all of them (no dim,
 * an empty list), one, or a list that is adjacent once normalized (any.dims over [1, 2]);
 * false, with the error reported, for dims with others between them. */
static bool reduced_block(cg *g, const sc_node *n, int r, int *first, int *last) {
  *first = 0;
  *last = r;
  const sc_arg *da = arg(n, "dim");
  if (n->op->id == SC_OP_ANY || n->op->id == SC_OP_PROD || arg_none(da)) return true;
  int64_t dims[CG_MAX_RANK];
  int k = ints(n, "dim", dims, CG_MAX_RANK);
  if (k == 0) return true;
  bool seen[CG_MAX_RANK] = {false};
  for (int i = 0; i < k; i++) seen[norm_dim(dims[i], r)] = true;
  *first = r;
  *last = 0;
  for (int i = 0; i < r; i++)
    if (seen[i]) {
      if (i < *first) *first = i;
      *last = i + 1;
    }
  for (int i = *first; i < *last; i++)
    if (!seen[i])
      return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s over dims that are not adjacent has no lowering yet "
                      "(adjacent dims, one dim or all have one)", n->target);
  if (r == 0) *first = *last = 0;
  return true;
}

/* prod over [outer, len, inner]: float32, or integers and bools into int64 (torch's
 * default); another dtype argument is refused. */
static bool lower_prod(cg *g, const sc_node *n, cg_value *x, cg_value *out, LLVMValueRef outer, LLVMValueRef len,
                       LLVMValueRef inner) {
  if (g->cuda)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has no CUDA lowering yet (export with --target cpu)",
                    n->target);
  sc_dtype in_dt = x->v->meta.dtype, out_dt = out->v->meta.dtype;
  if (line_kernel(g, "sc_k_prod", x, out, outer, len, inner)) return true;
  return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s into %s has no CPU lowering (float32, and integers "
                  "or bools into int64, have one)", n->target, sc_dtype_name(in_dt), sc_dtype_name(out_dt));
}

static bool lower_reduce(cg *g, const sc_node *n) {
  if (g->folded && g->folded[n - g->p->graph->nodes].pooled_by_conv) { /* a global average pool its convolution computed (cg_conv_pool.c) */
    if (!cg_get(g, output(n, 0))->ready)
      return cg_error(g, SC_DIAG_CODEGEN, n->path, "internal error: %s: its convolution did not run first", n->target);
    return true;
  }
  if (n->op->id == SC_OP_WEIGHT_NORM) return lower_weight_norm(g, n);
  if (n->op->id == SC_OP_GLU) return lower_glu(g, n);
  cg_value *x = tensor(g, n, "self");
  int r = x->v->meta.rank;
  if (n->op->id == SC_OP_LINALG_VECTOR_NORM || n->op->id == SC_OP_LINALG_NORM) return lower_vector_norm(g, n, x);
  if (n->op->id == SC_OP_CUMSUM || n->op->id == SC_OP_CUMPROD) return lower_cumulative(g, n, x);
  if (n->op->id == SC_OP_CUMMAX || n->op->id == SC_OP_CUMMIN) return lower_cum_extreme(g, n, x);
  if (n->op->id == SC_OP_HISTC) {
    if (x->v->meta.dtype != SC_DTYPE_F32 || g->cuda)
      return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has a CPU lowering for float32 only", n->target);
    cg_value *out = cg_produce(g, output(n, 0));
    LLVMTypeRef p[6] = {g->ptr, g->i64, g->ptr, g->i64, g->f64, g->f64};
    LLVMValueRef a[6] = {x->data, x->numel, out->data, out->dims[0], LLVMConstReal(g->f64, float_arg(n, "min", 0)),
                         LLVMConstReal(g->f64, float_arg(n, "max", 0))};
    cg_call(g, "sc_k_histc_f32", g->voidt, p, 6, a, 6, false);
    return true;
  }
  int id = n->op->id;
  bool every = id == SC_OP_ALL_DIM || id == SC_OP_ALL || id == SC_OP_ALL_DIMS;
  if (id == SC_OP_ANY_DIM || id == SC_OP_ANY || id == SC_OP_ANY_DIMS || every || id == SC_OP_PROD || id == SC_OP_PROD_DIM ||
      id == SC_OP_LOGSUMEXP) {
    int first, last; /* the reduced dims, [first, last) */
    if (!reduced_block(g, n, r, &first, &last)) return false;
    cg_value *out = cg_produce(g, output(n, 0));
    LLVMValueRef outer = prod(g, x->dims, 0, first), len = prod(g, x->dims, first, last), inner = prod(g, x->dims, last, r);
    sc_dtype dt = x->v->meta.dtype;
    if (id == SC_OP_PROD || id == SC_OP_PROD_DIM) return lower_prod(g, n, x, out, outer, len, inner);
    if (id == SC_OP_LOGSUMEXP) {
      if (dt != SC_DTYPE_F32 || out->v->meta.dtype != SC_DTYPE_F32 || g->cuda)
        return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has a CPU lowering for float32 only", n->target);
      LLVMTypeRef p[5] = {g->ptr, g->ptr, g->i64, g->i64, g->i64};
      LLVMValueRef a[5] = {x->data, out->data, outer, len, inner};
      cg_call(g, "sc_k_logsumexp_f32", g->voidt, p, 5, a, 5, false);
      return true;
    }
    LLVMTypeRef p[7] = {g->ptr, g->ptr, g->i64, g->i64, g->i64, g->i64, g->i32};
    LLVMValueRef a[7] = {x->data, out->data, outer, len, inner,
                         cg_elem_size(g, dt), LLVMConstInt(g->i32, dt == SC_DTYPE_F32 || dt == SC_DTYPE_F64, 0)};
    cg_call(g, every ? "sc_k_all" : "sc_k_any", g->voidt, p, 7, a, 7, false);
    return true;
  }
  if (id == SC_OP_ARGMAX || id == SC_OP_ARGMIN || id == SC_OP_MAX_DIM || id == SC_OP_MIN_DIM) {
    bool with_values = id == SC_OP_MAX_DIM || id == SC_OP_MIN_DIM, is_min = id == SC_OP_ARGMIN || id == SC_OP_MIN_DIM;
    const sc_arg *da = arg(n, "dim");
    bool all = arg_none(da);
    int d = all ? 0 : norm_dim(int_arg(n, "dim", 0), r);
    cg_value *out0 = cg_produce(g, output(n, 0));
    sc_dtype xd = x->v->meta.dtype;
    int ikind = xd == SC_DTYPE_BOOL || xd == SC_DTYPE_U8 ? 0 : xd == SC_DTYPE_I8 ? 1 : xd == SC_DTYPE_I16 ? 2
              : xd == SC_DTYPE_I32 ? 3 : xd == SC_DTYPE_I64 ? 4 : -1;
    if (xd != SC_DTYPE_F32 && (ikind < 0 || g->cuda))
      return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s has no CPU lowering (float32, integers and "
                      "bools have one)", n->target, sc_dtype_name(xd));
    cg_value *out1 = with_values && output(n, 1) ? cg_produce(g, output(n, 1)) : NULL;
    LLVMValueRef outer = all ? cg_i64(g, 1) : prod(g, x->dims, 0, d), len = all ? x->numel : x->dims[d];
    LLVMValueRef inner = all ? cg_i64(g, 1) : prod(g, x->dims, d + 1, r);
    LLVMTypeRef p[7] = {g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->i64, g->i32};
    LLVMValueRef a[7] = {x->data, with_values ? out0->data : LLVMConstNull(g->ptr),
                         with_values ? (out1 ? out1->data : LLVMConstNull(g->ptr)) : out0->data, outer, len, inner,
                         LLVMConstInt(g->i32, is_min, 0)};
    if (xd == SC_DTYPE_F32) {
      cg_call(g, "sc_k_arg_reduce_f32", g->voidt, p, 7, a, 7, false);
      return true;
    }
    LLVMTypeRef pi[8] = {g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->i64, g->i32, g->i32};
    LLVMValueRef ai[8] = {a[0], a[1], a[2], a[3], a[4], a[5], LLVMConstInt(g->i32, (unsigned)ikind, 0), a[6]};
    cg_call(g, "sc_k_arg_reduce_int", g->voidt, pi, 8, ai, 8, false);
    return true;
  }
  cg_value *out = cg_produce(g, output(n, 0));
  int32_t mask[CG_MAX_RANK] = {0};
  int64_t dims[CG_MAX_RANK];
  int id0 = n->op->id;
  bool whole = id0 == SC_OP_SUM || id0 == SC_OP_MEAN || id0 == SC_OP_MAX || id0 == SC_OP_MIN || id0 == SC_OP_VAR || id0 == SC_OP_STD;
  bool root = id0 == SC_OP_STD || id0 == SC_OP_STD_DIM || id0 == SC_OP_STD_CORRECTION || id0 == SC_OP_STD_MEAN;
  if (root && g->cuda)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has no CUDA lowering yet (export with --target cpu)",
                    n->target);
  int k = whole ? 0 : ints(n, "dim", dims, CG_MAX_RANK);
  for (int i = 0; i < r; i++) mask[i] = k == 0;
  for (int i = 0; i < k; i++) mask[norm_dim(dims[i], r)] = 1;
  int op = (n->op->id == SC_OP_SUM || n->op->id == SC_OP_SUM_DIM) ? SC_REDUCE_SUM
           : (n->op->id == SC_OP_MEAN || n->op->id == SC_OP_MEAN_DIM) ? SC_REDUCE_MEAN
           : (n->op->id == SC_OP_AMAX || n->op->id == SC_OP_MAX) ? SC_REDUCE_MAX
           : (n->op->id == SC_OP_AMIN || n->op->id == SC_OP_MIN) ? SC_REDUCE_MIN : SC_REDUCE_VAR;
  /* var.correction takes the correction; var.dim an `unbiased` flag (correction 1 or 0) */
  bool flag = id0 == SC_OP_VAR_DIM || id0 == SC_OP_STD_DIM || id0 == SC_OP_VAR || id0 == SC_OP_STD ||
              !arg_none(arg(n, "unbiased")); /* var_mean.dim, std_mean.dim */
  double correction = flag ? (int_arg(n, "unbiased", 1) ? 1 : 0) : float_arg(n, "correction", 1);
  if (op == SC_REDUCE_MAX || op == SC_REDUCE_MIN) { /* no identity to return for nothing, as in torch */
    LLVMValueRef count = cg_i64(g, 1);
    for (int i = 0; i < r; i++)
      if (mask[i]) count = LLVMBuildMul(g->B, count, x->dims[i], "cnt");
    char fmt[300];
    snprintf(fmt, sizeof fmt, whole ? "%s(): Expected reduction dim to be specified for input.numel() == 0 (node '%s')"
                                    : "%s(): Expected reduction dim to have non-zero size (node '%s')",
             (op == SC_REDUCE_MAX) ? (whole ? "max" : "amax") : (whole ? "min" : "amin"), n->name);
    cg_fail_msg_if(g, LLVMBuildICmp(g->B, LLVMIntEQ, count, cg_i64(g, 0), "empty"), fmt, NULL, 0);
  }
  sc_dtype in_dt = x->v->meta.dtype, out_dt = out->v->meta.dtype;
  int kind = in_dt == SC_DTYPE_BOOL || in_dt == SC_DTYPE_U8 ? 0 : in_dt == SC_DTYPE_I8 ? 1 : in_dt == SC_DTYPE_I16 ? 2
           : in_dt == SC_DTYPE_I32 ? 3 : in_dt == SC_DTYPE_I64 ? 4 : -1;
  /* (x > 0).sum(): a count in int64; mask.sum(dtype=torch.float32) the same count as float32 */
  if (op == SC_REDUCE_SUM && kind >= 0 && (out_dt == SC_DTYPE_I64 || out_dt == SC_DTYPE_F32)) {
    LLVMValueRef counts = out->data;
    if (out_dt == SC_DTYPE_F32) {
      cg_value *scratch = sc_arena_alloc(&g->ctx->arena, sizeof *scratch);
      scratch->last_use = g->node;
      counts = cg_alloc_buffer(g, scratch, LLVMBuildMul(g->B, out->numel, cg_i64(g, 8), "bytes"));
    }
    LLVMTypeRef pi[6] = {g->ptr, g->ptr, g->i32, g->i32, g->ptr, g->ptr};
    LLVMValueRef ai[6] = {x->data, counts, LLVMConstInt(g->i32, (unsigned)kind, 0), LLVMConstInt(g->i32, (unsigned)r, 0),
                          array_i64(g, x->dims, r), array_i32(g, mask, r)};
    cg_call(g, "sc_k_sum_i64", g->voidt, pi, 6, ai, 6, false);
    if (out_dt == SC_DTYPE_F32) {
      LLVMTypeRef pc[3] = {g->ptr, g->ptr, g->i64};
      LLVMValueRef ac[3] = {counts, out->data, out->numel};
      cg_call(g, "sc_k_i64_to_f32", g->voidt, pc, 3, ac, 3, false);
    }
    return true;
  }
  if ((op == SC_REDUCE_MAX || op == SC_REDUCE_MIN) && kind >= 0 && in_dt == out_dt && !g->cuda) {
    /* integers' max / min: the values of the arg-reduction over the reduced dims, which
     * must be adjacent (one block) */
    int first = r, last = 0;
    for (int i = 0; i < r; i++)
      if (mask[i]) {
        if (i < first) first = i;
        last = i + 1;
      }
    if (first >= last) first = last = 0;
    for (int i = first; i < last; i++)
      if (!mask[i])
        return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of integers over dims that are not adjacent has no "
                        "lowering yet", n->target);
    LLVMTypeRef pi[8] = {g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->i64, g->i32, g->i32};
    LLVMValueRef ai[8] = {x->data, out->data, LLVMConstNull(g->ptr), prod(g, x->dims, 0, first), prod(g, x->dims, first, last),
                          prod(g, x->dims, last, r), LLVMConstInt(g->i32, (unsigned)kind, 0),
                          LLVMConstInt(g->i32, op == SC_REDUCE_MIN, 0)};
    cg_call(g, "sc_k_arg_reduce_int", g->voidt, pi, 8, ai, 8, false);
    return true;
  }
  if (in_dt != SC_DTYPE_F32 || out_dt != SC_DTYPE_F32)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s into %s has no CPU lowering (float32, integers' "
                    "max and min, and sums of integers or bools into int64, have one)", n->target, sc_dtype_name(in_dt),
                    sc_dtype_name(out_dt));
  LLVMTypeRef p[7] = {g->ptr, g->ptr, g->i32, g->ptr, g->ptr, g->i32, g->f64};
  LLVMValueRef a[7] = {x->data, out->data, LLVMConstInt(g->i32, (unsigned)r, 0), array_i64(g, x->dims, r), array_i32(g, mask, r),
                       LLVMConstInt(g->i32, (unsigned)op, 0), LLVMConstReal(g->f64, correction)};
  cg_call(g, "sc_k_reduce_f32", g->voidt, p, 7, a, 7, false);
  if (root) { /* std: the square root of var, as torch takes it */
    LLVMTypeRef sp[2] = {g->ptr, g->i64};
    LLVMValueRef sa[2] = {out->data, out->numel};
    cg_call(g, "sc_k_sqrt_f32", g->voidt, sp, 2, sa, 2, false);
  }
  if (id0 == SC_OP_VAR_MEAN || id0 == SC_OP_STD_MEAN) { /* and the mean over the same dims */
    cg_value *mean = cg_produce(g, output(n, 1));
    a[1] = mean->data;
    a[5] = LLVMConstInt(g->i32, SC_REDUCE_MEAN, 0);
    cg_call(g, "sc_k_reduce_f32", g->voidt, p, 7, a, 7, false);
  }
  return true;
}

/* Item i of list argument `name` as a run-time i64 (a SymInt or a constant). */
static LLVMValueRef list_item(cg *g, const sc_node *n, const char *name, size_t i) {
  const sc_arg *a = arg(n, name);
  return a->items[i].value ? cg_expr(g, a->items[i].value->sym) : cg_i64(g, a->items[i].i);
}

/* Every element of out set to `value` in out's dtype (sc_k_fill); false, with the error
 * reported, for a dtype without a lowering. */
static bool fill_with(cg *g, const sc_node *n, cg_value *out, double value) {
  sc_dtype dt = out->v->meta.dtype;
  LLVMTypeRef t = cg_llvm_type(g, dt);
  if (!t) return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s has no CPU lowering", n->target, sc_dtype_name(dt));
  LLVMTypeRef mem = cg_mem_type(g, dt);
  LLVMValueRef slot = LLVMBuildAlloca(g->B, mem, "v");
  LLVMValueRef bits = dt == SC_DTYPE_BF16  ? LLVMConstInt(g->i16, sc_f32_to_bf16((float)value), 0)
                      : dt == SC_DTYPE_F16 ? LLVMConstInt(g->i16, sc_f32_to_f16((float)value), 0)
                      : (t == g->f32 || t == g->f64) ? LLVMConstReal(t, value)
                                                     : LLVMConstInt(mem, (unsigned long long)(int64_t)value, 1);
  LLVMBuildStore(g->B, bits, slot);
  LLVMTypeRef p[4] = {g->ptr, g->i64, g->ptr, g->i64};
  LLVMValueRef a[4] = {out->data, out->numel, slot, cg_elem_size(g, dt)};
  cg_call(g, "sc_k_fill", g->voidt, p, 4, a, 4, false);
  return true;
}

/* pad (constant mode) and constant_pad_nd: the output filled with the value, then x's part
 * that survives the cropping (negative pads) copied into place. */
/* pad in reflect, replicate or circular mode, and reflection_padNd / replication_padNd
 * (runtime pad_modes.c): each output element read from its mirrored, clamped or wrapped
 * source. */
static bool lower_pad_mode(cg *g, const sc_node *n, int mode, const char *list) {
  if (g->cuda)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has no CUDA lowering yet (export with --target cpu)",
                    n->target);
  cg_value *x = tensor(g, n, "self");
  cg_value *out = cg_produce(g, output(n, 0));
  int r = out->v->meta.rank;
  size_t pairs = arg(n, list)->n_items / 2;
  LLVMValueRef before[CG_MAX_RANK];
  for (int d = 0; d < r; d++) before[d] = r - 1 - d < (int)pairs ? list_item(g, n, list, 2 * (size_t)(r - 1 - d)) : cg_i64(g, 0);
  if (mode != SC_PAD_CIRCULAR && r >= (int)pairs + 1 && r <= (int)pairs + 2) {
    /* torch's check: only a batch dim may be empty (a reflection's guard refuses first) */
    LLVMValueRef empty = LLVMConstInt(g->i1, 0, 0);
    for (int d = r == (int)pairs + 2 ? 1 : 0; d < r; d++)
      empty = LLVMBuildOr(g->B, empty, LLVMBuildICmp(g->B, LLVMIntEQ, x->dims[d], cg_i64(g, 0), "e"), "empty");
    char fmt[300];
    int k = snprintf(fmt, sizeof fmt, "Expected %dD or %dD (batch mode) tensor with possibly 0 batch size and other "
                     "non-zero dimensions for input, but got: [", (int)pairs + 1, (int)pairs + 2);
    for (int d = 0; d < r && k > 0 && (size_t)k < sizeof fmt; d++) k += snprintf(fmt + k, sizeof fmt - (size_t)k, d ? ", %%lld" : "%%lld");
    if (k > 0 && (size_t)k < sizeof fmt) snprintf(fmt + k, sizeof fmt - (size_t)k, "]");
    cg_fail_msg_if(g, empty, fmt, x->dims, (unsigned)r);
  }
  LLVMTypeRef p[8] = {g->ptr, g->ptr, g->i32, g->ptr, g->ptr, g->ptr, g->i64, g->i32};
  LLVMValueRef a[8] = {x->data, out->data, LLVMConstInt(g->i32, (unsigned)r, 0), array_i64(g, x->dims, r),
                       array_i64(g, out->dims, r), array_i64(g, before, r), cg_elem_size(g, out->v->meta.dtype),
                       LLVMConstInt(g->i32, (unsigned)mode, 0)};
  cg_call(g, "sc_k_pad_mode", g->voidt, p, 8, a, 8, false);
  return true;
}

static bool lower_pad(cg *g, const sc_node *n) {
  if (n->op->id == SC_OP_REFLECTION_PAD) return lower_pad_mode(g, n, SC_PAD_REFLECT, "padding");
  if (n->op->id == SC_OP_REPLICATION_PAD) return lower_pad_mode(g, n, SC_PAD_REPLICATE, "padding");
  const sc_arg *mode = arg(n, "mode");
  if (!arg_none(mode) && mode->kind == SC_ARG_STRING && strcmp(mode->items[0].s, "constant") != 0) {
    const char *m = mode->items[0].s;
    if (strcmp(m, "reflect") == 0) return lower_pad_mode(g, n, SC_PAD_REFLECT, "pad");
    if (strcmp(m, "replicate") == 0) return lower_pad_mode(g, n, SC_PAD_REPLICATE, "pad");
    if (strcmp(m, "circular") == 0) return lower_pad_mode(g, n, SC_PAD_CIRCULAR, "pad");
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "pad in '%s' mode has no lowering (constant, reflect, "
                    "replicate and circular have one)", m);
  }
  cg_value *x = tensor(g, n, "self");
  cg_value *out = cg_produce(g, output(n, 0));
  sc_dtype dt = out->v->meta.dtype;
  if (!fill_with(g, n, out, float_arg(n, "value", 0))) return false;
  int r = out->v->meta.rank;
  size_t pairs = arg(n, "pad")->n_items / 2;
  LLVMValueRef xs[CG_MAX_RANK], os[CG_MAX_RANK], shape[CG_MAX_RANK], src_off = cg_i64(g, 0), dst_off = cg_i64(g, 0);
  strides_of(g, x, xs);
  strides_of(g, out, os);
  LLVMValueRef zero = cg_i64(g, 0);
  for (int d = 0; d < r; d++) {
    shape[d] = x->dims[d];
    if (r - 1 - d >= (int)pairs) continue;
    size_t i = (size_t)(r - 1 - d);
    LLVMValueRef before = list_item(g, n, "pad", 2 * i), after = list_item(g, n, "pad", 2 * i + 1);
    /* a negative pad crops x; a positive one moves it into the output */
    LLVMValueRef crop_lo = LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, before, zero, "n"), LLVMBuildNeg(g->B, before, "c"), zero, "lo");
    LLVMValueRef crop_hi = LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, after, zero, "n"), LLVMBuildNeg(g->B, after, "c"), zero, "hi");
    LLVMValueRef keep = LLVMBuildSub(g->B, LLVMBuildSub(g->B, x->dims[d], crop_lo, "k"), crop_hi, "k");
    /* ATen crops with narrow() before it pads, and refuses a crop past the input */
    cg_fail_msg_if(g, LLVMBuildICmp(g->B, LLVMIntSLT, keep, zero, "e"), "narrow(): length must be non-negative.", NULL, 0);
    shape[d] = keep;
    src_off = LLVMBuildAdd(g->B, src_off, LLVMBuildMul(g->B, crop_lo, xs[d], "so"), "so");
    LLVMValueRef shift = LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntSGT, before, zero, "p"), before, zero, "sh");
    dst_off = LLVMBuildAdd(g->B, dst_off, LLVMBuildMul(g->B, shift, os[d], "do"), "do");
  }
  /* the kept part: x itself when no pad is negative, else read through x's strides into a
   * compact buffer first */
  LLVMValueRef esize = cg_elem_size(g, dt), tmp = x->data;
  bool crops = false;
  for (size_t i = 0; i < 2 * pairs; i++) {
    const sc_arg_item *it = &arg(n, "pad")->items[i];
    crops |= it->value != NULL || it->i < 0;
  }
  if (crops) {
    cg_value *scratch = sc_arena_alloc(&g->ctx->arena, sizeof *scratch);
    scratch->last_use = g->node;
    tmp = cg_alloc_buffer(g, scratch, LLVMBuildMul(g->B, prod(g, shape, 0, r), esize, "bytes"));
    strided_copy(g, offset_ptr(g, x->data, src_off, dt), tmp, r, shape, xs, dt);
  }
  LLVMTypeRef p[6] = {g->ptr, g->ptr, g->i32, g->ptr, g->ptr, g->i64};
  LLVMValueRef a[6] = {tmp, offset_ptr(g, out->data, dst_off, dt), LLVMConstInt(g->i32, (unsigned)r, 0),
                       array_i64(g, shape, r), array_i64(g, os, r), esize};
  cg_call(g, "sc_k_copy_into", g->voidt, p, 6, a, 6, false);
  return true;
}

/* flip: x read backwards along the flipped dims (negative strides from their last element). */
static bool lower_flip(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, "self");
  cg_value *out = cg_produce(g, output(n, 0));
  int r = out->v->meta.rank;
  LLVMValueRef st[CG_MAX_RANK], start = cg_i64(g, 0);
  strides_of(g, x, st);
  bool flipped[CG_MAX_RANK] = {false};
  const sc_arg *dims = arg(n, "dims");
  for (size_t i = 0; dims && i < dims->n_items; i++) {
    int d = norm_dim(dims->items[i].i, r);
    if (d >= 0 && d < r) flipped[d] = true;
  }
  for (int d = 0; d < r; d++) {
    if (!flipped[d]) continue;
    LLVMValueRef last = LLVMBuildSub(g->B, x->dims[d], cg_i64(g, 1), "last");
    last = LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, last, cg_i64(g, 0), "e"), cg_i64(g, 0), last, "last");
    start = LLVMBuildAdd(g->B, start, LLVMBuildMul(g->B, last, st[d], "o"), "start");
    st[d] = LLVMBuildNeg(g->B, st[d], "neg");
  }
  strided_copy(g, offset_ptr(g, x->data, start, out->v->meta.dtype), out->data, r, out->dims, st, out->v->meta.dtype);
  return true;
}

/* diff(self, 1, dim, prepend, append) (runtime copy.c): int64, int32, float32, float64. */
static bool lower_diff(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, "self"), *pre = tensor(g, n, "prepend"), *app = tensor(g, n, "append");
  sc_dtype dt = x->v->meta.dtype;
  int kind = dt == SC_DTYPE_I64 ? 0 : dt == SC_DTYPE_I32 ? 1 : dt == SC_DTYPE_F32 ? 2 : dt == SC_DTYPE_F64 ? 3 : -1;
  if (kind < 0 || g->cuda || (pre && pre->v->meta.dtype != dt) || (app && app->v->meta.dtype != dt))
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s has no %s lowering yet (int64, int32, float32 "
                    "and float64 of one dtype on the CPU have one)", n->target, sc_dtype_name(dt), g->cuda ? "CUDA" : "CPU");
  cg_value *out = cg_produce(g, output(n, 0));
  int r = x->v->meta.rank, d = norm_dim(int_arg(n, "dim", -1), r);
  LLVMTypeRef p[10] = {g->ptr, g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->i64, g->i64, g->i64, g->i32};
  LLVMValueRef a[10] = {pre ? pre->data : LLVMConstNull(g->ptr), x->data, app ? app->data : LLVMConstNull(g->ptr),
                        out->data, prod(g, x->dims, 0, d), pre ? pre->dims[d] : cg_i64(g, 0), x->dims[d],
                        app ? app->dims[d] : cg_i64(g, 0), prod(g, x->dims, d + 1, r), LLVMConstInt(g->i32, (unsigned)kind, 0)};
  cg_call(g, "sc_k_diff", g->voidt, p, 10, a, 10, false);
  return true;
}

/* roll(self, shifts, dims): each listed dim shifted round by its shift (normalized to
 * [0, size) here, so that negative and oversized shifts wrap as in torch); no dims rolls
 * the flattened tensor. */
static bool lower_roll(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, "self");
  if (g->cuda) return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has no CUDA lowering yet", n->target);
  cg_value *out = cg_produce(g, output(n, 0));
  int r = out->v->meta.rank;
  int64_t shifts[CG_MAX_RANK], dims[CG_MAX_RANK];
  int ns = ints(n, "shifts", shifts, CG_MAX_RANK), nd = ints(n, "dims", dims, CG_MAX_RANK);
  if (ns < 1 || (nd && nd != ns) || (!nd && ns != 1))
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s: %d shifts for %d dims", n->target, ns, nd);
  LLVMValueRef shape[CG_MAX_RANK], shift[CG_MAX_RANK];
  int rank = nd ? r : 1;
  if (nd) {
    for (int d = 0; d < r; d++) shape[d] = out->dims[d], shift[d] = cg_i64(g, 0);
  } else {
    shape[0] = out->numel;
    shift[0] = cg_i64(g, 0);
  }
  for (int i = 0; i < ns; i++) {
    int d = nd ? norm_dim(dims[i], r) : 0;
    if (d < 0 || d >= rank) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: dim %lld out of range", n->target, (long long)dims[i]);
    /* ((total % size) + size) % size, a size of 0 leaving 0 */
    LLVMValueRef size = shape[d], one = cg_i64(g, 1), zero = cg_i64(g, 0);
    LLVMValueRef safe = LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntEQ, size, zero, "z"), one, size, "sz");
    LLVMValueRef k = LLVMBuildAdd(g->B, shift[d], cg_i64(g, shifts[i]), "k");
    k = LLVMBuildSRem(g->B, LLVMBuildAdd(g->B, LLVMBuildSRem(g->B, k, safe, "m"), safe, "p"), safe, "k");
    shift[d] = k;
  }
  LLVMTypeRef p[6] = {g->ptr, g->ptr, g->i32, g->ptr, g->ptr, g->i64};
  LLVMValueRef a[6] = {x->data, out->data, LLVMConstInt(g->i32, (unsigned)rank, 0), array_i64(g, shape, rank),
                       array_i64(g, shift, rank), cg_elem_size(g, out->v->meta.dtype)};
  cg_call(g, "sc_k_roll", g->voidt, p, 6, a, 6, false);
  return true;
}

/* upsample_bilinear2d of float32 NCHW planes (runtime upsample.c), with the program's
 * scale factors where it gave them instead of an output size (they set the sampling
 * positions, which an output size rounded down from them would not). */
/* im2col and col2im (runtime fold.c): each block's pixels gathered into its column, or the
 * columns summed back into their places; float32 on the CPU. */
static bool lower_col2im(cg *g, const sc_node *n) {
  bool unfold = n->op->id == SC_OP_IM2COL;
  cg_value *x = tensor(g, n, "self");
  if (g->cuda || x->v->meta.dtype != SC_DTYPE_F32)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s has no %s lowering (float32 on the CPU has one)",
                    n->target, sc_dtype_name(x->v->meta.dtype), g->cuda ? "CUDA" : "CPU");
  cg_value *out = cg_produce(g, output(n, 0));
  cg_value *img = unfold ? x : out; /* the side in images */
  int r = img->v->meta.rank;
  int64_t k[2], pad[2], dil[2], st[2];
  spatial(n, "kernel_size", k, 2, 1);
  spatial(n, "padding", pad, 2, 0);
  spatial(n, "dilation", dil, 2, 1);
  spatial(n, "stride", st, 2, 1);
  LLVMValueRef h = img->dims[r - 2], w = img->dims[r - 1];
  LLVMValueRef bh = LLVMBuildAdd(g->B, LLVMBuildSDiv(g->B, LLVMBuildAdd(g->B, h, cg_i64(g, 2 * pad[0] - dil[0] * (k[0] - 1) - 1), "n"),
                                                     cg_i64(g, st[0]), "q"), cg_i64(g, 1), "bh");
  LLVMValueRef bw = LLVMBuildAdd(g->B, LLVMBuildSDiv(g->B, LLVMBuildAdd(g->B, w, cg_i64(g, 2 * pad[1] - dil[1] * (k[1] - 1) - 1), "n"),
                                                     cg_i64(g, st[1]), "q"), cg_i64(g, 1), "bw");
  LLVMTypeRef p[15] = {g->ptr, g->ptr};
  for (int i = 2; i < 15; i++) p[i] = g->i64;
  LLVMValueRef a[15] = {x->data, out->data, prod(g, img->dims, 0, r - 2), h, w, cg_i64(g, k[0]), cg_i64(g, k[1]),
                        cg_i64(g, dil[0]), cg_i64(g, dil[1]), cg_i64(g, pad[0]), cg_i64(g, pad[1]), cg_i64(g, st[0]),
                        cg_i64(g, st[1]), bh, bw};
  cg_call(g, unfold ? "sc_k_im2col_f32" : "sc_k_col2im_f32", g->voidt, p, 15, a, 15, false);
  return true;
}

/* upsample_bilinear2d and upsample_bicubic2d (runtime upsample.c), float32 NCHW. */
static bool lower_upsample_bilinear2d(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, "input");
  if (x->v->meta.dtype != SC_DTYPE_F32)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s has no CPU lowering (float32 has one)", n->target,
                    sc_dtype_name(x->v->meta.dtype));
  double scale[2] = {0, 0};
  const sc_arg *f = arg(n, "scale_factors");
  if (!arg_none(f) && f->kind == SC_ARG_FLOATS && f->n_items == 2) scale[0] = f->items[0].f, scale[1] = f->items[1].f;
  cg_value *out = cg_produce(g, output(n, 0));
  LLVMTypeRef p[10] = {g->ptr, g->ptr, g->i64, g->i64, g->i64, g->i64, g->i64, g->i32, g->f64, g->f64};
  LLVMValueRef a[10] = {x->data, out->data, prod(g, x->dims, 0, 2), x->dims[2], x->dims[3], out->dims[2], out->dims[3],
                        LLVMConstInt(g->i32, int_arg(n, "align_corners", 0) != 0, 0), LLVMConstReal(g->f64, scale[0]),
                        LLVMConstReal(g->f64, scale[1])};
  bool cubic = n->op->id == SC_OP_UPSAMPLE_BICUBIC2D;
  check_rc(g, cg_call(g, cubic ? "sc_k_upsample_bicubic2d_f32" : "sc_k_upsample_bilinear2d_f32", g->i32, p, 10, a, 10, false));
  return true;
}

/* upsample_nearest2d by another factor, or to a given size (runtime upsample.c): each output
 * index reads the source torch's float32 scale picks.  CPU only. */
static bool upsample_nearest_any(cg *g, const sc_node *n, cg_value *x) {
  if (g->cuda)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s by a factor that is not a power of two has no CUDA "
                    "lowering yet (export with --target cpu)", n->target);
  double scale[2] = {0, 0};
  const sc_arg *f = arg(n, "scale_factors");
  if (!arg_none(f) && f->kind == SC_ARG_FLOATS && f->n_items == 2) scale[0] = f->items[0].f, scale[1] = f->items[1].f;
  cg_value *out = cg_produce(g, output(n, 0));
  LLVMTypeRef p[10] = {g->ptr, g->ptr, g->i64, g->i64, g->i64, g->i64, g->i64, g->f64, g->f64, g->i64};
  LLVMValueRef a[10] = {x->data, out->data, prod(g, x->dims, 0, 2), x->dims[2], x->dims[3], out->dims[2], out->dims[3],
                        LLVMConstReal(g->f64, scale[0]), LLVMConstReal(g->f64, scale[1]), cg_elem_size(g, x->v->meta.dtype)};
  cg_call(g, "sc_k_upsample_nearest2d", g->voidt, p, 10, a, 10, false);
  return true;
}

/* upsample_nearest2d by whole powers of two: ATen's source index floor(o * (1 / k)) is
 * o / k exactly there, so each input element is repeated k times along each dim, a strided
 * copy of x read as [n, c, h, kh, w, kw] with strides 0 on the repeats.  Other factors
 * round 1 / k in float32 (floor(25 * (1 / 25.0f)) is 0), which this copy would not. */
static bool lower_upsample_nearest2d(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, "input");
  const sc_value *ov = output(n, 0);
  { /* torch's check, in its words */
    cg_value *o = cg_get(g, ov);
    cg_set_dims(g, o);
    LLVMValueRef sizes[4] = {x->dims[2], x->dims[3], o->dims[2], o->dims[3]}, bad = LLVMConstInt(g->i1, 0, 0);
    for (int i = 0; i < 4; i++) bad = LLVMBuildOr(g->B, bad, LLVMBuildICmp(g->B, LLVMIntSLE, sizes[i], cg_i64(g, 0), "e"), "bad");
    cg_fail_msg_if(g, bad, "Input and output sizes should be greater than 0, but got input (H: %lld, W: %lld) output "
                   "(H: %lld, W: %lld)", sizes, 4);
  }
  int64_t k[2];
  for (int d = 0; d < 2; d++) {
    const sc_expr *in = x->v->shape[2 + d], *out = ov->shape[2 + d], *q = sc_expr_floordiv(g->ctx, out, in);
    if (!q || sc_expr_mul(g->ctx, q, in) != out || !sc_expr_is_const(q, &k[d]) || k[d] < 1 || (k[d] & (k[d] - 1)))
      return upsample_nearest_any(g, n, x);
  }
  cg_value *out = cg_produce(g, ov);
  LLVMValueRef xs[CG_MAX_RANK];
  strides_of(g, x, xs);
  LLVMValueRef shape[6] = {x->dims[0], x->dims[1], x->dims[2], cg_i64(g, k[0]), x->dims[3], cg_i64(g, k[1])};
  LLVMValueRef st[6] = {xs[0], xs[1], xs[2], cg_i64(g, 0), xs[3], cg_i64(g, 0)};
  strided_copy(g, x->data, out->data, 6, shape, st, out->v->meta.dtype);
  return true;
}

/* embedding, index_select and gather: the kernel checks every index (gather: and that the
 * index is no larger than the source apart from dim) before it touches memory and fails
 * the call with torch's words; the CUDA launchers the same after their kernel. */
static bool lower_index_read(cg *g, const sc_node *n) {
  bool emb = n->op->id == SC_OP_EMBEDDING;
  cg_value *src = tensor(g, n, emb ? "weight" : "self"), *idx = tensor(g, n, emb ? "indices" : "index");
  if (!src || !idx) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: a tensor argument is missing", n->target);
  if (idx->v->meta.dtype != SC_DTYPE_I64 && !(idx->v->meta.dtype == SC_DTYPE_I32 && !g->cuda))
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s with %s indices has no %s lowering yet", n->target,
                    sc_dtype_name(idx->v->meta.dtype), g->cuda ? "CUDA" : "CPU");
  cg_value *out = cg_produce(g, output(n, 0));
  if (idx->v->meta.dtype == SC_DTYPE_I32) { /* int32 indices (CPM-Ant's embedding): widened once for the kernels */
    cg_value *scratch = sc_arena_alloc(&g->ctx->arena, sizeof *scratch); /* a buffer freed after this node */
    scratch->last_use = g->node;
    LLVMValueRef data = cg_alloc_buffer(g, scratch, LLVMBuildMul(g->B, idx->numel, cg_i64(g, 8), "bytes"));
    LLVMTypeRef wp[3] = {g->ptr, g->ptr, g->i64};
    LLVMValueRef wa[3] = {idx->data, data, idx->numel};
    cg_call(g, "sc_k_widen_i32", g->voidt, wp, 3, wa, 3, false);
    cg_value *wide = sc_arena_alloc(&g->ctx->arena, sizeof *wide); /* the indices' dims, the widened data */
    *wide = *idx;
    wide->data = data;
    idx = wide;
  }
  int r = src->v->meta.rank, d = emb ? 0 : norm_dim(int_arg(n, "dim", 0), r);
  LLVMValueRef esize = cg_elem_size(g, src->v->meta.dtype);
  LLVMValueRef node = cg_cstr(g, sc_arena_printf(&g->ctx->arena, "node '%s', %s", n->name, n->target)), rc;
  if (n->op->id == SC_OP_GATHER) { /* a 0-d tensor is [1], as torch's checks see it */
    int ri = idx->v->meta.rank, k = r ? r : 1;
    if ((ri ? ri : 1) != k)
      return cg_error(g, SC_DIAG_CODEGEN, n->path, "gather: index of rank %d for self of rank %d", ri, r);
    LLVMValueRef xs[CG_MAX_RANK], is[CG_MAX_RANK];
    for (int i = 0; i < k; i++) {
      xs[i] = r ? src->dims[i] : cg_i64(g, 1);
      is[i] = ri ? idx->dims[i] : cg_i64(g, 1);
    }
    LLVMTypeRef p[11] = {g->ptr, g->ptr, g->ptr, g->i32, g->i32, g->ptr, g->ptr, g->i64, g->ptr, g->ptr, g->i64};
    LLVMValueRef a[11] = {src->data, idx->data, out->data, LLVMConstInt(g->i32, (unsigned)k, 0),
                          LLVMConstInt(g->i32, (unsigned)d, 0), array_i64(g, xs, k), array_i64(g, is, k), esize,
                          node, g->err, g->errlen};
    rc = cg_call(g, "sc_k_gather", g->i32, p, 11, a, 11, false);
  } else {
    LLVMValueRef n_src = r ? src->dims[d] : cg_i64(g, 1);
    LLVMValueRef outer = r ? prod(g, src->dims, 0, d) : cg_i64(g, 1), inner = r ? prod(g, src->dims, d + 1, r) : cg_i64(g, 1);
    LLVMTypeRef p[13] = {g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->i64, g->i64, g->i64, g->i32, g->i32, g->ptr, g->ptr,
                         g->i64};
    LLVMValueRef a[13] = {src->data, idx->data, out->data, outer, n_src, idx->numel, inner, esize,
                          LLVMConstInt(g->i32, (unsigned)r, 0), LLVMConstInt(g->i32, (unsigned)d, 0), node, g->err, g->errlen};
    rc = cg_call(g, "sc_k_index_select", g->i32, p, 13, a, 13, false);
  }
  cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "badindex"), rc);
  return true;
}

/* _embedding_bag (runtime embedding_bag.c): the bags' sums, means or maxima.  Its other
 * three results exist for the backward pass and take values that depend on ATen's code
 * path, so a program that reads one is refused rather than given guessed numbers. */
static bool lower_embedding_bag(cg *g, const sc_node *n) {
  cg_value *w = tensor(g, n, "weight"), *idx = tensor(g, n, "indices"), *off = tensor(g, n, "offsets");
  cg_value *psw = tensor(g, n, "per_sample_weights");
  if (!w || !idx || !off) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: a tensor argument is missing", n->target);
  static const char *const aux[] = {"offset2bag", "bag_size", "max_indices"};
  for (int k = 1; k <= 3; k++) {
    const sc_value *v = output(n, k);
    if (v && cg_get(g, v)->uses > 0)
      return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s: the program reads its result %d (%s), which "
                      "shapec does not compute (only the bags' values, result 0, are computed)", n->target, k, aux[k - 1]);
  }
  sc_dtype dt = w->v->meta.dtype;
  int kind = element_kind(dt), ik = element_kind(idx->v->meta.dtype), ok = element_kind(off->v->meta.dtype);
  bool int_kinds = (ik == SC_KIND_I32 || ik == SC_KIND_I64) && (ok == SC_KIND_I32 || ok == SC_KIND_I64);
  if (g->cuda || (kind != SC_KIND_F32 && kind != SC_KIND_F64) || !int_kinds || (psw && psw->v->meta.dtype != dt))
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of a %s table with %s indices and %s offsets has no %s "
                    "lowering (float32 or float64 tables, int32 or int64 indices and offsets, per-sample weights of "
                    "the table's dtype on the CPU have one)", n->target, sc_dtype_name(dt),
                    sc_dtype_name(idx->v->meta.dtype), sc_dtype_name(off->v->meta.dtype), g->cuda ? "CUDA" : "CPU");
  cg_value *out = cg_produce(g, output(n, 0));
  LLVMValueRef node = cg_cstr(g, sc_arena_printf(&g->ctx->arena, "node '%s', %s", n->name, n->target));
  LLVMTypeRef p[18] = {g->ptr, g->i32, g->i64, g->i64, g->ptr, g->i32, g->i64, g->ptr, g->i32,
                       g->i64, g->i32, g->i32, g->ptr, g->i64, g->ptr, g->ptr, g->ptr, g->i64};
  LLVMValueRef a[18] = {w->data, LLVMConstInt(g->i32, (unsigned)kind, 0), w->dims[0], w->dims[1], idx->data,
                        LLVMConstInt(g->i32, (unsigned)ik, 0), idx->numel, off->data, LLVMConstInt(g->i32, (unsigned)ok, 0),
                        off->numel, LLVMConstInt(g->i32, int_arg(n, "include_last_offset", 0) != 0, 0),
                        LLVMConstInt(g->i32, (unsigned)int_arg(n, "mode", 0), 0),
                        psw ? psw->data : LLVMConstNull(g->ptr), cg_i64(g, int_arg(n, "padding_idx", -1)), out->data,
                        node, g->err, g->errlen};
  LLVMValueRef rc = cg_call(g, "sc_k_embedding_bag", g->i32, p, 18, a, 18, false);
  cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "badbag"), rc);
  return true;
}

/* The result of an op that writes into a copy of self (index_copy, index_put): self itself
 * where self is the model's state and this node its only reader (a KV cache's write: the
 * new rows go straight into the state, and its write-back after the call is a no-op),
 * else a new buffer holding self's elements. */
static cg_value *updated_self(cg *g, cg_value *self, const sc_value *ov) {
  if (self->state && self->uses == 1) {
    cg_value *out = cg_get(g, ov);
    cg_set_dims(g, out);
    out->data = self->data;
    out->state = true;
    out->ready = true;
    return out;
  }
  cg_value *out = cg_produce(g, ov);
  LLVMValueRef ss[CG_MAX_RANK];
  strides_of(g, self, ss);
  strided_copy(g, self->data, out->data, self->v->meta.rank, self->dims, ss, self->v->meta.dtype);
  return out;
}

/* index_copy(self, dim, index, source): self's elements with the rows of source written
 * at index along dim (a KV cache's write: updated_self). */
static bool lower_index_copy(cg *g, const sc_node *n) {
  cg_value *self = tensor(g, n, "self"), *idx = tensor(g, n, "index"), *src = tensor(g, n, "source");
  if (!self || !idx || !src) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: a tensor argument is missing", n->target);
  sc_dtype dt = self->v->meta.dtype;
  if (src->v->meta.dtype != dt)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "index_copy_(): self and source expected to have the same "
                    "dtype, but got (self) %s and (source) %s", sc_dtype_name(dt), sc_dtype_name(src->v->meta.dtype));
  cg_value *out = updated_self(g, self, output(n, 0));
  int r = out->v->meta.rank, d = norm_dim(int_arg(n, "dim", 0), r);
  LLVMValueRef n_dst = r ? out->dims[d] : cg_i64(g, 1);
  LLVMValueRef outer = r ? prod(g, out->dims, 0, d) : cg_i64(g, 1), inner = r ? prod(g, out->dims, d + 1, r) : cg_i64(g, 1);
  LLVMValueRef node = cg_cstr(g, sc_arena_printf(&g->ctx->arena, "node '%s', %s", n->name, n->target));
  LLVMTypeRef p[12] = {g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->i64, g->i64, g->i64, g->i32, g->ptr, g->ptr, g->i64};
  LLVMValueRef a[12] = {out->data, idx->data, src->data, outer, n_dst, idx->numel, inner, cg_elem_size(g, dt),
                        LLVMConstInt(g->i32, (unsigned)d, 0), node, g->err, g->errlen};
  LLVMValueRef rc = cg_call(g, "sc_k_index_copy", g->i32, p, 12, a, 12, false);
  cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "badindex"), rc);
  return true;
}

/* index_add (runtime copy.c): self copied, then alpha times source's slices added at the
 * positions index lists, in order; every index checked first. */
static bool lower_index_add(cg *g, const sc_node *n) {
  cg_value *self = tensor(g, n, "self"), *idx = tensor(g, n, "index"), *src = tensor(g, n, "source");
  if (!self || !idx || !src) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: a tensor argument is missing", n->target);
  sc_dtype dt = self->v->meta.dtype;
  int kind = element_kind(dt);
  if (g->cuda || kind < 0 || src->v->meta.dtype != dt)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s into %s has no %s lowering (one dtype, on the CPU, "
                    "has one)", n->target, sc_dtype_name(src->v->meta.dtype), sc_dtype_name(dt), g->cuda ? "CUDA" : "CPU");
  cg_value *out = updated_self(g, self, output(n, 0));
  int r = out->v->meta.rank, d = r ? norm_dim(int_arg(n, "dim", 0), r) : 0;
  LLVMValueRef n_dst = r ? out->dims[d] : cg_i64(g, 1);
  LLVMValueRef outer = r ? prod(g, out->dims, 0, d) : cg_i64(g, 1), inner = r ? prod(g, out->dims, d + 1, r) : cg_i64(g, 1);
  LLVMValueRef node = cg_cstr(g, sc_arena_printf(&g->ctx->arena, "node '%s', %s", n->name, n->target));
  LLVMTypeRef p[12] = {g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->i64, g->i64, g->i32, g->f64, g->ptr, g->ptr, g->i64};
  LLVMValueRef a[12] = {out->data, idx->data, src->data, outer, n_dst, idx->numel, inner, LLVMConstInt(g->i32, (unsigned)kind, 0),
                        LLVMConstReal(g->f64, float_arg(n, "alpha", 1)), node, g->err, g->errlen};
  LLVMValueRef rc = cg_call(g, "sc_k_index_add", g->i32, p, 12, a, 12, false);
  cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "badindex"), rc);
  return true;
}

static bool lower_index_put(cg *g, const sc_node *n);

/* sort and topk along one dim (runtime sort.c): a stable merge sort per line, the first k
 * kept; topk's k is checked against the dim's size at run time too. */
static bool lower_sort(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, "self");
  if (!x) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: a tensor argument is missing", n->target);
  int kind = element_kind(x->v->meta.dtype);
  if (kind < 0)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s has no CPU lowering (floats, integers and bools "
                    "have one)", n->target, sc_dtype_name(x->v->meta.dtype));
  bool topk = n->op->id == SC_OP_TOPK;
  int r = x->v->meta.rank, d = norm_dim(int_arg(n, "dim", -1), r);
  bool descending = topk ? int_arg(n, "largest", 1) != 0 : int_arg(n, "descending", 0) != 0;
  bool argsort = n->op->id == SC_OP_ARGSORT;
  cg_value *values = !argsort && output(n, 0) ? cg_produce(g, output(n, 0)) : NULL;
  cg_value *indices = output(n, argsort ? 0 : 1) ? cg_produce(g, output(n, argsort ? 0 : 1)) : NULL;
  LLVMValueRef len = r ? x->dims[d] : cg_i64(g, 1);
  LLVMValueRef k = topk ? int_value(g, n, "k", 1) : len;
  cg_value *scratch = sc_arena_alloc(&g->ctx->arena, sizeof *scratch);
  scratch->last_use = g->node;
  LLVMValueRef room = cg_alloc_buffer(g, scratch, LLVMBuildMul(g->B, LLVMBuildAdd(g->B, len, cg_i64(g, 1), "n1"),
                                                               cg_i64(g, 16), "bytes"));
  LLVMValueRef node = cg_cstr(g, sc_arena_printf(&g->ctx->arena, "node '%s', %s", n->name, n->target));
  LLVMTypeRef p[13] = {g->ptr, g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->i64, g->i64, g->i32, g->i32, g->ptr, g->ptr, g->i64};
  LLVMValueRef a[13] = {x->data, values ? values->data : LLVMConstNull(g->ptr), indices ? indices->data : LLVMConstNull(g->ptr),
                        room, r ? prod(g, x->dims, 0, d) : cg_i64(g, 1), len, r ? prod(g, x->dims, d + 1, r) : cg_i64(g, 1), k,
                        LLVMConstInt(g->i32, (unsigned)kind, 0), LLVMConstInt(g->i32, descending, 0), node, g->err, g->errlen};
  LLVMValueRef rc = cg_call(g, "sc_k_sort", g->i32, p, 13, a, 13, false);
  cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "badk"), rc);
  return true;
}

/* bucketize and searchsorted (runtime searchsorted.c): values (a tensor, or a Scalar put in
 * memory) searched in the 1-D boundaries, or row by row in an N-D sequence whose leading
 * dims are the values'; compared in the two dtypes' common type. */
static bool lower_search_sorted(cg *g, const sc_node *n) {
  int id = n->op->id;
  bool bucketize = id == SC_OP_BUCKETIZE || id == SC_OP_BUCKETIZE_SCALAR;
  bool scalar = id == SC_OP_BUCKETIZE_SCALAR || id == SC_OP_SEARCHSORTED_SCALAR;
  cg_value *seq = tensor(g, n, bucketize ? "boundaries" : "sorted_sequence"), *sorter = tensor(g, n, "sorter");
  cg_value *x = scalar ? NULL : tensor(g, n, "self");
  if (!seq || (!scalar && !x)) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: a tensor argument is missing", n->target);
  int seq_kind = element_kind(seq->v->meta.dtype), val_kind;
  LLVMValueRef values;
  bool val_float;
  sc_dtype val_dt = SC_DTYPE_UNKNOWN;
  if (scalar) { /* the Scalar as one int64 or float64 element */
    const sc_arg *a = arg(n, "self");
    val_float = a && a->kind == SC_ARG_FLOAT;
    values = LLVMBuildAlloca(g->B, g->i64, "search.value");
    LLVMValueRef v = val_float ? LLVMConstReal(g->f64, float_arg(n, "self", 0)) : int_value(g, n, "self", 0);
    LLVMBuildStore(g->B, v, values);
    val_kind = val_float ? SC_KIND_F64 : SC_KIND_I64;
  } else {
    val_dt = x->v->meta.dtype;
    val_kind = element_kind(val_dt);
    val_float = val_kind == SC_KIND_F32 || val_kind == SC_KIND_F64;
    values = x->data;
  }
  if (seq_kind < 0 || val_kind < 0 || g->cuda)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s has no %s lowering (floats, integers and bools "
                    "on the CPU have one)", n->target, sc_dtype_name(seq_kind < 0 ? seq->v->meta.dtype : val_dt),
                    g->cuda ? "CUDA" : "CPU");
  /* the common type: int64 for two integers; else the float one's (a Python float beside
   * integer boundaries is torch's default float32) */
  bool seq_float = seq_kind == SC_KIND_F32 || seq_kind == SC_KIND_F64;
  int compare = !seq_float && !val_float ? SC_SEARCH_AS_I64
                : seq_kind == SC_KIND_F64 || (!scalar && val_kind == SC_KIND_F64) ? SC_SEARCH_AS_F64
                                                                                    : SC_SEARCH_AS_F32;
  const sc_arg *side = arg(n, "side");
  bool right = int_arg(n, "right", 0) != 0 ||
               (!arg_none(side) && side->kind == SC_ARG_STRING && strcmp(side->items[0].s, "right") == 0);
  cg_value *out = cg_produce(g, output(n, 0));
  int rs = seq->v->meta.rank, rx = scalar ? 0 : x->v->meta.rank;
  LLVMValueRef m = seq->dims[rs - 1], rows, k;
  if (rs == 1) {
    rows = cg_i64(g, 1);
    k = scalar ? cg_i64(g, 1) : x->numel;
  } else {
    rows = prod(g, x->dims, 0, rx - 1);
    k = x->dims[rx - 1];
  }
  LLVMValueRef node = cg_cstr(g, sc_arena_printf(&g->ctx->arena, "node '%s', %s", n->name, n->target));
  LLVMTypeRef p[16] = {g->ptr, g->i32, g->ptr, g->i64, g->i64, g->ptr, g->i32, g->i64,
                       g->i64, g->i32, g->i32, g->ptr, g->i32, g->ptr, g->ptr, g->i64};
  LLVMValueRef a[16] = {seq->data, LLVMConstInt(g->i32, (unsigned)seq_kind, 0), sorter ? sorter->data : LLVMConstNull(g->ptr),
                        rs == 1 ? cg_i64(g, 1) : rows, m, values, LLVMConstInt(g->i32, (unsigned)val_kind, 0), rows, k,
                        LLVMConstInt(g->i32, (unsigned)compare, 0), LLVMConstInt(g->i32, right, 0), out->data,
                        LLVMConstInt(g->i32, out->v->meta.dtype == SC_DTYPE_I32, 0), node, g->err, g->errlen};
  LLVMValueRef rc = cg_call(g, "sc_k_search_sorted", g->i32, p, 16, a, 16, false);
  cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "badsorter"), rc);
  return true;
}

/* scatter (src or value), scatter_add and scatter_reduce (runtime scatter.c): self's
 * elements, updated in place where self is state only this node reads (updated_self),
 * then src's (or the value's) combined at index's positions. */
static bool lower_scatter(cg *g, const sc_node *n) {
  cg_value *self = tensor(g, n, "self"), *idx = tensor(g, n, "index"), *src = tensor(g, n, "src");
  int id = n->op->id;
  if (!self || !idx || (id != SC_OP_SCATTER_VALUE && !src))
    return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: a tensor argument is missing", n->target);
  sc_dtype dt = self->v->meta.dtype;
  int kind = element_kind(dt);
  if (kind < 0 || g->cuda)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s has no %s lowering (floats, integers and bools "
                    "on the CPU have one)", n->target, sc_dtype_name(dt), g->cuda ? "CUDA" : "CPU");
  if (idx->v->meta.dtype != SC_DTYPE_I64)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s(): Expected dtype int64 for index", n->target);
  if (src && src->v->meta.dtype != dt)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s(): Expected self.dtype to be equal to src.dtype",
                    n->target);
  int op = id == SC_OP_SCATTER_ADD ? SC_SCATTER_SUM : SC_SCATTER_SET;
  bool include_self = true;
  if (id == SC_OP_SCATTER_REDUCE) {
    const sc_arg *ra = arg(n, "reduce");
    const char *reduce = !arg_none(ra) && ra->kind == SC_ARG_STRING ? ra->items[0].s : "";
    static const char *const names[] = {"sum", "prod", "mean", "amax", "amin"};
    static const int codes[] = {SC_SCATTER_SUM, SC_SCATTER_PROD, SC_SCATTER_MEAN, SC_SCATTER_AMAX, SC_SCATTER_AMIN};
    op = -1;
    for (int i = 0; i < 5; i++)
      if (strcmp(reduce, names[i]) == 0) op = codes[i];
    if (op < 0)
      return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "reduce argument must be either sum, prod, mean, amax "
                      "or amin, got %s", reduce);
    include_self = int_arg(n, "include_self", 1) != 0;
  }
  LLVMValueRef value = LLVMConstNull(g->ptr);
  if (id == SC_OP_SCATTER_VALUE) { /* the number in self's dtype, in memory */
    const sc_arg *va = arg(n, "value");
    double v = arg_none(va) ? 0 : va->kind == SC_ARG_FLOAT ? va->items[0].f : va->kind == SC_ARG_BOOL ? va->items[0].b
                                                                                                      : (double)va->items[0].i;
    LLVMTypeRef mem = cg_mem_type(g, dt), t = cg_llvm_type(g, dt);
    value = LLVMBuildAlloca(g->B, mem, "value");
    LLVMBuildStore(g->B, (t == g->f32 || t == g->f64) ? LLVMConstReal(t, v) : LLVMConstInt(mem, (unsigned long long)(int64_t)v, 1),
                   value);
  }
  int r = self->v->meta.rank, k = r ? r : 1, d = norm_dim(int_arg(n, "dim", 0), r);
  LLVMValueRef os[CG_MAX_RANK], is[CG_MAX_RANK], ss[CG_MAX_RANK];
  int ri = idx->v->meta.rank, rs = src ? src->v->meta.rank : 0;
  for (int i = 0; i < k; i++) {
    os[i] = r ? self->dims[i] : cg_i64(g, 1);
    is[i] = ri ? (i < ri ? idx->dims[i] : cg_i64(g, 1)) : cg_i64(g, 1);
    ss[i] = src && rs ? (i < rs ? src->dims[i] : cg_i64(g, 1)) : cg_i64(g, 1);
  }
  LLVMValueRef node = cg_cstr(g, sc_arena_printf(&g->ctx->arena, "node '%s', %s", n->name, n->target));
  /* checked before self is copied into the output: a failing call writes nothing */
  LLVMTypeRef pc[10] = {g->ptr, g->i32, g->i32, g->ptr, g->ptr, g->ptr, g->i32, g->ptr, g->ptr, g->i64};
  LLVMValueRef ac[10] = {idx->data, LLVMConstInt(g->i32, (unsigned)k, 0), LLVMConstInt(g->i32, (unsigned)d, 0),
                         array_i64(g, os, k), array_i64(g, is, k), array_i64(g, ss, k), LLVMConstInt(g->i32, src != NULL, 0),
                         node, g->err, g->errlen};
  LLVMValueRef bad = cg_call(g, "sc_k_scatter_check", g->i32, pc, 10, ac, 10, false);
  cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, bad, LLVMConstInt(g->i32, 0, 0), "badindex"), bad);
  cg_value *out = updated_self(g, self, output(n, 0));
  LLVMTypeRef p[16] = {g->ptr, g->ptr, g->ptr, g->ptr, g->i32, g->i32, g->ptr, g->ptr, g->ptr, g->i32, g->i32, g->i32, g->i32,
                       g->ptr, g->ptr, g->i64};
  LLVMValueRef a[16] = {out->data, idx->data, src ? src->data : LLVMConstNull(g->ptr), value,
                        LLVMConstInt(g->i32, (unsigned)k, 0), LLVMConstInt(g->i32, (unsigned)d, 0), array_i64(g, os, k),
                        array_i64(g, is, k), array_i64(g, ss, k), LLVMConstInt(g->i32, (unsigned)kind, 0),
                        LLVMConstInt(g->i32, dt == SC_DTYPE_BOOL, 0), LLVMConstInt(g->i32, (unsigned)op, 0),
                        LLVMConstInt(g->i32, include_self, 0), node, g->err, g->errlen};
  LLVMValueRef rc = cg_call(g, "sc_k_scatter", g->i32, p, 16, a, 16, false);
  cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "badindex"), rc);
  return true;
}

/* as_strided: torch's strides address self's storage; shapec holds self compact in its
 * logical order, which is that storage where the program says self is compact (its
 * recorded strides, storage offset 0).  Then the view is a strided copy from the storage
 * offset, every element it reads checked to lie inside self; otherwise it is refused. */
/* The positions as_strided(x, size, stride, storage_offset) touches, for a view of dims
 * (rank r): sets st to the strides and returns the first position, after a check that the
 * last one lies inside x (shapec holds no storage beyond a tensor); `verb` says which way. */
static LLVMValueRef strided_span(cg *g, const sc_node *n, LLVMValueRef *dims, int r, cg_value *x, LLVMValueRef *st,
                                 const char *verb) {
  LLVMValueRef last = int_value(g, n, "storage_offset", 0), nonempty = LLVMConstInt(g->i1, 1, 0);
  LLVMValueRef first = last;
  for (int d = 0; d < r; d++) {
    st[d] = list_item(g, n, "stride", (size_t)d);
    last = LLVMBuildAdd(g->B, last, LLVMBuildMul(g->B, LLVMBuildSub(g->B, dims[d], cg_i64(g, 1), "k"), st[d], "o"), "last");
    nonempty = LLVMBuildAnd(g->B, nonempty, LLVMBuildICmp(g->B, LLVMIntSGT, dims[d], cg_i64(g, 0), "ne"), "ne");
  }
  LLVMValueRef outside = LLVMBuildOr(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, first, cg_i64(g, 0), "lo"),
                                     LLVMBuildICmp(g->B, LLVMIntSGE, last, x->numel, "hi"), "out");
  LLVMValueRef args[2] = {last, x->numel};
  cg_fail_msg_if(g, LLVMBuildAnd(g->B, nonempty, outside, "bad"),
                 sc_arena_printf(&g->ctx->arena, "%s (node '%s') %s element %%lld of '%s', which has %%lld elements: "
                                 "shapec holds no storage beyond the tensor", n->target, n->name, verb, x->v->name),
                 args, 2);
  return first;
}

/* as_strided_scatter: self copied, then src written where as_strided(self, size, stride,
 * storage_offset) reads; every written position checked to lie inside self. */
static bool lower_as_strided_scatter(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, "self"), *src = tensor(g, n, "src");
  if (!x || !src) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: a tensor argument is missing", n->target);
  if (src->v->meta.dtype != x->v->meta.dtype)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s: src of %s into self of %s", n->target,
                    sc_dtype_name(src->v->meta.dtype), sc_dtype_name(x->v->meta.dtype));
  cg_value *out = updated_self(g, x, output(n, 0));
  int r = src->v->meta.rank;
  LLVMValueRef st[CG_MAX_RANK];
  LLVMValueRef first = strided_span(g, n, src->dims, r, x, st, "writes");
  LLVMTypeRef p[6] = {g->ptr, g->ptr, g->i32, g->ptr, g->ptr, g->i64};
  LLVMValueRef a[6] = {src->data, offset_ptr(g, out->data, first, x->v->meta.dtype), LLVMConstInt(g->i32, (unsigned)r, 0),
                       array_i64(g, src->dims, r), array_i64(g, st, r), cg_elem_size(g, x->v->meta.dtype)};
  cg_call(g, "sc_k_copy_into", g->voidt, p, 6, a, 6, false); /* src compact, written through st */
  return true;
}

static bool lower_as_strided(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, "self");
  const sc_tensor_meta *m = &x->v->meta;
  bool compact = m->strides != NULL && !x->held_swapped;
  const sc_expr *want = sc_expr_int(g->ctx, 1);
  for (int d = m->rank - 1; compact && d >= 0; d--) {
    int64_t one;
    if (!(sc_expr_is_const(m->sizes[d], &one) && one == 1) && m->strides[d] != want) compact = false;
    want = sc_expr_mul(g->ctx, want, m->sizes[d]);
  }
  int64_t base = 0;
  if (m->storage_offset && (!sc_expr_is_const(m->storage_offset, &base) || base != 0)) compact = false;
  if (!compact)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of '%s', which torch holds as a view with its own "
                    "strides, has no lowering (as_strided of a compact tensor has one)", n->target, x->v->name);
  cg_value *out = cg_produce(g, output(n, 0));
  int r = out->v->meta.rank;
  LLVMValueRef st[CG_MAX_RANK];
  LLVMValueRef first = strided_span(g, n, out->dims, r, x, st, "reads");
  strided_copy(g, offset_ptr(g, x->data, first, m->dtype), out->data, r, out->dims, st, m->dtype);
  return true;
}

/* unfold, pixel_shuffle and pixel_unshuffle: one copy of x read through strides that
 * regroup its elements.  unfold(d, size, step): window w's element j is x[.., w step + j, ..]
 * (the windows step apart along d, the last dim j).  pixel_shuffle(r), x [B, C, H, W] as
 * the output [B, C / r^2, H, r, W, r]: (b, c, h, i, w, j) is x[b, c r^2 + i r + j, h, w];
 * pixel_unshuffle(r), the output [B, C, r, r, H / r, W / r]: (b, c, i, j, h, w) is
 * x[b, c, h r + i, w r + j]. */
static bool lower_regrouped(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, "self");
  if (!x) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: no input", n->target);
  int r = x->v->meta.rank, id = n->op->id;
  cg_value *out = cg_produce(g, output(n, 0));
  LLVMValueRef st[CG_MAX_RANK], shape[CG_MAX_RANK + 3], src[CG_MAX_RANK + 3];
  strides_of(g, x, st);
  int nd = 0;
  if (id == SC_OP_UNFOLD) {
    int d = norm_dim(int_arg(n, "dimension", 0), r);
    LLVMValueRef step = cg_i64(g, int_arg(n, "step", 1));
    for (int k = 0; k < r; k++) shape[nd] = out->dims[k], src[nd++] = k == d ? LLVMBuildMul(g->B, st[d], step, "w") : st[k];
    shape[nd] = out->dims[r], src[nd++] = st[d];
  } else {
    bool up = id == SC_OP_PIXEL_SHUFFLE;
    LLVMValueRef f = cg_i64(g, int_arg(n, up ? "upscale_factor" : "downscale_factor", 1));
    LLVMValueRef batch = prod(g, x->dims, 0, r - 3), sc = st[r - 3], sh = st[r - 2], sw = st[r - 1];
    LLVMValueRef sb = LLVMBuildMul(g->B, sc, x->dims[r - 3], "sb");
    if (up) {
      LLVMValueRef c = out->dims[r - 3], h = x->dims[r - 2], w = x->dims[r - 1];
      LLVMValueRef dims6[6] = {batch, c, h, f, w, f};
      LLVMValueRef st6[6] = {sb, LLVMBuildMul(g->B, LLVMBuildMul(g->B, f, f, "r2"), sc, "sc"), sh,
                             LLVMBuildMul(g->B, f, sc, "si"), sw, sc};
      for (int k = 0; k < 6; k++) shape[nd] = dims6[k], src[nd++] = st6[k];
    } else {
      LLVMValueRef c = x->dims[r - 3], h = out->dims[r - 2], w = out->dims[r - 1];
      LLVMValueRef dims6[6] = {batch, c, f, f, h, w};
      LLVMValueRef st6[6] = {sb, sc, sh, sw, LLVMBuildMul(g->B, f, sh, "sh"), LLVMBuildMul(g->B, f, sw, "sw")};
      for (int k = 0; k < 6; k++) shape[nd] = dims6[k], src[nd++] = st6[k];
    }
  }
  strided_copy(g, x->data, out->data, nd, shape, src, x->v->meta.dtype);
  return true;
}

/* rot90(x, k, dims): a copy of x read through its own strides, flipped where torch flips
 * (k = 1: dims[1], then the two dims swapped; k = 2: both; k = 3: dims[0], then swapped),
 * a flipped dim read backwards from its last element. */
static bool lower_rot90(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, "self");
  if (!x) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: no input", n->target);
  int r = x->v->meta.rank;
  int64_t dims[2] = {0, 1};
  if (ints(n, "dims", dims, 2) != 2) dims[0] = 0, dims[1] = 1;
  int d0 = norm_dim(dims[0], r), d1 = norm_dim(dims[1], r);
  int k = (int)(((int_arg(n, "k", 1) % 4) + 4) % 4);
  cg_value *out = cg_produce(g, output(n, 0));
  LLVMValueRef st[CG_MAX_RANK], src[CG_MAX_RANK], base = cg_i64(g, 0);
  strides_of(g, x, st);
  bool flip[CG_MAX_RANK] = {false};
  flip[d1] = k == 1 || k == 2;
  flip[d0] = k == 2 || k == 3;
  for (int d = 0; d < r; d++) { /* x's dim d, flipped: start at its last element, step back */
    src[d] = st[d];
    if (!flip[d]) continue;
    base = LLVMBuildAdd(g->B, base, LLVMBuildMul(g->B, LLVMBuildSub(g->B, x->dims[d], cg_i64(g, 1), "l"), st[d], "o"), "b");
    src[d] = LLVMBuildNeg(g->B, st[d], "back");
  }
  if (k % 2) { /* the output's dims d0 and d1 are x's d1 and d0 */
    LLVMValueRef t = src[d0];
    src[d0] = src[d1];
    src[d1] = t;
  }
  LLVMValueRef nonempty = LLVMBuildICmp(g->B, LLVMIntSGT, out->numel, cg_i64(g, 0), "ne");
  base = LLVMBuildSelect(g->B, nonempty, base, cg_i64(g, 0), "base"); /* an empty x: no element to start at */
  strided_copy(g, offset_ptr(g, x->data, base, x->v->meta.dtype), out->data, r, out->dims, src, x->v->meta.dtype);
  return true;
}

/* triu / tril over the last two dims (runtime copy.c); a matrix at least, as torch asks. */
static bool lower_triangle(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, "self");
  int r = x->v->meta.rank;
  if (r < 2) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: input tensor must have at least 2 dimensions", n->target);
  cg_value *out = cg_produce(g, output(n, 0));
  LLVMTypeRef p[8] = {g->ptr, g->ptr, g->i64, g->i64, g->i64, g->i64, g->i32, g->i64};
  LLVMValueRef a[8] = {x->data, out->data, prod(g, x->dims, 0, r - 2), x->dims[r - 2], x->dims[r - 1],
                       cg_i64(g, int_arg(n, "diagonal", 0)), LLVMConstInt(g->i32, n->op->id == SC_OP_TRIU, 0),
                       cg_elem_size(g, x->v->meta.dtype)};
  cg_call(g, "sc_k_triangle", g->voidt, p, 8, a, 8, false);
  return true;
}

/* repeat_interleave by a number: x read as [.., n, 1, inner] with the 1 expanded to repeats
 * (stride 0), in one strided copy; without a dim, over the flattened elements. */
static bool lower_repeat_interleave(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, "self");
  cg_value *out = cg_produce(g, output(n, 0));
  int r = x->v->meta.rank;
  bool flat = arg_none(arg(n, "dim")) || r == 0;
  int d = flat ? 0 : norm_dim(int_arg(n, "dim", 0), r);
  LLVMValueRef rep = int_value(g, n, "repeats", 1), xs[CG_MAX_RANK], shape[CG_MAX_RANK + 1], st[CG_MAX_RANK + 1];
  strides_of(g, x, xs);
  int k = 0;
  if (flat) {
    shape[k] = x->numel, st[k++] = cg_i64(g, 1);
    shape[k] = rep, st[k++] = cg_i64(g, 0);
  } else {
    for (int i = 0; i < r; i++) {
      shape[k] = x->dims[i], st[k++] = xs[i];
      if (i == d) shape[k] = rep, st[k++] = cg_i64(g, 0);
    }
  }
  strided_copy(g, x->data, out->data, k, shape, st, x->v->meta.dtype);
  return true;
}

/* meshgrid: output i holds tensors[i] along its dim (the first two swapped for "xy"),
 * repeated over the others: a strided copy with stride 0 there. */
static bool lower_meshgrid(cg *g, const sc_node *n) {
  const sc_arg *ts = arg(n, "tensors"), *ia = arg(n, "indexing");
  int k = (int)ts->n_items;
  bool xy = !arg_none(ia) && ia->kind == SC_ARG_STRING && strcmp(ia->items[0].s, "xy") == 0 && k >= 2;
  for (int i = 0; i < k; i++) {
    sc_value *ov = output(n, i);
    if (!ov) continue;
    cg_value *x = cg_get(g, ts->items[i].value), *out = cg_produce(g, ov);
    int at = xy && i < 2 ? 1 - i : i;
    LLVMValueRef st[CG_MAX_RANK];
    for (int d = 0; d < k; d++) st[d] = cg_i64(g, d == at ? 1 : 0);
    strided_copy(g, x->data, out->data, k, out->dims, st, ov->meta.dtype);
  }
  return true;
}

/* grid_sampler_2d (runtime grid_sample.c): bilinear or nearest, every padding mode, float32. */
static bool lower_grid_sampler(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, "input"), *gr = tensor(g, n, "grid");
  int64_t mode = int_arg(n, "interpolation_mode", 0), padding = int_arg(n, "padding_mode", 0);
  if (!x || !gr || x->v->meta.dtype != SC_DTYPE_F32 || gr->v->meta.dtype != SC_DTYPE_F32 || g->cuda)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has a CPU lowering for float32 only", n->target);
  if ((mode != SC_GRID_BILINEAR && mode != SC_GRID_NEAREST) || padding < 0 || padding > SC_GRID_REFLECTION)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s with interpolation mode %lld and padding mode %lld has "
                    "no lowering (bilinear and nearest, with zeros, border or reflection padding, have one)", n->target,
                    (long long)mode, (long long)padding);
  for (int d = 2; d < 4; d++) { /* torch's check, in its words */
    char fmt[200];
    snprintf(fmt, sizeof fmt, "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes "
             "[%%lld, %%lld, %%lld, %%lld] with dimension %d being empty", d);
    cg_fail_msg_if(g, LLVMBuildICmp(g->B, LLVMIntEQ, x->dims[d], cg_i64(g, 0), "empty"), fmt, x->dims, 4);
  }
  cg_value *out = cg_produce(g, output(n, 0));
  LLVMTypeRef p[12] = {g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->i64, g->i64, g->i64, g->i64, g->i32, g->i32, g->i32};
  LLVMValueRef a[12] = {x->data, gr->data, out->data, x->dims[0], x->dims[1], x->dims[2], x->dims[3], gr->dims[1],
                        gr->dims[2], LLVMConstInt(g->i32, (unsigned)mode, 0), LLVMConstInt(g->i32, (unsigned)padding, 0),
                        LLVMConstInt(g->i32, int_arg(n, "align_corners", 0) != 0, 0)};
  cg_call(g, "sc_k_grid_sample2d_f32", g->voidt, p, 12, a, 12, false);
  return true;
}

/* diagonal: a strided copy of x, the two dims replaced by one whose stride is the sum of
 * theirs, starting offset steps into dim2 (or -offset into dim1). */
static bool lower_diagonal(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, "self");
  cg_value *out = cg_produce(g, output(n, 0));
  int r = x->v->meta.rank, a = norm_dim(int_arg(n, "dim1", 0), r), b = norm_dim(int_arg(n, "dim2", 1), r);
  int64_t off = int_arg(n, "offset", 0);
  LLVMValueRef xs[CG_MAX_RANK], shape[CG_MAX_RANK], st[CG_MAX_RANK];
  strides_of(g, x, xs);
  int k = 0;
  for (int i = 0; i < r; i++)
    if (i != a && i != b) {
      shape[k] = x->dims[i];
      st[k++] = xs[i];
    }
  shape[k] = out->dims[k];
  st[k++] = LLVMBuildAdd(g->B, xs[a], xs[b], "diag");
  LLVMValueRef start = LLVMBuildMul(g->B, cg_i64(g, off >= 0 ? off : -off), off >= 0 ? xs[b] : xs[a], "start");
  /* an empty diagonal reads nothing: its start may lie past x */
  strided_copy(g, offset_ptr(g, x->data, start, x->v->meta.dtype), out->data, k, shape, st, x->v->meta.dtype);
  return true;
}

/* masked_scatter over the broadcast shape of self and mask (runtime copy.c). */
static bool lower_masked_scatter(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, "self"), *m = tensor(g, n, "mask"), *src = tensor(g, n, "source");
  if (!x || !m || !src || m->v->meta.dtype != SC_DTYPE_BOOL || src->v->meta.dtype != x->v->meta.dtype || g->cuda)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has a CPU lowering for a bool mask and a source of "
                    "self's dtype", n->target);
  cg_value *out = cg_produce(g, output(n, 0));
  int r = out->v->meta.rank, rx = x->v->meta.rank, rm = m->v->meta.rank;
  LLVMValueRef xs[CG_MAX_RANK], ms[CG_MAX_RANK], xst[CG_MAX_RANK], mst[CG_MAX_RANK];
  strides_of(g, x, xs);
  strides_of(g, m, ms);
  for (int d = 0; d < r; d++) { /* a dim of 1 (or a missing one) repeats: stride 0 */
    int kx = d - (r - rx), km = d - (r - rm);
    xst[d] = kx < 0 ? cg_i64(g, 0) : LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntEQ, x->dims[kx], cg_i64(g, 1), "one"),
                                                      cg_i64(g, 0), xs[kx], "xst");
    mst[d] = km < 0 ? cg_i64(g, 0) : LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntEQ, m->dims[km], cg_i64(g, 1), "one"),
                                                      cg_i64(g, 0), ms[km], "mst");
  }
  LLVMValueRef node = cg_cstr(g, sc_arena_printf(&g->ctx->arena, "node '%s', %s", n->name, n->target));
  LLVMTypeRef p[13] = {g->ptr, g->ptr, g->ptr, g->ptr, g->i32, g->ptr, g->i64, g->ptr, g->i64, g->ptr, g->ptr, g->ptr, g->i64};
  LLVMValueRef a[13] = {x->data, array_i64(g, xst, r), m->data, array_i64(g, mst, r), LLVMConstInt(g->i32, (unsigned)r, 0),
                        array_i64(g, out->dims, r), cg_elem_size(g, x->v->meta.dtype), src->data, src->numel, out->data,
                        node, g->err, g->errlen};
  LLVMValueRef rc = cg_call(g, "sc_k_masked_scatter", g->i32, p, 13, a, 13, false);
  cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "short"), rc);
  return true;
}

/* native_dropout where it does not train (or drops nothing): the input, and a mask that
 * keeps everything.  Training dropout draws torch's random numbers, which shapec cannot. */
static bool lower_native_dropout(cg *g, const sc_node *n) {
  const sc_arg *train = arg(n, "train");
  bool trains = !arg_none(train) && (train->kind != SC_ARG_BOOL || train->items[0].b);
  if (trains && float_arg(n, "p", 1) != 0)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s in training mode draws torch's random numbers, which "
                    "shapec does not reproduce: export the model after model.eval()", n->target);
  cg_value *x = tensor(g, n, "input");
  cg_value *out = cg_produce(g, output(n, 0));
  LLVMValueRef xs[CG_MAX_RANK];
  strides_of(g, x, xs);
  strided_copy(g, x->data, out->data, x->v->meta.rank, x->dims, xs, x->v->meta.dtype);
  if (!output(n, 1)) return true;
  return fill_with(g, n, cg_produce(g, output(n, 1)), 1);
}

/* _cdist_forward and _pdist_forward (runtime distance.c): float32, any p. */
static bool lower_distance(cg *g, const sc_node *n) {
  bool pairs = n->op->id == SC_OP_PDIST;
  cg_value *a = tensor(g, n, pairs ? "self" : "x1"), *b = pairs ? NULL : tensor(g, n, "x2");
  if (!a && pairs) a = tensor(g, n, "input");
  if (!a || (!pairs && !b) || a->v->meta.dtype != SC_DTYPE_F32 || (b && b->v->meta.dtype != SC_DTYPE_F32) || g->cuda)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has a CPU lowering for float32 only", n->target);
  cg_value *out = cg_produce(g, output(n, 0));
  int r = a->v->meta.rank;
  LLVMValueRef p = LLVMConstReal(g->f64, float_arg(n, "p", 2));
  if (pairs) {
    LLVMTypeRef t[5] = {g->ptr, g->ptr, g->i64, g->i64, g->f64};
    LLVMValueRef v[5] = {a->data, out->data, a->dims[0], a->dims[1], p};
    cg_call(g, "sc_k_pdist_f32", g->voidt, t, 5, v, 5, false);
    return true;
  }
  LLVMTypeRef t[8] = {g->ptr, g->ptr, g->ptr, g->i64, g->i64, g->i64, g->i64, g->f64};
  LLVMValueRef v[8] = {a->data, b->data, out->data, prod(g, a->dims, 0, r - 2), a->dims[r - 2], b->dims[r - 2],
                       a->dims[r - 1], p};
  cg_call(g, "sc_k_cdist_f32", g->voidt, t, 8, v, 8, false);
  return true;
}

static bool lower_indexing(cg *g, const sc_node *n) {
  switch (n->op->id) {
    case SC_OP_UPSAMPLE_NEAREST2D: return lower_upsample_nearest2d(g, n);
    case SC_OP_UPSAMPLE_BILINEAR2D: case SC_OP_UPSAMPLE_BICUBIC2D: return lower_upsample_bilinear2d(g, n);
    case SC_OP_COL2IM: case SC_OP_IM2COL: return lower_col2im(g, n);
    case SC_OP_PAD: case SC_OP_CONSTANT_PAD_ND: case SC_OP_REFLECTION_PAD: case SC_OP_REPLICATION_PAD:
      return lower_pad(g, n);
    case SC_OP_FLIP: return lower_flip(g, n);
    case SC_OP_ROLL: return lower_roll(g, n);
    case SC_OP_DIFF: return lower_diff(g, n);
    case SC_OP_CAT: return lower_cat(g, n, false);
    case SC_OP_SLICE_SCATTER: case SC_OP_SELECT_SCATTER: case SC_OP_DIAGONAL_SCATTER: return lower_scatter_view(g, n);
    case SC_OP_STACK: return lower_cat(g, n, true);
    case SC_OP_VSTACK: case SC_OP_HSTACK: return lower_hv_stack(g, n);
    case SC_OP_OUTER: case SC_OP_KRON: return lower_kron(g, n);
    case SC_OP_REPEAT: case SC_OP_TILE: {
      cg_value *x = tensor(g, n, "self");
      cg_value *out = cg_produce(g, output(n, 0));
      int r = out->v->meta.rank, rx = x->v->meta.rank;
      LLVMValueRef src[CG_MAX_RANK];
      for (int d = 0; d < r; d++) src[d] = d < r - rx ? cg_i64(g, 1) : x->dims[d - (r - rx)];
      LLVMTypeRef p[6] = {g->ptr, g->ptr, g->i32, g->ptr, g->ptr, g->i64};
      LLVMValueRef a[6] = {x->data, out->data, LLVMConstInt(g->i32, (unsigned)r, 0), array_i64(g, src, r),
                           array_i64(g, out->dims, r), cg_elem_size(g, out->v->meta.dtype)};
      cg_call(g, "sc_k_repeat", g->voidt, p, 6, a, 6, false);
      return true;
    }
    case SC_OP_EMBEDDING: case SC_OP_INDEX_SELECT: case SC_OP_GATHER: return lower_index_read(g, n);
    case SC_OP_EMBEDDING_BAG: return lower_embedding_bag(g, n);
    case SC_OP_INDEX_COPY: return lower_index_copy(g, n);
    case SC_OP_INDEX_ADD: return lower_index_add(g, n);
    case SC_OP_INDEX_PUT: return lower_index_put(g, n);
    case SC_OP_SCATTER_SRC: case SC_OP_SCATTER_VALUE: case SC_OP_SCATTER_ADD: case SC_OP_SCATTER_REDUCE:
      return lower_scatter(g, n);
    case SC_OP_SORT: case SC_OP_TOPK: case SC_OP_ARGSORT: return lower_sort(g, n);
    case SC_OP_BUCKETIZE: case SC_OP_BUCKETIZE_SCALAR: case SC_OP_SEARCHSORTED: case SC_OP_SEARCHSORTED_SCALAR:
      return lower_search_sorted(g, n);
    case SC_OP_DIAGONAL: return lower_diagonal(g, n);
    case SC_OP_AS_STRIDED: return lower_as_strided(g, n);
    case SC_OP_AS_STRIDED_SCATTER: return lower_as_strided_scatter(g, n);
    case SC_OP_GRID_SAMPLER_2D: return lower_grid_sampler(g, n);
    case SC_OP_REPEAT_INTERLEAVE: return lower_repeat_interleave(g, n);
    case SC_OP_TRIU: case SC_OP_TRIL: return lower_triangle(g, n);
    case SC_OP_ROT90: return lower_rot90(g, n);
    case SC_OP_UNFOLD: case SC_OP_PIXEL_SHUFFLE: case SC_OP_PIXEL_UNSHUFFLE: return lower_regrouped(g, n);
    case SC_OP_FILL_DIAGONAL_: { /* self copied (or updated where it is state), then its diagonal */
      cg_value *self = tensor(g, n, "self");
      int kind = self ? element_kind(self->v->meta.dtype) : -1;
      if (kind < 0 || g->cuda)
        return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has a CPU lowering for integers, bools, float32 "
                        "and float64", n->target);
      cg_value *out = updated_self(g, self, output(n, 0));
      int r = self->v->meta.rank;
      LLVMTypeRef p[6] = {g->ptr, g->i32, g->ptr, g->f64, g->i32, g->i32};
      LLVMValueRef a[6] = {out->data, LLVMConstInt(g->i32, (unsigned)r, 0), array_i64(g, out->dims, r),
                           LLVMConstReal(g->f64, float_arg(n, "fill_value", 0)), LLVMConstInt(g->i32, (unsigned)kind, 0),
                           LLVMConstInt(g->i32, int_arg(n, "wrap", 0) != 0, 0)};
      cg_call(g, "sc_k_fill_diagonal", g->voidt, p, 6, a, 6, false);
      return true;
    }
    case SC_OP_MESHGRID: return lower_meshgrid(g, n);
    case SC_OP_MASKED_SCATTER: return lower_masked_scatter(g, n);
    case SC_OP_NATIVE_DROPOUT: return lower_native_dropout(g, n);
    case SC_OP_CDIST: case SC_OP_PDIST: return lower_distance(g, n);
    default: return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has no CPU lowering", n->target);
  }
}

static bool lower_creation(cg *g, const sc_node *n) {
  cg_value *out = cg_produce(g, output(n, 0));
  sc_dtype dt = out->v->meta.dtype;
  if (n->op->id == SC_OP_LINSPACE) { /* float32 or float64, computed as torch's CPU kernel does */
    const sc_arg *sa = arg(n, "start"), *ea = arg(n, "end");
    if ((dt != SC_DTYPE_F32 && dt != SC_DTYPE_F64) || arg_none(sa) || arg_none(ea) || sa->items[0].value || ea->items[0].value)
      return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has a lowering for float32 and float64 between "
                      "numbers (not tensors)", n->target);
    LLVMTypeRef p[5] = {g->ptr, g->i64, g->f64, g->f64, g->i32};
    LLVMValueRef a[5] = {out->data, out->numel, LLVMConstReal(g->f64, float_arg(n, "start", 0)),
                         LLVMConstReal(g->f64, float_arg(n, "end", 0)), LLVMConstInt(g->i32, dt == SC_DTYPE_F64, 0)};
    cg_call(g, "sc_k_linspace", g->voidt, p, 5, a, 5, false);
    return true;
  }
  if (n->op->id == SC_OP_ARANGE || n->op->id == SC_OP_ARANGE_START || n->op->id == SC_OP_ARANGE_START_STEP) {
    int kind = dt == SC_DTYPE_F32 ? SC_ARANGE_F32 : dt == SC_DTYPE_F64 ? SC_ARANGE_F64 : dt == SC_DTYPE_I32 ? SC_ARANGE_I32
               : dt == SC_DTYPE_I16 ? SC_ARANGE_I16 : dt == SC_DTYPE_I8 ? SC_ARANGE_I8 : dt == SC_DTYPE_U8 ? SC_ARANGE_U8
               : dt == SC_DTYPE_I64 ? SC_ARANGE_I64 : -1;
    if (kind < 0)
      return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s has no CPU lowering yet", n->target,
                      sc_dtype_name(dt));
    const sc_arg *sa = arg(n, "start");
    LLVMValueRef start = sa && sa->kind == SC_ARG_FLOAT && sa->n_items ? LLVMConstReal(g->f64, sa->items[0].f)
                                                                      : LLVMBuildSIToFP(g->B, int_value(g, n, "start", 0), g->f64, "s");
    LLVMTypeRef p[5] = {g->ptr, g->i64, g->f64, g->f64, g->i32};
    LLVMValueRef a[5] = {out->data, out->numel, start, LLVMConstReal(g->f64, float_arg(n, "step", 1)),
                         LLVMConstInt(g->i32, (unsigned)kind, 0)};
    cg_call(g, "sc_k_arange", g->voidt, p, 5, a, 5, false);
    return true;
  }
  if (n->op->id == SC_OP_EYE || n->op->id == SC_OP_EYE_M) {
    int kind = element_kind(dt);
    if (g->cuda || kind < 0)
      return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s has no %s lowering (integers, bools, float32 "
                      "and float64 on the CPU have one)", n->target, sc_dtype_name(dt), g->cuda ? "CUDA" : "CPU");
    LLVMTypeRef p[4] = {g->ptr, g->i64, g->i64, g->i32};
    LLVMValueRef a[4] = {out->data, out->dims[0], out->dims[1], LLVMConstInt(g->i32, (unsigned)kind, 0)};
    cg_call(g, "sc_k_eye", g->voidt, p, 4, a, 4, false);
    return true;
  }
  if (n->op->id == SC_OP_RAND || n->op->id == SC_OP_RANDN) {
    if (dt != SC_DTYPE_F32 || g->cuda)
      return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s has no %s lowering yet (float32 on the CPU has "
                      "one)", n->target, sc_dtype_name(dt), g->cuda ? "CUDA" : "CPU");
    LLVMTypeRef p[3] = {g->ptr, g->i64, g->i32};
    LLVMValueRef a[3] = {out->data, out->numel, LLVMConstInt(g->i32, n->op->id == SC_OP_RANDN, 0)};
    cg_call(g, "sc_k_rand_f32", g->voidt, p, 3, a, 3, false);
    return true;
  }
  if (n->op->id == SC_OP_RANDPERM) {
    int kind = element_kind(dt);
    if (g->cuda || kind < 0 || dt == SC_DTYPE_BOOL)
      return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s has no %s lowering (integers, float32 and "
                      "float64 on the CPU have one)", n->target, sc_dtype_name(dt), g->cuda ? "CUDA" : "CPU");
    LLVMTypeRef p[3] = {g->ptr, g->i64, g->i32};
    LLVMValueRef a[3] = {out->data, out->numel, LLVMConstInt(g->i32, (unsigned)kind, 0)};
    cg_call(g, "sc_k_randperm", g->voidt, p, 3, a, 3, false);
    return true;
  }
  double value = n->op->id == SC_OP_ONES || n->op->id == SC_OP_ONES_LIKE || n->op->id == SC_OP_NEW_ONES ? 1
                 : (n->op->id == SC_OP_FULL || n->op->id == SC_OP_FULL_LIKE) ? float_arg(n, "fill_value", 0)
                 : n->op->id == SC_OP_SCALAR_TENSOR ? float_arg(n, "s", 0) : 0;
  return fill_with(g, n, out, value);
}

/* item() / _local_scalar_dense: the one element as an int64 symbol.  nonzero: the count
 * of nonzero elements is the output's data-dependent size, then the indices. */
/* The elements of x where the mask m is true, over `shape` (rank r, strides in elements,
 * 0 where a side broadcasts): the count over the first count_rank dims binds the output's
 * data-dependent size, then the selection fills it (masked_select, x[mask]). */
static bool select_masked(cg *g, const sc_node *n, cg_value *x, cg_value *m, LLVMValueRef *xst, LLVMValueRef *mst,
                          LLVMValueRef *shape, int r, int count_rank) {
  LLVMValueRef shape_a = array_i64(g, shape, r), mst_a = array_i64(g, mst, r);
  LLVMTypeRef p4[4] = {g->ptr, g->ptr, g->i32, g->ptr};
  LLVMValueRef a4[4] = {m->data, mst_a, LLVMConstInt(g->i32, (unsigned)count_rank, 0), shape_a};
  LLVMValueRef count = cg_call(g, "sc_k_count_masked", g->i64, p4, 4, a4, 4, false);
  sc_value *ov = output(n, 0);
  cg_bind_unbacked(g, n, ov->shape[0], count, sc_arena_printf(&g->ctx->arena, "the number of true elements in %s",
                                                              m->v->name));
  if (g->failed) return false;
  cg_value *out = cg_produce(g, ov);
  LLVMTypeRef p8[8] = {g->ptr, g->ptr, g->ptr, g->ptr, g->i32, g->ptr, g->i64, g->ptr};
  LLVMValueRef a8[8] = {x->data, array_i64(g, xst, r), m->data, mst_a, LLVMConstInt(g->i32, (unsigned)r, 0), shape_a,
                        cg_elem_size(g, x->v->meta.dtype), out->data};
  cg_call(g, "sc_k_masked_select", g->voidt, p8, 8, a8, 8, false);
  return true;
}

/* x[i0, i1, ...] with index tensors (None: a dim taken whole), torch's advanced indexing
 * (backends/cpu/runtime/index_tensor.c): each integer index read through its strides over
 * the indices' broadcast shape B, which the output holds at the place the shape rule
 * chose; a boolean mask among them (x[:, mask], x[mask, i]) stands for its nonzero()
 * columns, which the kernel finds; every index checked before anything is written. */
/* The integer index tensors as the kernels take them: which dims they pick, their data and
 * width, their strides over B (0 where they broadcast); B's rank and where it sits in the
 * indexed shape; and the mask, if any: its rank, first dim and place among the entries. */
typedef struct index_tensors {
  int n, n_total, b_rank, b_at; /* n integer tensors; n_total entries with the mask's columns */
  cg_value *idx[CG_MAX_RANK], *mask;
  int mask_dim, mask_entry;
  LLVMValueRef ptrs, bytes, dims, strides; /* arrays for the kernel */
} index_tensors;

static bool is_mask(const sc_value *v) { return v->meta.dtype == SC_DTYPE_BOOL || v->meta.dtype == SC_DTYPE_U8; }

static void collect_index_tensors(cg *g, const sc_arg *ix, index_tensors *t) {
  int first = -1, last = -1, dims[CG_MAX_RANK], dim = 0;
  bool adjacent = true;
  t->n = t->n_total = t->b_rank = 0;
  t->mask = NULL;
  for (size_t k = 0; ix && k < ix->n_items && t->n_total < CG_MAX_RANK; k++) {
    const sc_value *v = ix->items[k].value;
    if (!v) {
      dim++;
      continue;
    }
    int covers = 1;
    if (is_mask(v)) { /* its columns are rank-1 entries, one per dim it covers */
      t->mask = cg_get(g, v);
      t->mask_dim = dim;
      t->mask_entry = t->n_total;
      covers = v->meta.rank;
      if (t->b_rank < 1) t->b_rank = 1;
    } else {
      t->idx[t->n] = cg_get(g, v);
      dims[t->n++] = dim;
      if (v->meta.rank > t->b_rank) t->b_rank = v->meta.rank;
    }
    for (int j = 0; j < covers; j++, dim++) {
      if (last >= 0 && dim != last + 1) adjacent = false;
      if (first < 0) first = dim;
      last = dim;
    }
    t->n_total += covers;
  }
  t->b_at = adjacent ? first : 0;
  if (!t->n_total) return;
  LLVMValueRef ist[CG_MAX_RANK * CG_MAX_RANK + 1];
  int32_t bytes[CG_MAX_RANK + 1], dim_c[CG_MAX_RANK + 1];
  LLVMTypeRef ptr_arr = LLVMArrayType(g->ptr, (unsigned)(t->n ? t->n : 1));
  t->ptrs = LLVMBuildAlloca(g->B, ptr_arr, "index_ptrs");
  for (int k = 0; k < t->n; k++) {
    int ri = t->idx[k]->v->meta.rank;
    LLVMValueRef own[CG_MAX_RANK];
    strides_of(g, t->idx[k], own);
    for (int d = 0; d < t->b_rank; d++) {
      int j = d - (t->b_rank - ri);
      LLVMValueRef st = j < 0 ? cg_i64(g, 0) : own[j];
      if (j >= 0) /* a size-1 dim broadcasts: it is read at 0 */
        st = LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntEQ, t->idx[k]->dims[j], cg_i64(g, 1), "one"), cg_i64(g, 0),
                             st, "bst");
      ist[k * t->b_rank + d] = st;
    }
    LLVMValueRef at[2] = {cg_i64(g, 0), cg_i64(g, k)};
    LLVMBuildStore(g->B, t->idx[k]->data, LLVMBuildGEP2(g->B, ptr_arr, t->ptrs, at, 2, "p"));
    bytes[k] = t->idx[k]->v->meta.dtype == SC_DTYPE_I32 ? 4 : 8;
    dim_c[k] = dims[k];
  }
  if (!t->n) { /* the arrays must exist for the kernel: one unused slot */
    bytes[0] = 8;
    dim_c[0] = 0;
    ist[0] = cg_i64(g, 0);
  }
  t->bytes = array_i32(g, bytes, t->n ? t->n : 1);
  t->dims = array_i32(g, dim_c, t->n ? t->n : 1);
  t->strides = array_i64(g, ist, t->n ? t->n * t->b_rank : 1);
}

/* sc_k_index_masked's description of the mask: its rank, first dim and entry, its strides. */
static void mask_place(cg *g, const index_tensors *t, LLVMValueRef *place, LLVMValueRef *strides) {
  int32_t pl[3] = {t->mask->v->meta.rank, t->mask_dim, t->mask_entry};
  *place = array_i32(g, pl, 3);
  LLVMValueRef st[CG_MAX_RANK];
  strides_of(g, t->mask, st);
  *strides = array_i64(g, st, t->mask->v->meta.rank ? t->mask->v->meta.rank : 1);
}

/* The walk over src (rank r, its dims and strides) at the index tensors t: mode -1 reads
 * into other (sc_k_index_tensor), 0 or an SC_ACC_* code writes or adds the values in other
 * (sc_k_index_put, read through vst); with a mask among the indices, sc_k_index_masked,
 * which also checks the values' shape vshape against the true count.  A failed index
 * fails the call with the kernel's message. */
static void call_indexed(cg *g, const sc_node *n, const index_tensors *t, int mode, LLVMValueRef src, int r,
                         LLVMValueRef *dims, LLVMValueRef *st, LLVMValueRef *b_shape, LLVMValueRef other, LLVMValueRef vst,
                         LLVMValueRef vshape, sc_dtype dt) {
  LLVMValueRef node = cg_cstr(g, sc_arena_printf(&g->ctx->arena, "node '%s', %s", n->name, n->target));
  LLVMTypeRef p[23];
  LLVMValueRef a[23];
  int k = 0;
  if (t->mask) p[k] = g->i32, a[k++] = LLVMConstInt(g->i32, (unsigned)mode, 1);
  LLVMTypeRef ct[13] = {g->ptr, g->i32, g->ptr, g->ptr, g->i32, g->ptr, g->ptr, g->ptr, g->ptr, g->i32, g->ptr, g->i32, g->ptr};
  LLVMValueRef common[13] = {src, LLVMConstInt(g->i32, (unsigned)r, 0), array_i64(g, dims, r), array_i64(g, st, r),
                             LLVMConstInt(g->i32, (unsigned)t->n, 0), t->ptrs, t->bytes, t->dims, t->strides,
                             LLVMConstInt(g->i32, (unsigned)t->b_rank, 0), array_i64(g, b_shape, t->b_rank),
                             LLVMConstInt(g->i32, (unsigned)t->b_at, 0), other};
  for (int i = 0; i < 13; i++) p[k] = ct[i], a[k++] = common[i];
  const char *kernel;
  if (t->mask) {
    LLVMValueRef place, mst;
    mask_place(g, t, &place, &mst);
    LLVMValueRef none = LLVMConstNull(g->ptr);
    LLVMValueRef more[5] = {t->mask->data, mst, place, vst ? vst : none, vshape ? vshape : none};
    for (int i = 0; i < 5; i++) p[k] = g->ptr, a[k++] = more[i];
    kernel = "sc_k_index_masked";
  } else if (mode >= 0) {
    p[k] = g->ptr, a[k++] = vst;
    p[k] = g->i32, a[k++] = LLVMConstInt(g->i32, (unsigned)mode, 0);
    kernel = "sc_k_index_put";
  } else {
    kernel = "sc_k_index_tensor";
  }
  p[k] = g->i64, a[k++] = cg_elem_size(g, dt);
  p[k] = g->ptr, a[k++] = node;
  p[k] = g->ptr, a[k++] = g->err;
  p[k] = g->i64, a[k++] = g->errlen;
  LLVMValueRef rc = cg_call(g, kernel, g->i32, p, (unsigned)k, a, (unsigned)k, false);
  cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "badindex"), rc);
}

static bool lower_index_integers(cg *g, const sc_node *n, cg_value *x, const sc_arg *ix) {
  int r = x->v->meta.rank;
  index_tensors t;
  collect_index_tensors(g, ix, &t);
  if (g->cuda && t.mask) /* the device runtime takes integer index tensors only */
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s with a boolean mask among its indices has no CUDA "
                    "lowering yet (export for the CPU)", n->target);
  LLVMValueRef xst[CG_MAX_RANK];
  strides_of(g, x, xst);
  sc_value *ov = output(n, 0);
  if (t.mask) { /* the mask's true count is B's last dim: bound before the output exists */
    cg_value *m = t.mask;
    int k = m->v->meta.rank;
    LLVMValueRef mst[CG_MAX_RANK];
    strides_of(g, m, mst);
    LLVMTypeRef p4[4] = {g->ptr, g->ptr, g->i32, g->ptr};
    LLVMValueRef a4[4] = {m->data, array_i64(g, mst, k ? k : 1), LLVMConstInt(g->i32, (unsigned)k, 0),
                          array_i64(g, x->dims + t.mask_dim, k ? k : 1)};
    LLVMValueRef count = cg_call(g, "sc_k_count_masked", g->i64, p4, 4, a4, 4, false);
    cg_bind_unbacked(g, n, ov->shape[t.b_at + t.b_rank - 1], count,
                     sc_arena_printf(&g->ctx->arena, "the number of true elements in %s", m->v->name));
    if (g->failed) return false;
  }
  cg_value *out = cg_produce(g, ov);
  if (!t.n_total) { /* x[None, ...]: a copy */
    strided_copy(g, x->data, out->data, r, x->dims, xst, x->v->meta.dtype);
    return true;
  }
  LLVMValueRef b_shape[CG_MAX_RANK]; /* B from the output's dims at b_at */
  for (int d = 0; d < t.b_rank; d++) b_shape[d] = out->dims[t.b_at + d];
  call_indexed(g, n, &t, -1, x->data, r, x->dims, xst, b_shape, out->data, NULL, NULL, x->v->meta.dtype);
  return true;
}

/* index_put(self, indices, values, accumulate): self's elements with values written (or
 * added) where self[indices] reads (cache[:, :, pos] = k: updated_self). */
static bool lower_index_put(cg *g, const sc_node *n) {
  cg_value *self = tensor(g, n, "self"), *values = tensor(g, n, "values");
  if (!self || !values) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: a tensor argument is missing", n->target);
  if (g->cuda)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has no CUDA lowering yet (export for the CPU)",
                    n->target);
  sc_dtype dt = self->v->meta.dtype;
  bool acc = int_arg(n, "accumulate", 0) != 0;
  const sc_arg *ix = arg(n, "indices");
  bool any_index = false;
  for (size_t k = 0; ix && k < ix->n_items; k++) any_index |= ix->items[k].value != NULL;
  if (!any_index) /* self[None...] = values: every element */
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s with no index tensor has no CPU lowering yet",
                    n->target);
  int elem = !acc ? 0 : dt == SC_DTYPE_F32 ? SC_ACC_F32 : dt == SC_DTYPE_F64 ? SC_ACC_F64 : dt == SC_DTYPE_I64 ? SC_ACC_I64
             : dt == SC_DTYPE_I32 ? SC_ACC_I32 : dt == SC_DTYPE_BOOL ? SC_ACC_BOOL : -1;
  if (elem < 0)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s with accumulate=True on %s has no CPU lowering yet",
                    n->target, sc_dtype_name(dt));
  const sc_value *mask = ix->n_items == 1 ? ix->items[0].value : NULL;
  if (mask && is_mask(mask)) { /* x[mask] = v (runtime index_tensor.c) */
    cg_value *m = cg_get(g, mask), *out = updated_self(g, self, output(n, 0));
    int r = self->v->meta.rank, rm = mask->meta.rank;
    LLVMValueRef node = cg_cstr(g, sc_arena_printf(&g->ctx->arena, "node '%s', %s", n->name, n->target));
    LLVMTypeRef p[11] = {g->ptr, g->ptr, g->i64, g->i64, g->ptr, g->i64, g->i32, g->i64, g->ptr, g->ptr, g->i64};
    LLVMValueRef a[11] = {out->data, m->data, prod(g, out->dims, 0, rm), prod(g, out->dims, rm, r), values->data,
                          values->numel, LLVMConstInt(g->i32, (unsigned)elem, 0), cg_elem_size(g, dt), node, g->err,
                          g->errlen};
    LLVMValueRef rc = cg_call(g, "sc_k_index_put_mask", g->i32, p, 11, a, 11, false);
    cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "badmask"), rc);
    return true;
  }
  cg_value *out = updated_self(g, self, output(n, 0));
  int r = self->v->meta.rank;
  LLVMValueRef st[CG_MAX_RANK];
  strides_of(g, out, st);
  index_tensors t;
  collect_index_tensors(g, ix, &t);
  /* the indexed shape: B from the indices' sizes (broadcast: the largest, as the shape rule
   * checked; a mask's count the kernel puts in), the dims without an index around it */
  LLVMValueRef b_shape[CG_MAX_RANK], vst[2 * CG_MAX_RANK], vshape[2 * CG_MAX_RANK];
  for (int d = 0; d < t.b_rank; d++) {
    b_shape[d] = cg_i64(g, 1);
    for (int k = 0; k < t.n; k++) {
      int j = d - (t.b_rank - t.idx[k]->v->meta.rank);
      if (j < 0) continue;
      LLVMValueRef sz = t.idx[k]->dims[j];
      b_shape[d] = LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntSGT, sz, b_shape[d], "gt"), sz, b_shape[d], "b");
    }
  }
  int rank = r - t.n_total + t.b_rank; /* of the indexed shape (the kernel lays it out) */
  /* values, right-aligned to that shape; stride 0 where they broadcast */
  int rv = values->v->meta.rank;
  LLVMValueRef own[CG_MAX_RANK];
  strides_of(g, values, own);
  for (int d = 0; d < rank; d++) {
    int j = d - (rank - rv);
    vshape[d] = j < 0 ? cg_i64(g, 1) : values->dims[j];
    vst[d] = j < 0 ? cg_i64(g, 0)
                   : LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntEQ, values->dims[j], cg_i64(g, 1), "one"),
                                     cg_i64(g, 0), own[j], "vst");
  }
  call_indexed(g, n, &t, elem, out->data, r, out->dims, st, b_shape, values->data, array_i64(g, vst, rank ? rank : 1),
               array_i64(g, vshape, rank ? rank : 1), dt);
  return true;
}

static bool lower_data_dependent(cg *g, const sc_node *n) {
  cg_value *x = tensor(g, n, "self");
  if (!x) return cg_error(g, SC_DIAG_CODEGEN, n->path, "%s: no input", n->target);
  sc_dtype dt = x->v->meta.dtype;
  switch (n->op->id) {
    case SC_OP_ITEM: case SC_OP_LOCAL_SCALAR_DENSE: {
      const sc_value *out = n->n_outputs && n->outputs[0].n_items ? n->outputs[0].items[0].value : NULL;
      if (!out || out->kind != SC_VALUE_SYM_INT || !out->sym)
        return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of a non-integer value has no CPU lowering yet "
                        "(only integer item() feeds sizes)", n->target);
      LLVMTypeRef t = cg_llvm_type(g, dt);
      if (!t || t == g->f32 || t == g->f64)
        return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s on %s has no CPU lowering", n->target, sc_dtype_name(dt));
      LLVMTypeRef mem = t == g->i1 ? g->i8 : t;
      LLVMValueRef at = x->data;
      if (g->cuda) { /* the value lives on the device: copy it back (this waits for the stream) */
        at = LLVMBuildAlloca(g->B, g->i64, "item.host");
        LLVMTypeRef cp[3] = {g->ptr, g->ptr, g->i64};
        LLVMValueRef ca[3] = {at, x->data, cg_elem_size(g, dt)};
        cg_call(g, "sc_cu_copy_to_host", g->voidt, cp, 3, ca, 3, false);
        LLVMValueRef rc = cg_call(g, "sc_cu_status", g->i32, NULL, 0, NULL, 0, false);
        cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "cuerr"), rc);
      }
      LLVMValueRef v = LLVMBuildLoad2(g->B, mem, at, "item");
      v = mem == g->i64 ? v : t == g->i1 || mem == g->i8 ? LLVMBuildZExt(g->B, v, g->i64, "z") : LLVMBuildSExt(g->B, v, g->i64, "s");
      cg_bind_unbacked(g, n, out->sym, v, sc_arena_printf(&g->ctx->arena, "%s.item()", x->v->name));
      return !g->failed;
    }
    case SC_OP_NONZERO: {
      sc_value *ov = output(n, 0);
      LLVMTypeRef et = cg_llvm_type(g, dt);
      LLVMValueRef is_float = LLVMConstInt(g->i32, et == g->f32 || et == g->f64, 0);
      LLVMTypeRef p4[4] = {g->ptr, g->i64, g->i64, g->i32};
      LLVMValueRef a4[4] = {x->data, x->numel, cg_elem_size(g, dt), is_float};
      LLVMValueRef count = cg_call(g, "sc_k_count_nonzero", g->i64, p4, 4, a4, 4, false);
      cg_bind_unbacked(g, n, ov->shape[0], count, sc_arena_printf(&g->ctx->arena, "the number of nonzeros in %s",
                                                                  x->v->name));
      if (g->failed) return false;
      cg_value *out = cg_produce(g, ov);
      int r = x->v->meta.rank;
      LLVMValueRef shape = LLVMBuildArrayAlloca(g->B, g->i64, cg_i64(g, r ? r : 1), "shape");
      for (int d = 0; d < r; d++) {
        LLVMValueRef idx[1] = {cg_i64(g, d)};
        LLVMBuildStore(g->B, x->dims[d], LLVMBuildGEP2(g->B, g->i64, shape, idx, 1, "sp"));
      }
      LLVMTypeRef p6[6] = {g->ptr, g->i32, g->ptr, g->i64, g->i32, g->ptr};
      LLVMValueRef a6[6] = {x->data, LLVMConstInt(g->i32, (unsigned)r, 0), shape, cg_elem_size(g, dt), is_float, out->data};
      cg_call(g, "sc_k_nonzero", g->voidt, p6, 6, a6, 6, false);
      return true;
    }
    case SC_OP_MASKED_SELECT: {
      cg_value *m = tensor(g, n, "mask");
      if (!m || m->v->meta.dtype != SC_DTYPE_BOOL)
        return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "masked_select needs a bool mask");
      /* the broadcast shape: per dim, equal sizes, or one side 1 (then its stride is 0) */
      int rx = x->v->meta.rank, rm = m->v->meta.rank, r = rx > rm ? rx : rm;
      LLVMValueRef xs[CG_MAX_RANK], ms[CG_MAX_RANK], xst[CG_MAX_RANK], mst[CG_MAX_RANK], shape[CG_MAX_RANK];
      strides_of(g, x, xs);
      strides_of(g, m, ms);
      for (int d = 0; d < r; d++) {
        int kx = d - (r - rx), km = d - (r - rm);
        int64_t one;
        bool x1 = kx < 0 || (sc_expr_is_const(x->v->shape[kx], &one) && one == 1);
        bool m1 = km < 0 || (sc_expr_is_const(m->v->shape[km], &one) && one == 1);
        if (!x1 && !m1 && x->v->shape[kx] != m->v->shape[km])
          return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "masked_select of sizes %s and %s in dim %d has no "
                          "CPU lowering (they must be equal or 1)", sc_expr_to_string(g->ctx, x->v->shape[kx]),
                          sc_expr_to_string(g->ctx, m->v->shape[km]), d);
        xst[d] = x1 ? cg_i64(g, 0) : xs[kx];
        mst[d] = m1 ? cg_i64(g, 0) : ms[km];
        shape[d] = !x1 ? x->dims[kx] : !m1 ? m->dims[km] : cg_i64(g, 1);
      }
      return select_masked(g, n, x, m, xst, mst, shape, r, r);
    }
    case SC_OP_INDEX_TENSOR: { /* x[mask]: count the mask's rows, then select as masked_select over x's shape */
      const sc_arg *ix = arg(n, "indices");
      /* x[mask] alone selects whole rows, as masked_select; any other mix goes through the indices */
      bool mask_alone = ix && ix->n_items == 1 && ix->items[0].value && is_mask(ix->items[0].value);
      if (!mask_alone) return lower_index_integers(g, n, x, ix);
      cg_value *m = tensor(g, n, "indices");
      int r = x->v->meta.rank, k = m->v->meta.rank;
      LLVMValueRef xst[CG_MAX_RANK], mst[CG_MAX_RANK];
      strides_of(g, x, xst);
      strides_of(g, m, mst);
      for (int d = k; d < r; d++) mst[d] = cg_i64(g, 0); /* each selected row is copied whole */
      return select_masked(g, n, x, m, xst, mst, x->dims, r, k);
    }
    default:
      return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s produces data-dependent sizes, which the CPU backend "
                      "does not compile yet", n->target);
  }
}

bool cg_emit_node(cg *g, const sc_node *n, int index) {
  if (g->folded && g->folded[index].in_attention) return true; /* the attention kernel computes it (cg_attention.c) */
  if (!g->cuda && n->n_outputs == 1 && n->outputs[0].n_items == 1 && n->outputs[0].items[0].value &&
      cg_get(g, n->outputs[0].items[0].value)->grouped_skip)
    return cg_lower_grouped_step(g, n); /* repeat_kv, read in place by attention (cg_grouped_kv.c) */
  if (n->op && ((cg_touches_complex(n) && !cg_complex_moves_only(n)) || cg_complex_always(n))) return cg_emit_complex(g, n);
  switch (n->op->op_class) {
    case SC_OPC_SYMBOLIC:
    case SC_OPC_ASSERT: return true; /* sizes are expressions; asserts were checked on entry */
    case SC_OPC_DATA_DEPENDENT: return lower_data_dependent(g, n);
    case SC_OPC_ELEMENTWISE:
      if (cg_is_elementwise(n)) return cg_emit_elementwise(g, n);
      return lower_view(g, n);
    case SC_OPC_VIEW:
      if (n->op->id == SC_OP_SPLIT || n->op->id == SC_OP_SPLIT_WITH_SIZES || n->op->id == SC_OP_CHUNK || n->op->id == SC_OP_UNBIND ||
          n->op->id == SC_OP_TENSOR_SPLIT_INDICES)
        return lower_split(g, n);
      return lower_view(g, n);
    case SC_OPC_MATMUL: return lower_matmul(g, n);
    case SC_OPC_CONV: return lower_conv(g, n);
    case SC_OPC_POOL: return lower_pool(g, n);
    case SC_OPC_NORM: return lower_norm(g, n);
    case SC_OPC_REDUCTION: return lower_reduce(g, n);
    case SC_OPC_INDEXING: return lower_indexing(g, n);
    case SC_OPC_CREATION: return lower_creation(g, n);
  }
  return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has no CPU lowering", n->target);
}
