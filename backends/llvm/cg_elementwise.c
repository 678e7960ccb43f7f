/* cg_elementwise.c - elementwise ops as inline loops, with fusion: an elementwise result
 * read by exactly one elementwise consumer (and not a graph output) is computed inside
 * the consumer's loop, so a chain such as gelu(x*w + b) + x is one loop nest with no
 * intermediate buffer.  Broadcasting follows the analysed symbolic shapes. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "erf_fit.h"
#include "lib/base/strbuf.h"
#include "lower.h"

bool cg_is_elementwise(const sc_node *n) {
  if (!n->op || n->op->op_class != SC_OPC_ELEMENTWISE) return false;
  if (cg_touches_complex(n)) return false; /* complex arithmetic is cg_complex.c's, never a fused loop */
  switch (n->op->id) {
    case SC_OP_CLONE: case SC_OP_DROPOUT: case SC_OP_DETACH: case SC_OP_DETACH_: case SC_OP_LIFT_FRESH_COPY:
      return false; /* aliases */
    default: break;
  }
  for (size_t i = 0; i < n->n_outputs; i++)
    if (n->outputs[i].kind != SC_ARG_TENSOR) return false;
  return true;
}

LLVMTypeRef cg_llvm_type(cg *g, sc_dtype dt) {
  switch (dt) {
    case SC_DTYPE_F32:
    case SC_DTYPE_F16:
    case SC_DTYPE_BF16: return g->f32; /* computed in float32, held in 16 bits (cg_half.c) */
    case SC_DTYPE_F64: return g->f64;
    case SC_DTYPE_I64: return g->i64;
    case SC_DTYPE_I32: return g->i32;
    case SC_DTYPE_I16: return g->i16;
    case SC_DTYPE_I8:
    case SC_DTYPE_U8: return g->i8;
    case SC_DTYPE_BOOL: return g->i1;
    default: return NULL;
  }
}

static const sc_value *out_value(const sc_node *n) { return n->outputs[0].items[0].value; }

void cg_loop(cg *g, LLVMValueRef n, void (*body)(cg *, LLVMValueRef, void *), void *arg) {
  cg_loop_range(g, cg_i64(g, 0), n, body, arg);
}

/* The loop over [begin, end) that cg_loop_range builds; returns its latch's branch. */
static LLVMValueRef build_loop(cg *g, LLVMValueRef begin, LLVMValueRef end, void (*body)(cg *, LLVMValueRef, void *),
                               void *arg) {
  g->loops_built++;
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->B);
  LLVMBasicBlockRef head = cg_block(g, "loop"), exit = cg_block(g, "loop.end");
  LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, begin, end, "any"), head, exit);
  LLVMPositionBuilderAtEnd(g->B, head);
  LLVMValueRef i = LLVMBuildPhi(g->B, g->i64, "i");
  body(g, i, arg);
  LLVMValueRef next = LLVMBuildNSWAdd(g->B, i, cg_i64(g, 1), "next");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(g->B);
  LLVMValueRef br = LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, next, end, "more"), head, exit);
  LLVMValueRef in_vals[2] = {begin, next};
  LLVMBasicBlockRef in_blocks[2] = {pre, latch};
  LLVMAddIncoming(i, in_vals, in_blocks, 2);
  LLVMPositionBuilderAtEnd(g->B, exit);
  return br;
}

/* Loops whose body is one long chain of arithmetic per element (the GELU's polynomial,
 * cg_gelu_table.c) are interleaved 4 vectors a step: LLVM's cost model leaves loops that
 * costly at one, where the out-of-order core then runs out of independent work.  The
 * [32, 4096] chain gelu(x w + b) + x on one core of the Xeon VM, in the L2 cache: 13-17%
 * faster than one vector a step. */
enum { HEAVY_LOOP_INTERLEAVE = 4 };

static void set_loop_metadata(cg *g, LLVMValueRef latch, LLVMMetadataRef *hints, unsigned n) {
  LLVMMetadataRef ops[4] = {LLVMTemporaryMDNode(g->C, NULL, 0)};
  for (unsigned i = 0; i < n && i < 3; i++) ops[i + 1] = hints[i];
  LLVMMetadataRef loop = LLVMMDNodeInContext2(g->C, ops, n + 1);
  LLVMMetadataReplaceAllUsesWith(ops[0], loop); /* a loop's id refers to itself */
  LLVMSetMetadata(latch, LLVMGetMDKindIDInContext(g->C, "llvm.loop", 9), LLVMMetadataAsValue(g->C, loop));
}

void cg_loop_range(cg *g, LLVMValueRef begin, LLVMValueRef end, void (*body)(cg *, LLVMValueRef, void *), void *arg) {
  int calls = g->gelu_table_calls, loops = g->loops_built;
  LLVMValueRef latch = build_loop(g, begin, end, body, arg);
  if (g->gelu_table_calls == calls || g->loops_built != loops + 1) return; /* light, or not innermost */
  LLVMMetadataRef count[2] = {LLVMMDStringInContext2(g->C, "llvm.loop.interleave.count", 26),
                              LLVMValueAsMetadata(LLVMConstInt(g->i32, HEAVY_LOOP_INTERLEAVE, 0))};
  LLVMMetadataRef hint = LLVMMDNodeInContext2(g->C, count, 2);
  set_loop_metadata(g, latch, &hint, 1);
}

/* A loop of fewer elements than a vector or two (a row's ends): the vectorizer is asked to
 * cover it with masked vectors only, without the scalar remainder of up to 15 elements
 * that would cost more than the vectors, one element at a time. */
static void masked_loop(cg *g, LLVMValueRef n, void (*body)(cg *, LLVMValueRef, void *), void *arg) {
  LLVMValueRef latch = build_loop(g, cg_i64(g, 0), n, body, arg);
  LLVMMetadataRef flag[2] = {LLVMMDStringInContext2(g->C, "llvm.loop.vectorize.predicate.enable", 36),
                             LLVMValueAsMetadata(LLVMConstInt(g->i1, 1, 0))};
  /* a loop of a few constant steps is otherwise unrolled whole before the vectorizer sees it */
  LLVMMetadataRef keep[1] = {LLVMMDStringInContext2(g->C, "llvm.loop.unroll.disable", 24)};
  LLVMMetadataRef hints[2] = {LLVMMDNodeInContext2(g->C, flag, 2), LLVMMDNodeInContext2(g->C, keep, 1)};
  set_loop_metadata(g, latch, hints, 2);
}

/* A loop of a few constant steps kept a loop: the streaming rows' segments, whose chunks
 * unrolled 4 times over left loop strength reduction most of an export's time (0.30 of
 * 0.49 s for x * 2 on the Zen 5 VM), for nothing the core measures. */
static void rolled_loop(cg *g, LLVMValueRef n, void (*body)(cg *, LLVMValueRef, void *), void *arg) {
  LLVMValueRef latch = build_loop(g, cg_i64(g, 0), n, body, arg);
  LLVMMetadataRef keep[1] = {LLVMMDStringInContext2(g->C, "llvm.loop.unroll.disable", 24)};
  LLVMMetadataRef hint = LLVMMDNodeInContext2(g->C, keep, 1);
  set_loop_metadata(g, latch, &hint, 1);
}

/* ---- fusion plan ---------------------------------------------------------------------- */

static const sc_node **users;

enum { MAX_LEAVES = 32 }; /* distinct tensors one fused loop reads (ew_ctx.leaves) */

/* A fused tree may read at most MAX_LEAVES tensors: where one would read more, its
 * largest inlined subtrees are computed into buffers instead.  Counts repeated reads of
 * one tensor more than once, so it errs towards smaller trees. */
static void limit_leaves(cg *g) {
  const sc_graph *gr = g->p->graph;
  int *leaves = calloc(gr->n_nodes + 1, sizeof *leaves);
  if (!leaves) return;
  for (size_t i = 0; i < gr->n_nodes; i++) {
    const sc_node *n = &gr->nodes[i];
    if (!cg_is_elementwise(n)) continue;
    for (;;) {
      int count = 0, widest = -1;
      cg_value *widest_cv = NULL;
      for (size_t k = 0; k < n->n_inputs; k++) {
        const sc_arg *a = &n->inputs[k].arg;
        for (size_t j = 0; j < a->n_items; j++) {
          const sc_value *v = a->items[j].value;
          if (!v || v->kind != SC_VALUE_TENSOR) continue;
          cg_value *cv = cg_get(g, v);
          int c = cv->inlined && v->def_node >= 0 ? leaves[v->def_node] : 1;
          count += c;
          if (cv->inlined && c > widest) {
            widest = c;
            widest_cv = cv;
          }
        }
      }
      leaves[i] = count;
      if (count <= MAX_LEAVES || !widest_cv) break;
      widest_cv->inlined = false;
    }
  }
  free(leaves);
}

void cg_plan_fusion(cg *g) {
  const sc_graph *gr = g->p->graph;
  /* uses of each tensor value, and its one consumer when there is one */
  for (size_t i = 0; i < gr->n_nodes; i++) {
    const sc_node *n = &gr->nodes[i];
    for (size_t k = 0; k < n->n_inputs; k++) {
      const sc_arg *a = &n->inputs[k].arg;
      for (size_t j = 0; j < a->n_items; j++) {
        const sc_value *v = a->items[j].value;
        if (!v || v->kind != SC_VALUE_TENSOR) continue;
        cg_value *cv = cg_get(g, v);
        cv->users_elementwise = (cv->uses == 0 || cv->users_elementwise) && cg_is_elementwise(n);
        cv->uses++;
      }
    }
  }
  for (size_t i = 0; i < gr->n_outputs; i++)
    if (gr->outputs[i].n_items && gr->outputs[i].items[0].value) {
      cg_value *cv = cg_get(g, gr->outputs[i].items[0].value);
      cv->uses++;
      cv->users_elementwise = false;
    }
  /* only results of elementwise nodes with a single (elementwise) use are inlined */
  for (size_t i = 0; i < gr->n_nodes; i++) {
    const sc_node *n = &gr->nodes[i];
    for (size_t k = 0; k < n->n_outputs; k++)
      for (size_t j = 0; j < n->outputs[k].n_items; j++) {
        const sc_value *v = n->outputs[k].items[j].value;
        if (!v || v->kind != SC_VALUE_TENSOR) continue;
        cg_value *cv = cg_get(g, v);
        cv->inlined = cv->uses == 1 && cv->users_elementwise && cg_is_elementwise(n) && cg_llvm_type(g, v->meta.dtype);
      }
  }
  limit_leaves(g);
  (void)users;
}

/* ---- the fused loop ------------------------------------------------------------------- */

typedef struct leaf {
  cg_value *cv;
  bool flat;                       /* same shape as the root: offset = flat index */
  LLVMValueRef stride[CG_MAX_RANK]; /* per root dim; 0 where it broadcasts */
  LLVMValueRef row;                /* offset of the current row */
} leaf;

enum { MAX_SYMS = 16 }; /* SymInt operands one device kernel reads */
enum { CG_LINE = 64 }; /* bytes in a cache line, the unit of a streaming store */
/* Rows shorter than STREAM_BLOCK elements are not streamed: their lines are mostly
 * partial. */
enum { STREAM_BLOCK = 256 };
/* A streamed row is computed as stream_segments(g) segments side by side, a chunk of
 * STREAM_CHUNK bytes of each in turn, each chunk's inputs prefetched into L2
 * STREAM_SEG_AHEAD bytes before it is computed: the hardware prefetcher then follows
 * several streams at once, as in glibc's large memcpy.  Measured with the chain on
 * [4096, 4096], one core of the Xeon VM: 8.4 ms one block of 1 KB after the other, each
 * prefetching 4 KB ahead (and the last few elements of a row one at a time); 6.9-7.6 ms
 * with four segments, and the row's ends in masked vectors.  2 or 8 segments, chunks of 512
 * bytes, or prefetches 16 or 64 KB ahead were no better. */
enum { STREAM_CHUNK = 256, STREAM_SEG_AHEAD = 32 << 10 };

/* Segments per streamed row, by the CPU the code is tuned for.  An AMD Zen 4 (EPYC VM, one
 * core, the same chain, all variants in one process) wants one stream: 6.21-6.42 ms against
 * 6.83-6.90 with four segments, 6.7 with two, 6.5 with eight or sixteen; there chunks of 512
 * bytes were as fast, of 1 KB slower (6.8), prefetches 8 or 64 KB ahead the same, and
 * without the streaming stores or the prefetches 7.8 and 8.9 ms.  Other AMD CPUs were not
 * measured and keep the default. */
static int64_t stream_segments(const cg *g) { return g->cpu_name && strcmp(g->cpu_name, "znver4") == 0 ? 1 : 4; }

typedef struct ew_ctx {
  const sc_node *root;
  cg_value *out;
  int rank;
  leaf leaves[MAX_LEAVES];
  int n_leaves;
  /* SymInt operands computed by the host before a device kernel starts */
  const sc_value *sym_of[MAX_SYMS];
  LLVMValueRef sym_value[MAX_SYMS];
  int n_syms;
  LLVMValueRef o, j, inner;        /* row index, index in the row, row length */
  /* short rows seen as one flat array (flat_rows): rows of `inner` elements, the last one
   * ending at numel */
  bool flat;
  LLVMValueRef numel;
  /* the streaming variant (stream_row): the row's first `head` elements are stored as
   * usual, the rest from `aligned`, the first cache-line boundary */
  bool stream;
  LLVMValueRef head, aligned, rest, block;
  /* the segments' length and the chunk being computed (stream_row) */
  LLVMValueRef seg_len, seg_chunk;
  /* nodes of the tree whose value is the same along a row, computed once per row before
   * its loop (hoist_row_invariants) */
  const sc_node *hoisted[MAX_LEAVES];
  LLVMValueRef hoisted_value[MAX_LEAVES];
  LLVMTypeRef hoisted_type[MAX_LEAVES];
  int n_hoisted;
} ew_ctx;

static const sc_node *producer(cg *g, const sc_value *v) {
  return v->def_node >= 0 ? &g->p->graph->nodes[v->def_node] : NULL;
}

static void collect_leaves(cg *g, ew_ctx *c, const sc_node *n) {
  for (size_t k = 0; k < n->n_inputs; k++) {
    const sc_arg *a = &n->inputs[k].arg;
    if ((a->kind != SC_ARG_TENSOR && a->kind != SC_ARG_OPTIONAL_TENSOR) || !a->n_items || !a->items[0].value) continue;
    cg_value *cv = cg_get(g, a->items[0].value);
    if (cv->inlined) {
      collect_leaves(g, c, producer(g, cv->v));
      continue;
    }
    bool seen = false;
    for (int i = 0; i < c->n_leaves; i++) seen |= c->leaves[i].cv == cv;
    if (seen) continue;
    if (c->n_leaves >= MAX_LEAVES) { /* limit_leaves prevents this */
      cg_error(g, SC_DIAG_CODEGEN, n->path, "internal error: a fused loop reads more than %d tensors", MAX_LEAVES);
      return;
    }
    leaf *l = &c->leaves[c->n_leaves++];
    memset(l, 0, sizeof *l);
    l->cv = cv;
    const sc_value *v = cv->v, *r = c->out->v;
    l->flat = v->meta.rank == r->meta.rank && !cv->strided;
    for (int d = 0; l->flat && d < v->meta.rank; d++) l->flat = v->shape[d] == r->shape[d];
    /* strides over the root's dims, right-aligned; 0 where the leaf broadcasts; a view read
     * in place (cg_strided_views.c) has its own */
    LLVMValueRef acc = cg_i64(g, 1);
    for (int d = c->rank - 1; d >= 0; d--) {
      int ld = d - (c->rank - v->meta.rank);
      int64_t one;
      bool bcast = ld < 0 || (sc_expr_is_const(v->shape[ld], &one) && one == 1);
      l->stride[d] = bcast ? cg_i64(g, 0) : cv->strided ? cv->view_strides[ld] : acc;
      /* a size that is another expression than the output's may still be 1 when it runs
       * (y[:1] on a batch of b: Min(1, b), which is 1 for every b >= 1): it broadcasts then */
      if (!bcast && v->shape[ld] != r->shape[d] && !sc_expr_is_const(v->shape[ld], &one))
        l->stride[d] = LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntEQ, cv->dims[ld], cg_i64(g, 1), "one"),
                                       cg_i64(g, 0), l->stride[d], "bst");
      if (ld >= 0) acc = LLVMBuildMul(g->B, acc, cv->dims[ld], "st");
    }
  }
}

static LLVMValueRef load_leaf(cg *g, ew_ctx *c, cg_value *cv) {
  leaf *l = NULL;
  for (int i = 0; i < c->n_leaves; i++)
    if (c->leaves[i].cv == cv) l = &c->leaves[i];
  LLVMValueRef off;
  if (l->flat) {
    off = LLVMBuildAdd(g->B, LLVMBuildMul(g->B, c->o, c->inner, "ro"), c->j, "off");
  } else {
    LLVMValueRef inner_stride = c->rank ? l->stride[c->rank - 1] : cg_i64(g, 0);
    off = LLVMBuildAdd(g->B, l->row, LLVMBuildMul(g->B, c->j, inner_stride, "jo"), "off");
  }
  sc_dtype dt = cv->v->meta.dtype;
  LLVMValueRef idx[1] = {off};
  return cg_load_elem(g, dt, LLVMBuildInBoundsGEP2(g->B, cg_mem_type(g, dt), cv->data, idx, 1, "p"));
}

static LLVMValueRef convert(cg *g, LLVMValueRef x, LLVMTypeRef to) {
  LLVMTypeRef from = LLVMTypeOf(x);
  if (from == to) return x;
  bool ff = from == g->f32 || from == g->f64, tf = to == g->f32 || to == g->f64;
  if (ff && tf) return LLVMBuildFPCast(g->B, x, to, "fc");
  if (ff) return to == g->i1 ? LLVMBuildFCmp(g->B, LLVMRealUNE, x, LLVMConstReal(from, 0), "fb")
                             : LLVMBuildFPToSI(g->B, x, to, "fi");
  if (tf) return from == g->i1 ? LLVMBuildUIToFP(g->B, x, to, "bf") : LLVMBuildSIToFP(g->B, x, to, "if");
  if (to == g->i1) return LLVMBuildICmp(g->B, LLVMIntNE, x, LLVMConstInt(from, 0, 0), "ib");
  return from == g->i1 ? LLVMBuildZExt(g->B, x, to, "bz") : LLVMBuildIntCast2(g->B, x, to, 1, "ic");
}

static LLVMValueRef emit_tree(cg *g, ew_ctx *c, const sc_node *n, LLVMTypeRef *type_out);

/* An operand by schema name: a tensor element, a scalar literal or a SymInt. */
static LLVMValueRef operand(cg *g, ew_ctx *c, const sc_node *n, const char *name, LLVMTypeRef want, bool *present) {
  const sc_arg *a = NULL;
  for (size_t k = 0; k < n->n_inputs; k++)
    if (strcmp(n->inputs[k].name, name) == 0) a = &n->inputs[k].arg;
  *present = a && a->kind != SC_ARG_NONE && a->n_items && !a->items[0].is_none;
  if (!*present) return NULL;
  const sc_arg_item *it = &a->items[0];
  if (it->value && it->value->kind == SC_VALUE_TENSOR) {
    cg_value *cv = cg_get(g, it->value);
    LLVMTypeRef t;
    LLVMValueRef x = cv->inlined ? emit_tree(g, c, producer(g, cv->v), &t) : load_leaf(g, c, cv);
    return want ? convert(g, x, want) : x;
  }
  if (it->value) { /* a SymInt / SymBool */
    LLVMValueRef x = NULL;
    for (int k = 0; k < c->n_syms && !x; k++)
      if (c->sym_of[k] == it->value) x = c->sym_value[k];
    if (!x) x = cg_expr(g, it->value->sym);
    return convert(g, x, want ? want : g->i64);
  }
  LLVMTypeRef t = want ? want : g->f32;
  switch (a->kind) {
    case SC_ARG_FLOAT: return (t == g->f32 || t == g->f64) ? LLVMConstReal(t, it->f) : convert(g, LLVMConstReal(g->f64, it->f), t);
    case SC_ARG_INT: return (t == g->f32 || t == g->f64) ? LLVMConstReal(t, (double)it->i) : LLVMConstInt(t, (unsigned long long)it->i, 1);
    case SC_ARG_BOOL: return convert(g, LLVMConstInt(g->i1, it->b, 0), t);
    default: return NULL;
  }
}

static double scalar(const sc_node *n, const char *name, double def, bool *present) {
  for (size_t k = 0; k < n->n_inputs; k++) {
    const sc_arg *a = &n->inputs[k].arg;
    if (strcmp(n->inputs[k].name, name) != 0 || !a->n_items || a->items[0].value) continue;
    *present = a->kind == SC_ARG_FLOAT || a->kind == SC_ARG_INT || a->kind == SC_ARG_BOOL;
    if (a->kind == SC_ARG_FLOAT) return a->items[0].f;
    if (a->kind == SC_ARG_INT) return (double)a->items[0].i;
    if (a->kind == SC_ARG_BOOL) return a->items[0].b;
  }
  *present = false;
  return def;
}

static const char *string_arg(const sc_node *n, const char *name) {
  for (size_t k = 0; k < n->n_inputs; k++)
    if (strcmp(n->inputs[k].name, name) == 0 && n->inputs[k].arg.kind == SC_ARG_STRING) return n->inputs[k].arg.items[0].s;
  return NULL;
}

/* The target whose code is being emitted: the device's inside a kernel. */
static const cg_target *current_target(cg *g) { return g->device ? g->gpu : g->host; }

static LLVMValueRef intrinsic_call(cg *g, const char *name, LLVMValueRef *args, unsigned n) {
  const cg_target *t = current_target(g);
  LLVMValueRef call = t->intrinsic_call ? t->intrinsic_call(g, name, args, n) : NULL;
  if (call) return call;
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMTypeRef over[1] = {LLVMTypeOf(args[0])};
  return LLVMBuildCall2(g->B, LLVMIntrinsicGetType(g->C, id, over, 1), LLVMGetIntrinsicDeclaration(g->M, id, over, 1),
                        args, n, "r");
}

static LLVMValueRef intrinsic1(cg *g, const char *name, LLVMValueRef x) { return intrinsic_call(g, name, &x, 1); }

static LLVMValueRef intrinsic2(cg *g, const char *name, LLVMValueRef x, LLVMValueRef y) {
  LLVMValueRef xy[2] = {x, y};
  return intrinsic_call(g, name, xy, 2);
}

/* libm's `name` on x, as the target computes it. */
static LLVMValueRef libm1(cg *g, const char *name, LLVMValueRef x) { return current_target(g)->math_call(g, name, x); }

static LLVMValueRef libm2(cg *g, const char *name, LLVMValueRef x, LLVMValueRef y) {
  return current_target(g)->math_call2(g, name, x, y);
}

static LLVMValueRef fconst(LLVMTypeRef t, double v) { return LLVMConstReal(t, v); }

static LLVMValueRef clamp_f(cg *g, LLVMValueRef x, LLVMValueRef lo, LLVMValueRef hi);

/* out * erf(in * a) for in * a in [-SC_ERF_CLAMP, SC_ERF_CLAMP], float32
 * (backends/llvm/erf_fit.h), unclamped (it may pass out by an ulp): ten multiply-adds and a
 * division vectorize, where libmvec's erff cost four times the memory traffic of a gelu.
 * The multiply-adds are fused where the CPU has FMA (the gelu chain on one core: 11.1 ->
 * 10.1 ms); a reciprocal estimate in place of the division was slower (10.6 ms).  NaN
 * stays NaN. */
static LLVMValueRef erf_fit_f32(cg *g, LLVMValueRef a, double out, double in) {
  LLVMTypeRef t = LLVMTypeOf(a);
  LLVMValueRef a2 = LLVMBuildFMul(g->B, a, a, "a2");
  LLVMValueRef num = fconst(t, sc_erf_num(SC_ERF_DEGREE, out, in)), den = fconst(t, sc_erf_den(SC_ERF_DEGREE, in));
  for (int i = SC_ERF_DEGREE - 1; i >= 0; i--) { /* fused where the CPU has FMA: half the instructions */
    LLVMValueRef pn[3] = {num, a2, fconst(t, sc_erf_num(i, out, in))}, qn[3] = {den, a2, fconst(t, sc_erf_den(i, in))};
    num = intrinsic_call(g, "llvm.fmuladd", pn, 3);
    den = intrinsic_call(g, "llvm.fmuladd", qn, 3);
  }
  return LLVMBuildFDiv(g->B, LLVMBuildFMul(g->B, a, num, "an"), den, "erf");
}

/* erf in float32 without a library call: within [-1, 1], and exactly +-1 from the fit's
 * clamp on, where the fit is an ulp short. */
static LLVMValueRef erf_f32(cg *g, LLVMValueRef x) {
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef r = erf_fit_f32(g, clamp_f(g, x, fconst(t, -SC_ERF_CLAMP), fconst(t, SC_ERF_CLAMP)), 1, 1);
  r = clamp_f(g, r, fconst(t, -1), fconst(t, 1));
  r = LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOGE, x, fconst(t, SC_ERF_CLAMP), "sat"), fconst(t, 1), r, "hi1");
  return LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOLE, x, fconst(t, -SC_ERF_CLAMP), "sat"), fconst(t, -1), r, "lo1");
}

/* The exact GELU in float32: 0.5 x + |x| (0.5 erf(|x| / sqrt 2)), which is
 * 0.5 x (1 + erf(x / sqrt 2)) with the fit evaluated at |x|, its 1 / sqrt 2 and the 0.5
 * folded into the coefficients: 30% fewer instructions than the direct form.  The fit of a
 * non-negative a is non-negative, so only its upper end is clamped; at the clamp the fit
 * passes 1/2 (SC_GELU_CLAMP), so the min makes it exactly 1/2 from there on.  Where x is
 * NaN, 0.5 x makes the result NaN whatever the fit gives.  Libraries for AVX-512 take
 * 0.5 erf from gelu_table.h's pieces instead, without the division (cg_gelu_table.c).  The
 * runtime's linear layers compute the same (gelu8 and gelu16, backends/cpu/runtime/nn.c).
 * gelu(-inf) = -inf + inf is NaN, as in ATen. */
static LLVMValueRef gelu_erf_f32(cg *g, LLVMValueRef x) {
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef ax = intrinsic1(g, "llvm.fabs", x), half = fconst(t, 0.5), clamp = fconst(t, SC_GELU_CLAMP);
  LLVMValueRef half_erf;
  if (cg_gelu_table_wanted(g)) {
    half_erf = cg_gelu_half_erf_table(g, ax);
  } else {
    LLVMValueRef a = intrinsic2(g, "llvm.minnum", ax, clamp);
    half_erf = intrinsic2(g, "llvm.minnum", erf_fit_f32(g, a, 0.5, 0.7071067811865476), half);
  }
  LLVMValueRef args[3] = {ax, half_erf, LLVMBuildFMul(g->B, x, half, "hx")};
  return intrinsic_call(g, "llvm.fmuladd", args, 3);
}

/* erf: inline for float32, libm's for float64. */
static LLVMValueRef erf_of(cg *g, LLVMValueRef x) {
  return LLVMTypeOf(x) == g->f32 ? erf_f32(g, x) : libm1(g, "erf", x);
}

static LLVMValueRef sigmoid(cg *g, LLVMValueRef x) {
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef e = intrinsic1(g, "llvm.exp", LLVMBuildFNeg(g->B, x, "nx"));
  return LLVMBuildFDiv(g->B, fconst(t, 1), LLVMBuildFAdd(g->B, fconst(t, 1), e, "d"), "sig");
}

static LLVMValueRef clamp_f(cg *g, LLVMValueRef x, LLVMValueRef lo, LLVMValueRef hi) {
  /* torch.clamp propagates NaN: compare-and-select keeps x when it is NaN */
  if (lo) x = LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOLT, x, lo, "lt"), lo, x, "lo");
  if (hi) x = LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOGT, x, hi, "gt"), hi, x, "hi");
  return x;
}

/* The value of node n's output for the current element, in the output's LLVM type. */
static LLVMValueRef emit_op(cg *g, ew_ctx *c, const sc_node *n, LLVMTypeRef *type_out);

/* The node's value in the loop, rounded where the program rounds it (a float32 value
 * standing for a half-precision one: torch rounds each op's result). */
static LLVMValueRef emit_tree(cg *g, ew_ctx *c, const sc_node *n, LLVMTypeRef *type_out) {
  for (int i = 0; i < c->n_hoisted; i++)
    if (c->hoisted[i] == n) {
      *type_out = c->hoisted_type[i];
      return c->hoisted_value[i];
    }
  LLVMValueRef x = emit_op(g, c, n, type_out);
  sc_dtype rounds_to = out_value(n)->meta.rounds_to;
  return rounds_to != SC_DTYPE_UNKNOWN ? cg_round_to(g, rounds_to, x) : x;
}

static LLVMValueRef emit_op(cg *g, ew_ctx *c, const sc_node *n, LLVMTypeRef *type_out) {
  const sc_value *ov = out_value(n);
  LLVMTypeRef t = cg_llvm_type(g, ov->meta.dtype);
  *type_out = t;
  /* comparisons and masks compute in the promoted input type */
  bool is_cmp = false;
  switch (n->op->id) {
    case SC_OP_EQ_TENSOR: case SC_OP_EQ_SCALAR: case SC_OP_NE_TENSOR: case SC_OP_NE_SCALAR: case SC_OP_LT_TENSOR:
    case SC_OP_LT_SCALAR: case SC_OP_LE_TENSOR: case SC_OP_LE_SCALAR: case SC_OP_GT_TENSOR: case SC_OP_GT_SCALAR:
    case SC_OP_GE_TENSOR: case SC_OP_GE_SCALAR: is_cmp = true; break;
    default: break;
  }
  bool has;
  LLVMTypeRef ct = t; /* compute type */
  if (is_cmp) {
    const sc_value *sv = n->inputs[0].arg.items[0].value;
    ct = sv ? cg_llvm_type(g, sv->meta.dtype) : g->f32;
    if (ct == g->i1) ct = g->i64;
    bool p2;
    double sc = scalar(n, "other", 0, &p2);
    if (p2 && sc != floor(sc) && ct != g->f32 && ct != g->f64) ct = g->f32;
  }
  bool f = ct == g->f32 || ct == g->f64;
  LLVMValueRef x = NULL, y = NULL;
  switch (n->op->id) {
    case SC_OP_ADD_TENSOR: case SC_OP_ADD_: case SC_OP_ADD_SCALAR: case SC_OP_SUB_TENSOR: case SC_OP_SUB_SCALAR:
    case SC_OP_RSUB_SCALAR: {
      x = operand(g, c, n, "self", ct, &has);
      y = operand(g, c, n, "other", ct, &has);
      bool pa;
      double alpha = scalar(n, "alpha", 1, &pa);
      if (alpha != 1) y = f ? LLVMBuildFMul(g->B, y, fconst(ct, alpha), "a") : LLVMBuildMul(g->B, y, LLVMConstInt(ct, (unsigned long long)(int64_t)alpha, 1), "a");
      if (n->op->id == SC_OP_RSUB_SCALAR) {
        LLVMValueRef tmp = x;
        x = y;
        y = tmp;
      }
      bool sub = n->op->id == SC_OP_SUB_TENSOR || n->op->id == SC_OP_SUB_SCALAR || n->op->id == SC_OP_RSUB_SCALAR;
      if (f) return sub ? LLVMBuildFSub(g->B, x, y, "s") : LLVMBuildFAdd(g->B, x, y, "a");
      return sub ? LLVMBuildSub(g->B, x, y, "s") : LLVMBuildAdd(g->B, x, y, "a");
    }
    case SC_OP_MUL_TENSOR: case SC_OP_MUL_: case SC_OP_MUL_SCALAR:
      x = operand(g, c, n, "self", ct, &has);
      y = operand(g, c, n, "other", ct, &has);
      return f ? LLVMBuildFMul(g->B, x, y, "m") : (ct == g->i1 ? LLVMBuildAnd(g->B, x, y, "m") : LLVMBuildMul(g->B, x, y, "m"));
    case SC_OP_DIV_TENSOR: case SC_OP_DIV_SCALAR: case SC_OP_DIV_TENSOR_MODE: case SC_OP_FLOOR_DIVIDE: {
      const char *mode = n->op->id == SC_OP_FLOOR_DIVIDE ? "floor" : string_arg(n, "rounding_mode");
      if (!f) {
        /* integer division with a rounding mode: compute in double, round, convert back */
        x = operand(g, c, n, "self", g->f64, &has);
        y = operand(g, c, n, "other", g->f64, &has);
        LLVMValueRef q = LLVMBuildFDiv(g->B, x, y, "q");
        q = intrinsic1(g, mode && strcmp(mode, "floor") == 0 ? "llvm.floor" : "llvm.trunc", q);
        return convert(g, q, ct);
      }
      x = operand(g, c, n, "self", ct, &has);
      y = operand(g, c, n, "other", ct, &has);
      LLVMValueRef q = LLVMBuildFDiv(g->B, x, y, "q");
      if (mode && strcmp(mode, "trunc") == 0) q = intrinsic1(g, "llvm.trunc", q);
      if (mode && strcmp(mode, "floor") == 0) q = intrinsic1(g, "llvm.floor", q);
      return q;
    }
    case SC_OP_FMOD: case SC_OP_REMAINDER: { /* remainder: fmod, then moved by the divisor where the signs differ */
      bool constant;
      double d = scalar(n, "other", 0, &constant);
      const sc_value *dv = NULL;
      for (size_t k = 0; k < n->n_inputs; k++)
        if (strcmp(n->inputs[k].name, "other") == 0 && n->inputs[k].arg.n_items) dv = n->inputs[k].arg.items[0].value;
      bool size_divisor = dv && dv->kind == SC_VALUE_SYM_INT; /* a size: 0 only where no element is computed */
      if (!f && !size_divisor && (!constant || d == 0)) { /* torch raises ZeroDivisionError where an integer divisor is 0 */
        cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of integers by a tensor or by 0 has no CPU lowering "
                 "(a nonzero number or a size has one; floats any divisor)", n->target);
        return LLVMGetUndef(t);
      }
      x = operand(g, c, n, "self", ct, &has);
      y = operand(g, c, n, "other", ct, &has);
      if (!f) /* never a division by 0 (x86 traps): a size of 0 leaves nothing to compute anyway */
        y = LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntEQ, y, LLVMConstInt(ct, 0, 0), "z"), LLVMConstInt(ct, 1, 0), y, "d");
      LLVMValueRef r = f ? LLVMBuildFRem(g->B, x, y, "fmod") : LLVMBuildSRem(g->B, x, y, "fmod");
      if (n->op->id == SC_OP_FMOD) return r;
      LLVMValueRef zero = f ? LLVMConstReal(ct, 0) : LLVMConstInt(ct, 0, 0);
      LLVMValueRef nonzero = f ? LLVMBuildFCmp(g->B, LLVMRealONE, r, zero, "nz") : LLVMBuildICmp(g->B, LLVMIntNE, r, zero, "nz");
      LLVMValueRef rneg = f ? LLVMBuildFCmp(g->B, LLVMRealOLT, r, zero, "rn") : LLVMBuildICmp(g->B, LLVMIntSLT, r, zero, "rn");
      LLVMValueRef yneg = f ? LLVMBuildFCmp(g->B, LLVMRealOLT, y, zero, "yn") : LLVMBuildICmp(g->B, LLVMIntSLT, y, zero, "yn");
      LLVMValueRef fix = LLVMBuildAnd(g->B, nonzero, LLVMBuildICmp(g->B, LLVMIntNE, rneg, yneg, "sd"), "fix");
      LLVMValueRef moved = f ? LLVMBuildFAdd(g->B, r, y, "m") : LLVMBuildAdd(g->B, r, y, "m");
      return LLVMBuildSelect(g->B, fix, moved, r, "rem");
    }
    case SC_OP_POW_TENSOR_SCALAR: case SC_OP_POW_TENSOR_TENSOR: {
      x = operand(g, c, n, "self", ct, &has);
      bool pe;
      double e = scalar(n, "exponent", 0, &pe);
      /* the exponents ATen computes without pow (x * x, x * x * x, sqrt, 1 / sqrt, 1 / x,
       * 1 / (x * x)): its bits, and no libm call (x.pow(3) on [256, 4096] took 10 ms) */
      if (pe && e == 2) return f ? LLVMBuildFMul(g->B, x, x, "sq") : LLVMBuildMul(g->B, x, x, "sq");
      if (pe && e == 3)
        return f ? LLVMBuildFMul(g->B, LLVMBuildFMul(g->B, x, x, "sq"), x, "cube")
                 : LLVMBuildMul(g->B, LLVMBuildMul(g->B, x, x, "sq"), x, "cube");
      if (pe && e == 1) return x;
      if (pe && e == 0.5 && f) return intrinsic1(g, "llvm.sqrt", x);
      if (pe && e == -0.5 && f) return LLVMBuildFDiv(g->B, fconst(ct, 1), intrinsic1(g, "llvm.sqrt", x), "rsqrt");
      if (pe && e == -1 && f) return LLVMBuildFDiv(g->B, fconst(ct, 1), x, "recip");
      if (pe && e == -2 && f) return LLVMBuildFDiv(g->B, fconst(ct, 1), LLVMBuildFMul(g->B, x, x, "sq"), "recip_sq");
      y = operand(g, c, n, "exponent", ct, &has);
      return intrinsic2(g, "llvm.pow", x, y);
    }
    case SC_OP_MAXIMUM: case SC_OP_MINIMUM: {
      x = operand(g, c, n, "self", ct, &has);
      y = operand(g, c, n, "other", ct, &has);
      bool mx = n->op->id == SC_OP_MAXIMUM;
      if (f) return intrinsic2(g, mx ? "llvm.maximum" : "llvm.minimum", x, y); /* NaN-propagating, like torch */
      return LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, mx ? LLVMIntSGT : LLVMIntSLT, x, y, "c"), x, y, "mm");
    }
    case SC_OP_NEG:
      x = operand(g, c, n, "self", ct, &has);
      return f ? LLVMBuildFNeg(g->B, x, "n") : LLVMBuildNeg(g->B, x, "n");
    case SC_OP_ABS:
      x = operand(g, c, n, "self", ct, &has);
      if (f) return intrinsic1(g, "llvm.fabs", x);
      return LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, x, LLVMConstInt(ct, 0, 0), "neg"), LLVMBuildNeg(g->B, x, "n"), x, "abs");
    case SC_OP_EXP: return intrinsic1(g, "llvm.exp", operand(g, c, n, "self", ct, &has));
    case SC_OP_LOG: return intrinsic1(g, "llvm.log", operand(g, c, n, "self", ct, &has));
    case SC_OP_SQRT: return intrinsic1(g, "llvm.sqrt", operand(g, c, n, "self", ct, &has));
    case SC_OP_RSQRT:
      return LLVMBuildFDiv(g->B, fconst(ct, 1), intrinsic1(g, "llvm.sqrt", operand(g, c, n, "self", ct, &has)), "rs");
    case SC_OP_RECIPROCAL: return LLVMBuildFDiv(g->B, fconst(ct, 1), operand(g, c, n, "self", ct, &has), "rc");
    case SC_OP_SIN: return intrinsic1(g, "llvm.sin", operand(g, c, n, "self", ct, &has));
    case SC_OP_COS: return intrinsic1(g, "llvm.cos", operand(g, c, n, "self", ct, &has));
    case SC_OP_TANH: return libm1(g, "tanh", operand(g, c, n, "self", ct, &has));
    case SC_OP_ERF: return erf_of(g, operand(g, c, n, "self", ct, &has));
    case SC_OP_SIGMOID: return sigmoid(g, operand(g, c, n, "self", ct, &has));
    case SC_OP_RELU: case SC_OP_RELU_:
      x = operand(g, c, n, "self", ct, &has);
      if (f) return LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOLT, x, fconst(ct, 0), "neg"), fconst(ct, 0), x, "relu");
      return LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, x, LLVMConstInt(ct, 0, 0), "neg"), LLVMConstInt(ct, 0, 0), x, "relu");
    case SC_OP_GELU: {
      x = operand(g, c, n, "self", ct, &has);
      const char *approx = string_arg(n, "approximate");
      LLVMValueRef half_x = LLVMBuildFMul(g->B, x, fconst(ct, 0.5), "hx");
      if (approx && strcmp(approx, "tanh") == 0) {
        LLVMValueRef x3 = LLVMBuildFMul(g->B, LLVMBuildFMul(g->B, x, x, "x2"), x, "x3");
        LLVMValueRef inner = LLVMBuildFMul(g->B, fconst(ct, 0.7978845608028654),
                                           LLVMBuildFAdd(g->B, x, LLVMBuildFMul(g->B, x3, fconst(ct, 0.044715), "k"), "s"), "in");
        return LLVMBuildFMul(g->B, half_x, LLVMBuildFAdd(g->B, fconst(ct, 1), libm1(g, "tanh", inner), "t"), "gelu");
      }
      if (ct == g->f32) return gelu_erf_f32(g, x);
      LLVMValueRef e = erf_of(g, LLVMBuildFMul(g->B, x, fconst(ct, 0.7071067811865476), "xs"));
      return LLVMBuildFMul(g->B, half_x, LLVMBuildFAdd(g->B, fconst(ct, 1), e, "t"), "gelu");
    }
    case SC_OP_SILU:
      x = operand(g, c, n, "self", ct, &has);
      return LLVMBuildFMul(g->B, x, sigmoid(g, x), "silu");
    case SC_OP_HARDTANH: case SC_OP_HARDTANH_: {
      x = operand(g, c, n, "self", ct, &has);
      bool p1, p2;
      double lo = scalar(n, "min_val", -1, &p1), hi = scalar(n, "max_val", 1, &p2);
      return clamp_f(g, x, fconst(ct, lo), fconst(ct, hi));
    }
    case SC_OP_RELU6: return clamp_f(g, operand(g, c, n, "self", ct, &has), fconst(ct, 0), fconst(ct, 6));
    case SC_OP_HARDSWISH: case SC_OP_HARDSIGMOID: {
      x = operand(g, c, n, "self", ct, &has);
      LLVMValueRef r6 = clamp_f(g, LLVMBuildFAdd(g->B, x, fconst(ct, 3), "p3"), fconst(ct, 0), fconst(ct, 6));
      LLVMValueRef hs = LLVMBuildFDiv(g->B, r6, fconst(ct, 6), "hs");
      return n->op->id == SC_OP_HARDSWISH ? LLVMBuildFMul(g->B, x, hs, "hw") : hs;
    }
    case SC_OP_LEAKY_RELU: {
      x = operand(g, c, n, "self", ct, &has);
      bool p;
      double s = scalar(n, "negative_slope", 0.01, &p);
      return LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOGT, x, fconst(ct, 0), "pos"), x,
                             LLVMBuildFMul(g->B, x, fconst(ct, s), "neg"), "lrelu");
    }
    case SC_OP_ELU: { /* torch 2.14 takes expm1: elu(-1e-9) is -1e-9, elu(-0.0) is -0.0 */
      x = operand(g, c, n, "self", ct, &has);
      bool p;
      double alpha = scalar(n, "alpha", 1, &p), sc = scalar(n, "scale", 1, &p), in = scalar(n, "input_scale", 1, &p);
      LLVMValueRef neg = libm1(g, "expm1", LLVMBuildFMul(g->B, x, fconst(ct, in), "xi"));
      return LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOGT, x, fconst(ct, 0), "pos"),
                             LLVMBuildFMul(g->B, x, fconst(ct, sc), "p"), LLVMBuildFMul(g->B, neg, fconst(ct, alpha * sc), "n"),
                             "elu");
    }
    case SC_OP_CELU: { /* alpha * expm1(x / alpha) below 0 */
      x = operand(g, c, n, "self", ct, &has);
      bool p;
      double alpha = scalar(n, "alpha", 1, &p);
      LLVMValueRef neg = libm1(g, "expm1", LLVMBuildFDiv(g->B, x, fconst(ct, alpha), "xa"));
      return LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOGT, x, fconst(ct, 0), "pos"), x,
                             LLVMBuildFMul(g->B, neg, fconst(ct, alpha), "n"), "celu");
    }
    case SC_OP_SOFTPLUS: { /* log1p(exp(beta x)) / beta, x itself past the threshold */
      x = operand(g, c, n, "self", ct, &has);
      bool p;
      double beta = scalar(n, "beta", 1, &p), threshold = scalar(n, "threshold", 20, &p);
      LLVMValueRef bx = LLVMBuildFMul(g->B, x, fconst(ct, beta), "bx");
      LLVMValueRef soft = LLVMBuildFDiv(g->B, libm1(g, "log1p", intrinsic1(g, "llvm.exp", bx)), fconst(ct, beta), "sp");
      return LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOGT, bx, fconst(ct, threshold), "big"), x, soft, "softplus");
    }
    case SC_OP_FLOOR: case SC_OP_CEIL: case SC_OP_ROUND: case SC_OP_TRUNC: { /* integers are already whole */
      int id = n->op->id;
      const char *fn = id == SC_OP_FLOOR ? "llvm.floor" : id == SC_OP_CEIL ? "llvm.ceil" : id == SC_OP_ROUND ? "llvm.roundeven"
                                                                                                               : "llvm.trunc";
      x = operand(g, c, n, "self", ct, &has);
      return f ? intrinsic1(g, fn, x) : x; /* round: halves to even, as torch */
    }
    case SC_OP_ROUND_DECIMALS: { /* torch's: x * 10^d rounded, / 10^d (d < 0: x / 10^-d rounded, * 10^-d) */
      x = operand(g, c, n, "self", ct, &has);
      bool pd;
      int64_t d = (int64_t)scalar(n, "decimals", 0, &pd);
      if (!f) return x;
      if (d == 0) return intrinsic1(g, "llvm.roundeven", x);
      LLVMValueRef ten = fconst(ct, (ct == g->f32 ? (double)(float)pow(10.0, (double)(d < 0 ? -d : d)) : pow(10.0, (double)(d < 0 ? -d : d))));
      if (d > 0) return LLVMBuildFDiv(g->B, intrinsic1(g, "llvm.roundeven", LLVMBuildFMul(g->B, x, ten, "up")), ten, "round");
      return LLVMBuildFMul(g->B, intrinsic1(g, "llvm.roundeven", LLVMBuildFDiv(g->B, x, ten, "down")), ten, "round");
    }
    case SC_OP_SIGN: { /* (x > 0) - (x < 0): 0 for 0, -0 and NaN, as torch */
      x = operand(g, c, n, "self", ct, &has);
      LLVMValueRef pos = f ? LLVMBuildFCmp(g->B, LLVMRealOGT, x, fconst(ct, 0), "pos")
                           : LLVMBuildICmp(g->B, LLVMIntSGT, x, LLVMConstInt(ct, 0, 0), "pos");
      LLVMValueRef neg = f ? LLVMBuildFCmp(g->B, LLVMRealOLT, x, fconst(ct, 0), "neg")
                           : LLVMBuildICmp(g->B, LLVMIntSLT, x, LLVMConstInt(ct, 0, 0), "neg");
      LLVMValueRef one = f ? fconst(ct, 1) : LLVMConstInt(ct, 1, 0), zero = f ? fconst(ct, 0) : LLVMConstInt(ct, 0, 0);
      LLVMValueRef minus = f ? fconst(ct, -1) : LLVMConstInt(ct, (unsigned long long)-1, 1);
      return LLVMBuildSelect(g->B, pos, one, LLVMBuildSelect(g->B, neg, minus, zero, "s"), "sign");
    }
    case SC_OP_LOG1P: return libm1(g, "log1p", operand(g, c, n, "self", ct, &has));
    case SC_OP_EXPM1: return libm1(g, "expm1", operand(g, c, n, "self", ct, &has));
    case SC_OP_LOG2: return libm1(g, "log2", operand(g, c, n, "self", ct, &has));
    case SC_OP_LOG10: case SC_OP_TAN: case SC_OP_ASIN: case SC_OP_ACOS: case SC_OP_ATAN: case SC_OP_SINH:
    case SC_OP_COSH: case SC_OP_ASINH: case SC_OP_ACOSH: case SC_OP_ATANH: { /* libm's, as ATen's scalar path */
      static const struct { sc_op_id op; const char *fn; } fns[] = {
          {SC_OP_LOG10, "log10"}, {SC_OP_TAN, "tan"},   {SC_OP_ASIN, "asin"},   {SC_OP_ACOS, "acos"},   {SC_OP_ATAN, "atan"},
          {SC_OP_SINH, "sinh"},   {SC_OP_COSH, "cosh"}, {SC_OP_ASINH, "asinh"}, {SC_OP_ACOSH, "acosh"}, {SC_OP_ATANH, "atanh"}};
      for (size_t k = 0; k < sizeof fns / sizeof fns[0]; k++)
        if (fns[k].op == n->op->id) return libm1(g, fns[k].fn, operand(g, c, n, "self", ct, &has));
      break;
    }
    case SC_OP_FRAC: /* x - trunc(x), keeping -0.0's sign as torch does */
      x = operand(g, c, n, "self", ct, &has);
      return LLVMBuildFSub(g->B, x, intrinsic1(g, "llvm.trunc", x), "frac");
    case SC_OP_HARDSHRINK: { /* x where |x| > lambd, else 0 */
      x = operand(g, c, n, "self", ct, &has);
      bool p;
      double l = scalar(n, "lambd", 0.5, &p);
      return LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOLE, intrinsic1(g, "llvm.fabs", x), fconst(ct, l), "in"),
                             fconst(ct, 0), x, "hardshrink");
    }
    case SC_OP_LOG_SIGMOID: { /* min(x, 0) - log1p(exp(-|x|)): no overflow either way */
      x = operand(g, c, n, "self", ct, &has);
      LLVMValueRef e = intrinsic1(g, "llvm.exp", LLVMBuildFNeg(g->B, intrinsic1(g, "llvm.fabs", x), "na"));
      return LLVMBuildFSub(g->B, intrinsic2(g, "llvm.minnum", x, fconst(ct, 0)), libm1(g, "log1p", e), "logsig");
    }
    case SC_OP_LOGIT: { /* log(x / (1 - x)), x clamped to [eps, 1 - eps] where eps is given */
      x = operand(g, c, n, "self", ct, &has);
      bool p;
      double eps = scalar(n, "eps", -1, &p);
      if (p && eps >= 0) x = clamp_f(g, x, fconst(ct, eps), fconst(ct, 1 - eps));
      return intrinsic1(g, "llvm.log", LLVMBuildFDiv(g->B, x, LLVMBuildFSub(g->B, fconst(ct, 1), x, "1mx"), "odds"));
    }
    case SC_OP_MISH: { /* x * tanh(softplus(x)), softplus as torch's (x past 20) */
      x = operand(g, c, n, "self", ct, &has);
      LLVMValueRef sp = LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOGT, x, fconst(ct, 20), "big"), x,
                                        libm1(g, "log1p", intrinsic1(g, "llvm.exp", x)), "sp");
      return LLVMBuildFMul(g->B, x, libm1(g, "tanh", sp), "mish");
    }
    case SC_OP_LGAMMA: return libm1(g, "lgamma", operand(g, c, n, "self", ct, &has));
    case SC_OP_SQUARE:
      x = operand(g, c, n, "self", ct, &has);
      return f ? LLVMBuildFMul(g->B, x, x, "sq") : ct == g->i1 ? x : LLVMBuildMul(g->B, x, x, "sq");
    case SC_OP_ERFINV: case SC_OP_DIGAMMA: /* the runtime's (special_functions.c); libdevice's erfinv on a GPU */
      x = operand(g, c, n, "self", ct, &has);
      if (g->cuda && (n->op->id == SC_OP_DIGAMMA || g->emulate)) {
        cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has no CUDA lowering yet (export with --target cpu)", n->target);
        return x;
      }
      return libm1(g, n->op->id == SC_OP_ERFINV ? "erfinv" : "digamma", x);
    case SC_OP_ADDCMUL: case SC_OP_ADDCDIV: {
      x = operand(g, c, n, "self", ct, &has);
      LLVMValueRef t1 = operand(g, c, n, "tensor1", ct, &has), t2 = operand(g, c, n, "tensor2", ct, &has);
      bool p;
      double v = scalar(n, "value", 1, &p);
      if (!f) {
        LLVMValueRef prod2 = LLVMBuildMul(g->B, t1, t2, "t12");
        return LLVMBuildAdd(g->B, x, LLVMBuildMul(g->B, prod2, LLVMConstInt(ct, (unsigned long long)(int64_t)v, 1), "v"), "addc");
      }
      LLVMValueRef q = n->op->id == SC_OP_ADDCMUL ? LLVMBuildFMul(g->B, t1, t2, "t12") : LLVMBuildFDiv(g->B, t1, t2, "t12");
      return LLVMBuildFAdd(g->B, x, LLVMBuildFMul(g->B, fconst(ct, v), q, "v"), "addc");
    }
    case SC_OP_LERP: { /* as ATen: from self below a weight of 0.5, from end at or above it */
      x = operand(g, c, n, "self", ct, &has);
      y = operand(g, c, n, "end", ct, &has);
      LLVMValueRef w = operand(g, c, n, "weight", ct, &has), diff = LLVMBuildFSub(g->B, y, x, "d");
      LLVMValueRef lo = LLVMBuildFAdd(g->B, x, LLVMBuildFMul(g->B, w, diff, "wd"), "lo");
      LLVMValueRef hi = LLVMBuildFSub(g->B, y, LLVMBuildFMul(g->B, diff, LLVMBuildFSub(g->B, fconst(ct, 1), w, "1mw"), "dw"), "hi");
      return LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOLT, intrinsic1(g, "llvm.fabs", w), fconst(ct, 0.5), "small"), lo, hi,
                             "lerp");
    }
    case SC_OP_ATAN2:
      x = operand(g, c, n, "self", ct, &has);
      y = operand(g, c, n, "other", ct, &has);
      return libm2(g, "atan2", x, y);
    case SC_OP_FMAX: case SC_OP_FMIN: case SC_OP_COPYSIGN: case SC_OP_HYPOT: case SC_OP_LOGADDEXP: case SC_OP_XLOGY:
    case SC_OP_HEAVISIDE: case SC_OP_NEXTAFTER: {
      x = operand(g, c, n, "self", ct, &has);
      y = operand(g, c, n, n->op->id == SC_OP_HEAVISIDE ? "values" : "other", ct, &has);
      bool mx = n->op->id == SC_OP_FMAX;
      if (!f) {
        if (n->op->id == SC_OP_FMAX || n->op->id == SC_OP_FMIN) /* integers have no NaN: max and min */
          return LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, mx ? LLVMIntSGT : LLVMIntSLT, x, y, "c"), x, y, "fm");
        cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s into a non-floating result has no lowering", n->target);
        return x;
      }
      switch (n->op->id) {
        case SC_OP_FMAX: case SC_OP_FMIN: /* NaN-ignoring, as C's fmax */
          return intrinsic2(g, mx ? "llvm.maxnum" : "llvm.minnum", x, y);
        case SC_OP_COPYSIGN: return intrinsic2(g, "llvm.copysign", x, y);
        case SC_OP_HYPOT: return libm2(g, "hypot", x, y);
        case SC_OP_NEXTAFTER: return libm2(g, "nextafter", x, y);
        case SC_OP_LOGADDEXP: { /* m + log1p(exp(-|x - y|)), m the larger; x itself where both are the same infinity */
          LLVMValueRef m = intrinsic2(g, "llvm.maximum", x, y);
          LLVMValueRef d = intrinsic1(g, "llvm.fabs", LLVMBuildFSub(g->B, x, y, "d"));
          LLVMValueRef r = LLVMBuildFAdd(g->B, m, libm1(g, "log1p", intrinsic1(g, "llvm.exp", LLVMBuildFNeg(g->B, d, "nd"))), "lae");
          LLVMValueRef same_inf = LLVMBuildAnd(g->B, LLVMBuildFCmp(g->B, LLVMRealOEQ, x, y, "eq"),
                                               LLVMBuildFCmp(g->B, LLVMRealOEQ, intrinsic1(g, "llvm.fabs", x),
                                                             fconst(ct, INFINITY), "inf"), "si");
          return LLVMBuildSelect(g->B, same_inf, x, r, "logaddexp");
        }
        case SC_OP_XLOGY: { /* NaN where other is; else 0 where self is 0 */
          LLVMValueRef r = LLVMBuildFMul(g->B, x, intrinsic1(g, "llvm.log", y), "xl");
          r = LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOEQ, x, fconst(ct, 0), "z"), fconst(ct, 0), r, "xlogy");
          return LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealUNO, y, y, "nan"), y, r, "xlogy_nan");
        }
        default: { /* heaviside: values where self is 0, else self > 0 (a NaN gives 0, as ATen) */
          LLVMValueRef step = LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOGT, x, fconst(ct, 0), "p"), fconst(ct, 1),
                                              fconst(ct, 0), "step");
          return LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOEQ, x, fconst(ct, 0), "z"), y, step, "heaviside");
        }
      }
    }
    case SC_OP_DEG2RAD: case SC_OP_RAD2DEG: /* times pi/180 (180/pi) in the result's dtype, as ATen */
      x = operand(g, c, n, "self", ct, &has);
      if (!f) {
        cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s into a non-floating result has no lowering", n->target);
        return x;
      }
      return LLVMBuildFMul(g->B, x, fconst(ct, n->op->id == SC_OP_DEG2RAD ? M_PI / 180.0 : 180.0 / M_PI), "deg");
    case SC_OP_NAN_TO_NUM: { /* NaN to nan (0), +inf to posinf, -inf to neginf (the dtype's extremes) */
      x = operand(g, c, n, "self", ct, &has);
      if (!f) return x; /* integers hold no NaN or infinity */
      bool pn, pp, pm;
      bool f32 = ct == g->f32;
      double big = f32 ? FLT_MAX : DBL_MAX;
      double nan_v = scalar(n, "nan", 0, &pn), pos = scalar(n, "posinf", big, &pp), neg = scalar(n, "neginf", -big, &pm);
      LLVMValueRef r = LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealUNO, x, x, "nan"), fconst(ct, nan_v), x, "n");
      r = LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOEQ, x, fconst(ct, INFINITY), "pinf"), fconst(ct, pos), r, "p");
      return LLVMBuildSelect(g->B, LLVMBuildFCmp(g->B, LLVMRealOEQ, x, fconst(ct, -INFINITY), "ninf"), fconst(ct, neg), r,
                             "nan_to_num");
    }
    case SC_OP_CLAMP: case SC_OP_CLAMP_MIN: case SC_OP_CLAMP_MAX: {
      x = operand(g, c, n, "self", ct, &has);
      bool pl, ph;
      LLVMValueRef lo = operand(g, c, n, "min", ct, &pl), hi = operand(g, c, n, "max", ct, &ph);
      if (f) return clamp_f(g, x, pl ? lo : NULL, ph ? hi : NULL);
      if (pl) x = LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, x, lo, "lt"), lo, x, "lo");
      if (ph) x = LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntSGT, x, hi, "gt"), hi, x, "hi");
      return x;
    }
    case SC_OP_WHERE_SELF: {
      LLVMValueRef cond = operand(g, c, n, "condition", g->i1, &has);
      x = operand(g, c, n, "self", t, &has);
      y = operand(g, c, n, "other", t, &has);
      return LLVMBuildSelect(g->B, cond, x, y, "where");
    }
    case SC_OP_MASKED_FILL_SCALAR: {
      x = operand(g, c, n, "self", t, &has);
      LLVMValueRef mask = operand(g, c, n, "mask", g->i1, &has);
      y = operand(g, c, n, "value", t, &has);
      return LLVMBuildSelect(g->B, mask, y, x, "fill");
    }
    case SC_OP_LOGICAL_NOT:
      return LLVMBuildNot(g->B, operand(g, c, n, "self", g->i1, &has), "not");
    case SC_OP_ISINF: case SC_OP_ISNAN: case SC_OP_ISFINITE: { /* of an integer: never inf or NaN */
      x = operand(g, c, n, "self", NULL, &has);
      LLVMTypeRef xt = LLVMTypeOf(x);
      if (xt != g->f32 && xt != g->f64) return LLVMConstInt(g->i1, n->op->id == SC_OP_ISFINITE, 0);
      if (n->op->id == SC_OP_ISNAN) return LLVMBuildFCmp(g->B, LLVMRealUNO, x, x, "nan");
      LLVMValueRef inf = LLVMConstReal(xt, INFINITY), a = intrinsic1(g, "llvm.fabs", x);
      return n->op->id == SC_OP_ISINF ? LLVMBuildFCmp(g->B, LLVMRealOEQ, a, inf, "inf")
                                      : LLVMBuildFCmp(g->B, LLVMRealOLT, a, inf, "finite");
    }
    case SC_OP_BITWISE_NOT:
      return LLVMBuildNot(g->B, operand(g, c, n, "self", t, &has), "not");
    case SC_OP_BITWISE_AND:
    case SC_OP_BITWISE_OR:
    case SC_OP_BITWISE_XOR:
      x = operand(g, c, n, "self", t, &has);
      y = operand(g, c, n, "other", t, &has);
      return n->op->id == SC_OP_BITWISE_AND ? LLVMBuildAnd(g->B, x, y, "and")
           : n->op->id == SC_OP_BITWISE_OR  ? LLVMBuildOr(g->B, x, y, "or") : LLVMBuildXor(g->B, x, y, "xor");
    case SC_OP_LOGICAL_AND:
    case SC_OP_LOGICAL_OR:
    case SC_OP_LOGICAL_XOR:
      x = operand(g, c, n, "self", g->i1, &has);
      y = operand(g, c, n, "other", g->i1, &has);
      return n->op->id == SC_OP_LOGICAL_AND ? LLVMBuildAnd(g->B, x, y, "and")
           : n->op->id == SC_OP_LOGICAL_OR  ? LLVMBuildOr(g->B, x, y, "or") : LLVMBuildXor(g->B, x, y, "xor");
    case SC_OP_COPY: /* self gives only the shape and dtype */
      return operand(g, c, n, "src", t, &has);
    case SC_OP_FILL_TENSOR: case SC_OP_FILL_SCALAR:
      return operand(g, c, n, "value", t, &has);
    case SC_OP_ZERO: /* swin_v2's qkv_bias.clone()[length:2 * length].zero_() */
      return t == g->f32 || t == g->f64 ? fconst(t, 0) : LLVMConstInt(t, 0, 0);
    case SC_OP_TO_COPY: case SC_OP_TO_DTYPE: {
      LLVMTypeRef st;
      const sc_value *src = n->inputs[0].arg.items[0].value;
      cg_value *cv = cg_get(g, src);
      x = cv->inlined ? emit_tree(g, c, producer(g, src), &st) : load_leaf(g, c, cv);
      return convert(g, x, t);
    }
    default: break;
  }
  if (is_cmp) {
    x = operand(g, c, n, "self", ct, &has);
    y = operand(g, c, n, "other", ct, &has);
    int k = n->op->id;
    if (f) {
      LLVMRealPredicate p = (k == SC_OP_EQ_TENSOR || k == SC_OP_EQ_SCALAR) ? LLVMRealOEQ
                            : (k == SC_OP_NE_TENSOR || k == SC_OP_NE_SCALAR) ? LLVMRealUNE
                            : (k == SC_OP_LT_TENSOR || k == SC_OP_LT_SCALAR) ? LLVMRealOLT
                            : (k == SC_OP_LE_TENSOR || k == SC_OP_LE_SCALAR) ? LLVMRealOLE
                            : (k == SC_OP_GT_TENSOR || k == SC_OP_GT_SCALAR) ? LLVMRealOGT : LLVMRealOGE;
      return LLVMBuildFCmp(g->B, p, x, y, "cmp");
    }
    LLVMIntPredicate p = (k == SC_OP_EQ_TENSOR || k == SC_OP_EQ_SCALAR) ? LLVMIntEQ
                         : (k == SC_OP_NE_TENSOR || k == SC_OP_NE_SCALAR) ? LLVMIntNE
                         : (k == SC_OP_LT_TENSOR || k == SC_OP_LT_SCALAR) ? LLVMIntSLT
                         : (k == SC_OP_LE_TENSOR || k == SC_OP_LE_SCALAR) ? LLVMIntSLE
                         : (k == SC_OP_GT_TENSOR || k == SC_OP_GT_SCALAR) ? LLVMIntSGT : LLVMIntSGE;
    return LLVMBuildICmp(g->B, p, x, y, "cmp");
  }
  cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s has no CPU lowering", n->target);
  return LLVMConstNull(t);
}

static void inner_body(cg *g, LLVMValueRef j, void *arg) {
  ew_ctx *c = arg;
  c->j = j;
  LLVMTypeRef t;
  sc_dtype dt = c->out->v->meta.dtype;
  LLVMValueRef v = cg_to_memory(g, dt, emit_tree(g, c, c->root, &t));
  LLVMValueRef off = LLVMBuildAdd(g->B, LLVMBuildMul(g->B, c->o, c->inner, "ro"), j, "off");
  LLVMTypeRef mem = cg_mem_type(g, dt);
  LLVMValueRef idx[1] = {off};
  LLVMBuildStore(g->B, v, LLVMBuildInBoundsGEP2(g->B, mem, c->out->data, idx, 1, "p"));
}

/* Each broadcasting leaf's offset for row o. */
static void leaf_rows(cg *g, ew_ctx *c, LLVMValueRef o) {
  c->o = o;
  /* the row's coordinates over the outer dims, innermost first */
  LLVMValueRef rem = o, coord[CG_MAX_RANK];
  for (int d = c->rank - 2; d >= 0; d--) {
    coord[d] = LLVMBuildURem(g->B, rem, c->out->dims[d], "c");
    rem = LLVMBuildUDiv(g->B, rem, c->out->dims[d], "q");
  }
  for (int i = 0; i < c->n_leaves; i++) {
    leaf *l = &c->leaves[i];
    if (l->flat) continue;
    LLVMValueRef row = cg_i64(g, 0);
    for (int d = 0; d < c->rank - 1; d++) row = LLVMBuildAdd(g->B, row, LLVMBuildMul(g->B, coord[d], l->stride[d], "t"), "row");
    l->row = row;
  }
}

/* The streaming variant's store: element head + block + jp, at aligned[block + jp]. */
static void aligned_body(cg *g, LLVMValueRef jp, void *arg) {
  ew_ctx *c = arg;
  LLVMValueRef k = LLVMBuildAdd(g->B, c->block, jp, "k");
  c->j = LLVMBuildAdd(g->B, c->head, k, "j");
  LLVMTypeRef t;
  sc_dtype dt = c->out->v->meta.dtype;
  LLVMValueRef v = cg_to_memory(g, dt, emit_tree(g, c, c->root, &t));
  LLVMTypeRef mem = cg_mem_type(g, dt);
  LLVMValueRef idx[1] = {k};
  LLVMBuildStore(g->B, v, LLVMBuildInBoundsGEP2(g->B, mem, c->aligned, idx, 1, "p"));
}

/* A leaf read element after element over the whole output (no broadcast dim): the loads
 * the streaming variant prefetches. */
static bool leaf_streams(const ew_ctx *c, const leaf *l) {
  if (l->flat) return true;
  if (!c->rank) return false;
  for (int d = 0; d < c->rank; d++)
    if (LLVMIsAConstantInt(l->stride[d]) && LLVMConstIntGetSExtValue(l->stride[d]) == 0) return false;
  LLVMValueRef inner = l->stride[c->rank - 1];
  return LLVMIsAConstantInt(inner) && LLVMConstIntGetSExtValue(inner) == 1;
}

/* Prefetches `bytes` of each streamed leaf into L2, from element head + at on. */
static void prefetch_leaves(cg *g, ew_ctx *c, LLVMValueRef at, int64_t bytes) {
  LLVMValueRef ahead = LLVMBuildAdd(g->B, c->head, at, "ahead");
  for (int i = 0; i < c->n_leaves; i++) {
    leaf *l = &c->leaves[i];
    if (!leaf_streams(c, l)) continue;
    sc_dtype dt = l->cv->v->meta.dtype;
    LLVMTypeRef mem = cg_llvm_type(g, dt) == g->i1 ? g->i8 : cg_llvm_type(g, dt);
    LLVMValueRef off = l->flat ? LLVMBuildMul(g->B, c->o, c->inner, "ro") : l->row;
    LLVMValueRef idx[1] = {LLVMBuildAdd(g->B, off, ahead, "pfo")};
    /* not inbounds: the last blocks prefetch past the tensor's end, which is harmless */
    LLVMValueRef from = LLVMBuildGEP2(g->B, mem, l->cv->data, idx, 1, "pf");
    for (int64_t q = 0; q < (bytes + CG_LINE - 1) / CG_LINE; q++) {
      LLVMValueRef byte[1] = {cg_i64(g, q * CG_LINE)};
      LLVMValueRef args[4] = {LLVMBuildGEP2(g->B, g->i8, from, byte, 1, "pfl"), LLVMConstInt(g->i32, 0, 0),
                              LLVMConstInt(g->i32, 2, 0), LLVMConstInt(g->i32, 1, 0)};
      LLVMTypeRef params[4] = {g->ptr, g->i32, g->i32, g->i32};
      cg_call(g, "llvm.prefetch.p0", g->voidt, params, 4, args, 4, false);
    }
  }
}

/* Elements in a chunk of the segments. */
static int64_t chunk_elems(const ew_ctx *c) { return STREAM_CHUNK / (int64_t)sc_dtype_size(c->out->v->meta.dtype); }

/* Chunk c->seg_chunk of segment s: prefetches its inputs ahead, then computes it.  The
 * last segments may end early, so a chunk there may be short or empty: it takes masked
 * vectors. */
static void segment_chunk(cg *g, LLVMValueRef s, void *arg) {
  ew_ctx *c = arg;
  int64_t chunk = chunk_elems(c);
  c->block = LLVMBuildAdd(g->B, LLVMBuildMul(g->B, s, c->seg_len, "seg"),
                          LLVMBuildMul(g->B, c->seg_chunk, cg_i64(g, chunk), "in.seg"), "block");
  int64_t ahead = STREAM_SEG_AHEAD / (int64_t)sc_dtype_size(c->out->v->meta.dtype);
  prefetch_leaves(g, c, LLVMBuildAdd(g->B, c->block, cg_i64(g, ahead), "nb"), STREAM_CHUNK);
  LLVMValueRef left = LLVMBuildSub(g->B, c->rest, c->block, "left");
  LLVMBasicBlockRef whole = cg_block(g, "chunk.whole"), part = cg_block(g, "chunk.part"), done = cg_block(g, "chunk.done");
  LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntSGE, left, cg_i64(g, chunk), "is.whole"), whole, part);
  LLVMPositionBuilderAtEnd(g->B, whole);
  cg_loop(g, cg_i64(g, chunk), aligned_body, c);
  LLVMBuildBr(g->B, done);
  LLVMPositionBuilderAtEnd(g->B, part);
  masked_loop(g, left, aligned_body, c);
  LLVMBuildBr(g->B, done);
  LLVMPositionBuilderAtEnd(g->B, done);
}

/* The k-th chunk of every segment in turn. */
static void segments_step(cg *g, LLVMValueRef k, void *arg) {
  ew_ctx *c = arg;
  c->seg_chunk = k;
  rolled_loop(g, cg_i64(g, stream_segments(g)), segment_chunk, c);
}

/* A row of the streaming variant: the elements before the row's first cache-line boundary,
 * then the rest in segments from a pointer the optimizer is told is line-aligned.  The
 * vectorized stores of that part then carry the line's alignment, which streaming stores
 * need (backends/cpu/stream_stores.c marks them after optimization). */
static void stream_row(cg *g, ew_ctx *c) {
  LLVMTypeRef mem = cg_mem_type(g, c->out->v->meta.dtype);
  LLVMValueRef idx[1] = {LLVMBuildMul(g->B, c->o, c->inner, "ro")};
  LLVMValueRef row = LLVMBuildInBoundsGEP2(g->B, mem, c->out->data, idx, 1, "row");
  LLVMValueRef mis = LLVMBuildAnd(g->B, LLVMBuildPtrToInt(g->B, row, g->i64, "addr"), cg_i64(g, CG_LINE - 1), "mis");
  LLVMValueRef gap = LLVMBuildAnd(g->B, LLVMBuildSub(g->B, cg_i64(g, CG_LINE), mis, "to"), cg_i64(g, CG_LINE - 1), "gap");
  LLVMValueRef head = LLVMBuildUDiv(g->B, gap, cg_elem_size(g, c->out->v->meta.dtype), "head");
  head = LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntULT, head, c->inner, "short"), head, c->inner, "head");
  masked_loop(g, head, inner_body, c);
  LLVMBasicBlockRef rest = cg_block(g, "row.aligned"), done = cg_block(g, "row.done");
  LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntULT, head, c->inner, "more"), rest, done);
  LLVMPositionBuilderAtEnd(g->B, rest);
  LLVMValueRef at[1] = {head};
  c->head = head;
  c->aligned = LLVMBuildInBoundsGEP2(g->B, mem, row, at, 1, "aligned");
  /* true here: head elements reach the boundary whenever the row is longer */
  LLVMValueRef low = LLVMBuildAnd(g->B, LLVMBuildPtrToInt(g->B, c->aligned, g->i64, "aaddr"), cg_i64(g, CG_LINE - 1), "low");
  LLVMTypeRef ap[1] = {g->i1};
  LLVMValueRef aa[1] = {LLVMBuildICmp(g->B, LLVMIntEQ, low, cg_i64(g, 0), "on.line")};
  cg_call(g, "llvm.assume", g->voidt, ap, 1, aa, 1, false);
  c->rest = LLVMBuildSub(g->B, c->inner, head, "rest");
  /* whole chunks in each segment, the last ones ending early */
  int64_t round = stream_segments(g) * chunk_elems(c);
  LLVMValueRef chunks = LLVMBuildUDiv(g->B, LLVMBuildAdd(g->B, c->rest, cg_i64(g, round - 1), "up"), cg_i64(g, round), "chunks");
  c->seg_len = LLVMBuildMul(g->B, chunks, cg_i64(g, chunk_elems(c)), "seg.len");
  cg_loop(g, chunks, segments_step, c);
  LLVMBuildBr(g->B, done);
  LLVMPositionBuilderAtEnd(g->B, done);
}

/* Rows of a constant length under 32 that cannot be one flat array (a leaf broadcasts
 * along an outer dim): masked vectors, where the vectorizer would leave so short a loop
 * scalar.  x / sqrt(mean(x^2, dim 1)) on [2, 4, 4, 4] computed 128 square roots and
 * divisions one at a time: 300 ns. */
enum { MASKED_ROW = 32 };
static bool short_row(const ew_ctx *c) {
  return LLVMIsAConstantInt(c->inner) && LLVMConstIntGetSExtValue(c->inner) < MASKED_ROW;
}

/* ---- row-invariant parts of the tree ----
 * A part of the tree that reads only tensors broadcast along the row (an SE block's
 * sigmoid(scale[n, c, 1, 1]) times x[n, c, h, w]) has one value per row: computed before
 * the row's loop, it costs one exp a row instead of one an element (EfficientNet-B0: the
 * vectorized loop called expf per element, 7% of its call).  LLVM cannot hoist it itself:
 * the loads might alias the output's stores.  Only float-valued parts: computed before the
 * loop, an integer division by zero would trap on a row that the loop never enters. */
static bool is_float_value(const sc_node *n) {
  sc_dtype dt = n->n_outputs && n->outputs[0].n_items && n->outputs[0].items[0].value
                    ? n->outputs[0].items[0].value->meta.dtype : SC_DTYPE_UNKNOWN;
  return dt == SC_DTYPE_F32 || dt == SC_DTYPE_F64 || dt == SC_DTYPE_F16 || dt == SC_DTYPE_BF16;
}

static bool row_invariant(cg *g, ew_ctx *c, const sc_node *n) {
  if (!is_float_value(n)) return false;
  for (size_t k = 0; k < n->n_inputs; k++) {
    const sc_arg *a = &n->inputs[k].arg;
    if ((a->kind != SC_ARG_TENSOR && a->kind != SC_ARG_OPTIONAL_TENSOR) || !a->n_items || !a->items[0].value) continue;
    cg_value *cv = cg_get(g, a->items[0].value);
    if (cv->inlined) {
      if (!row_invariant(g, c, producer(g, cv->v))) return false;
      continue;
    }
    for (int i = 0; i < c->n_leaves; i++) {
      const leaf *l = &c->leaves[i];
      if (l->cv != cv) continue;
      int64_t s;
      if (l->flat || !LLVMIsAConstantInt(l->stride[c->rank - 1]) ||
          (s = LLVMConstIntGetSExtValue(l->stride[c->rank - 1])) != 0)
        return false;
    }
  }
  return true;
}

/* The tree's largest row-invariant parts that compute something (a leaf alone stays a
 * load in the loop), emitted here for the current row. */
static void hoist_from(cg *g, ew_ctx *c, const sc_node *n) {
  if (c->n_hoisted >= MAX_LEAVES) return;
  if (n != c->root && row_invariant(g, c, n)) {
    c->hoisted[c->n_hoisted] = n;
    c->j = cg_i64(g, 0); /* the leaves' offsets do not move along the row */
    c->hoisted_value[c->n_hoisted] = emit_tree(g, c, n, &c->hoisted_type[c->n_hoisted]);
    c->n_hoisted++;
    return;
  }
  for (size_t k = 0; k < n->n_inputs; k++) {
    const sc_arg *a = &n->inputs[k].arg;
    if ((a->kind != SC_ARG_TENSOR && a->kind != SC_ARG_OPTIONAL_TENSOR) || !a->n_items || !a->items[0].value) continue;
    cg_value *cv = cg_get(g, a->items[0].value);
    if (cv->inlined) hoist_from(g, c, producer(g, cv->v));
  }
}

static void hoist_row_invariants(cg *g, ew_ctx *c) {
  c->n_hoisted = 0;
  if (c->rank >= 2) hoist_from(g, c, c->root);
}

static void outer_body(cg *g, LLVMValueRef o, void *arg) {
  ew_ctx *c = arg;
  if (c->flat) { /* every leaf is read at the output's own offset: no coordinates */
    c->o = o;
    LLVMValueRef left = LLVMBuildSub(g->B, c->numel, LLVMBuildMul(g->B, o, c->inner, "at"), "left");
    cg_loop(g, LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, left, c->inner, "last"), left, c->inner, "len"),
            inner_body, c);
    return;
  }
  leaf_rows(g, c, o);
  hoist_row_invariants(g, c);
  if (c->stream) stream_row(g, c);
  else if (short_row(c)) masked_loop(g, c->inner, inner_body, c);
  else cg_loop(g, c->inner, inner_body, c);
}

/* Rows shorter than this, of a tree whose every leaf has the output's shape, are one flat
 * array cut in rows of FLAT_ROW elements instead: the vectorizer's loop needs 32 to 64
 * elements before it runs once, so rows of 16 ran element by element, through scalar
 * libm calls where the tree has them (a tiny MLP with tanh on [2, 16]: 0.42 -> 0.20 us a call). */
enum { SHORT_ROW = 256, FLAT_ROW = 4096 };

static bool flat_rows(const ew_ctx *c) {
  if (c->rank < 2 || !LLVMIsAConstantInt(c->inner) || LLVMConstIntGetSExtValue(c->inner) >= SHORT_ROW) return false;
  for (int i = 0; i < c->n_leaves; i++)
    if (!c->leaves[i].flat) return false;
  return true;
}

/* Whether the fused tree reads a SymInt operand: those are computed in the entry point
 * (with its overflow exits), so such loops stay there instead of moving to the pool. */
static bool tree_reads_symbols(cg *g, const sc_node *n) {
  for (size_t k = 0; k < n->n_inputs; k++) {
    const sc_arg *a = &n->inputs[k].arg;
    for (size_t i = 0; i < a->n_items; i++) {
      const sc_value *v = a->items[i].value;
      if (!v) continue;
      if (v->kind != SC_VALUE_TENSOR) return true;
      cg_value *cv = cg_get(g, v);
      if (cv->inlined && tree_reads_symbols(g, producer(g, v))) return true;
    }
  }
  return false;
}

/* The values the loop reads from the entry point: the output's pointer and dims, each
 * leaf's pointer and strides.  `slots` receives their addresses so that the outlined
 * loop can swap in the copies it loads from its context. */
static int captured(ew_ctx *c, LLVMValueRef **slots) {
  int k = 0;
  for (int i = 0; i < c->n_syms; i++) slots[k++] = &c->sym_value[i];
  slots[k++] = &c->out->data;
  slots[k++] = &c->inner;
  slots[k++] = &c->numel;
  for (int d = 0; d < c->rank; d++) slots[k++] = &c->out->dims[d];
  for (int i = 0; i < c->n_leaves; i++) {
    slots[k++] = &c->leaves[i].cv->data;
    for (int d = 0; d < c->rank; d++) slots[k++] = &c->leaves[i].stride[d];
  }
  return k;
}

enum { MAX_CAPTURED = MAX_SYMS + 3 + CG_MAX_RANK + MAX_LEAVES * (1 + CG_MAX_RANK) };

/* The host computes the tree's SymInt operands (with their overflow checks) before a
 * device kernel starts: the kernel receives them as arguments. */
static void collect_syms(cg *g, ew_ctx *c, const sc_node *n) {
  for (size_t k = 0; k < n->n_inputs; k++) {
    const sc_arg *a = &n->inputs[k].arg;
    for (size_t i = 0; i < a->n_items; i++) {
      const sc_value *v = a->items[i].value;
      if (!v) continue;
      if (v->kind == SC_VALUE_TENSOR) {
        cg_value *cv = cg_get(g, v);
        if (cv->inlined) collect_syms(g, c, producer(g, v));
        continue;
      }
      bool seen = false;
      for (int j = 0; j < c->n_syms; j++) seen |= c->sym_of[j] == v;
      if (seen || !v->sym) continue;
      if (c->n_syms >= MAX_SYMS) {
        cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "a fused elementwise kernel reads more than %d SymInt "
                 "operands", MAX_SYMS);
        return;
      }
      c->sym_of[c->n_syms] = v;
      c->sym_value[c->n_syms++] = cg_expr(g, v->sym);
    }
  }
}

LLVMValueRef cg_entry_array(cg *g, LLVMTypeRef elem, int n, const char *name) {
  LLVMBuilderRef entry = LLVMCreateBuilderInContext(g->C);
  LLVMBasicBlockRef first = LLVMGetEntryBasicBlock(g->fn);
  LLVMValueRef first_inst = LLVMGetFirstInstruction(first);
  if (first_inst) LLVMPositionBuilderBefore(entry, first_inst);
  else LLVMPositionBuilderAtEnd(entry, first);
  LLVMValueRef a = LLVMBuildArrayAlloca(entry, elem, cg_i64(g, n ? n : 1), name);
  LLVMDisposeBuilder(entry);
  return a;
}

/* The fused loop as a device kernel sc_ew_N(captured values as i64...): a grid-stride
 * loop over the output's elements; the host launches it over numel items.  How a kernel
 * is declared, reads its arguments and finds its thread is the device target's (gpu). */
static void emit_device_kernel(cg *g, ew_ctx *c, LLVMValueRef rows) {
  LLVMValueRef *slots[MAX_CAPTURED], saved[MAX_CAPTURED];
  int n = captured(c, slots);
  if (n * 8 > 4096) { /* what a kernel's parameters may hold at PTX 7.0 */
    cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, c->root->path, "a fused elementwise kernel would take %d bytes of "
             "arguments (%d leaves of rank %d); CUDA kernels take at most 4096", n * 8, c->n_leaves, c->rank);
    return;
  }
  /* host: the values and the kernelParams array pointing at them */
  LLVMValueRef values = cg_entry_array(g, g->i64, n, "kargs"), params = cg_entry_array(g, g->ptr, n, "kparams");
  for (int i = 0; i < n; i++) {
    LLVMValueRef v = *slots[i];
    LLVMTypeKind kind = LLVMGetTypeKind(LLVMTypeOf(v));
    if (kind == LLVMPointerTypeKind) v = LLVMBuildPtrToInt(g->B, v, g->i64, "pi");
    else if (LLVMTypeOf(v) != g->i64) v = LLVMBuildZExt(g->B, v, g->i64, "zi");
    LLVMValueRef idx[1] = {cg_i64(g, i)};
    LLVMValueRef at = LLVMBuildInBoundsGEP2(g->B, g->i64, values, idx, 1, "arg");
    LLVMBuildStore(g->B, v, at);
    LLVMBuildStore(g->B, at, LLVMBuildInBoundsGEP2(g->B, g->ptr, params, idx, 1, "param"));
  }
  LLVMValueRef total = LLVMBuildMul(g->B, rows, c->inner, "total");
  /* device: the kernel */
  char name[64];
  snprintf(name, sizeof name, "sc_ew_%d", g->n_kernels++);
  LLVMValueRef fn = g->gpu->kernel_declare(g, name, n);
  LLVMModuleRef host_module = g->M;
  LLVMValueRef host_fn = g->fn;
  LLVMBasicBlockRef resume = LLVMGetInsertBlock(g->B);
  g->M = g->DM;
  g->fn = fn;
  g->device = true;
  LLVMPositionBuilderAtEnd(g->B, LLVMAppendBasicBlockInContext(g->C, fn, "entry"));
  for (int i = 0; i < n; i++) {
    saved[i] = *slots[i];
    *slots[i] = g->gpu->kernel_arg(g, fn, i, LLVMTypeOf(saved[i]));
  }
  LLVMValueRef k_rows = cg_i64(g, 1);
  for (int d = 0; d < c->rank - 1; d++) k_rows = LLVMBuildMul(g->B, k_rows, c->out->dims[d], "rows");
  LLVMValueRef k_total = LLVMBuildMul(g->B, k_rows, c->inner, "total");
  LLVMValueRef start, step;
  g->gpu->kernel_threads(g, &start, &step);
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->B), head = cg_block(g, "elem"), done = cg_block(g, "done");
  LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, start, k_total, "any"), head, done);
  LLVMPositionBuilderAtEnd(g->B, head);
  LLVMValueRef e = LLVMBuildPhi(g->B, g->i64, "e");
  leaf_rows(g, c, LLVMBuildUDiv(g->B, e, c->inner, "o"));
  inner_body(g, LLVMBuildURem(g->B, e, c->inner, "j"), c);
  LLVMValueRef next = LLVMBuildAdd(g->B, e, step, "next");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(g->B);
  LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, next, k_total, "more"), head, done);
  LLVMValueRef in_vals[2] = {start, next};
  LLVMBasicBlockRef in_blocks[2] = {pre, latch};
  LLVMAddIncoming(e, in_vals, in_blocks, 2);
  LLVMPositionBuilderAtEnd(g->B, done);
  LLVMBuildRetVoid(g->B);
  for (int i = 0; i < n; i++) *slots[i] = saved[i];
  g->M = host_module;
  g->fn = host_fn;
  g->device = false;
  LLVMPositionBuilderAtEnd(g->B, resume);
  LLVMTypeRef lp[3] = {g->ptr, g->i64, g->ptr};
  LLVMValueRef la[3] = {cg_cstr(g, name), total, params};
  cg_call(g, "sc_cu_launch", g->voidt, lp, 3, la, 3, false);
}

/* The loop already built with the same body as `fn`, which is then deleted; else fn.
 * 2,000 ReLU layers build one loop, not 2,000 that LLVM would optimize and compile each.
 * The body's text is the key: it names no attribute group and no metadata, and globals
 * and callees by their names, unique in the module.  It is printed block by block:
 * printing a function walks every function's instructions for metadata (the entry being
 * built included), while printing a block walks only the module's lists and its own
 * function, so the cost per loop does not grow with the graph. */
static LLVMValueRef one_loop_per_body(cg *g, LLVMValueRef fn) {
  sc_strbuf body = {0};
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b)) {
    char *text = LLVMPrintValueToString(LLVMBasicBlockAsValue(b));
    sc_strbuf_append(&body, text);
    LLVMDisposeMessage(text);
  }
  const char *key = sc_strbuf_cstr(&body);
  LLVMValueRef same = sc_strmap_get(&g->loop_bodies, key);
  if (same) LLVMDeleteFunction(fn);
  else sc_strmap_put(&g->loop_bodies, sc_arena_strdup(&g->ctx->arena, key), fn);
  sc_strbuf_free(&body);
  return same ? same : fn;
}

/* The row loop as a function `loop(ctx, begin, end)` reading the captured values from ctx;
 * `stream`: the streaming variant (stream_row); where its stores go past the caches
 * (AVX-512) it is fenced before it returns, since streaming stores are weakly ordered. */
static LLVMValueRef outline_rows(cg *g, ew_ctx *c, bool stream) {
  LLVMValueRef *slots[MAX_CAPTURED], saved[MAX_CAPTURED];
  int n = captured(c, slots);
  char name[64];
  snprintf(name, sizeof name, "sc_loop_%d", g->n_loops++);
  LLVMTypeRef params[3] = {g->ptr, g->i64, g->i64};
  LLVMTypeRef fnty = LLVMFunctionType(g->voidt, params, 3, 0);
  LLVMValueRef fn = LLVMAddFunction(g->M, name, fnty);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  if (cg_has_avx512(g)) {
    /* LLVM keeps to 256-bit vectors on AVX-512 CPUs unless told; compute-bound loops (an
     * inline erf per element) run twice the lanes with 512 */
    LLVMAttributeRef wide = LLVMCreateStringAttribute(g->C, "prefer-vector-width", 19, "512", 3);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, wide);
  }
  if (stream) {
    LLVMAttributeRef mark = LLVMCreateStringAttribute(g->C, CG_STREAM_ATTR, (unsigned)strlen(CG_STREAM_ATTR), "", 0);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, mark);
  }
  LLVMValueRef outer_fn = g->fn;
  LLVMBasicBlockRef resume = LLVMGetInsertBlock(g->B);
  g->fn = fn;
  LLVMPositionBuilderAtEnd(g->B, LLVMAppendBasicBlockInContext(g->C, fn, "entry"));
  LLVMValueRef arg_ctx = LLVMGetParam(fn, 0);
  for (int i = 0; i < n; i++) {
    saved[i] = *slots[i];
    /* a constant (a static dim, a leaf's stride 0 where it broadcasts) stays one in the
     * loop: loaded from the context, a broadcast column's stride 0 made [256, 4096] +
     * [256, 1] a scalar loop of strided loads (3.7x torch's time) */
    if (LLVMIsConstant(saved[i])) continue;
    LLVMValueRef idx[1] = {cg_i64(g, i)};
    LLVMValueRef v = LLVMBuildLoad2(g->B, g->i64, LLVMBuildInBoundsGEP2(g->B, g->i64, arg_ctx, idx, 1, "slot"), "cap");
    if (LLVMGetTypeKind(LLVMTypeOf(saved[i])) == LLVMPointerTypeKind) v = LLVMBuildIntToPtr(g->B, v, g->ptr, "ip");
    *slots[i] = v;
  }
  c->stream = stream;
  cg_loop_range(g, LLVMGetParam(fn, 1), LLVMGetParam(fn, 2), outer_body, c);
  c->stream = false;
  if (stream && cg_has_avx512(g)) cg_call(g, "llvm.x86.sse.sfence", g->voidt, NULL, 0, NULL, 0, false);
  LLVMBuildRetVoid(g->B);
  for (int i = 0; i < n; i++) *slots[i] = saved[i];
  g->fn = outer_fn;
  LLVMPositionBuilderAtEnd(g->B, resume);
  return one_loop_per_body(g, fn);
}

/* Outputs from this size on take the streaming variant (stream_row).  Where the CPU has
 * 64-byte streaming stores (AVX-512) they go past the caches: written through them, each
 * line is first read (a third of the traffic).  Measured with the chain on the Xeon VM,
 * one core: 32 MB 5.1 -> 3.6 ms, 64 MB 11.5 -> 10.0 ms; at 16 MB and below it was even or
 * slower (the output still fits in the last-level cache, and its consumer would read it
 * from memory instead).  Rows shorter than a block are left alone: their lines are mostly
 * partial. */
enum { STREAM_MIN_BYTES = 32 << 20 };

/* Whether the CPU has AVX2: there the streaming variant keeps ordinary stores (32-byte
 * streaming stores were slower, docs/benchmarks.md), and its segments and prefetches
 * alone pay: the chain at 64 MB held to AVX2, one core, 12.2-13.6 -> 11.1-11.7 ms. */
static bool has_avx2(const cg *g) { return !g->cuda && g->cpu_features && strstr(g->cpu_features, "avx2"); }

/* Whether the loop writing `bytes` in rows of `inner` elements streams its output: true or
 * false where both are static, else a runtime condition (*when). */
static bool stream_choice(cg *g, LLVMValueRef bytes, LLVMValueRef inner, LLVMValueRef *when) {
  *when = NULL;
  if (!has_avx2(g)) return false;
  bool big_known = LLVMIsAConstantInt(bytes), long_known = LLVMIsAConstantInt(inner);
  if (big_known && LLVMConstIntGetSExtValue(bytes) < STREAM_MIN_BYTES) return false;
  if (long_known && LLVMConstIntGetSExtValue(inner) < STREAM_BLOCK) return false;
  if (big_known && long_known) return true;
  LLVMValueRef big = LLVMBuildICmp(g->B, LLVMIntSGE, bytes, cg_i64(g, STREAM_MIN_BYTES), "big");
  LLVMValueRef rows_long = LLVMBuildICmp(g->B, LLVMIntSGE, inner, cg_i64(g, STREAM_BLOCK), "long");
  *when = LLVMBuildAnd(g->B, big, rows_long, "stream");
  return true;
}

/* With many inputs, one context for all of the function's loops, as large as the largest
 * (a loop's context is dead once sc_rt_parallel_for returns): a context per loop was 1.7 MB
 * of stack for the 3,000 loops of a program with 100,000 inputs. */
static LLVMValueRef shared_loop_context(cg *g, int n) {
  if (g->loop_ctx_fn != g->fn) {
    g->loop_ctx = cg_entry_array(g, g->i64, n, "loop.ctx");
    g->loop_ctx_fn = g->fn;
    g->loop_ctx_n = n;
  } else if (n > g->loop_ctx_n) {
    LLVMSetOperand(g->loop_ctx, 0, cg_i64(g, n));
    g->loop_ctx_n = n;
  }
  return g->loop_ctx;
}

/* Moves the row loop into its own function and hands it to the runtime's thread pool.
 * Small tensors run on the calling thread (the pool decides from the minimum chunk, about
 * 16K elements).  Large outputs on AVX2 and AVX-512 CPUs take the streaming variant,
 * chosen per call from the output's size where the shape is dynamic. */
static void emit_parallel_rows(cg *g, ew_ctx *c, LLVMValueRef rows) {
  LLVMValueRef *slots[MAX_CAPTURED];
  int n = captured(c, slots);
  /* the context lives in the entry block's frame: one slot per captured value */
  LLVMValueRef ctx = g->many_inputs ? shared_loop_context(g, n) : cg_entry_array(g, g->i64, n, "loop.ctx");
  for (int i = 0; i < n; i++) {
    LLVMValueRef v = *slots[i];
    if (g->many_inputs && LLVMIsConstant(v)) continue; /* the loop has it as a constant (outline_rows) */
    if (LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMPointerTypeKind) v = LLVMBuildPtrToInt(g->B, v, g->i64, "pi");
    LLVMValueRef idx[1] = {cg_i64(g, i)};
    LLVMBuildStore(g->B, v, LLVMBuildInBoundsGEP2(g->B, g->i64, ctx, idx, 1, "slot"));
  }
  LLVMValueRef bytes = LLVMBuildMul(g->B, c->out->numel, cg_elem_size(g, c->out->v->meta.dtype), "bytes");
  LLVMValueRef when, fn;
  if (c->flat || !stream_choice(g, bytes, c->inner, &when)) fn = outline_rows(g, c, false);
  else if (!when) fn = outline_rows(g, c, true);
  else {
    LLVMValueRef cached = outline_rows(g, c, false), streamed = outline_rows(g, c, true);
    fn = LLVMBuildSelect(g->B, when, streamed, cached, "loop");
  }
  /* at least ~16K elements a chunk: below that the hand-off costs more than it saves */
  LLVMValueRef inner = LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntSGT, c->inner, cg_i64(g, 0), "pos"), c->inner,
                                       cg_i64(g, 1), "inner1");
  LLVMValueRef min_rows = LLVMBuildAdd(g->B, LLVMBuildSDiv(g->B, cg_i64(g, 16384), inner, "mr"), cg_i64(g, 1), "minrows");
  LLVMTypeRef pf_params[4] = {g->ptr, g->ptr, g->i64, g->i64};
  LLVMValueRef pf_args[4] = {fn, ctx, rows, min_rows};
  cg_call(g, "sc_rt_parallel_for", g->voidt, pf_params, 4, pf_args, 4, 0);
}

bool cg_emit_elementwise(cg *g, const sc_node *n) {
  cg_value *out = cg_get(g, out_value(n));
  cg_value *into = g->folded ? g->folded[n - g->p->graph->nodes].into : NULL;
  if (into) { /* computed by the kernel before it (cg_fold.c, cg_epilogue.c): the same buffer */
    cg_set_dims(g, out);
    out->data = into->data;
    cg_note_alias(g, out, into);
    out->ready = true;
    return true;
  }
  if (!cg_llvm_type(g, out->v->meta.dtype))
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s on %s has no CPU lowering", n->target,
                    sc_dtype_name(out->v->meta.dtype));
  cg_set_dims(g, out);
  if (out->inlined) {
    out->ready = true; /* computed inside its consumer's loop */
    return true;
  }
  out->data = cg_alloc_buffer(g, out, LLVMBuildMul(g->B, out->numel, cg_elem_size(g, out->v->meta.dtype), "bytes"));
  ew_ctx c = {.root = n, .out = out, .rank = out->v->meta.rank};
  collect_leaves(g, &c, n);
  c.inner = c.rank ? out->dims[c.rank - 1] : cg_i64(g, 1);
  c.numel = out->numel;
  LLVMValueRef rows = cg_i64(g, 1);
  for (int d = 0; d < c.rank - 1; d++) rows = LLVMBuildMul(g->B, rows, out->dims[d], "rows");
  if (!g->cuda && flat_rows(&c)) {
    c.flat = true;
    c.inner = cg_i64(g, FLAT_ROW);
    rows = LLVMBuildUDiv(g->B, LLVMBuildAdd(g->B, c.numel, cg_i64(g, FLAT_ROW - 1), "up"), c.inner, "rows");
  }
  /* rows * inner == numel; zero-size tensors skip both loops */
  if (g->cuda) {
    collect_syms(g, &c, n);
    emit_device_kernel(g, &c, rows);
  } else if (tree_reads_symbols(g, n)) cg_loop(g, rows, outer_body, &c);
  else emit_parallel_rows(g, &c, rows);
  out->ready = true;
  return !g->failed;
}
