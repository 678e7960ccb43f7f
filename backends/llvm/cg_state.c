/* cg_state.c - the model's state: the buffers a program updates in place (a KV cache, a
 * running mean, a counter), which live from one call to the next as ep.module() keeps
 * them.  The library holds its own copy (the one shapec_model_run updates); state handles
 * (backends/cpu/runtime/state.c) are further copies, each a conversation of its own.  A
 * run finds the copy it works on through sc_rt_state_buffers, once per call. */
#include <string.h>

#include "lower.h"
#include "runtime_abi.h"

/* Whether the program writes back to input spec i, a buffer or a lifted constant. */
static bool is_state(const sc_program *p, const sc_input_spec *s) {
  if (s->kind != SC_INPUT_BUFFER && s->kind != SC_INPUT_TENSOR_CONSTANT) return false;
  for (size_t k = 0; k < p->n_mutations; k++)
    if (p->mutations[k].kind == SC_MUTATE_BUFFER && strcmp(p->mutations[k].target, s->target) == 0) return true;
  return false;
}

static bool all_zero(const unsigned char *data, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (data[i]) return false;
  return true;
}

/* A private constant array of n items of type elem (one null item when n is 0). */
static LLVMValueRef const_array(cg *g, const char *name, LLVMTypeRef elem, LLVMValueRef *items, unsigned n) {
  LLVMValueRef none[1] = {LLVMConstNull(elem)};
  LLVMValueRef a = LLVMAddGlobal(g->M, LLVMArrayType2(elem, n ? n : 1), name);
  LLVMSetInitializer(a, LLVMConstArray2(elem, n ? items : none, n ? n : 1));
  LLVMSetGlobalConstant(a, 1);
  LLVMSetLinkage(a, LLVMPrivateLinkage);
  return a;
}

static LLVMValueRef const_bytes(cg *g, const char *name, const void *data, size_t n, bool writable) {
  LLVMValueRef init = LLVMConstStringInContext2(g->C, (const char *)data, n ? n : 1, 1);
  LLVMValueRef v = LLVMAddGlobal(g->M, LLVMTypeOf(init), name);
  LLVMSetInitializer(v, init);
  LLVMSetAlignment(v, 64);
  LLVMSetGlobalConstant(v, !writable);
  LLVMSetLinkage(v, LLVMInternalLinkage);
  return v;
}

void cg_emit_state(cg *g) {
  const sc_program *p = g->p;
  size_t n_specs = p->n_input_specs ? p->n_input_specs : 1;
  g->state = sc_arena_alloc(&g->ctx->arena, n_specs * sizeof *g->state);
  g->state_slot = sc_arena_alloc(&g->ctx->arena, n_specs * sizeof *g->state_slot);
  LLVMValueRef *names = sc_arena_alloc(&g->ctx->arena, n_specs * sizeof *names);
  LLVMValueRef *nbytes = sc_arena_alloc(&g->ctx->arena, n_specs * sizeof *nbytes);
  LLVMValueRef *init = sc_arena_alloc(&g->ctx->arena, n_specs * sizeof *init);
  LLVMValueRef *dtypes = sc_arena_alloc(&g->ctx->arena, n_specs * sizeof *dtypes);
  LLVMValueRef *ranks = sc_arena_alloc(&g->ctx->arena, n_specs * sizeof *ranks);
  LLVMValueRef *shapes = sc_arena_alloc(&g->ctx->arena, n_specs * sizeof *shapes);
  LLVMValueRef *defaults = sc_arena_alloc(&g->ctx->arena, n_specs * sizeof *defaults);
  unsigned n = 0;
  for (size_t i = 0; i < p->n_input_specs; i++) {
    const sc_input_spec *s = &p->input_specs[i];
    const sc_value *v = sc_input_spec_value(s);
    const sc_weight *w = is_state(p, s) && v ? sc_weights_find(g->w, s->target) : NULL;
    g->state[i] = NULL;
    g->state_slot[i] = -1;
    if (!w) continue;
    /* the library's own copy: starts as exported (all-zero data costs no file space) */
    g->state[i] = const_bytes(g, "shapec_state", w->data, w->nbytes, true);
    g->state_slot[i] = (int)n;
    defaults[n] = g->state[i];
    init[n] = all_zero(w->data, w->nbytes) ? LLVMConstNull(g->ptr)
                                           : const_bytes(g, "shapec_state_init", w->data, w->nbytes, false);
    names[n] = const_bytes(g, "shapec_state_name", s->target, strlen(s->target) + 1, false);
    nbytes[n] = cg_i64(g, (int64_t)w->nbytes);
    int code, bits;
    cg_dl_dtype(v->meta.dtype, &code, &bits);
    dtypes[n] = LLVMConstInt(g->i32, (unsigned)(code << 8 | bits), 0);
    ranks[n] = LLVMConstInt(g->i32, (unsigned)w->rank, 0);
    LLVMValueRef dims[CG_MAX_RANK];
    int rank = w->rank < CG_MAX_RANK ? w->rank : CG_MAX_RANK;
    for (int d = 0; d < rank; d++) dims[d] = cg_i64(g, w->shape[d]);
    shapes[n] = const_array(g, "shapec_state_shape", g->i64, dims, (unsigned)rank);
    n++;
  }
  LLVMValueRef fields[8] = {LLVMConstInt(g->i32, n, 0),
                            const_array(g, "shapec_state_names", g->ptr, names, n),
                            const_array(g, "shapec_state_nbytes", g->i64, nbytes, n),
                            const_array(g, "shapec_state_inits", g->ptr, init, n),
                            const_array(g, "shapec_state_defaults", g->ptr, defaults, n),
                            const_array(g, "shapec_state_dtypes", g->i32, dtypes, n),
                            const_array(g, "shapec_state_ranks", g->i32, ranks, n),
                            const_array(g, "shapec_state_shapes", g->ptr, shapes, n)};
  LLVMValueRef table = LLVMConstStructInContext(g->C, fields, 8, 0);
  g->state_table = LLVMAddGlobal(g->M, LLVMTypeOf(table), "shapec_state_table");
  LLVMSetInitializer(g->state_table, table);
  LLVMSetGlobalConstant(g->state_table, 1);
  LLVMSetLinkage(g->state_table, LLVMPrivateLinkage);
}

LLVMValueRef cg_state_data(cg *g, size_t i) {
  if (!g->state_buffers) {
    LLVMTypeRef p[1] = {g->ptr};
    LLVMValueRef a[1] = {g->state_table};
    g->state_buffers = cg_call(g, "sc_rt_state_buffers", g->ptr, p, 1, a, 1, false);
  }
  LLVMValueRef idx[1] = {cg_i64(g, g->state_slot[i])};
  return LLVMBuildLoad2(g->B, g->ptr, LLVMBuildGEP2(g->B, g->ptr, g->state_buffers, idx, 1, "slot"), "state");
}

/* ret name(params) { return runtime(table, params...); } */
static void forward_to_runtime(cg *g, const char *name, const char *runtime, LLVMTypeRef ret, LLVMTypeRef *params,
                               unsigned n) {
  LLVMValueRef fn = LLVMAddFunction(g->M, name, LLVMFunctionType(ret, params, n, 0));
  LLVMPositionBuilderAtEnd(g->B, LLVMAppendBasicBlockInContext(g->C, fn, "entry"));
  LLVMTypeRef rp[8] = {g->ptr};
  LLVMValueRef ra[8] = {g->state_table};
  for (unsigned k = 0; k < n; k++) {
    rp[k + 1] = params[k];
    ra[k + 1] = LLVMGetParam(fn, k);
  }
  LLVMValueRef f = LLVMGetNamedFunction(g->M, runtime);
  if (!f) f = LLVMAddFunction(g->M, runtime, LLVMFunctionType(ret, rp, n + 1, 0));
  LLVMValueRef r = LLVMBuildCall2(g->B, LLVMFunctionType(ret, rp, n + 1, 0), f, ra, n + 1, "");
  if (ret == g->voidt) LLVMBuildRetVoid(g->B);
  else LLVMBuildRet(g->B, r);
}

void cg_emit_state_api(cg *g) {
  LLVMTypeRef none[1] = {g->ptr}, one_int[1] = {g->i32}, handle[1] = {g->ptr}, tensor_of[3] = {g->ptr, g->i32, g->ptr};
  forward_to_runtime(g, "shapec_model_num_states", "sc_rt_state_count", g->i32, none, 0);
  forward_to_runtime(g, "shapec_model_state_name", "sc_rt_state_name", g->ptr, one_int, 1);
  forward_to_runtime(g, "shapec_model_state_new", "sc_rt_state_new", g->ptr, none, 0);
  forward_to_runtime(g, "shapec_model_state_free", "sc_rt_state_free", g->voidt, handle, 1);
  forward_to_runtime(g, "shapec_model_state_reset", "sc_rt_state_reset", g->i32, handle, 1);
  forward_to_runtime(g, "shapec_model_state_tensor", "sc_rt_state_tensor", g->i32, tensor_of, 3);
  /* run_with_state(state, inputs, outputs, err, errlen): the run, on that state */
  LLVMTypeRef rp[5] = {g->ptr, g->ptr, g->ptr, g->ptr, g->i64}, runp[4] = {g->ptr, g->ptr, g->ptr, g->i64};
  LLVMValueRef fn = LLVMAddFunction(g->M, "shapec_model_run_with_state", LLVMFunctionType(g->i32, rp, 5, 0));
  LLVMPositionBuilderAtEnd(g->B, LLVMAppendBasicBlockInContext(g->C, fn, "entry"));
  LLVMValueRef prev = LLVMBuildAlloca(g->B, g->ptr, "prev");
  LLVMTypeRef ep[5] = {g->ptr, g->ptr, g->ptr, g->ptr, g->i64};
  LLVMValueRef ea[5] = {g->state_table, LLVMGetParam(fn, 0), prev, LLVMGetParam(fn, 3), LLVMGetParam(fn, 4)};
  LLVMValueRef enter = LLVMGetNamedFunction(g->M, "sc_rt_state_enter");
  if (!enter) enter = LLVMAddFunction(g->M, "sc_rt_state_enter", LLVMFunctionType(g->i32, ep, 5, 0));
  LLVMValueRef rc = LLVMBuildCall2(g->B, LLVMFunctionType(g->i32, ep, 5, 0), enter, ea, 5, "rc");
  LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(g->C, fn, "run"), refuse = LLVMAppendBasicBlockInContext(g->C, fn, "refuse");
  LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntEQ, rc, LLVMConstInt(g->i32, 0, 0), "ok"), run, refuse);
  LLVMPositionBuilderAtEnd(g->B, refuse);
  LLVMBuildRet(g->B, rc);
  LLVMPositionBuilderAtEnd(g->B, run);
  LLVMValueRef ra[4] = {LLVMGetParam(fn, 1), LLVMGetParam(fn, 2), LLVMGetParam(fn, 3), LLVMGetParam(fn, 4)};
  LLVMValueRef result = LLVMBuildCall2(g->B, LLVMFunctionType(g->i32, runp, 4, 0),
                                       LLVMGetNamedFunction(g->M, "shapec_model_run"), ra, 4, "result");
  LLVMTypeRef lp[1] = {g->ptr};
  LLVMValueRef la[1] = {LLVMBuildLoad2(g->B, g->ptr, prev, "p")};
  LLVMValueRef leave = LLVMGetNamedFunction(g->M, "sc_rt_state_leave");
  if (!leave) leave = LLVMAddFunction(g->M, "sc_rt_state_leave", LLVMFunctionType(g->voidt, lp, 1, 0));
  LLVMBuildCall2(g->B, LLVMFunctionType(g->voidt, lp, 1, 0), leave, la, 1, "");
  LLVMBuildRet(g->B, result);
}
