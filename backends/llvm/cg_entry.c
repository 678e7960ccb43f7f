/* cg_entry.c - the library's entry points: metadata getters, the guard checks that run
 * before any data is touched (prepare), shapec_model_output_shapes and shapec_model_run
 * with its workspace, freed on every exit path. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower.h"
#include "runtime_abi.h"

void cg_dl_dtype(sc_dtype dt, int *code, int *bits) {
  switch (dt) {
    case SC_DTYPE_F32: *code = 2, *bits = 32; return;
    case SC_DTYPE_F64: *code = 2, *bits = 64; return;
    case SC_DTYPE_F16: *code = 2, *bits = 16; return;
    case SC_DTYPE_BF16: *code = 4, *bits = 16; return;
    case SC_DTYPE_I64: *code = 0, *bits = 64; return;
    case SC_DTYPE_I32: *code = 0, *bits = 32; return;
    case SC_DTYPE_I16: *code = 0, *bits = 16; return;
    case SC_DTYPE_I8: *code = 0, *bits = 8; return;
    case SC_DTYPE_U8: *code = 1, *bits = 8; return;
    case SC_DTYPE_BOOL: *code = 6, *bits = 8; return;
    default: *code = 255, *bits = 0; return;
  }
}

LLVMValueRef cg_elem_size(cg *g, sc_dtype dt) { return cg_i64(g, (int64_t)sc_dtype_size(dt)); }

bool cg_has_avx512(const cg *g) { return !g->cuda && g->cpu_features && strstr(g->cpu_features, "avx512f"); }

cg_value *cg_get(cg *g, const sc_value *v) {
  cg_value *cv = sc_strmap_get(&g->values, v->name);
  if (!cv) {
    cv = sc_arena_alloc(&g->ctx->arena, sizeof *cv);
    cv->v = v;
    sc_strmap_put(&g->values, v->name, cv);
  }
  return cv;
}

/* Whether v is the constant c. */
static bool is_const(LLVMValueRef v, int64_t c) {
  return LLVMIsAConstantInt(v) && LLVMConstIntGetSExtValue(v) == c;
}

void cg_set_dims(cg *g, cg_value *cv) {
  LLVMValueRef n = cg_i64(g, 1);
  for (int k = 0; k < cv->v->meta.rank; k++) {
    cv->dims[k] = cg_expr(g, cv->v->shape[k]);
    /* products that need no check: by 1, and of two constants that fit (a large graph's
     * entry function is mostly these checks, and each costs its code generation) */
    int64_t folded;
    if (is_const(n, 1) || is_const(cv->dims[k], 1)) {
      n = is_const(n, 1) ? cv->dims[k] : n;
      continue;
    }
    if (LLVMIsAConstantInt(n) && LLVMIsAConstantInt(cv->dims[k]) &&
        !__builtin_mul_overflow(LLVMConstIntGetSExtValue(n), LLVMConstIntGetSExtValue(cv->dims[k]), &folded)) {
      n = cg_i64(g, folded);
      continue;
    }
    LLVMValueRef args[2] = {n, cv->dims[k]};
    unsigned id = LLVMLookupIntrinsicID("llvm.smul.with.overflow", 23);
    LLVMTypeRef over[1] = {g->i64};
    LLVMValueRef r = LLVMBuildCall2(g->B, LLVMIntrinsicGetType(g->C, id, over, 1),
                                    LLVMGetIntrinsicDeclaration(g->M, id, over, 1), args, 2, "numel");
    cg_fail_msg_if(g, LLVMBuildExtractValue(g->B, r, 1, "o"), "a tensor size overflows int64 for these input sizes",
                   NULL, 0);
    n = LLVMBuildExtractValue(g->B, r, 0, "n");
  }
  /* its bytes must fit as well: buffers are numel * element size */
  int64_t esize = (int64_t)sc_dtype_size(cv->v->meta.dtype);
  bool fits = LLVMIsAConstantInt(n) && LLVMConstIntGetSExtValue(n) <= INT64_MAX / esize;
  if (cv->v->meta.rank && esize > 1 && !fits)
    cg_fail_msg_if(g, LLVMBuildICmp(g->B, LLVMIntSGT, n, cg_i64(g, INT64_MAX / esize), "big"),
                   "a tensor size overflows int64 for these input sizes", NULL, 0);
  cv->numel = n;
}

static LLVMValueRef alloc_buffer(cg *g, cg_value *owner, LLVMValueRef bytes);

LLVMValueRef cg_alloc_buffer(cg *g, cg_value *owner, LLVMValueRef bytes) {
  /* a graph output goes straight into the caller's tensor when it overlaps no input */
  LLVMBasicBlockRef placed_bb = NULL, alloc_bb = NULL;
  if (owner->out_direct && !g->cuda) {
    placed_bb = LLVMGetInsertBlock(g->B);
    alloc_bb = cg_block(g, "alloc");
    LLVMBasicBlockRef join = cg_block(g, "placed");
    LLVMBuildCondBr(g->B, owner->out_direct, join, alloc_bb);
    LLVMPositionBuilderAtEnd(g->B, alloc_bb);
    LLVMValueRef p = alloc_buffer(g, owner, bytes);
    LLVMBasicBlockRef from = LLVMGetInsertBlock(g->B);
    LLVMBuildBr(g->B, join);
    LLVMPositionBuilderAtEnd(g->B, join);
    LLVMValueRef phi = LLVMBuildPhi(g->B, g->ptr, "data");
    LLVMValueRef vals[2] = {owner->out_dst, p};
    LLVMBasicBlockRef bbs[2] = {placed_bb, from};
    LLVMAddIncoming(phi, vals, bbs, 2);
    owner->placed = true;
    return phi;
  }
  return alloc_buffer(g, owner, bytes);
}

/* A buffer for owner's elements: on the CPU, a region of the planned workspace
 * (cg_workspace.c); on the device, a slot that the exit frees. */
static LLVMValueRef alloc_buffer(cg *g, cg_value *owner, LLVMValueRef bytes) {
  LLVMValueRef p;
  /* the CUDA allocator records why it failed (out of memory, or an earlier error) */
  if (g->cuda) {
    LLVMTypeRef params[1] = {g->i64};
    LLVMValueRef args[1] = {bytes};
    p = cg_call(g, "sc_rt_alloc", g->ptr, params, 1, args, 1, false);
    cg_fail_if(g, LLVMBuildIsNull(g->B, p, "oom"), cg_call(g, "sc_cu_status", g->i32, NULL, 0, NULL, 0, false));
    owner->slot = g->n_buffers++;
    LLVMValueRef idx[1] = {cg_i64(g, owner->slot)};
    LLVMBuildStore(g->B, p, LLVMBuildGEP2(g->B, g->ptr, g->buffers, idx, 1, "slot"));
  } else {
    p = cg_workspace_take(g, owner, bytes);
    LLVMBasicBlockRef fail = cg_block(g, "oom"), ok = cg_block(g, "allocated");
    LLVMBuildCondBr(g->B, LLVMBuildIsNull(g->B, p, "null"), fail, ok);
    LLVMPositionBuilderAtEnd(g->B, fail);
    LLVMTypeRef fp[3] = {g->ptr, g->i64, g->i64};
    LLVMValueRef fa[3] = {g->err, g->errlen, bytes};
    LLVMBuildStore(g->B, cg_call(g, "sc_rt_fail_memory", g->i32, fp, 3, fa, 3, false), g->rc_slot);
    LLVMBuildBr(g->B, g->exit_bb);
    LLVMPositionBuilderAtEnd(g->B, ok);
  }
  owner->owner = owner;
  owner->free_after = owner->last_use > g->node ? owner->last_use : g->node;
  g->owners = sc_xrealloc(g->owners, (size_t)(g->n_owners + 1) * sizeof *g->owners);
  g->owners[g->n_owners++] = owner;
  return p;
}

/* Opens a function with a return-code slot and an exit block that returns it. */
static void begin_function(cg *g, LLVMValueRef fn, LLVMValueRef err, LLVMValueRef errlen) {
  g->fn = fn;
  g->loop_ctx_fn = NULL;
  g->err = err;
  g->errlen = errlen;
  LLVMPositionBuilderAtEnd(g->B, LLVMAppendBasicBlockInContext(g->C, fn, "entry"));
  g->rc_slot = LLVMBuildAlloca(g->B, g->i32, "rc");
  LLVMBuildStore(g->B, LLVMConstInt(g->i32, 0, 0), g->rc_slot);
  g->exit_bb = LLVMAppendBasicBlockInContext(g->C, fn, "exit");
}

static LLVMValueRef tensor_field(cg *g, LLVMValueRef array, int index, unsigned field, LLVMTypeRef type) {
  LLVMValueRef idx[1] = {cg_i64(g, index)};
  LLVMValueRef t = LLVMBuildGEP2(g->B, g->tensor_t, array, idx, 1, "t");
  return LLVMBuildLoad2(g->B, type, LLVMBuildStructGEP2(g->B, g->tensor_t, t, field, "f"), "field");
}

static LLVMValueRef tensor_ptr(cg *g, LLVMValueRef array, int index) {
  LLVMValueRef idx[1] = {cg_i64(g, index)};
  return LLVMBuildGEP2(g->B, g->tensor_t, array, idx, 1, "t");
}

/* Ends the current block with a branch to `join` and returns, there, `value` when the
 * branch came from here and false when it came from `skipped`. */
static LLVMValueRef false_unless(cg *g, LLVMBasicBlockRef skipped, LLVMValueRef value, LLVMBasicBlockRef join) {
  LLVMBasicBlockRef computed = LLVMGetInsertBlock(g->B);
  LLVMBuildBr(g->B, join);
  LLVMPositionBuilderAtEnd(g->B, join);
  LLVMValueRef phi = LLVMBuildPhi(g->B, g->i1, "either");
  LLVMValueRef vals[2] = {LLVMConstInt(g->i1, 0, 0), value};
  LLVMBasicBlockRef from[2] = {skipped, computed};
  LLVMAddIncoming(phi, vals, from, 2);
  return phi;
}

/* Whether data + tp's byte_offset, and `bytes` after it, stay inside the address space
 * (an offset of 2^64 - 4 would read the 4 bytes before data), the offset at most 2^63 - 1:
 * sc_rt_check_tensor's check on a compact tensor. */
static LLVMValueRef offset_fits(cg *g, LLVMValueRef tp, LLVMValueRef data, LLVMValueRef bytes) {
  LLVMValueRef off = LLVMBuildLoad2(g->B, g->i64, LLVMBuildStructGEP2(g->B, g->tensor_t, tp, 6, "bo"), "byte_offset");
  unsigned id = LLVMLookupIntrinsicID("llvm.uadd.with.overflow", 23);
  LLVMTypeRef over[1] = {g->i64};
  LLVMTypeRef add_type = LLVMIntrinsicGetType(g->C, id, over, 1);
  LLVMValueRef add = LLVMGetIntrinsicDeclaration(g->M, id, over, 1);
  LLVMValueRef a1[2] = {LLVMBuildPtrToInt(g->B, data, g->i64, "base"), off};
  LLVMValueRef first = LLVMBuildCall2(g->B, add_type, add, a1, 2, "first");
  LLVMValueRef a2[2] = {LLVMBuildExtractValue(g->B, first, 0, "at"), bytes};
  LLVMValueRef end = LLVMBuildCall2(g->B, add_type, add, a2, 2, "end");
  LLVMValueRef wraps = LLVMBuildOr(g->B, LLVMBuildExtractValue(g->B, first, 1, "o1"), LLVMBuildExtractValue(g->B, end, 1, "o2"),
                                   "wraps");
  return LLVMBuildAnd(g->B, LLVMBuildNot(g->B, wraps, "inside"), LLVMBuildICmp(g->B, LLVMIntSGE, off, cg_i64(g, 0), "small"),
                      "fits");
}

/* Whether tensor tp is plainly what sc_rt_check_tensor accepts: the device, rank and dtype
 * the model needs, no strides (compact), sizes at least 0 whose product and bytes fit in
 * int64, data unless it is empty, and a byte_offset that does not wrap.  Inline, since the
 * call cost a tiny model's run more than its arithmetic; anything else (strides given, or a
 * fault to explain) goes to the call. */
static LLVMValueRef plainly_fine(cg *g, LLVMValueRef tp, int code, int bits, int rank) {
  LLVMValueRef device = LLVMBuildLoad2(g->B, g->i32, LLVMBuildStructGEP2(g->B, g->tensor_t, tp, 1, "dev"), "device");
  LLVMValueRef ndim = LLVMBuildLoad2(g->B, g->i32, LLVMBuildStructGEP2(g->B, g->tensor_t, tp, 2, "nd"), "ndim");
  /* {code, bits, lanes} as one little-endian int */
  LLVMValueRef kind = LLVMBuildLoad2(g->B, g->i32, LLVMBuildStructGEP2(g->B, g->tensor_t, tp, 3, "dt"), "dtype");
  LLVMValueRef strides = LLVMBuildLoad2(g->B, g->ptr, LLVMBuildStructGEP2(g->B, g->tensor_t, tp, 5, "st"), "strides");
  unsigned want_kind = (unsigned)code | (unsigned)bits << 8 | 1u << 16;
  LLVMValueRef ok = LLVMBuildAnd(g->B, LLVMBuildICmp(g->B, LLVMIntEQ, device, LLVMConstInt(g->i32, g->cuda ? 2 : 1, 0), "d"),
                                 LLVMBuildICmp(g->B, LLVMIntEQ, ndim, LLVMConstInt(g->i32, (unsigned)rank, 0), "n"), "ok");
  ok = LLVMBuildAnd(g->B, ok, LLVMBuildICmp(g->B, LLVMIntEQ, kind, LLVMConstInt(g->i32, want_kind, 0), "k"), "ok");
  ok = LLVMBuildAnd(g->B, ok, LLVMBuildIsNull(g->B, strides, "compact"), "ok");
  int64_t esize = bits / 8 ? bits / 8 : 1;
  if (rank == 0) { /* one element: it must be there */
    LLVMValueRef data = LLVMBuildLoad2(g->B, g->ptr, LLVMBuildStructGEP2(g->B, g->tensor_t, tp, 0, "da"), "data");
    ok = LLVMBuildAnd(g->B, ok, LLVMBuildIsNotNull(g->B, data, "data"), "ok");
    return LLVMBuildAnd(g->B, ok, offset_fits(g, tp, data, cg_i64(g, esize)), "ok");
  }
  LLVMBasicBlockRef sizes = cg_block(g, "sizes"), from = LLVMGetInsertBlock(g->B), after = cg_block(g, "checked");
  LLVMValueRef shape = LLVMBuildLoad2(g->B, g->ptr, LLVMBuildStructGEP2(g->B, g->tensor_t, tp, 4, "sh"), "shape");
  LLVMBuildCondBr(g->B, LLVMBuildAnd(g->B, ok, LLVMBuildIsNotNull(g->B, shape, "has"), "ok"), sizes, after);
  LLVMPositionBuilderAtEnd(g->B, sizes);
  unsigned id = LLVMLookupIntrinsicID("llvm.smul.with.overflow", 23);
  LLVMTypeRef over[1] = {g->i64};
  LLVMTypeRef mul_type = LLVMIntrinsicGetType(g->C, id, over, 1);
  LLVMValueRef mul = LLVMGetIntrinsicDeclaration(g->M, id, over, 1), numel = cg_i64(g, 1), fits = LLVMConstInt(g->i1, 1, 0);
  for (int d = 0; d < rank; d++) {
    LLVMValueRef idx[1] = {cg_i64(g, d)};
    LLVMValueRef size = LLVMBuildLoad2(g->B, g->i64, LLVMBuildGEP2(g->B, g->i64, shape, idx, 1, "dp"), "size");
    /* the call's order: each partial product must fit (a later 0 does not excuse it) */
    LLVMValueRef args[2] = {numel, size};
    LLVMValueRef r = LLVMBuildCall2(g->B, mul_type, mul, args, 2, "numel");
    fits = LLVMBuildAnd(g->B, fits, LLVMBuildNot(g->B, LLVMBuildExtractValue(g->B, r, 1, "o"), "no"), "fits");
    fits = LLVMBuildAnd(g->B, fits, LLVMBuildICmp(g->B, LLVMIntSGE, size, cg_i64(g, 0), "pos"), "fits");
    numel = LLVMBuildExtractValue(g->B, r, 0, "n");
  }
  fits = LLVMBuildAnd(g->B, fits, LLVMBuildICmp(g->B, LLVMIntULE, numel, cg_i64(g, INT64_MAX / esize), "bytes"), "fits");
  LLVMValueRef data = LLVMBuildLoad2(g->B, g->ptr, LLVMBuildStructGEP2(g->B, g->tensor_t, tp, 0, "da"), "data");
  LLVMValueRef has_data = LLVMBuildOr(g->B, LLVMBuildIsNotNull(g->B, data, "data"),
                                      LLVMBuildICmp(g->B, LLVMIntEQ, numel, cg_i64(g, 0), "empty"), "has");
  fits = LLVMBuildAnd(g->B, fits, has_data, "fits");
  fits = LLVMBuildAnd(g->B, fits, offset_fits(g, tp, data, LLVMBuildMul(g->B, numel, cg_i64(g, esize), "nbytes")), "fits");
  return false_unless(g, from, fits, after);
}

/* Fails the call unless tensor tp is what the model needs (sc_rt_check_tensor's checks and
 * message); the plain case is checked inline, the call made only for the rest. */
static void check_tensor(cg *g, LLVMValueRef tp, const char *what, sc_dtype dtype, int rank, bool strided_ok) {
  int code, bits;
  cg_dl_dtype(dtype, &code, &bits);
  LLVMBasicBlockRef inspect = cg_block(g, "inspect"), slow = cg_block(g, "check_call"), fine = cg_block(g, "fine");
  LLVMBuildCondBr(g->B, LLVMBuildIsNull(g->B, tp, "none"), slow, inspect);
  LLVMPositionBuilderAtEnd(g->B, inspect);
  LLVMBuildCondBr(g->B, plainly_fine(g, tp, code, bits, rank), fine, slow);
  LLVMPositionBuilderAtEnd(g->B, slow);
  LLVMTypeRef params[9] = {g->ptr, g->ptr, g->i32, g->i32, g->i32, g->i32, g->i32, g->ptr, g->i64};
  LLVMValueRef args[9] = {tp, cg_cstr(g, what), LLVMConstInt(g->i32, g->cuda ? 2 : 1, 0),
                          LLVMConstInt(g->i32, (unsigned)rank, 0), LLVMConstInt(g->i32, (unsigned)code, 0),
                          LLVMConstInt(g->i32, (unsigned)bits, 0), LLVMConstInt(g->i32, strided_ok, 0), g->err, g->errlen};
  LLVMValueRef rc = cg_call(g, "sc_rt_check_tensor", g->i32, params, 9, args, 9, false);
  cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "bad"), rc);
  LLVMBuildBr(g->B, fine);
  LLVMPositionBuilderAtEnd(g->B, fine);
}

/* Whether the program writes back to this user input (user_input_mutation). */
static bool user_input_mutated(cg *g, const sc_input_spec *s) {
  for (size_t k = 0; k < g->p->n_mutations; k++)
    if (g->p->mutations[k].kind == SC_MUTATE_USER_INPUT && s->target && strcmp(g->p->mutations[k].target, s->target) == 0)
      return true;
  return false;
}

static const char *range_text(cg *g, sc_range_iv r) {
  sc_strbuf sb = {0};
  sc_iv_print(&sb, r);
  const char *text = sc_arena_strdup(&g->ctx->arena, sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return text;
}

/* Binds symbol s to value d, checking its range.  d read from an input size of a*s + b
 * (dim_source; NULL: d is the size itself): torch's words name the bound on that size
 * (Guard failed: x.size()[0] <= 8 for r <= 7 of r + 1, test/diff p90009). */
/* Checks held back until torch's own have run (a derived Dim's root: see emit_prepare). */
typedef struct late_checks {
  struct late_check {
    LLVMValueRef bad, size;
    const char *fmt;
  } *items;
  int n, cap;
} late_checks;

static void fail_now_or_later(cg *g, late_checks *late, LLVMValueRef bad, const char *fmt, LLVMValueRef size) {
  if (late && late->n < late->cap) {
    late->items[late->n++] = (struct late_check){bad, size, sc_arena_strdup(&g->ctx->arena, fmt)};
    return;
  }
  LLVMValueRef args[1] = {size};
  cg_fail_msg_if(g, bad, fmt, args, 1);
}

static void bind_symbol(cg *g, int s, LLVMValueRef d, const char *source, const char *dim_source, int64_t a,
                        int64_t b, late_checks *late) {
  const sc_symbol *sym = &g->a->env.symbols[s];
  LLVMValueRef idx[1] = {cg_i64(g, s)};
  LLVMBuildStore(g->B, d, LLVMBuildGEP2(g->B, g->i64, g->syms, idx, 1, "symp"));
  /* the range the report states: a named Dim declared from 0 or 1 accepts those sizes, as
   * torch.export's range_constraints do (the analysis itself reasons from 2 up) */
  sc_range_iv r = sc_analysis_checked_range(sym);
  /* torch's module names the failed bound (Guard failed: x.size()[0] <= 100); shapec adds
   * the size it got and the symbol the bound belongs to */
  char fmt[640];
  int64_t on_dim;
  if (r.lo != SC_NEG_INT_OO) {
    bool over_dim = dim_source && !__builtin_mul_overflow(a, r.lo, &on_dim) && !__builtin_add_overflow(on_dim, b, &on_dim);
    snprintf(fmt, sizeof fmt, "Guard failed: %s >= %lld (%s = %%lld is less than %lld, the least %s can be)",
             over_dim ? dim_source : source, (long long)(over_dim ? on_dim : r.lo), source, (long long)r.lo, sym->name);
    fail_now_or_later(g, late, LLVMBuildICmp(g->B, LLVMIntSLT, d, cg_i64(g, r.lo), "lo"), fmt, d);
  }
  if (r.hi != SC_INT_OO) {
    bool over_dim = dim_source && !__builtin_mul_overflow(a, r.hi, &on_dim) && !__builtin_add_overflow(on_dim, b, &on_dim);
    snprintf(fmt, sizeof fmt, "Guard failed: %s <= %lld (%s = %%lld is more than %lld, the most %s can be)",
             over_dim ? dim_source : source, (long long)(over_dim ? on_dim : r.hi), source, (long long)r.hi, sym->name);
    fail_now_or_later(g, late, LLVMBuildICmp(g->B, LLVMIntSGT, d, cg_i64(g, r.hi), "hi"), fmt, d);
  }
}

/* Whether arg refers to v (a subgraph counts as reading everything). */
static bool arg_reads(const sc_arg *a, const sc_value *v) {
  if (a->kind == SC_ARG_GRAPH) return true;
  for (size_t i = 0; a->items && i < a->n_items; i++)
    if (a->items[i].value == v) return true;
  for (size_t i = 0; a->lists && i < a->n_items; i++)
    if (arg_reads(&a->lists[i], v)) return true;
  return false;
}

static bool value_read(const sc_program *p, const sc_value *v) {
  const sc_graph *graph = p->graph;
  for (size_t i = 0; i < graph->n_nodes; i++)
    for (size_t k = 0; k < graph->nodes[i].n_inputs; k++)
      if (arg_reads(&graph->nodes[i].inputs[k].arg, v)) return true;
  for (size_t i = 0; i < p->n_output_specs; i++)
    if (arg_reads(&p->output_specs[i].arg, v)) return true;
  for (size_t i = 0; i < p->n_mutations; i++)
    if (arg_reads(&p->mutations[i].arg, v)) return true;
  return false;
}

static bool mentions(const sc_expr *e, const char *name) {
  const char *names[16];
  int n = sc_expr_symbols(e, names, 16);
  if (n > 16) return true;
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0) return true;
  return false;
}

/* Whether symbol name's value is never computed with: only the sizes of inputs the program
 * never reads hold it, and no check on the call names it.  ep.module() solves such a root
 * by truncation and runs any size (y of 7 rows for 2*r, test/diff p103317); the library
 * then need not ask that the size be a whole multiple. */
static bool root_unread(cg *g, const char *name) {
  const sc_dynspec *spec = g->a->spec;
  for (size_t i = 0; spec && i < spec->n_inputs; i++) {
    const sc_value *v = spec->inputs[i].value;
    if (!v || !v->shape) continue;
    for (int k = 0; k < v->meta.rank; k++)
      if (mentions(v->shape[k], name) && value_read(g->p, v)) return false;
  }
  const sc_graph *graph = g->p->graph;
  for (size_t i = 0; i < graph->n_nodes; i++)
    for (size_t o = 0; o < graph->nodes[i].n_outputs; o++)
      for (size_t j = 0; j < graph->nodes[i].outputs[o].n_items; j++) {
        const sc_value *v = graph->nodes[i].outputs[o].items[j].value;
        if (!v) continue;
        if (v->sym && mentions(v->sym, name)) return false;
        for (int k = 0; v->shape && k < v->meta.rank; k++)
          if (mentions(v->shape[k], name)) return false;
      }
  for (size_t i = 0; i < g->a->env.n_guards; i++) {
    const sc_guard *gd = &g->a->env.guards[i];
    /* the file's range of a derived size restates what emit_derived_range checks on the
     * size itself */
    bool restated = gd->prov.rule && strcmp(gd->prov.rule, "range_constraints") == 0;
    if ((gd->outcome == SC_GUARD_INPUT || gd->outcome == SC_GUARD_RUNTIME_ASSERT) && !restated && mentions(gd->expr, name))
      return false;
  }
  return true;
}

/* A root below 0 (its untraced floor: x: [r + 1] of 0 rows) makes every size of the
 * program that holds it computable but not necessarily a size: each is checked to be at
 * least 0 before the run, so that no kernel sees a negative extent.  torch's tracing
 * assumed sizes from 2; its eager kernels refuse such a size too. */
static const char *percent_escaped(cg *g, const char *text);

static void emit_sizes_not_negative(cg *g, const bool *bound) {
  const sc_shape_env *env = &g->a->env;
  bool any = false;
  for (size_t i = 0; i < env->n_symbols && !any; i++) any = env->symbols[i].untraced_lo < 0;
  if (!any) return;
  const sc_graph *graph = g->p->graph;
  const sc_expr **done = NULL;
  size_t n_done = 0, cap = 0;
  for (size_t i = 0; i < graph->n_nodes; i++) {
    const sc_node *n = &graph->nodes[i];
    for (size_t o = 0; o < n->n_outputs; o++)
      for (size_t j = 0; j < n->outputs[o].n_items; j++) {
        const sc_value *v = n->outputs[o].items[j].value;
        if (!v || v->kind != SC_VALUE_TENSOR || !v->shape) continue;
        for (int k = 0; k < v->meta.rank; k++) {
          const sc_expr *e = v->shape[k];
          const char *names[16];
          int ns = sc_expr_symbols(e, names, 16), below = 0, ready = ns <= 16;
          for (int m = 0; m < ns && m < 16; m++) {
            int s = cg_symbol_index(g, names[m]);
            if (s < 0 || !bound[s]) ready = 0;
            else below |= env->symbols[s].untraced_lo < 0;
          }
          bool again = false;
          for (size_t m = 0; m < n_done && !again; m++) again = done[m] == e;
          if (!ready || !below || again) continue;
          if (n_done == cap) {
            cap = cap ? 2 * cap : 16;
            const sc_expr **grown = sc_arena_alloc(&g->ctx->arena, cap * sizeof *grown);
            if (n_done) memcpy(grown, done, n_done * sizeof *grown);
            done = grown;
          }
          done[n_done++] = e;
          LLVMValueRef size = cg_expr(g, e), args[1] = {size};
          const char *fmt = sc_arena_printf(&g->ctx->arena,
                                            "node '%s' would have %%lld elements along dim %d (%s): the program was "
                                            "traced for sizes from 2, and these sizes give it none to compute with",
                                            n->name, k, percent_escaped(g, sc_expr_to_string(g->ctx, e)));
          cg_fail_msg_if(g, LLVMBuildICmp(g->B, LLVMIntSLT, size, cg_i64(g, 0), "negsize"), fmt, args, 1);
        }
      }
  }
}

/* The internal function that checks inputs and binds every symbol: prepare(inputs, syms,
 * err, errlen) -> rc.  Emitted once, called by both entry points. */
/* Whether every symbol of a runtime assert has a value at this point. */
static bool assert_ready(cg *g, const sc_guard *gd, const bool *bound) {
  const char *names[16];
  int n = sc_expr_symbols(gd->expr, names, 16);
  for (int k = 0; k < n; k++) {
    int s = cg_symbol_index(g, names[k]);
    if (s < 0 || !bound[s]) return false;
  }
  return true;
}

static const char *percent_escaped(cg *g, const char *text) {
  sc_strbuf sb = {0};
  for (const char *c = text; *c; c++) sc_strbuf_append(&sb, *c == '%' ? "%%" : (char[2]){*c, 0});
  const char *out = sc_arena_strdup(&g->ctx->arena, sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return out;
}

/* Fails the call with torch's message when a runtime assert does not hold. */
static void emit_assert(cg *g, const sc_guard *gd) {
  const char *names[16];
  int n = sc_expr_symbols(gd->expr, names, 16);
  LLVMValueRef holds = cg_expr(g, gd->expr);
  sc_strbuf sb = {0};
  /* a guard from guards_code or the spec has no node: its place in the file says where */
  const char *where = gd->prov.node_name && *gd->prov.node_name ? gd->prov.node_name : gd->prov.path;
  sc_strbuf_printf(&sb, "Runtime assertion failed for expression %s on node '%s':",
                   percent_escaped(g, sc_expr_to_string(g->ctx, gd->expr)), where ? percent_escaped(g, where) : "");
  LLVMValueRef args[16];
  for (int k = 0; k < n; k++) {
    int s = cg_symbol_index(g, names[k]);
    /* torch names its own symbols; what the caller can act on is where each one comes from */
    const char *source = s >= 0 ? g->a->env.symbols[s].source : NULL;
    sc_strbuf_printf(&sb, "%s %s = %%lld", k ? "," : "", names[k]);
    if (source && *source) sc_strbuf_printf(&sb, " (%s)", percent_escaped(g, source));
    args[k] = cg_load_sym(g, s);
  }
  cg_fail_msg_if(g, LLVMBuildNot(g->B, holds, "fails"), sc_strbuf_cstr(&sb), args, (unsigned)n);
  sc_strbuf_free(&sb);
}

/* Whether every floor division and modulo of e has a nonzero divisor: Python raises on
 * one that has not, so a guard that divides by zero fails. */
static LLVMValueRef divisors_nonzero(cg *g, const sc_expr *e) {
  LLVMValueRef ok = LLVMConstInt(g->i1, 1, 0);
  if (e->kind == SC_EXPR_FLOORDIV || e->kind == SC_EXPR_MOD) {
    LLVMValueRef d = cg_expr(g, e->args[1]);
    if (LLVMTypeOf(d) == g->i1) d = LLVMBuildZExt(g->B, d, g->i64, "b");
    ok = LLVMBuildICmp(g->B, LLVMIntNE, d, cg_i64(g, 0), "nz");
  }
  for (uint32_t i = 0; i < e->n_args; i++) ok = LLVMBuildAnd(g->B, ok, divisors_nonzero(g, e->args[i]), "nz");
  return ok;
}

/* e in the inputs' terms and Python's spelling, as torch's guards name sizes:
 * x.size()[0]*y.size()[0]; each symbol named by the size that bound it in this call. */
static const char *sources_text(cg *g, const sc_expr *e, const char *const *bound_from) {
  const char *names[16];
  int n = sc_expr_symbols(e, names, 16);
  for (int i = 0; i < n; i++) {
    int s = cg_symbol_index(g, names[i]);
    const char *src = s < 0 ? NULL : bound_from[s] ? bound_from[s] : g->a->env.symbols[s].source;
    if (src && strchr(src, ' ')) src = sc_arena_printf(&g->ctx->arena, "(%s)", src); /* x.size()[0] - 1 in a product */
    if (src) e = sc_expr_subst(g->ctx, e, names[i], sc_expr_sym(g->ctx, src));
  }
  return sc_expr_to_python(g->ctx, e);
}

/* text with % doubled, for a message format */

/* Fails the call when a guard of the program does not hold for the input sizes. */
static void emit_input_guard(cg *g, const sc_guard *gd) {
  LLVMValueRef defined = divisors_nonzero(g, gd->expr);
  /* evaluate the guard only where its divisions are defined (the runtime's floor
   * division returns 0 on a zero divisor, so evaluating it is harmless either way) */
  LLVMValueRef holds = cg_expr(g, gd->expr);
  if (LLVMTypeOf(holds) != g->i1) holds = LLVMBuildICmp(g->B, LLVMIntNE, holds, cg_i64(g, 0), "nz");
  LLVMValueRef bad = LLVMBuildNot(g->B, LLVMBuildAnd(g->B, defined, holds, "ok"), "fails");
  sc_strbuf sb = {0};
  sc_strbuf_printf(&sb, "Guard failed: %s", gd->text ? gd->text : sc_expr_to_string(g->ctx, gd->expr));
  cg_fail_msg_if(g, bad, percent_escaped(g, sc_strbuf_cstr(&sb)), NULL, 0); /* % formats */
  sc_strbuf_free(&sb);
}

/* An input dim on a call: its value, what the program says it is, and where it is. */
typedef struct dim_site {
  const sc_expr *e;    /* what the program says it is (NULL for a float) */
  LLVMValueRef d;
  const char *source;  /* x.size()[0], or n for an int input */
  bool torch_checks;   /* ep.module() checks it with the input (a static size from the spec) */
  bool is_float;       /* a constant float input: d is a double that must equal fvalue */
  double fvalue;
  bool is_bool;        /* a constant bool input (torch writes True / False) */
  int input, axis;     /* a tensor's dim: inputs[input].shape[axis]; input -1 for a scalar */
} dim_site;

/* What emit_prepare knows of the call's input dims while it emits: their sites, and with
 * many inputs, where a size is loaded when code first needs it (the tables need none). */
struct cg_prepare_state {
  dim_site *sites;
  int n_sites;
  LLVMValueRef inputs;
  LLVMBasicBlockRef loads; /* right after every input passed its check: it dominates what follows */
  LLVMValueRef *shapes;    /* per call input, its shape array once loaded */
  sc_strmap raw;           /* while guards_code is checked: source -> 1 + the first site of it */
  bool raw_active;
};

/* The dim's size on this call: loaded with the other sizes (few inputs) or at the end of
 * the checked inputs' block when first asked for (many). */
static LLVMValueRef site_value(cg *g, dim_site *site) {
  if (site->d) return site->d;
  struct cg_prepare_state *ps = g->prepare;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(g->C);
  LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(ps->loads));
  if (!ps->shapes[site->input]) {
    LLVMValueRef idx[1] = {cg_i64(g, site->input)};
    LLVMValueRef t = LLVMBuildGEP2(b, g->tensor_t, ps->inputs, idx, 1, "t");
    ps->shapes[site->input] = LLVMBuildLoad2(b, g->ptr, LLVMBuildStructGEP2(b, g->tensor_t, t, 4, "f"), "field");
  }
  LLVMValueRef idx[1] = {cg_i64(g, site->axis)};
  site->d = LLVMBuildLoad2(b, g->i64, LLVMBuildGEP2(b, g->i64, ps->shapes[site->input], idx, 1, "dp"), "dim");
  LLVMDisposeBuilder(b);
  return site->d;
}

LLVMValueRef cg_raw_size(cg *g, const char *name) {
  struct cg_prepare_state *ps = g->prepare;
  if (!ps || !ps->raw_active) return NULL;
  intptr_t k = (intptr_t)sc_strmap_get(&ps->raw, name) - 1;
  return k < 0 ? NULL : site_value(g, &ps->sites[k]);
}

/* Where each symbol of e comes from, "s2 = x.size()[0], s3 = y.size()[0]": the size that
 * bound it in this call, else its source. */
static void symbol_sources(cg *g, sc_strbuf *sb, const sc_expr *e, const char *const *bound_from) {
  const char *names[16];
  int n = sc_expr_symbols(e, names, 16);
  for (int i = 0; i < n; i++) {
    int si = cg_symbol_index(g, names[i]);
    const char *src = bound_from[si] ? bound_from[si] : g->a->env.symbols[si].source;
    sc_strbuf_printf(sb, "%s%s = %s", i ? ", " : "", names[i], src ? src : "?");
  }
}

/* Fails the call unless the dim equals its expression, in torch's words (Guard failed:
 * y.size()[0] == x.size()[0]), then shapec's. */
static void emit_size_check(cg *g, dim_site *site, const char *const *bound_from) {
  LLVMValueRef want = cg_expr(g, site->e);
  LLVMValueRef d = site_value(g, site);
  sc_strbuf sb = {0};
  int64_t c;
  bool is_const = sc_expr_is_const(site->e, &c);
  /* a size the program gives the same expression as an earlier input's: ep.module() checks
   * the two sizes against each other (y.size()[0] == x.size()[0]), whatever the expression */
  const char *earlier = NULL;
  struct cg_prepare_state *ps = g->prepare;
  for (int k = 0; ps && !is_const && k < ps->n_sites && &ps->sites[k] != site && !earlier; k++)
    if (ps->sites[k].e == site->e && ps->sites[k].input >= 0 && site->e->kind != SC_EXPR_SYM) {
      earlier = ps->sites[k].source;
      /* the earlier size itself, not the expression's value: 2*r of 9 rows gives r = 4,
       * and k of 8 must still fail against x's 9 (test/diff p103295) */
      want = site_value(g, &ps->sites[k]);
    }
  const char *want_text = site->is_bool && is_const ? (c ? "True" : "False")
                          : earlier                ? earlier
                                                   : percent_escaped(g, sources_text(g, site->e, bound_from));
  sc_strbuf_printf(&sb, "Guard failed: %s == %s (%s = %%lld but ", site->source, want_text, site->source);
  if (earlier) {
    sc_strbuf_printf(&sb, "%s = %%lld)", earlier);
  } else if (is_const) {
    sc_strbuf_printf(&sb, "the model needs %lld)", (long long)c);
  } else {
    /* name where each symbol comes from: s2 = x.size()[0] */
    sc_strbuf_printf(&sb, "the model needs %s = %%lld; ", sc_expr_to_string(g->ctx, site->e));
    symbol_sources(g, &sb, site->e, bound_from);
    sc_strbuf_append(&sb, ")");
  }
  LLVMValueRef args[2] = {d, want};
  cg_fail_msg_if(g, LLVMBuildICmp(g->B, LLVMIntNE, d, want, "ne"), sc_strbuf_cstr(&sb), args,
                 sc_expr_is_const(site->e, NULL) ? 1 : 2);
  sc_strbuf_free(&sb);
}

/* Whether an AUTO or DYNAMIC input dim is this derived size too: torch's range for the
 * size then starts from the root's traced range (2 up), not the Dim's declared min
 * (x.size()[1] AUTO and d['a'] = 2*r0 + 1, r0 from min=1: torch checks >= 5, p103118). */
static bool traced_elsewhere(cg *g, const sc_expr *e) {
  const sc_dynspec *spec = g->a->spec;
  for (size_t i = 0; spec && i < spec->n_inputs; i++) {
    const sc_input_dims *in = &spec->inputs[i];
    for (int k = 0; in->value && in->value->shape && k < in->rank; k++)
      if ((in->dims[k].kind == SC_DIM_AUTO || in->dims[k].kind == SC_DIM_DYNAMIC) && in->value->shape[k] == e) return true;
  }
  return false;
}

/* A size that is a*s + b of one symbol (x of [k + 1, k]) is held to the range that s's
 * declared range gives it, checked on the size itself before it is compared with the
 * others, as ep.module() checks each input dim against its range_constraints entry, which
 * for a derived size torch computes from the Dim's range as the spec gives it, not as
 * tracing or the program's guards narrowed it (Guard failed: x.size()[0] >= 3 for 2*r + 1
 * with r in [1, 16]; x.size()[0] <= 17 for r + 1 after a guard x <= 8: test/diff p90004,
 * p90009); a lower end of 2 or less lets 0, 1 and 2 through, as for a plain symbol
 * (sc_analysis_checked_range).  The program's own guards are checked after it. */
static bool reported_range(void *p, const char *name, sc_range_iv *out) {
  cg *g = p;
  int s = cg_symbol_index(g, name);
  if (s < 0) return false;
  *out = sc_analysis_reported_range(&g->a->env.symbols[s]);
  return true;
}

/* A size over several symbols (xs[1] of s27*s53) is held first to its own range, as
 * ep.module() checks it against its range_constraints entry ('s27*s53': [4, None]: Guard
 * failed: xs[1].size()[0] >= 4, test/diff p103280): the file's entry, else the range the
 * symbols' reported ranges give it; a lower end of 2 or less is not checked. */
static void emit_product_range(cg *g, dim_site *site) {
  sc_range_iv size = sc_expr_range(site->e, reported_range, g);
  for (size_t i = 0; i < g->a->n_derived; i++)
    if (g->a->derived[i].expr == site->e) size = g->a->derived[i].range;
  LLVMValueRef d = site_value(g, site), args[1] = {d};
  const char *text = percent_escaped(g, sc_expr_to_string(g->ctx, site->e));
  if (size.lo != SC_NEG_INT_OO && size.lo > 2) {
    const char *fmt = sc_arena_printf(&g->ctx->arena, "Guard failed: %s >= %lld (%s = %%lld is less than %lld, the least %s can be)",
                                      site->source, (long long)size.lo, site->source, (long long)size.lo, text);
    cg_fail_msg_if(g, LLVMBuildICmp(g->B, LLVMIntSLT, d, cg_i64(g, size.lo), "plo"), fmt, args, 1);
  }
  if (size.hi != SC_INT_OO) {
    const char *fmt = sc_arena_printf(&g->ctx->arena, "Guard failed: %s <= %lld (%s = %%lld is more than %lld, the most %s can be)",
                                      site->source, (long long)size.hi, site->source, (long long)size.hi, text);
    cg_fail_msg_if(g, LLVMBuildICmp(g->B, LLVMIntSGT, d, cg_i64(g, size.hi), "phi"), fmt, args, 1);
  }
}

static void emit_derived_range(cg *g, dim_site *site) {
  const char *names[2];
  if (sc_expr_symbols(site->e, names, 2) != 1 || site->e->kind == SC_EXPR_SYM) return;
  int s = cg_symbol_index(g, names[0]);
  if (s < 0) return;
  const sc_expr *at0 = sc_expr_subst(g->ctx, site->e, names[0], sc_expr_int(g->ctx, 0));
  const sc_expr *at1 = sc_expr_subst(g->ctx, site->e, names[0], sc_expr_int(g->ctx, 1));
  int64_t b, a1;
  if (!sc_expr_is_const(at0, &b) || !sc_expr_is_const(at1, &a1) || a1 - b <= 0) return;
  int64_t a = a1 - b;
  const sc_symbol *sym = &g->a->env.symbols[s];
  sc_range_iv r = sym->origin == SC_SYM_NAMED || sym->dim ? sym->declared : sc_analysis_reported_range(sym);
  if ((sym->origin == SC_SYM_NAMED || sym->dim) && r.lo < 2 && traced_elsewhere(g, site->e)) r.lo = 2;
  /* the size's own range: a*lo + b and a*hi + b, where they fit (else no check: the root's
   * own binds); without a spec, the file's range_constraints entry for the size itself
   * (2*s36 + 1: [3, ...] where s36's is [2, ...], test/diff p100107) */
  sc_range_iv size = sc_iv(SC_NEG_INT_OO, SC_INT_OO);
  int64_t v;
  if (r.lo != SC_NEG_INT_OO && !__builtin_mul_overflow(a, r.lo, &v) && !__builtin_add_overflow(v, b, &v)) size.lo = v;
  if (r.hi != SC_INT_OO && !__builtin_mul_overflow(a, r.hi, &v) && !__builtin_add_overflow(v, b, &v)) size.hi = v;
  for (size_t i = 0; i < g->a->n_derived; i++)
    if (g->a->derived[i].expr == site->e) size = g->a->derived[i].range;
  const char *text = sc_expr_to_string(g->ctx, site->e);
  LLVMValueRef d = site_value(g, site), args[1] = {d};
  char fmt[640];
  if (size.lo != SC_NEG_INT_OO && size.lo > 2) {
    snprintf(fmt, sizeof fmt, "Guard failed: %s >= %lld (%s = %%lld is less than %lld, the least %s can be)",
             site->source, (long long)size.lo, site->source, (long long)size.lo, text);
    cg_fail_msg_if(g, LLVMBuildICmp(g->B, LLVMIntSLT, d, cg_i64(g, size.lo), "dlo"), fmt, args, 1);
  }
  if (size.hi != SC_INT_OO) {
    snprintf(fmt, sizeof fmt, "Guard failed: %s <= %lld (%s = %%lld is more than %lld, the most %s can be)",
             site->source, (long long)size.hi, site->source, (long long)size.hi, text);
    cg_fail_msg_if(g, LLVMBuildICmp(g->B, LLVMIntSGT, d, cg_i64(g, size.hi), "dhi"), fmt, args, 1);
  }
}

/* A double as Python's repr writes it: the shortest text that reads back the same
 * (2.0, 0.1, 1e-05, inf). */
static void python_float(char *buf, size_t n, double v) {
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, n, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  if (!strpbrk(buf, ".eni")) strncat(buf, ".0", n - strlen(buf) - 1);
}

/* A constant float input must be the traced value: torch's module checks f == 2.0,
 * math.isnan(f) for a NaN, f == math.inf for an infinity. */
static void emit_float_check(cg *g, const dim_site *site) {
  double want = site->fvalue;
  char text[64], fmt[400];
  LLVMValueRef bad;
  if (want != want) {
    bad = LLVMBuildFCmp(g->B, LLVMRealORD, site->d, site->d, "notnan");
    snprintf(fmt, sizeof fmt, "Guard failed: math.isnan(%s) (%s = %%g)", site->source, site->source);
  } else {
    python_float(text, sizeof text, want);
    bad = LLVMBuildFCmp(g->B, LLVMRealUNE, site->d, LLVMConstReal(g->f64, want), "ne");
    bool inf = want == 1.0 / 0.0 || want == -1.0 / 0.0;
    snprintf(fmt, sizeof fmt, "Guard failed: %s == %s (%s = %%g but the model needs %s)", site->source,
             inf ? (want > 0 ? "math.inf" : "-math.inf") : text, site->source, text);
  }
  LLVMValueRef args[1] = {site->d};
  cg_fail_msg_if(g, bad, fmt, args, 1);
}

/* Fails the call when a guards_code entry is false on the sizes as given, with the
 * message ep.module() gives. */
/* e as k * rest: its integer coefficient and the product of its other factors. */
static const sc_expr *without_coefficient(sc_ctx *ctx, const sc_expr *e, int64_t *k) {
  *k = 1;
  if (e->kind != SC_EXPR_MUL || e->n_args < 2 || e->args[0]->kind != SC_EXPR_INT) return e;
  *k = e->args[0]->value;
  const sc_expr *rest = e->args[1];
  for (uint32_t i = 2; i < e->n_args; i++) rest = sc_expr_mul(ctx, rest, e->args[i]);
  return rest;
}

/* E when a relation says "E is a multiple of *d" as torch writes it: Mod(k*E, k*d) == 0
 * (torch 2.14's `32 * a * b % 64 == 0` for a reshape that needs a*b even), or
 * k*E == k*d*(E // d); NULL otherwise. */
static const sc_expr *multiple_of(sc_ctx *ctx, const sc_expr *rel, int64_t *d) {
  if (rel->kind != SC_EXPR_EQ || rel->n_args != 2) return NULL;
  for (int side = 0; side < 2; side++) {
    const sc_expr *a = rel->args[side], *b = rel->args[1 - side];
    int64_t k, kb, zero;
    if (a->kind == SC_EXPR_MOD && sc_expr_is_const(b, &zero) && zero == 0 && a->args[1]->kind == SC_EXPR_INT) {
      const sc_expr *e = without_coefficient(ctx, a->args[0], &k);
      int64_t m = a->args[1]->value;
      if (k > 0 && m > k && m % k == 0) {
        *d = m / k;
        return e;
      }
    }
    const sc_expr *e = without_coefficient(ctx, a, &k), *f = without_coefficient(ctx, b, &kb);
    if (f->kind == SC_EXPR_FLOORDIV && f->args[0] == e && f->args[1]->kind == SC_EXPR_INT && f->args[1]->value > 1 &&
        kb == k * f->args[1]->value) {
      *d = f->args[1]->value;
      return e;
    }
  }
  return NULL;
}

static void emit_program_check(cg *g, const sc_program_check *c) {
  LLVMValueRef defined = divisors_nonzero(g, c->raw);
  LLVMValueRef holds = cg_expr(g, c->raw);
  if (LLVMTypeOf(holds) != g->i1) holds = LLVMBuildICmp(g->B, LLVMIntNE, holds, cg_i64(g, 0), "nz");
  LLVMValueRef bad = LLVMBuildNot(g->B, LLVMBuildAnd(g->B, defined, holds, "ok"), "fails");
  int64_t d;
  const sc_expr *e = multiple_of(g->ctx, c->raw, &d); /* raw names input dims: printed as they are */
  const char *why = !e ? "" : d == 2 ? sc_arena_printf(&g->ctx->arena, " (%s must be even)", sc_expr_to_python(g->ctx, e))
                                     : sc_arena_printf(&g->ctx->arena, " (%s must be a multiple of %lld)",
                                                       sc_expr_to_python(g->ctx, e), (long long)d);
  cg_fail_msg_if(g, bad, percent_escaped(g, sc_arena_printf(&g->ctx->arena, "Guard failed: %s%s", c->text, why)), NULL,
                 0);
}

/* Every call input checked as check_tensor checks it, by one runtime call over a table
 * (a program with many inputs); the first refusal fails the call with its code. */
static void check_inputs_at_once(cg *g, LLVMValueRef inputs) {
  size_t n = g->n_call_inputs;
  sc_rt_input_check *rows = sc_xcalloc(n + 1, sizeof *rows);
  for (size_t k = 0; k < n; k++) {
    const sc_call_input *ci = &g->call_inputs[k];
    int code, bits;
    cg_dl_dtype(ci->dtype, &code, &bits);
    rows[k] = (sc_rt_input_check){.name = cg_text(g, ci->name ? ci->name : "(null)"), .ndim = ci->rank, .code = code,
                                  .bits = bits, .strided_ok = !g->cuda && !user_input_mutated(g, ci->spec)};
  }
  LLVMValueRef table = cg_table(g, rows, n * sizeof *rows, "sc_input_checks");
  free(rows);
  LLVMTypeRef params[7] = {g->ptr, g->ptr, g->i64, g->ptr, g->i32, g->ptr, g->i64};
  LLVMValueRef args[7] = {inputs, table, cg_i64(g, (int64_t)n), cg_texts(g), LLVMConstInt(g->i32, g->cuda ? 2 : 1, 0),
                          g->err, g->errlen};
  LLVMValueRef rc = cg_call(g, "sc_rt_check_inputs", g->i32, params, 7, args, 7, false);
  cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "bad"), rc);
}

/* Input dims that one runtime call checks in turn (sc_rt_check_dims), gathered until code
 * of another kind must come between them. */
typedef struct dim_table {
  sc_rt_dim_check *rows;
  int n, cap;
} dim_table;

static sc_rt_dim_check *table_row(cg *g, dim_table *t, int kind, const dim_site *site) {
  if (t->n == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 256;
    t->rows = sc_xrealloc(t->rows, (size_t)t->cap * sizeof *t->rows);
  }
  sc_rt_dim_check *row = &t->rows[t->n++];
  *row = (sc_rt_dim_check){.kind = kind, .input = site->input, .axis = site->axis, .source = cg_text(g, site->source)};
  return row;
}

/* emit_size_check's check as a row: a static size, or a symbol's size seen again. */
static void table_size_check(cg *g, dim_table *t, const dim_site *site, const char *const *bound_from) {
  int64_t c;
  bool is_const = sc_expr_is_const(site->e, &c);
  sc_rt_dim_check *row = table_row(g, t, is_const ? SC_DIM_CHECK_STATIC : SC_DIM_CHECK_EQUAL, site);
  row->want = cg_text(g, sources_text(g, site->e, bound_from));
  if (is_const) {
    row->value = c;
    return;
  }
  row->symbol = cg_symbol_index(g, site->e->name);
  row->name = cg_text(g, sc_expr_to_string(g->ctx, site->e));
  sc_strbuf sb = {0};
  symbol_sources(g, &sb, site->e, bound_from);
  row->bound_from = cg_text(g, sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
}

/* bind_symbol's binding as a row: symbol s takes the size, within its checked range. */
static void table_bind(cg *g, dim_table *t, const dim_site *site, int s) {
  const sc_symbol *sym = &g->a->env.symbols[s];
  sc_range_iv r = sc_analysis_checked_range(sym);
  sc_rt_dim_check *row = table_row(g, t, SC_DIM_CHECK_BIND, site);
  row->symbol = s;
  row->name = cg_text(g, sym->name);
  row->value = r.lo;
  row->hi = r.hi;
  row->flags = (r.lo != SC_NEG_INT_OO ? SC_DIM_CHECK_HAS_LO : 0) | (r.hi != SC_INT_OO ? SC_DIM_CHECK_HAS_HI : 0);
}

/* The rows gathered so far, checked by one call; the first that fails fails the call. */
static void flush_dim_table(cg *g, dim_table *t) {
  if (!t->n) return;
  LLVMValueRef table = cg_table(g, t->rows, (size_t)t->n * sizeof *t->rows, "sc_dim_checks");
  LLVMTypeRef params[7] = {g->ptr, g->ptr, g->i64, g->ptr, g->ptr, g->ptr, g->i64};
  LLVMValueRef args[7] = {g->prepare->inputs, table, cg_i64(g, t->n), g->syms, cg_texts(g), g->err, g->errlen};
  LLVMValueRef rc = cg_call(g, "sc_rt_check_dims", g->i32, params, 7, args, 7, false);
  cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "bad"), rc);
  t->n = 0;
}

static LLVMValueRef end_prepare(cg *g, LLVMValueRef fn) {
  g->prepare = NULL; /* its state lived in emit_prepare's frame */
  return fn;
}

static LLVMValueRef emit_prepare(cg *g) {
  LLVMTypeRef params[4] = {g->ptr, g->ptr, g->ptr, g->i64};
  LLVMValueRef fn = LLVMAddFunction(g->M, g->cuda ? "sc_prepare_cuda" : "sc_prepare_cpu", LLVMFunctionType(g->i32, params, 4, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  begin_function(g, fn, LLVMGetParam(fn, 2), LLVMGetParam(fn, 3));
  LLVMValueRef inputs = LLVMGetParam(fn, 0);
  g->syms = LLVMGetParam(fn, 1);
  {
    /* the CPU's instruction sets and the BLAS library cannot change while the process
     * runs: once both passed, later calls skip the two calls (a tenth of a tiny model's run) */
    LLVMValueRef ready = LLVMAddGlobal(g->M, g->i32, g->cuda ? "sc_ready_cuda" : "sc_ready_cpu");
    LLVMSetLinkage(ready, LLVMInternalLinkage);
    LLVMSetInitializer(ready, LLVMConstInt(g->i32, 0, 0));
    LLVMValueRef seen = LLVMBuildLoad2(g->B, g->i32, ready, "ready");
    LLVMSetOrdering(seen, LLVMAtomicOrderingAcquire); /* what the checks set up is seen too */
    LLVMSetAlignment(seen, 4);
    LLVMBasicBlockRef first = cg_block(g, "first_call"), checked = cg_block(g, "cpu_ready");
    LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntNE, seen, LLVMConstInt(g->i32, 0, 0), "seen"), checked, first);
    LLVMPositionBuilderAtEnd(g->B, first);
    LLVMTypeRef p3[3] = {g->ptr, g->ptr, g->i64};
    LLVMValueRef a3[3] = {cg_cstr(g, g->cpu_features), g->err, g->errlen};
    LLVMValueRef rc = cg_call(g, "sc_rt_cpu_supported", g->i32, p3, 3, a3, 3, false);
    cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "cpu"), rc);
    LLVMValueRef blas = cg_call(g, "sc_rt_blas_ready", g->i32, p3 + 1, 2, a3 + 1, 2, false);
    cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, blas, LLVMConstInt(g->i32, 0, 0), "blas"), blas);
    LLVMValueRef mark = LLVMBuildStore(g->B, LLVMConstInt(g->i32, 1, 0), ready);
    LLVMSetOrdering(mark, LLVMAtomicOrderingRelease);
    LLVMSetAlignment(mark, 4);
    LLVMBuildBr(g->B, checked);
    LLVMPositionBuilderAtEnd(g->B, checked);
  }
  size_t n_call = g->n_call_inputs;
  if (n_call)
    cg_fail_argument_if(g, LLVMBuildIsNull(g->B, inputs, "noinputs"), "inputs is NULL; pass an array of the model's "
                        "input tensors (shapec_model_num_inputs)");
  /* dims of every tensor input after its rank and dtype check, and the value of every
   * scalar (a 0-d tensor) */
  size_t total = 0;
  for (size_t k = 0; k < n_call; k++) total += g->call_inputs[k].rank ? (size_t)g->call_inputs[k].rank : 1;
  dim_site *sites = sc_arena_alloc(&g->ctx->arena, (total + 1) * sizeof *sites);
  int n_sites = 0;
  for (size_t k = 0; k < n_call; k++) {
    const sc_call_input *ci = &g->call_inputs[k];
    const sc_value *v = ci->value;
    if (ci->spec->kind == SC_INPUT_USER && (!v || (v->kind != SC_VALUE_TENSOR && v->kind != SC_VALUE_SYM_INT))) {
      cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, ci->spec->path, "user input %zu is neither a tensor nor an int; the "
               "library takes tensors, ints and constant scalars", k);
      return fn;
    }
    if ((!v || v->kind != SC_VALUE_TENSOR) && g->cuda) {
      cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, ci->spec->path, "input '%s' is a scalar; the CUDA path takes tensors "
               "only (export for the CPU)", ci->name);
      return fn;
    }
  }
  struct cg_prepare_state ps = {.sites = sites, .inputs = inputs, .shapes = NULL};
  g->prepare = &ps;
  if (g->many_inputs) {
    check_inputs_at_once(g, inputs);
    ps.loads = LLVMGetInsertBlock(g->B); /* sizes are loaded here when code first needs them */
    LLVMBasicBlockRef next = cg_block(g, "dims");
    LLVMBuildBr(g->B, next);
    LLVMPositionBuilderAtEnd(g->B, next);
    ps.shapes = sc_arena_alloc(&g->ctx->arena, (n_call + 1) * sizeof *ps.shapes);
  }
  size_t user = 0; /* the spec's index: one per user input */
  const sc_dynspec *spec = g->a->spec;
  for (size_t k = 0; k < n_call; k++) {
    const sc_call_input *ci = &g->call_inputs[k];
    const sc_value *v = ci->value;
    bool is_user = ci->spec->kind == SC_INPUT_USER;
    if (!g->many_inputs) {
      char what[300];
      snprintf(what, sizeof what, "input '%s'", ci->name);
      /* the CPU path copies a strided input once (bind_graph_inputs); one the program
       * writes back to, or a CUDA tensor, must be compact */
      check_tensor(g, tensor_ptr(g, inputs, (int)k), what, ci->dtype, ci->rank, !g->cuda && !user_input_mutated(g, ci->spec));
    }
    if (v && v->kind == SC_VALUE_TENSOR) {
      LLVMValueRef shape = g->many_inputs ? NULL : tensor_field(g, inputs, (int)k, 4, g->ptr);
      for (int d = 0; d < v->meta.rank; d++) {
        LLVMValueRef idx[1] = {cg_i64(g, d)};
        dim_site *site = &sites[n_sites++];
        *site = (dim_site){v->shape[d],
                           shape ? LLVMBuildLoad2(g->B, g->i64, LLVMBuildGEP2(g->B, g->i64, shape, idx, 1, "dp"), "dim") : NULL,
                           sc_analysis_dim_source(g->ctx, v, d), true, false, 0, false, (int)k, d};
        /* torch checks a static size with the input unless tracing specialized a dynamic
         * dim, whose guard is in guards_code; a program read without a spec has ints */
        site->torch_checks = spec->from_program || user >= spec->n_inputs || d >= spec->inputs[user].rank ||
                             spec->inputs[user].dims[d].kind == SC_DIM_STATIC;
      }
    } else {
      /* a scalar: its value at data + byte_offset */
      LLVMValueRef data = tensor_field(g, inputs, (int)k, 0, g->ptr);
      LLVMValueRef off = tensor_field(g, inputs, (int)k, 6, g->i64);
      LLVMValueRef at = LLVMBuildGEP2(g->B, g->i8, data, &off, 1, "scalar");
      dim_site *site = &sites[n_sites++];
      *site = (dim_site){.source = v && v->display ? v->display : ci->name, .torch_checks = true, .input = -1};
      if (ci->dtype == SC_DTYPE_F64) {
        site->is_float = true;
        site->d = LLVMBuildLoad2(g->B, g->f64, at, "f");
        site->fvalue = ci->spec->constant.items[0].f;
      } else {
        LLVMValueRef x = ci->dtype == SC_DTYPE_BOOL ? LLVMBuildZExt(g->B, LLVMBuildLoad2(g->B, g->i8, at, "b"), g->i64, "b")
                                                     : LLVMBuildLoad2(g->B, g->i64, at, "n");
        site->d = x;
        site->e = v ? v->sym : sc_expr_int(g->ctx, ci->spec->constant.kind == SC_ARG_BOOL ? ci->spec->constant.items[0].b
                                                                                              : ci->spec->constant.items[0].i);
        site->is_bool = ci->dtype == SC_DTYPE_BOOL;
      }
    }
    user += is_user;
  }
  ps.n_sites = n_sites;
  size_t n_syms = g->a->env.n_symbols;
  bool *bound = sc_arena_alloc(&g->ctx->arena, n_syms + 1);
  bool *done = sc_arena_alloc(&g->ctx->arena, (size_t)n_sites + 1);
  const char **bound_from = sc_arena_alloc(&g->ctx->arena, (n_syms + 1) * sizeof *bound_from);
  /* The checks in ep.module()'s order (torch/export/_unlift.py): each input dim in turn
   * (a static size, a symbol's range where it first appears, an equality where it appears
   * again), then the program's guards_code on the sizes as given, then what shapec adds.
   * With many inputs a tensor's dims go into tables that one runtime call checks in turn. */
  dim_table table = {0};
  for (int k = 0; k < n_sites; k++) {
    dim_site *site = &sites[k];
    bool tabled = g->many_inputs && site->input >= 0;
    if (site->is_float) {
      flush_dim_table(g, &table);
      emit_float_check(g, site);
      done[k] = true;
      continue;
    }
    if (sc_expr_is_const(site->e, NULL)) {
      if (!site->torch_checks) continue;
      if (tabled) {
        table_size_check(g, &table, site, bound_from);
      } else {
        flush_dim_table(g, &table);
        emit_size_check(g, site, bound_from);
      }
      done[k] = true;
      continue;
    }
    if (site->e->kind != SC_EXPR_SYM) continue;
    int s = cg_symbol_index(g, site->e->name);
    if (s < 0) continue;
    if (!tabled) flush_dim_table(g, &table);
    if (bound[s]) {
      if (tabled) table_size_check(g, &table, site, bound_from);
      else emit_size_check(g, site, bound_from);
    } else {
      if (tabled) table_bind(g, &table, site, s);
      else bind_symbol(g, s, site->d, site->source, NULL, 1, 0, NULL);
      bound[s] = true;
      bound_from[s] = site->source;
    }
    done[k] = true;
  }
  flush_dim_table(g, &table);
  free(table.rows);
  /* a*s + b with s still free binds s (a divisibility root, a derived Dim).  ep.module()
   * solves s from the size and never asks whether it is a whole number of at least 0; the
   * library refuses a fractional root (no size to compute with) and a negative one below
   * its untraced floor (x: [r + 1] of 0 rows runs, its sizes then checked by
   * emit_sizes_not_negative), after torch's own checks, so that a call both refuse fails
   * with torch's words (`Guard failed: x.size()[1] * x.size()[0] > 8`, not the root's: test/diff p101215) */
  late_checks late = {sc_arena_alloc(&g->ctx->arena, (size_t)(3 * n_sites + 1) * sizeof *late.items), 0, 3 * n_sites + 1};
  for (int k = 0; k < n_sites; k++) {
    const char *names[2];
    if (done[k] || sc_expr_symbols(sites[k].e, names, 2) != 1) continue;
    int s = cg_symbol_index(g, names[0]);
    if (s < 0 || bound[s]) continue;
    const sc_expr *at0 = sc_expr_subst(g->ctx, sites[k].e, names[0], sc_expr_int(g->ctx, 0));
    const sc_expr *at1 = sc_expr_subst(g->ctx, sites[k].e, names[0], sc_expr_int(g->ctx, 1));
    int64_t b, a1;
    if (!sc_expr_is_const(at0, &b) || !sc_expr_is_const(at1, &a1) || a1 - b <= 0) continue;
    int64_t a = a1 - b;
    LLVMValueRef rest = LLVMBuildSub(g->B, site_value(g, &sites[k]), cg_i64(g, b), "rest");
    /* below 0 only as far as the symbol's untraced floor lets it (x: [r + 1] of 0 rows) */
    int64_t least = 0;
    if (__builtin_mul_overflow(a, g->a->env.symbols[s].untraced_lo, &least)) least = 0;
    LLVMValueRef bad = LLVMBuildICmp(g->B, LLVMIntSLT, rest, cg_i64(g, least), "neg");
    if (!root_unread(g, names[0]))
      bad = LLVMBuildOr(g->B, bad, LLVMBuildICmp(g->B, LLVMIntNE, LLVMBuildSRem(g->B, rest, cg_i64(g, a), "r"), cg_i64(g, 0), "rem"), "bad");
    emit_derived_range(g, &sites[k]);
    fail_now_or_later(g, &late, bad,
                      sc_arena_printf(&g->ctx->arena, "%s = %%lld is not %s for an integer %s", sites[k].source,
                                      sc_expr_to_string(g->ctx, sites[k].e), names[0]),
                      site_value(g, &sites[k]));
    bind_symbol(g, s, LLVMBuildSDiv(g->B, rest, cg_i64(g, a), "q"), sc_linear_root_text(g->ctx, sites[k].source, b, a),
                sites[k].source, a, b, &late);
    bound[s] = done[k] = true;
  }
  /* every other dim that is an expression must equal it */
  for (int k = 0; k < n_sites; k++) {
    if (done[k] || sc_expr_is_const(sites[k].e, NULL)) continue;
    const char *names[16];
    int n = sc_expr_symbols(sites[k].e, names, 16);
    for (int i = 0; i < n; i++) {
      int s = cg_symbol_index(g, names[i]);
      if (s < 0 || !bound[s]) {
        cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, NULL, "%s = %s: cannot bind symbol %s from the input sizes",
                 sites[k].source, sc_expr_to_string(g->ctx, sites[k].e), names[i]);
        return end_prepare(g, fn);
      }
    }
    /* a size with an earlier input's expression is held to that input's size alone, as
     * ep.module() does (its range was that input's) */
    bool repeated = false;
    for (int j = 0; j < k && !repeated; j++) repeated = sites[j].e == sites[k].e && sites[j].input >= 0;
    /* a size over several symbols (xs[1] of s27*s53) ep.module() leaves to guards_code,
     * which words it its way (x.size()[1] * x.size()[2] == xs[1].size()[0], test/diff
     * p103280): checked after it */
    if (!repeated && n > 1 && g->a->n_checks) {
      emit_product_range(g, &sites[k]);
      continue;
    }
    if (!repeated) emit_derived_range(g, &sites[k]);
    emit_size_check(g, &sites[k], bound_from);
    done[k] = true;
  }
  /* the program's guards_code, on the sizes of this call */
  sc_strmap_init(&ps.raw, &g->ctx->arena);
  for (int k = 0; k < n_sites && g->a->n_checks; k++) sc_strmap_put(&ps.raw, sites[k].source, (void *)(intptr_t)(k + 1));
  ps.raw_active = true;
  for (size_t i = 0; i < g->a->n_checks; i++) emit_program_check(g, &g->a->checks[i]);
  ps.raw_active = false;
  for (int i = 0; i < late.n; i++) {
    LLVMValueRef args[1] = {late.items[i].size};
    cg_fail_msg_if(g, late.items[i].bad, late.items[i].fmt, args, 1);
  }
  /* static sizes torch leaves to guards_code (a dim traced as a symbol, then specialized) */
  for (int k = 0; k < n_sites; k++)
    if (!done[k]) emit_size_check(g, &sites[k], bound_from);
  /* the guards shapec derives on the inputs (derived ranges, divisibility, tracing's floor) */
  for (size_t i = 0; i < g->a->env.n_guards; i++) {
    const sc_guard *gd = &g->a->env.guards[i];
    if (gd->outcome != SC_GUARD_INPUT || (gd->prov.node == SC_PROV_GUARDS_CODE && g->a->n_checks)) continue;
    if (!assert_ready(g, gd, bound)) {
      cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, NULL, "the input guard %s names a size no input gives",
               sc_expr_to_string(g->ctx, gd->expr));
      return end_prepare(g, fn);
    }
    emit_input_guard(g, gd);
  }
  emit_sizes_not_negative(g, bound);
  /* runtime asserts over input sizes; those over data-dependent values wait for the run */
  g->input_bound = bound;
  for (size_t i = 0; i < g->a->env.n_guards; i++)
    if (g->a->env.guards[i].outcome == SC_GUARD_RUNTIME_ASSERT && assert_ready(g, &g->a->env.guards[i], bound))
      emit_assert(g, &g->a->env.guards[i]);
  LLVMBuildBr(g->B, g->exit_bb);
  LLVMPositionBuilderAtEnd(g->B, g->exit_bb);
  LLVMBuildRet(g->B, LLVMBuildLoad2(g->B, g->i32, g->rc_slot, "rc"));
  return end_prepare(g, fn);
}

/* const char *f(int i) / int f(int i) over a constant table; NULL / -1 out of range. */
static void emit_table_getter(cg *g, const char *name, LLVMValueRef *items, unsigned n, LLVMTypeRef elem) {
  LLVMTypeRef params[1] = {g->i32};
  LLVMValueRef fn = LLVMAddFunction(g->M, name, LLVMFunctionType(elem, params, 1, 0));
  LLVMValueRef table = LLVMAddGlobal(g->M, LLVMArrayType2(elem, n ? n : 1), "table");
  LLVMValueRef empty[1] = {elem == g->ptr ? LLVMConstNull(g->ptr) : LLVMConstInt(g->i32, 0, 0)};
  LLVMSetInitializer(table, LLVMConstArray2(elem, n ? items : empty, n ? n : 1));
  LLVMSetGlobalConstant(table, 1);
  LLVMSetLinkage(table, LLVMPrivateLinkage);
  LLVMPositionBuilderAtEnd(g->B, LLVMAppendBasicBlockInContext(g->C, fn, "entry"));
  LLVMValueRef i = LLVMGetParam(fn, 0);
  LLVMValueRef ok = LLVMBuildAnd(g->B, LLVMBuildICmp(g->B, LLVMIntSGE, i, LLVMConstInt(g->i32, 0, 0), "ge"),
                                 LLVMBuildICmp(g->B, LLVMIntSLT, i, LLVMConstInt(g->i32, n, 0), "lt"), "ok");
  LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(g->C, fn, "yes"), no = LLVMAppendBasicBlockInContext(g->C, fn, "no");
  LLVMBuildCondBr(g->B, ok, yes, no);
  LLVMPositionBuilderAtEnd(g->B, yes);
  LLVMValueRef idx[2] = {cg_i64(g, 0), LLVMBuildSExt(g->B, i, g->i64, "i")};
  LLVMBuildRet(g->B, LLVMBuildLoad2(g->B, elem, LLVMBuildGEP2(g->B, LLVMArrayType2(elem, n ? n : 1), table, idx, 2, "p"), "v"));
  LLVMPositionBuilderAtEnd(g->B, no);
  LLVMBuildRet(g->B, elem == g->ptr ? LLVMConstNull(g->ptr) : LLVMConstInt(g->i32, (unsigned long long)-1, 1));
}

static void emit_const_fn(cg *g, const char *name, int v) {
  LLVMValueRef fn = LLVMAddFunction(g->M, name, LLVMFunctionType(g->i32, NULL, 0, 0));
  LLVMPositionBuilderAtEnd(g->B, LLVMAppendBasicBlockInContext(g->C, fn, "entry"));
  LLVMBuildRet(g->B, LLVMConstInt(g->i32, (unsigned)v, 0));
}

static const sc_value *output_value(cg *g, size_t i) {
  const sc_arg *a = &g->p->output_specs[i].arg;
  return a->n_items ? a->items[0].value : NULL;
}

/* const char *f(int i) over n names kept in the text pool, through a table of their
 * offsets (a program with many inputs: no global per name); NULL out of range. */
static void emit_pooled_name_getter(cg *g, const char *name, const char *const *names, size_t n) {
  int32_t *offsets = sc_xcalloc(n + 1, sizeof *offsets);
  for (size_t i = 0; i < n; i++) offsets[i] = cg_text(g, names[i]);
  LLVMValueRef table = cg_table(g, offsets, n * sizeof *offsets, "name_offsets");
  free(offsets);
  LLVMTypeRef params[1] = {g->i32};
  LLVMValueRef fn = LLVMAddFunction(g->M, name, LLVMFunctionType(g->ptr, params, 1, 0));
  LLVMPositionBuilderAtEnd(g->B, LLVMAppendBasicBlockInContext(g->C, fn, "entry"));
  LLVMValueRef i = LLVMGetParam(fn, 0);
  LLVMValueRef ok = LLVMBuildAnd(g->B, LLVMBuildICmp(g->B, LLVMIntSGE, i, LLVMConstInt(g->i32, 0, 0), "ge"),
                                 LLVMBuildICmp(g->B, LLVMIntSLT, i, LLVMConstInt(g->i32, n, 0), "lt"), "ok");
  LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(g->C, fn, "yes"), no = LLVMAppendBasicBlockInContext(g->C, fn, "no");
  LLVMBuildCondBr(g->B, ok, yes, no);
  LLVMPositionBuilderAtEnd(g->B, yes);
  LLVMValueRef idx[1] = {LLVMBuildSExt(g->B, i, g->i64, "i")};
  LLVMValueRef at = LLVMBuildLoad2(g->B, g->i32, LLVMBuildGEP2(g->B, g->i32, table, idx, 1, "p"), "offset");
  LLVMValueRef off[1] = {LLVMBuildSExt(g->B, at, g->i64, "o")};
  LLVMBuildRet(g->B, LLVMBuildGEP2(g->B, g->i8, cg_texts(g), off, 1, "name"));
  LLVMPositionBuilderAtEnd(g->B, no);
  LLVMBuildRet(g->B, LLVMConstNull(g->ptr));
}

/* shapec_model_<kind>_name/_ndim/_dtype(i) over n entries. */
static void emit_value_tables(cg *g, const char *kind, const char *const *names_in, const int *ranks,
                              const sc_dtype *dts, size_t n) {
  LLVMValueRef *cells = sc_xcalloc(3 * (n ? n : 1), sizeof *cells), *names = cells, *ndims = cells + n,
               *dtypes = cells + 2 * n;
  bool pooled = n >= CG_MANY_INPUTS;
  for (size_t i = 0; i < n; i++) {
    int code, bits;
    cg_dl_dtype(dts[i], &code, &bits);
    ndims[i] = LLVMConstInt(g->i32, (unsigned)ranks[i], 0);
    dtypes[i] = LLVMConstInt(g->i32, (unsigned)(code << 8 | bits), 0);
    if (pooled) continue;
    LLVMValueRef s = LLVMConstStringInContext2(g->C, names_in[i], strlen(names_in[i]), 0);
    LLVMValueRef gv = LLVMAddGlobal(g->M, LLVMTypeOf(s), "name");
    LLVMSetInitializer(gv, s);
    LLVMSetGlobalConstant(gv, 1);
    LLVMSetLinkage(gv, LLVMPrivateLinkage);
    names[i] = gv;
  }
  char fn[64];
  snprintf(fn, sizeof fn, "shapec_model_%s_name", kind);
  if (pooled) emit_pooled_name_getter(g, fn, names_in, n);
  else emit_table_getter(g, fn, names, (unsigned)n, g->ptr);
  snprintf(fn, sizeof fn, "shapec_model_%s_ndim", kind);
  emit_table_getter(g, fn, ndims, (unsigned)n, g->i32);
  snprintf(fn, sizeof fn, "shapec_model_%s_dtype", kind);
  emit_table_getter(g, fn, dtypes, (unsigned)n, g->i32);
  free(cells);
}

static void emit_metadata(cg *g) {
  size_t n_in = g->n_call_inputs, n_out = g->p->n_output_specs, n = n_in > n_out ? n_in : n_out;
  emit_const_fn(g, "shapec_model_abi_version", SHAPEC_ABI_VERSION);
  emit_const_fn(g, "shapec_model_num_inputs", (int)n_in);
  emit_const_fn(g, "shapec_model_num_outputs", (int)n_out);
  const char **names = sc_xcalloc(n + 1, sizeof *names);
  int *ranks = sc_xcalloc(n + 1, sizeof *ranks);
  sc_dtype *dts = sc_xcalloc(n + 1, sizeof *dts);
  for (size_t i = 0; i < n_in; i++) {
    const sc_call_input *ci = &g->call_inputs[i];
    names[i] = ci->name, ranks[i] = ci->rank, dts[i] = ci->dtype;
  }
  emit_value_tables(g, "input", names, ranks, dts, n_in);
  for (size_t i = 0; i < n_out; i++) {
    const sc_value *v = output_value(g, i);
    names[i] = v->name, ranks[i] = v->meta.rank, dts[i] = v->meta.dtype;
  }
  emit_value_tables(g, "output", names, ranks, dts, n_out);
  free(names);
  free(ranks);
  free(dts);
}

static LLVMValueRef call_prepare(cg *g, LLVMValueRef prepare, LLVMValueRef inputs) {
  LLVMTypeRef params[4] = {g->ptr, g->ptr, g->ptr, g->i64};
  LLVMValueRef args[4] = {inputs, g->syms, g->err, g->errlen};
  LLVMValueRef rc = LLVMBuildCall2(g->B, LLVMFunctionType(g->i32, params, 4, 0), prepare, args, 4, "rc");
  cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "bad"), rc);
  return rc;
}

static void alloc_syms(cg *g) {
  size_t n = g->a->env.n_symbols ? g->a->env.n_symbols : 1;
  g->syms = LLVMBuildArrayAlloca(g->B, g->i64, cg_i64(g, (int64_t)n), "syms");
}

/* Workspace slots: at most one per node output item (split's list counts each part). */
static size_t count_values(cg *g) {
  size_t n = 0;
  for (size_t i = 0; i < g->p->graph->n_nodes; i++) {
    const sc_node *nd = &g->p->graph->nodes[i];
    for (size_t k = 0; k < nd->n_outputs; k++) n += nd->outputs[k].n_items + 1;
  }
  return n + g->p->n_input_specs + 8; /* + a slot per input for its compact copy */
}

/* ---- the computation: run's body, and output_shapes' when sizes depend on data ---------- */

/* Forgets what an earlier function's emission set on the values (the plans stay). */
static void reset_values(cg *g) {
  for (size_t i = 0; i < g->values.n_slots; i++) {
    cg_value *cv = g->values.slots[i].key ? g->values.slots[i].value : NULL;
    if (!cv) continue;
    cv->data = NULL;
    cv->ready = false;
    cv->owner = NULL;
    cv->freed = false;
    cv->slot = 0;
    cv->free_after = 0;
    cv->out_dst = cv->out_direct = NULL;
    cv->placed = false;
    cv->state = false;
  }
  for (int s = 0; s < g->n_appends; s++) g->appends[s].in_place = NULL; /* this function's, set again */
  g->n_owners = 0;
  g->state_buffers = NULL; /* loaded again in this function, at its first use */
}

/* The call's buffers: on the CPU, the planned workspace, and slots for the compact copies
 * of strided inputs; on the device, a slot per buffer.  Every slot taken starts NULL so
 * that the exit can free them all: the memset here covers every value's slot until
 * close_workspace knows how many were taken (a tiny model takes one per input: zeroing a
 * slot for each of its 97 values was a memset call of 776 bytes each run). */
static void open_workspace(cg *g) {
  size_t cap = count_values(g);
  g->buffers = LLVMBuildArrayAlloca(g->B, g->ptr, cg_i64(g, (int64_t)cap), "buffers");
  g->n_buffers = 0;
  g->cap_buffers = (int)cap;
  g->buffers_zeroing =
      LLVMBuildMemSet(g->B, g->buffers, LLVMConstInt(g->i8, 0, 0), cg_i64(g, (int64_t)(cap * sizeof(void *))), 8);
  if (!g->cuda) cg_workspace_open(g);
}

/* The memset of open_workspace, cut to the slots taken (or gone without any). */
static void trim_buffers_zeroing(cg *g) {
  LLVMValueRef zeroing = g->buffers_zeroing;
  g->buffers_zeroing = NULL;
  if (!zeroing || LLVMGetInstructionOpcode(zeroing) != LLVMCall || g->n_buffers > g->cap_buffers) return;
  if (g->n_buffers == 0) LLVMInstructionEraseFromParent(zeroing);
  else LLVMSetOperand(zeroing, 2, cg_i64(g, (int64_t)g->n_buffers * (int64_t)sizeof(void *)));
  /* with many inputs the frame keeps only those slots too (a slot per value of a graph of
   * 100,000 nodes was 2.4 MB of stack) */
  if (g->many_inputs) LLVMSetOperand(g->buffers, 0, cg_i64(g, g->n_buffers ? g->n_buffers : 1));
}

static void close_workspace(cg *g) {
  LLVMTypeRef fp[1] = {g->ptr};
  if (g->many_inputs && !g->cuda && g->n_buffers) { /* a slot per input: one call frees them */
    LLVMTypeRef params[2] = {g->ptr, g->i64};
    LLVMValueRef args[2] = {g->buffers, cg_i64(g, g->n_buffers)};
    cg_call(g, "sc_rt_free_slots", g->voidt, params, 2, args, 2, false);
  }
  for (int i = 0; i < g->n_buffers && !(g->many_inputs && !g->cuda); i++) {
    LLVMValueRef idx[1] = {cg_i64(g, i)};
    LLVMValueRef p = LLVMBuildLoad2(g->B, g->ptr, LLVMBuildGEP2(g->B, g->ptr, g->buffers, idx, 1, "slot"), "p");
    /* most slots stay NULL (a compact input needs no copy): no call for those */
    LLVMBasicBlockRef free_it = cg_block(g, "free"), next = cg_block(g, "freed");
    LLVMBuildCondBr(g->B, LLVMBuildIsNull(g->B, p, "none"), next, free_it);
    LLVMPositionBuilderAtEnd(g->B, free_it);
    LLVMValueRef args[1] = {p};
    cg_call(g, "sc_rt_free", g->voidt, fp, 1, args, 1, false);
    LLVMBuildBr(g->B, next);
    LLVMPositionBuilderAtEnd(g->B, next);
  }
  if (g->n_buffers > g->cap_buffers) cg_error(g, SC_DIAG_CODEGEN, NULL, "internal error: workspace slots overflow");
  trim_buffers_zeroing(g);
  if (!g->cuda) cg_workspace_close(g);
}

/* With many inputs, the CPU path's tensor user inputs: where each one's elements are, all
 * found by one runtime call into in_data (a strided one copied compact into a workspace
 * slot that the exit frees, as bind_graph_inputs does input by input). */
static void bind_inputs_at_once(cg *g, LLVMValueRef inputs) {
  sc_rt_input_bind *rows = sc_xcalloc(g->p->n_input_specs + 1, sizeof *rows);
  int n = 0, copies = 0;
  LLVMValueRef *kept = sc_xcalloc(g->n_call_inputs + 1, sizeof *kept);
  bool any_kept = false;
  for (size_t k = 0; k < g->n_call_inputs; k++) {
    const sc_call_input *ci = &g->call_inputs[k];
    if (ci->spec->kind != SC_INPUT_USER || !ci->value || ci->value->kind != SC_VALUE_TENSOR) continue;
    bool copy_ok = !user_input_mutated(g, ci->spec);
    kept[n] = cg_cache_input_kept(g, ci->value); /* the past of a cache grown in place: not copied */
    any_kept |= kept[n] != NULL;
    rows[n++] = (sc_rt_input_bind){.input = (int32_t)k, .esize = (int32_t)sc_dtype_size(ci->value->meta.dtype), .copy_ok = copy_ok};
    copies += copy_ok;
  }
  LLVMValueRef kept_flags = LLVMConstNull(g->ptr);
  if (any_kept) {
    kept_flags = cg_entry_array(g, g->i32, n, "kept");
    for (int k = 0; k < n; k++) {
      LLVMValueRef idx[1] = {cg_i64(g, k)};
      LLVMValueRef flag = kept[k] ? LLVMBuildZExt(g->B, kept[k], g->i32, "kept") : LLVMConstInt(g->i32, 0, 0);
      LLVMBuildStore(g->B, flag, LLVMBuildGEP2(g->B, g->i32, kept_flags, idx, 1, "kp"));
    }
  }
  free(kept);
  g->in_binds = cg_table(g, rows, (size_t)n * sizeof *rows, "sc_input_binds");
  free(rows);
  g->n_in_binds = n;
  g->inputs = inputs;
  g->in_data = cg_entry_array(g, g->ptr, n, "in_data");
  LLVMValueRef sidx[1] = {cg_i64(g, g->n_buffers)};
  LLVMValueRef owned = LLVMBuildGEP2(g->B, g->ptr, g->buffers, sidx, 1, "owned");
  g->n_buffers += copies;
  LLVMTypeRef params[8] = {g->ptr, g->ptr, g->i64, g->ptr, g->ptr, g->ptr, g->ptr, g->i64};
  LLVMValueRef args[8] = {inputs, g->in_binds, cg_i64(g, n), kept_flags, g->in_data, owned, g->err, g->errlen};
  LLVMValueRef rc = cg_call(g, "sc_rt_bind_inputs", g->i32, params, 8, args, 8, false);
  cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "nomem"), rc);
}

/* cg_set_dims for a tensor user input that prepare has checked: each size is its
 * expression's value, and their product and bytes fit in int64 (sc_rt_check_tensor), so
 * the product needs no overflow check again (with many dynamic inputs, a branch each). */
static void checked_input_dims(cg *g, cg_value *cv) {
  LLVMValueRef n = cg_i64(g, 1);
  for (int k = 0; k < cv->v->meta.rank; k++) {
    cv->dims[k] = cg_expr(g, cv->v->shape[k]);
    n = is_const(n, 1) ? cv->dims[k] : is_const(cv->dims[k], 1) ? n : LLVMBuildMul(g->B, n, cv->dims[k], "numel");
  }
  cv->numel = n;
}

/* Points the graph's inputs at the caller's tensors and the weights. */
static bool bind_graph_inputs(cg *g, LLVMValueRef inputs) {
  LLVMValueRef weights = g->weights;
  if (g->external_path) {
    LLVMTypeRef wp[4] = {g->i64, g->i64, g->ptr, g->i64};
    LLVMValueRef wa[4] = {LLVMConstInt(g->i64, g->weights_id, 0), LLVMConstInt(g->i64, g->weights_size, 0), g->err, g->errlen};
    weights = cg_call(g, "sc_rt_external_weights", g->ptr, wp, 4, wa, 4, false);
    cg_fail_if(g, LLVMBuildIsNull(g->B, weights, "nowt"), LLVMConstInt(g->i32, SHAPEC_ERR_WEIGHTS, 0));
  }
  if (g->cuda) { /* the blob on the device, uploaded by the first call */
    LLVMTypeRef wp[2] = {g->ptr, g->i64};
    LLVMValueRef wa[2] = {weights, cg_i64(g, (int64_t)g->weights_total)};
    weights = cg_call(g, "sc_cu_weights", g->ptr, wp, 2, wa, 2, false);
    cg_fail_if(g, LLVMBuildIsNull(g->B, weights, "nowt"), LLVMConstInt(g->i32, SHAPEC_ERR_CUDA, 0));
    g->device_weights = weights;
  }
  bool at_once = g->many_inputs && !g->cuda;
  if (at_once) bind_inputs_at_once(g, inputs);
  /* a user input's place in inputs[] counts the constants the caller passes before it (an
   * int argument before a tensor), as the checks do; not only the user inputs */
  size_t user = 0, next_call = 0;
  int bound = 0; /* with many inputs: tensor user inputs so far, in_data's index */
  for (size_t i = 0; i < g->p->n_input_specs; i++) {
    const sc_input_spec *s = &g->p->input_specs[i];
    const sc_value *v = sc_input_spec_value(s);
    if (next_call < g->n_call_inputs && g->call_inputs[next_call].spec == s) user = next_call++;
    if (!v || v->kind != SC_VALUE_TENSOR) continue;
    cg_value *cv = cg_get(g, v);
    if (s->kind == SC_INPUT_USER && at_once) {
      LLVMValueRef idx[1] = {cg_i64(g, bound++)};
      cv->data = LLVMBuildLoad2(g->B, g->ptr, LLVMBuildGEP2(g->B, g->ptr, g->in_data, idx, 1, "slot"), "in");
    } else if (s->kind == SC_INPUT_USER && !g->cuda && !user_input_mutated(g, s)) {
      /* compact row-major elements: the caller's, or a copy of a strided tensor that a
       * workspace slot owns, so that the exit frees it */
      int slot = g->n_buffers++;
      LLVMValueRef sidx[1] = {cg_i64(g, slot)};
      LLVMValueRef owned = LLVMBuildGEP2(g->B, g->ptr, g->buffers, sidx, 1, "owned");
      LLVMValueRef data = LLVMBuildAlloca(g->B, g->ptr, "indata");
      /* without strides the elements are compact: the caller's data, no call */
      LLVMValueRef base = tensor_field(g, inputs, (int)user, 0, g->ptr), off = tensor_field(g, inputs, (int)user, 6, g->i64);
      LLVMBuildStore(g->B, LLVMBuildGEP2(g->B, g->i8, base, &off, 1, "in"), data);
      LLVMBasicBlockRef strided = cg_block(g, "strided"), bound_in = cg_block(g, "input_bound");
      LLVMValueRef as_given = LLVMBuildIsNull(g->B, tensor_field(g, inputs, (int)user, 5, g->ptr), "compact");
      LLVMValueRef kept = cg_cache_input_kept(g, v); /* the past of a cache grown in place: read where it is */
      if (kept) as_given = LLVMBuildOr(g->B, as_given, kept, "as_given");
      LLVMBuildCondBr(g->B, as_given, bound_in, strided);
      LLVMPositionBuilderAtEnd(g->B, strided);
      LLVMTypeRef dp[6] = {g->ptr, g->i64, g->ptr, g->ptr, g->ptr, g->i64};
      LLVMValueRef da[6] = {tensor_ptr(g, inputs, (int)user), cg_elem_size(g, v->meta.dtype), data, owned, g->err, g->errlen};
      LLVMValueRef rc = cg_call(g, "sc_rt_input_data", g->i32, dp, 6, da, 6, false);
      cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "nomem"), rc);
      LLVMBuildBr(g->B, bound_in);
      LLVMPositionBuilderAtEnd(g->B, bound_in);
      cv->data = LLVMBuildLoad2(g->B, g->ptr, data, "in");
    } else if (s->kind == SC_INPUT_USER) {
      LLVMValueRef data = tensor_field(g, inputs, (int)user, 0, g->ptr);
      LLVMValueRef off = tensor_field(g, inputs, (int)user, 6, g->i64);
      LLVMValueRef idx[1] = {off};
      cv->data = LLVMBuildGEP2(g->B, g->i8, data, idx, 1, "in");
    } else if (g->state && g->state[i]) { /* a buffer the program mutates: its writable copy */
      if (g->cuda)
        return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, s->path, "the program mutates buffer '%s': the CUDA path "
                        "does not keep state between calls yet (build for the CPU)", s->target);
      cv->data = cg_state_data(g, i);
      cv->state = true;
    } else if (g->weight_dropped && g->weight_dropped[i]) {
      cv->data = LLVMConstNull(g->ptr); /* read only by nodes folded at export (cg_fold.c) */
    } else if (g->weight_pointers[i] && !g->cuda) {
      cv->data = g->weight_pointers[i];
    } else if (g->weight_offsets[i] != (size_t)-1) { /* in the side file, or uploaded to the device */
      LLVMValueRef idx[1] = {cg_i64(g, (int64_t)g->weight_offsets[i])};
      cv->data = LLVMBuildGEP2(g->B, g->i8, weights, idx, 1, "w");
    } else {
      return cg_error(g, SC_DIAG_CODEGEN, s->path, "no weights for '%s'", s->target);
    }
    if (at_once && s->kind == SC_INPUT_USER) checked_input_dims(g, cv);
    else cg_set_dims(g, cv);
    cv->ready = true;
  }
  return true;
}

/* Emits the runtime asserts whose data-dependent symbols all have values now. */
static void emit_ready_asserts(cg *g) {
  for (size_t i = 0; i < g->a->env.n_guards; i++) {
    const sc_guard *gd = &g->a->env.guards[i];
    if (g->assert_done[i] || gd->outcome != SC_GUARD_RUNTIME_ASSERT || !assert_ready(g, gd, g->sym_bound)) continue;
    emit_assert(g, gd);
    g->assert_done[i] = true;
  }
}

void cg_bind_unbacked(cg *g, const sc_node *n, const sc_expr *sym, LLVMValueRef value, const char *what) {
  int s = sym->kind == SC_EXPR_SYM ? cg_symbol_index(g, sym->name) : -1;
  if (s < 0) {
    cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "the data-dependent size of %s is %s, an expression the CPU "
             "backend cannot solve for", n->target, sc_expr_to_string(g->ctx, sym));
    return;
  }
  const sc_symbol *so = &g->a->env.symbols[s];
  LLVMValueRef idx[1] = {cg_i64(g, s)};
  LLVMBuildStore(g->B, value, LLVMBuildGEP2(g->B, g->i64, g->syms, idx, 1, "symp"));
  LLVMValueRef bad = LLVMConstInt(g->i1, 0, 0);
  if (so->range.lo != SC_NEG_INT_OO)
    bad = LLVMBuildOr(g->B, bad, LLVMBuildICmp(g->B, LLVMIntSLT, value, cg_i64(g, so->range.lo), "lo"), "b");
  if (so->range.hi != SC_INT_OO)
    bad = LLVMBuildOr(g->B, bad, LLVMBuildICmp(g->B, LLVMIntSGT, value, cg_i64(g, so->range.hi), "hi"), "b");
  char fmt[600];
  snprintf(fmt, sizeof fmt, "%s = %%lld (%s at node '%s') is outside its range %s", so->name, what, n->name,
           range_text(g, sc_analysis_reported_range(so)));
  LLVMValueRef args[1] = {value};
  cg_fail_msg_if(g, bad, fmt, args, 1);
  g->sym_bound[s] = true;
  emit_ready_asserts(g);
}

/* Every node, each buffer freed after its last reader, data-dependent checks as soon as
 * their values exist. */
static void emit_nodes(cg *g) {
  size_t n_syms = g->a->env.n_symbols, n_guards = g->a->env.n_guards;
  g->sym_bound = sc_arena_alloc(&g->ctx->arena, n_syms + 1);
  memcpy(g->sym_bound, g->input_bound, n_syms);
  g->assert_done = sc_arena_alloc(&g->ctx->arena, n_guards + 1);
  for (size_t i = 0; i < n_guards; i++)
    g->assert_done[i] = g->a->env.guards[i].outcome != SC_GUARD_RUNTIME_ASSERT ||
                        assert_ready(g, &g->a->env.guards[i], g->input_bound); /* checked by prepare */
  for (size_t i = 0; i < g->p->graph->n_nodes && !g->failed; i++) {
    g->node = (int)i;
    cg_emit_node(g, &g->p->graph->nodes[i], (int)i);
    cg_release_dead(g, (int)i);
    if (g->cuda) { /* a launch that failed stops the run here, with the driver's message */
      LLVMValueRef rc = cg_call(g, "sc_cu_status", g->i32, NULL, 0, NULL, 0, false);
      cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "cuerr"), rc);
    }
  }
  free(g->owners);
  g->owners = NULL;
  for (size_t i = 0; i < n_guards && !g->failed; i++)
    if (!g->assert_done[i])
      cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, g->a->env.guards[i].prov.path, "runtime assert %s depends on a value the "
               "CPU backend does not compute", sc_expr_to_string(g->ctx, g->a->env.guards[i].expr));
}

/* Whether an output's shape depends on data (item, nonzero): output_shapes must compute. */
static bool outputs_depend_on_data(cg *g) {
  for (size_t i = 0; i < g->p->n_output_specs; i++) {
    const sc_value *v = output_value(g, i);
    for (int k = 0; v && k < v->meta.rank; k++)
      if (sc_env_is_unbacked((sc_shape_env *)&g->a->env, v->shape[k])) return true;
  }
  return false;
}

/* The CUDA path's functions take (inputs, X, stream, err, errlen); the CPU's (inputs, X,
 * err, errlen).  Returns the new function with the error and stream arguments bound. */
static LLVMValueRef begin_path_function(cg *g, const char *name) {
  LLVMTypeRef params[5] = {g->ptr, g->ptr, g->ptr, g->ptr, g->i64};
  LLVMTypeRef cpu_params[4] = {g->ptr, g->ptr, g->ptr, g->i64};
  LLVMValueRef fn = LLVMAddFunction(g->M, name, g->cuda ? LLVMFunctionType(g->i32, params, 5, 0)
                                                        : LLVMFunctionType(g->i32, cpu_params, 4, 0));
  if (g->has_cuda) LLVMSetLinkage(fn, LLVMInternalLinkage); /* the public names dispatch on the device */
  unsigned e = g->cuda ? 3 : 2;
  begin_function(g, fn, LLVMGetParam(fn, e), LLVMGetParam(fn, e + 1));
  g->stream = g->cuda ? LLVMGetParam(fn, 2) : NULL;
  return fn;
}

/* Opens the call on the CUDA device of the first input (of the first output in a model
 * without inputs; device 0 when there is neither), after every tensor was checked:
 * outputs is NULL where the function has none (output_shapes). */
static void cuda_begin(cg *g, LLVMValueRef inputs, LLVMValueRef outputs) {
  LLVMTypeRef sp[6] = {g->ptr, g->i32, g->ptr, g->i32, g->ptr, g->i64};
  int n_in = (int)g->n_call_inputs, n_out = outputs ? (int)g->p->n_output_specs : 0;
  LLVMValueRef sa[6] = {inputs, LLVMConstInt(g->i32, (unsigned)n_in, 0), outputs ? outputs : LLVMConstNull(g->ptr),
                        LLVMConstInt(g->i32, (unsigned)n_out, 0), g->err, g->errlen};
  LLVMValueRef same = cg_call(g, "sc_rt_check_same_device", g->i32, sp, 6, sa, 6, false);
  cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, same, LLVMConstInt(g->i32, 0, 0), "devices"), same);
  LLVMValueRef dev_id = LLVMConstInt(g->i32, 0, 0);
  if (n_in || n_out) {
    LLVMValueRef idx[1] = {cg_i64(g, 0)};
    LLVMValueRef t = LLVMBuildGEP2(g->B, g->tensor_t, n_in ? inputs : outputs, idx, 1, "t0");
    LLVMTypeRef dev_t = LLVMStructGetTypeAtIndex(g->tensor_t, 1);
    LLVMValueRef d = LLVMBuildStructGEP2(g->B, g->tensor_t, t, 1, "dev");
    dev_id = LLVMBuildLoad2(g->B, g->i32, LLVMBuildStructGEP2(g->B, dev_t, d, 1, "id"), "device_id");
  }
  LLVMTypeRef p[6] = {g->ptr, g->ptr, g->i32, g->ptr, g->ptr, g->i64};
  LLVMValueRef a[6] = {g->ptx, g->ptx_kernels, dev_id, g->stream, g->err, g->errlen};
  LLVMValueRef rc = cg_call(g, "sc_cu_begin", g->i32, p, 6, a, 6, false);
  cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "nocuda"), rc);
}

/* At the exit: ends the call (synchronizing on the default stream, so that a kernel's
 * fault is reported by this call); the first error is the one returned. */
static void cuda_end(cg *g) {
  LLVMTypeRef p[1] = {g->i32};
  LLVMValueRef a[1] = {LLVMBuildZExt(g->B, LLVMBuildIsNull(g->B, g->stream, "nostream"), g->i32, "sync")};
  LLVMValueRef end_rc = cg_call(g, "sc_cu_end", g->i32, p, 1, a, 1, false);
  LLVMValueRef rc = LLVMBuildLoad2(g->B, g->i32, g->rc_slot, "rc0");
  LLVMBuildStore(g->B, LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "had"), rc,
                                       end_rc, "rc1"), g->rc_slot);
}

static void emit_output_shapes(cg *g, LLVMValueRef prepare, const char *name) {
  LLVMValueRef fn = begin_path_function(g, name);
  alloc_syms(g);
  bool compute = outputs_depend_on_data(g);
  if (compute) open_workspace(g);
  call_prepare(g, prepare, LLVMGetParam(fn, 0));
  if (compute && g->cuda) cuda_begin(g, LLVMGetParam(fn, 0), NULL);
  LLVMValueRef out_shapes = LLVMGetParam(fn, 1);
  cg_fail_argument_if(g, LLVMBuildIsNull(g->B, out_shapes, "null"), "output_shapes is NULL; pass an array of one "
                      "int64 array per output, each of shapec_model_output_ndim(i) entries");
  if (compute) { /* the sizes need the values behind item() or nonzero(): run the graph */
    reset_values(g);
    if (!bind_graph_inputs(g, LLVMGetParam(fn, 0))) return;
    emit_nodes(g);
    if (g->failed) return;
  }
  for (size_t i = 0; i < g->p->n_output_specs; i++) {
    const sc_value *v = output_value(g, i);
    LLVMValueRef idx[1] = {cg_i64(g, (int64_t)i)};
    LLVMValueRef dst = LLVMBuildLoad2(g->B, g->ptr, LLVMBuildGEP2(g->B, g->ptr, out_shapes, idx, 1, "pp"), "p");
    if (v->meta.rank) {
      char msg[300];
      snprintf(msg, sizeof msg, "output_shapes[%zu] is NULL; output '%s' has %d dims", i, v->name, v->meta.rank);
      cg_fail_argument_if(g, LLVMBuildIsNull(g->B, dst, "null"), msg);
    }
    for (int k = 0; k < v->meta.rank; k++) {
      LLVMValueRef ki[1] = {cg_i64(g, k)};
      LLVMBuildStore(g->B, cg_expr(g, v->shape[k]), LLVMBuildGEP2(g->B, g->i64, dst, ki, 1, "d"));
    }
  }
  LLVMBuildBr(g->B, g->exit_bb);
  LLVMPositionBuilderAtEnd(g->B, g->exit_bb);
  if (compute) close_workspace(g);
  if (compute && g->cuda) cuda_end(g);
  LLVMBuildRet(g->B, LLVMBuildLoad2(g->B, g->i32, g->rc_slot, "rc"));
}

/* The caller's output tensors: rank, dtype, and each dim; with data_dims, only the dims
 * that depend on data (known after the graph ran), else only the others. */
static void check_outputs(cg *g, LLVMValueRef outputs, bool data_dims) {
  for (size_t i = 0; i < g->p->n_output_specs; i++) {
    const sc_value *v = output_value(g, i);
    char what[300];
    snprintf(what, sizeof what, "output '%s'", v->name);
    if (!data_dims)
      check_tensor(g, tensor_ptr(g, outputs, (int)i), what, v->meta.dtype, v->meta.rank, cg_cache_output_strided_ok(g, i));
    LLVMValueRef shape = tensor_field(g, outputs, (int)i, 4, g->ptr);
    for (int k = 0; k < v->meta.rank; k++) {
      if (sc_env_is_unbacked((sc_shape_env *)&g->a->env, v->shape[k]) != data_dims) continue;
      LLVMValueRef idx[1] = {cg_i64(g, k)};
      LLVMValueRef have = LLVMBuildLoad2(g->B, g->i64, LLVMBuildGEP2(g->B, g->i64, shape, idx, 1, "dp"), "d");
      LLVMValueRef want = cg_expr(g, v->shape[k]);
      char fmt[400];
      snprintf(fmt, sizeof fmt, "output '%s' has size %%lld in dim %d; the model produces %%lld (ask "
                                "shapec_model_output_shapes)", v->name, k);
      LLVMValueRef args[2] = {have, want};
      cg_fail_msg_if(g, LLVMBuildICmp(g->B, LLVMIntNE, have, want, "ne"), fmt, args, 2);
    }
  }
}

/* The graph input a mutation writes to: the buffer's placeholder or the user input's. */
static const sc_value *mutation_target(cg *g, const sc_mutation *m) {
  for (size_t i = 0; i < g->p->n_input_specs; i++) {
    const sc_input_spec *s = &g->p->input_specs[i];
    const sc_value *v = sc_input_spec_value(s);
    if (m->kind == SC_MUTATE_BUFFER && (s->kind == SC_INPUT_BUFFER || s->kind == SC_INPUT_TENSOR_CONSTANT) &&
        strcmp(s->target, m->target) == 0)
      return v;
    if (m->kind == SC_MUTATE_USER_INPUT && s->kind == SC_INPUT_USER && v && strcmp(v->name, m->target) == 0) return v;
  }
  return NULL;
}

/* After a run: each mutated buffer and user input takes its new value (buffer_mutation,
 * user_input_mutation), as ep.module() copies it back; the next call sees the buffer's. */
static bool write_back(cg *g) {
  for (size_t k = 0; k < g->p->n_mutations; k++) {
    const sc_mutation *m = &g->p->mutations[k];
    const sc_value *target = mutation_target(g, m), *value = m->arg.n_items ? m->arg.items[0].value : NULL;
    if (!target || !value || value->kind != SC_VALUE_TENSOR || target->kind != SC_VALUE_TENSOR)
      return cg_error(g, SC_DIAG_CODEGEN, m->path, "'%s' is not a %s of the program", m->target,
                      m->kind == SC_MUTATE_BUFFER ? "buffer" : "tensor user input");
    if (value->meta.dtype != target->meta.dtype)
      return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, m->path, "the new value of '%s' is %s, the %s is %s", m->target,
                      sc_dtype_name(value->meta.dtype), m->kind == SC_MUTATE_BUFFER ? "buffer" : "input",
                      sc_dtype_name(target->meta.dtype));
    cg_value *src = cg_get(g, value), *dst = cg_get(g, target);
    if (!src->ready || !dst->ready)
      return cg_error(g, SC_DIAG_CODEGEN, m->path, "internal error: the new value of '%s' was not computed", m->target);
    char fmt[400];
    snprintf(fmt, sizeof fmt, "the new value of '%s' has %%lld elements, '%s' has %%lld", m->target, m->target);
    LLVMValueRef counts[2] = {src->numel, dst->numel};
    cg_fail_msg_if(g, LLVMBuildICmp(g->B, LLVMIntNE, src->numel, dst->numel, "ne"), fmt, counts, 2);
    LLVMValueRef bytes = LLVMBuildMul(g->B, src->numel, cg_elem_size(g, value->meta.dtype), "bytes");
    if (g->cuda) { /* device memory: a stream-ordered copy, none where the value is already there */
      LLVMBasicBlockRef copy = cg_block(g, "writeback"), done = cg_block(g, "written");
      LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntEQ, dst->data, src->data, "same"), done, copy);
      LLVMPositionBuilderAtEnd(g->B, copy);
      LLVMTypeRef cp[3] = {g->ptr, g->ptr, g->i64};
      LLVMValueRef ca[3] = {dst->data, src->data, bytes};
      cg_call(g, "sc_cu_copy_device", g->voidt, cp, 3, ca, 3, false);
      LLVMBuildBr(g->B, done);
      LLVMPositionBuilderAtEnd(g->B, done);
    } else if (!(src->state && src->data == dst->data)) { /* not updated in place (index_copy) */
      LLVMBuildMemMove(g->B, dst->data, 1, src->data, 1, bytes);
    }
  }
  return true;
}

/* The first output that value cv is (a value may be returned twice). */
static size_t first_output_index(cg *g, const cg_value *cv) {
  for (size_t i = 0; i < g->p->n_output_specs; i++)
    if (cg_get(g, output_value(g, i)) == cv) return i;
  return (size_t)-1;
}

/* [p, p + bytes) and [q, q + qbytes) share no byte. */
static LLVMValueRef disjoint(cg *g, LLVMValueRef p, LLVMValueRef bytes, LLVMValueRef q, LLVMValueRef qbytes) {
  LLVMValueRef a = LLVMBuildPtrToInt(g->B, p, g->i64, "a"), b = LLVMBuildPtrToInt(g->B, q, g->i64, "b");
  LLVMValueRef before = LLVMBuildICmp(g->B, LLVMIntULE, LLVMBuildAdd(g->B, a, bytes, "ae"), b, "before");
  LLVMValueRef after = LLVMBuildICmp(g->B, LLVMIntULE, LLVMBuildAdd(g->B, b, qbytes, "be"), a, "after");
  return LLVMBuildOr(g->B, before, after, "disjoint");
}

/* The value whose buffer holds cv's elements when a node folded into the one before it
 * (cg_fold.c, cg_epilogue.c: folded[node].into) computes cv; cv itself otherwise. */
static cg_value *filled_by(cg *g, cg_value *cv) {
  for (size_t steps = 0; steps < g->p->graph->n_nodes; steps++) {
    int d = cv->v->def_node;
    cg_value *into = d >= 0 ? g->folded[d].into : NULL;
    if (!into || into == cv || into->v->meta.dtype != cv->v->meta.dtype) return cv;
    cv = into;
  }
  return cv;
}

/* A graph output that a node computes into its own buffer is computed in the caller's
 * tensor instead, saving a copy of every output element (a third of an elementwise
 * model's memory traffic).  Only where the caller's elements overlap no input and no other
 * output, checked on each call; otherwise the node writes a workspace buffer and the
 * result is copied, as before.  Not in a program with data-dependent values: a check
 * that fails half-way through the graph must leave the outputs untouched (abi.md). */
static void place_outputs(cg *g, LLVMValueRef outputs) {
  for (size_t i = 0; i < g->a->env.n_symbols; i++)
    if (g->a->env.symbols[i].origin == SC_SYM_UNBACKED) return;
  LLVMValueRef *dsts = sc_arena_alloc(&g->ctx->arena, (g->p->n_output_specs + 1) * sizeof *dsts);
  LLVMValueRef *lens = sc_arena_alloc(&g->ctx->arena, (g->p->n_output_specs + 1) * sizeof *lens);
  for (size_t i = 0; i < g->p->n_output_specs; i++) {
    const sc_value *v = output_value(g, i);
    LLVMValueRef data = tensor_field(g, outputs, (int)i, 0, g->ptr);
    LLVMValueRef idx[1] = {tensor_field(g, outputs, (int)i, 6, g->i64)};
    dsts[i] = LLVMBuildGEP2(g->B, g->i8, data, idx, 1, "outp");
    lens[i] = cg_elem_size(g, v->meta.dtype);
    bool backed = true;
    for (int k = 0; k < v->meta.rank; k++) {
      backed &= !sc_env_is_unbacked((sc_shape_env *)&g->a->env, v->shape[k]);
      if (backed) lens[i] = LLVMBuildMul(g->B, lens[i], cg_expr(g, v->shape[k]), "ob");
    }
    if (!backed) lens[i] = NULL;
  }
  for (size_t i = 0; i < g->p->n_output_specs; i++) {
    cg_value *cv = cg_get(g, output_value(g, i));
    if (cv->ready || cv->out_dst || !lens[i] || first_output_index(g, cv) != i) continue;
    LLVMValueRef ok = LLVMConstInt(g->i1, 1, 0);
    if (g->many_inputs) { /* bind_inputs_at_once's inputs, by one call */
      LLVMTypeRef params[6] = {g->ptr, g->i64, g->ptr, g->ptr, g->ptr, g->i64};
      LLVMValueRef args[6] = {dsts[i], lens[i], g->inputs, g->in_binds, g->in_data, cg_i64(g, g->n_in_binds)};
      LLVMValueRef apart = cg_call(g, "sc_rt_apart_from_inputs", g->i32, params, 6, args, 6, false);
      ok = LLVMBuildICmp(g->B, LLVMIntNE, apart, LLVMConstInt(g->i32, 0, 0), "apart");
    }
    for (size_t j = 0; j < g->p->n_input_specs && !g->many_inputs; j++) {
      const sc_input_spec *s = &g->p->input_specs[j];
      const sc_value *in = sc_input_spec_value(s);
      if (s->kind != SC_INPUT_USER || !in || in->kind != SC_VALUE_TENSOR) continue;
      cg_value *ci = cg_get(g, in);
      LLVMValueRef ib = LLVMBuildMul(g->B, ci->numel, cg_elem_size(g, in->meta.dtype), "ib");
      ok = LLVMBuildAnd(g->B, ok, disjoint(g, dsts[i], lens[i], ci->data, ib), "ok");
    }
    for (size_t j = 0; j < g->p->n_output_specs; j++)
      if (j != i && lens[j]) ok = LLVMBuildAnd(g->B, ok, disjoint(g, dsts[i], lens[i], dsts[j], lens[j]), "ok");
    for (int s = 0; s < g->n_appends; s++) /* a cache grown in place is written where the caller keeps it */
      if (g->appends[s].output == i && g->appends[s].in_place) ok = LLVMBuildOr(g->B, ok, g->appends[s].in_place, "ok");
    cv->out_dst = dsts[i];
    cv->out_direct = ok;
    /* an output computed in another value's buffer (an activation, residual add or batch
     * norm folded into the layer before it): that value takes the caller's tensor */
    cg_value *filler = filled_by(g, cv);
    if (filler != cv && !filler->out_dst && first_output_index(g, filler) == (size_t)-1) {
      filler->out_dst = dsts[i];
      filler->out_direct = ok;
    }
  }
}

static void emit_run(cg *g, LLVMValueRef prepare, const char *name) {
  LLVMValueRef fn = begin_path_function(g, name);
  alloc_syms(g);
  open_workspace(g);
  LLVMValueRef inputs = LLVMGetParam(fn, 0), outputs = LLVMGetParam(fn, 1);
  call_prepare(g, prepare, inputs);
  if (g->p->n_output_specs)
    cg_fail_argument_if(g, LLVMBuildIsNull(g->B, outputs, "null"), "outputs is NULL; pass an array of the model's "
                        "output tensors, sized with shapec_model_output_shapes");
  check_outputs(g, outputs, false);
  if (g->cuda) cuda_begin(g, inputs, outputs); /* every check is done before the driver is touched */
  reset_values(g);
  if (!g->cuda) cg_cache_in_place(g, inputs, outputs);
  if (!bind_graph_inputs(g, inputs)) return;
  if (!g->cuda) place_outputs(g, outputs);
  /* oneDNN loaded before the first loop, so that all of them run on its OpenMP team (pool.c);
   * the call goes again when no layer turned out to need it.  Without such layers, products
   * that may run in OpenBLAS load it where the process's OpenBLAS is slow (gemm.c). */
  LLVMValueRef load_onednn = g->cuda ? NULL : cg_call(g, "sc_rt_onednn_load", g->voidt, NULL, 0, NULL, 0, false);
  LLVMValueRef load_for_products =
      g->cuda ? NULL : cg_call(g, "sc_rt_onednn_load_for_products", g->voidt, NULL, 0, NULL, 0, false);
  int sites = g->onednn_sites, products = g->blas_products;
  emit_nodes(g);
  if (g->failed) return;
  bool onednn_layers = g->onednn_sites != sites;
  if (load_onednn && !onednn_layers) LLVMInstructionEraseFromParent(load_onednn);
  if (load_for_products && (onednn_layers || g->blas_products == products)) LLVMInstructionEraseFromParent(load_for_products);
  check_outputs(g, outputs, true);
  /* copy results into the caller's tensors (unless computed there) */
  for (size_t i = 0; i < g->p->n_output_specs; i++) {
    cg_value *cv = cg_get(g, output_value(g, i));
    if (!cv->ready) {
      cg_error(g, SC_DIAG_CODEGEN, NULL, "internal error: output '%s' was not computed", cv->v->name);
      return;
    }
    LLVMValueRef data = tensor_field(g, outputs, (int)i, 0, g->ptr);
    LLVMValueRef idx[1] = {tensor_field(g, outputs, (int)i, 6, g->i64)};
    LLVMValueRef dst = LLVMBuildGEP2(g->B, g->i8, data, idx, 1, "out");
    LLVMValueRef bytes = LLVMBuildMul(g->B, cv->numel, cg_elem_size(g, cv->v->meta.dtype), "bytes");
    if (g->cuda) {
      LLVMTypeRef cp[3] = {g->ptr, g->ptr, g->i64};
      LLVMValueRef ca[3] = {dst, cv->data, bytes};
      cg_call(g, "sc_cu_copy_device", g->voidt, cp, 3, ca, 3, false);
    } else if (cv->owner && cv->owner->placed && cv->owner->out_dst == cv->out_dst && cv->out_dst &&
               i == first_output_index(g, cv)) { /* computed there, by itself or the layer it folded into */
      LLVMBasicBlockRef copy = cg_block(g, "copyout"), done = cg_block(g, "copied");
      LLVMBuildCondBr(g->B, cv->out_direct, done, copy);
      LLVMPositionBuilderAtEnd(g->B, copy);
      LLVMBuildMemCpy(g->B, dst, 1, cv->data, 1, bytes);
      LLVMBuildBr(g->B, done);
      LLVMPositionBuilderAtEnd(g->B, done);
    } else if (!cv->owner) {
      /* an input returned as it came (Whisper's cross-attention cache): nothing to copy
       * when the caller passes the output over the input's elements */
      LLVMBasicBlockRef copy = cg_block(g, "copyout"), done = cg_block(g, "copied");
      LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntEQ, dst, cv->data, "same"), done, copy);
      LLVMPositionBuilderAtEnd(g->B, copy);
      LLVMBuildMemCpy(g->B, dst, 1, cv->data, 1, bytes);
      LLVMBuildBr(g->B, done);
      LLVMPositionBuilderAtEnd(g->B, done);
    } else {
      LLVMBuildMemCpy(g->B, dst, 1, cv->data, 1, bytes);
    }
  }
  if (!write_back(g)) return;
  LLVMBuildBr(g->B, g->exit_bb);
  /* exit: free the workspace, return the code */
  LLVMPositionBuilderAtEnd(g->B, g->exit_bb);
  close_workspace(g);
  if (g->cuda) cuda_end(g);
  LLVMBuildRet(g->B, LLVMBuildLoad2(g->B, g->i32, g->rc_slot, "rc"));
}

/* Whether the call's tensors are CUDA tensors: the first input's device (the first
 * output's for a model without inputs); false when there are none. */
static LLVMValueRef on_cuda(cg *g, LLVMValueRef inputs, LLVMValueRef outputs) {
  bool by_input = g->n_call_inputs > 0;
  if (!by_input && !g->p->n_output_specs) return LLVMConstInt(g->i1, 0, 0);
  LLVMValueRef array = by_input ? inputs : outputs;
  LLVMBasicBlockRef here = LLVMGetInsertBlock(g->B), look = cg_block(g, "look"), done = cg_block(g, "done");
  LLVMBuildCondBr(g->B, LLVMBuildIsNull(g->B, array, "none"), done, look);
  LLVMPositionBuilderAtEnd(g->B, look);
  LLVMValueRef type = LLVMBuildLoad2(g->B, g->i32, LLVMBuildStructGEP2(g->B, g->tensor_t, array, 1, "dev"), "type");
  LLVMValueRef is = LLVMBuildICmp(g->B, LLVMIntEQ, type, LLVMConstInt(g->i32, 2, 0), "cuda");
  return false_unless(g, here, is, done);
}

/* public(inputs, X, [stream,] err, errlen): the CUDA path for CUDA tensors (or when the
 * library has no CPU code), else the CPU path; a stream with CPU tensors is an error. */
static void emit_dispatch(cg *g, const char *name, LLVMValueRef cpu_fn, LLVMValueRef cuda_fn, bool with_stream) {
  LLVMTypeRef p5[5] = {g->ptr, g->ptr, g->ptr, g->ptr, g->i64}, p4[4] = {g->ptr, g->ptr, g->ptr, g->i64};
  LLVMValueRef fn = LLVMAddFunction(g->M, name, with_stream ? LLVMFunctionType(g->i32, p5, 5, 0) : LLVMFunctionType(g->i32, p4, 4, 0));
  unsigned e = with_stream ? 3 : 2;
  begin_function(g, fn, LLVMGetParam(fn, e), LLVMGetParam(fn, e + 1));
  LLVMValueRef in = LLVMGetParam(fn, 0), x = LLVMGetParam(fn, 1);
  LLVMValueRef stream = with_stream ? LLVMGetParam(fn, 2) : LLVMConstNull(g->ptr);
  LLVMValueRef cuda_args[5] = {in, x, stream, g->err, g->errlen}, cpu_args[4] = {in, x, g->err, g->errlen};
  LLVMBasicBlockRef use_cuda = cg_block(g, "cuda");
  if (cpu_fn) {
    LLVMBasicBlockRef use_cpu = cg_block(g, "cpu");
    LLVMBuildCondBr(g->B, on_cuda(g, in, x), use_cuda, use_cpu);
    LLVMPositionBuilderAtEnd(g->B, use_cpu);
    if (with_stream) {
      LLVMBasicBlockRef refuse = cg_block(g, "refuse"), go = cg_block(g, "go");
      LLVMBuildCondBr(g->B, LLVMBuildIsNotNull(g->B, stream, "stream"), refuse, go);
      LLVMPositionBuilderAtEnd(g->B, refuse);
      LLVMTypeRef rp[2] = {g->ptr, g->i64};
      LLVMValueRef ra[2] = {g->err, g->errlen};
      LLVMBuildStore(g->B, cg_call(g, "sc_rt_refuse_stream", g->i32, rp, 2, ra, 2, false), g->rc_slot);
      LLVMBuildBr(g->B, g->exit_bb);
      LLVMPositionBuilderAtEnd(g->B, go);
    }
    LLVMBuildStore(g->B, LLVMBuildCall2(g->B, LLVMFunctionType(g->i32, p4, 4, 0), cpu_fn, cpu_args, 4, "rc"), g->rc_slot);
    LLVMBuildBr(g->B, g->exit_bb);
  } else {
    LLVMBuildBr(g->B, use_cuda);
  }
  LLVMPositionBuilderAtEnd(g->B, use_cuda);
  LLVMBuildStore(g->B, LLVMBuildCall2(g->B, LLVMFunctionType(g->i32, p5, 5, 0), cuda_fn, cuda_args, 5, "rc"), g->rc_slot);
  LLVMBuildBr(g->B, g->exit_bb);
  LLVMPositionBuilderAtEnd(g->B, g->exit_bb);
  LLVMBuildRet(g->B, LLVMBuildLoad2(g->B, g->i32, g->rc_slot, "rc"));
}

/* Both entry points for one path (CPU or CUDA). */
static bool emit_path(cg *g, bool cuda, LLVMValueRef *shapes, LLVMValueRef *run) {
  g->cuda = cuda;
  LLVMValueRef prepare = emit_prepare(g);
  if (g->failed) return false;
  bool plain = !g->has_cuda; /* a CPU-only library: the paths are the public functions */
  const char *shapes_name = plain ? "shapec_model_output_shapes" : cuda ? "sc_cuda_output_shapes" : "sc_cpu_output_shapes";
  const char *run_name = plain ? "shapec_model_run" : cuda ? "sc_cuda_run" : "sc_cpu_run";
  emit_output_shapes(g, prepare, shapes_name);
  if (g->failed) return false;
  *shapes = LLVMGetNamedFunction(g->M, shapes_name);
  emit_run(g, prepare, run_name);
  *run = LLVMGetNamedFunction(g->M, run_name);
  g->cuda = false;
  return !g->failed;
}

/* A user input's argument when it is not a value the graph computes with, for a message:
 * `the string constant "hello"`. */
static const char *constant_text(cg *g, const sc_arg *a) {
  const sc_arg_item *it = a->n_items ? &a->items[0] : NULL;
  if (!it) return "an argument with no value";
  switch (a->kind) {
    case SC_ARG_STRING: return sc_arena_printf(&g->ctx->arena, "the string constant \"%s\"", it->s ? it->s : "");
    case SC_ARG_INT: return sc_arena_printf(&g->ctx->arena, "the int constant %lld", (long long)it->i);
    case SC_ARG_FLOAT: return sc_arena_printf(&g->ctx->arena, "the float constant %.17g", it->f);
    case SC_ARG_BOOL: return it->b ? "the bool constant True" : "the bool constant False";
    case SC_ARG_NONE: return "None";
    default: return "a constant the library cannot take";
  }
}

/* Every user input must be a value the C ABI passes: a tensor, or an int the program keeps
 * symbolic.  A constant written as a user input (torch writes a str, int, float, bool or
 * None argument as a constant_input, which shapec bakes in or takes as a checked scalar)
 * is refused here, before the tables read its name.  Records SC0313 at the input's path. */
static bool check_user_inputs(cg *g) {
  for (size_t k = 0; k < g->n_call_inputs; k++) {
    sc_call_input ci = g->call_inputs[k];
    const sc_value *v = ci.value;
    if (ci.spec->kind != SC_INPUT_USER || (v && (v->kind == SC_VALUE_TENSOR || v->kind == SC_VALUE_SYM_INT))) continue;
    sc_diag *d;
    if (!v) {
      const char *what = constant_text(g, &ci.spec->arg);
      d = sc_diags_add(&g->ctx->diags, SC_DIAG_SIGNATURE_MISMATCH, SC_SEV_ERROR, g->p->file, ci.spec->path,
                       "user input %zu is %s, not a tensor or a symbolic int; a model library takes tensors and "
                       "scalars only", k, what);
      sc_diag_set_hint(&g->ctx->diags, d, "a constant argument of forward() belongs in a constant_input spec, as "
                       "torch.export writes it: {\"constant_input\": {\"name\": \"s\", \"value\": ...}} (shapec "
                       "bakes a string in and takes an int, float or bool as a checked scalar), or make it an "
                       "attribute of the module");
    } else {
      d = sc_diags_add(&g->ctx->diags, SC_DIAG_CODEGEN_UNSUPPORTED, SC_SEV_ERROR, g->p->file, ci.spec->path,
                       "user input %zu ('%s') is neither a tensor nor an int; the library takes tensors, ints and "
                       "constant scalars", k, ci.name ? ci.name : "?");
    }
    g->failed = true;
  }
  return !g->failed;
}

size_t cg_call_inputs(const sc_program *p, sc_call_input **out) {
  *out = sc_xcalloc(p->n_input_specs + 1, sizeof **out);
  sc_program one = *p; /* each spec asked about alone, as a program of that one spec */
  size_t n = 0;
  for (size_t i = 0; i < p->n_input_specs; i++) {
    one.input_specs = &p->input_specs[i];
    one.n_input_specs = 1;
    n += sc_program_call_input(&one, 0, &(*out)[n]);
  }
  return n;
}

static bool emit_entry_points(cg *g) {
  if (!check_user_inputs(g)) return false;
  emit_metadata(g);
  cg_plan_fusion(g);
  cg_plan_folds_begin(g);
  cg_plan_conv_rounding(g);
  cg_plan_batch_norm_folding(g);
  cg_plan_conv_rounding(g); /* the rounding after a batch norm folded in */
  cg_plan_batch_first_attention(g);
  cg_plan_conv_residuals(g);
  cg_plan_activation_epilogues(g);
  cg_plan_product_epilogues(g);
  cg_plan_tiny_linear_norms(g);
  cg_plan_conv_layouts(g);
  cg_plan_conv_pools(g);
  cg_plan_transposes(g);
  cg_plan_attention(g);
  cg_plan_strided_views(g);
  cg_plan_lifetimes(g);
  cg_plan_view_chains(g);
  cg_plan_grouped_kv(g);
  cg_plan_cache_appends(g);
  LLVMValueRef cpu_shapes = NULL, cpu_run = NULL, cuda_shapes = NULL, cuda_run = NULL;
  if (g->has_cpu && !emit_path(g, false, &cpu_shapes, &cpu_run)) return false;
  if (!g->has_cuda) {
    emit_const_fn(g, "shapec_model_targets", 1);
    return !g->failed;
  }
  if (!emit_path(g, true, &cuda_shapes, &cuda_run)) return false;
  emit_dispatch(g, "shapec_model_output_shapes", cpu_shapes, cuda_shapes, false);
  emit_dispatch(g, "shapec_model_run", cpu_run, cuda_run, false);
  emit_dispatch(g, "shapec_model_run_on_stream", cpu_run, cuda_run, true);
  emit_const_fn(g, "shapec_model_targets", (g->has_cpu ? 1 : 0) | 2);
  return !g->failed;
}

bool cg_emit_entry_points(cg *g) {
  if (!cg_complex_boundary_ok(g)) return false;
  g->n_call_inputs = cg_call_inputs(g->p, &g->call_inputs);
  g->many_inputs = g->n_call_inputs >= CG_MANY_INPUTS;
  bool ok = emit_entry_points(g);
  cg_finish_texts(g);
  return ok;
}
