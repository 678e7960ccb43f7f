/* cg_cache_append.c - a KV cache that grows in the caller's buffer.
 *
 * A decoder exported with its cache as inputs and outputs (transformers' DynamicCache)
 * computes each layer's present key and value as cat([past, new], dim): every decode step
 * copies the whole past into the present, which is as many bytes as the cache holds, twice
 * (read and written), per layer.  A caller that keeps each cache in one buffer with room to
 * grow passes the past as a view of its first rows and the present as a view of the same
 * memory with the new rows after them (the same address and strides).  The past's rows are
 * then already where the present needs them: the cat writes only the new rows, and
 * attention reads the present through the caller's strides.  Decided on every call from
 * the tensors passed (sc_rt_cache_in_place); any other call copies as before.
 *
 * Taken where it is safe without a layout analysis: the past is a user input that only the
 * cat reads (through cats of it alone: the legacy cat([empty, past]) transformers' cache
 * writes), and the present is a graph output that only scaled_dot_product_attention reads,
 * as its key or value, at rank 4 at most.  A model that repeats its key/value heads
 * (grouped-query attention without enable_gqa) reads the present through an expand: it
 * copies. */
#include <stdlib.h>
#include <string.h>

#include "lower.h"

static const sc_value *node_output(const sc_node *n) {
  return n->n_outputs == 1 && n->outputs[0].n_items == 1 ? n->outputs[0].items[0].value : NULL;
}

static const sc_arg *tensors_arg(const sc_node *n) {
  for (size_t k = 0; k < n->n_inputs; k++)
    if (strcmp(n->inputs[k].name, "tensors") == 0) return &n->inputs[k].arg;
  return NULL;
}

/* A cat's operands that lower_cat copies: all but legacy empty 1-D tensors (torch's cat skips
 * those); at most two, in out[], their count returned (3: more). */
static int cat_operands(const sc_node *n, const sc_value **out) {
  const sc_arg *ts = tensors_arg(n);
  const sc_value *y = node_output(n);
  if (!ts || !y || y->kind != SC_VALUE_TENSOR) return 3;
  int k = 0;
  for (size_t i = 0; i < ts->n_items; i++) {
    const sc_value *x = ts->items[i].value;
    if (!x || x->kind != SC_VALUE_TENSOR) return 3;
    int64_t z;
    if (x->meta.rank == 1 && y->meta.rank > 1 && sc_expr_is_const(x->shape[0], &z) && z == 0) continue;
    if (k == 2) return 3;
    out[k++] = x;
  }
  return k;
}

static bool is_cat(const sc_node *n) { return n->op && n->op->id == SC_OP_CAT; }

/* Whether node i reads only its inputs' sizes (sym_size: a decoder reads the cache's length). */
static bool reads_sizes_only(cg *g, int i) {
  const sc_node *n = &g->p->graph->nodes[i];
  return n->op && n->op->id == SC_OP_SYM_SIZE;
}

/* The value's one reader of its elements, or -1 (none, several, or memory ran out). */
static int only_reader(cg *g, const sc_value *v) {
  int count, found = -1;
  const cg_read *reads = cg_readers(g, v, &count);
  for (int r = 0; r < count; r++) {
    if (reads_sizes_only(g, reads[r].node)) continue;
    if (found >= 0) return -1;
    found = reads[r].node;
  }
  return found;
}

static size_t output_index(cg *g, const sc_value *v, int *times) {
  size_t at = (size_t)-1;
  *times = 0;
  for (size_t i = 0; i < g->p->n_output_specs; i++) {
    const sc_arg *a = &g->p->output_specs[i].arg;
    if (a->n_items && a->items[0].value == v) {
      if (at == (size_t)-1) at = i;
      ++*times;
    }
  }
  return at;
}

/* The call input whose value is v, a tensor user input the program does not write back to. */
static size_t past_input(cg *g, const sc_value *v) {
  for (size_t k = 0; k < g->n_call_inputs; k++) {
    const sc_call_input *ci = &g->call_inputs[k];
    if (ci->value != v || ci->spec->kind != SC_INPUT_USER || v->kind != SC_VALUE_TENSOR) continue;
    for (size_t m = 0; m < g->p->n_mutations; m++)
      if (g->p->mutations[m].kind == SC_MUTATE_USER_INPUT && strcmp(g->p->mutations[m].target, v->name) == 0)
        return (size_t)-1;
    return k;
  }
  return (size_t)-1;
}

/* Whether every read of the present is attention's key or value, in a kernel of its own. */
static bool read_by_attention_only(cg *g, const sc_value *present) {
  int count;
  const cg_read *reads = cg_readers(g, present, &count);
  if (count < 1) return false;
  for (int r = 0; r < count; r++) {
    const sc_node *n = &g->p->graph->nodes[reads[r].node];
    if (n->op && n->op->id == SC_OP_UNSQUEEZE && n->outputs[0].n_items &&
        cg_get(g, n->outputs[0].items[0].value)->grouped_skip)
      continue; /* grouped-query attention's repeat_kv, which attention reads in place (cg_grouped_kv.c) */
    if (!n->op || n->op->id != SC_OP_SDPA || (g->folded && g->folded[reads[r].node].into)) return false;
    const char *as = n->inputs[reads[r].input].name;
    if (strcmp(as, "key") != 0 && strcmp(as, "value") != 0) return false;
  }
  return true;
}

void cg_plan_cache_appends(cg *g) {
  g->n_appends = 0;
  if (g->cuda || !g->has_cpu) return;
  for (size_t i = 0; i < g->a->env.n_symbols; i++) /* outputs are not placed in such programs */
    if (g->a->env.symbols[i].origin == SC_SYM_UNBACKED) return;
  const sc_graph *gr = g->p->graph;
  for (size_t i = 0; i < gr->n_nodes; i++) {
    const sc_node *n = &gr->nodes[i];
    const sc_value *ops[2], *present = node_output(n);
    if (!is_cat(n) || cat_operands(n, ops) != 2 || present->meta.rank > 4 || present->meta.rank < 1) continue;
    int dim = (int)cg_int_arg(n, "dim", 0);
    if (dim < 0) dim += present->meta.rank;
    if (dim < 0 || dim >= present->meta.rank || ops[0]->meta.rank != present->meta.rank) continue;
    /* the past: a user input, through cats of it alone that nothing else reads */
    const sc_value *past = ops[0];
    int links[8], n_links = 0;
    bool ok = true;
    while (ok && past->def_node >= 0) {
      const sc_node *d = &gr->nodes[past->def_node];
      const sc_value *alone[2];
      if (n_links == 8 || !is_cat(d) || cat_operands(d, alone) != 1 || only_reader(g, past) < 0 ||
          output_index(g, past, &(int){0}) != (size_t)-1) {
        ok = false;
        break;
      }
      links[n_links++] = past->def_node;
      past = alone[0];
    }
    size_t input = ok ? past_input(g, past) : (size_t)-1;
    int times;
    size_t output = output_index(g, present, &times);
    if (input == (size_t)-1 || only_reader(g, past) < 0 || output == (size_t)-1 || times != 1 ||
        past->meta.dtype != present->meta.dtype || !read_by_attention_only(g, present))
      continue;
    cg_value *cp = cg_get(g, present), *cpast = cg_get(g, past);
    if (cp->held_swapped || cp->view_base || cp->transposed || cp->strided || cp->rows_permuted || cp->chain_elided ||
        cpast->past_of)
      continue;
    g->appends = sc_xrealloc(g->appends, (size_t)(g->n_appends + 1) * sizeof *g->appends);
    g->appends[g->n_appends++] =
        (cg_append){.node = (int)i, .dim = dim, .input = input, .output = output, .past = past, .present = present};
    cp->append = g->n_appends;
    cpast->past_of = g->n_appends;
    for (int k = 0; k < n_links; k++) cg_get(g, node_output(&gr->nodes[links[k]]))->past_of = g->n_appends;
  }
}

void cg_cache_in_place(cg *g, LLVMValueRef inputs, LLVMValueRef outputs) {
  for (int s = 0; s < g->n_appends; s++) {
    cg_append *a = &g->appends[s];
    char refusal[600];
    snprintf(refusal, sizeof refusal,
             "output '%s' is strided: a strided output is taken only over the memory and strides of input '%s' "
             "(its cache grown in place along dim %d: the same first element and strides, the present's new "
             "elements after the past's); pass compact outputs otherwise",
             a->present->name, g->call_inputs[a->input].name ? g->call_inputs[a->input].name : a->past->name, a->dim);
    LLVMTypeRef p[10] = {g->ptr, g->i64, g->ptr, g->i64, g->i64, g->i64, g->i64, g->ptr, g->ptr, g->i64};
    LLVMValueRef args[10] = {inputs, cg_i64(g, (int64_t)g->n_call_inputs), outputs, cg_i64(g, (int64_t)g->p->n_output_specs),
                             cg_i64(g, (int64_t)a->input), cg_i64(g, (int64_t)a->output), cg_i64(g, a->dim),
                             cg_cstr(g, refusal), g->err, g->errlen};
    LLVMValueRef r = cg_call(g, "sc_rt_cache_in_place", g->i32, p, 10, args, 10, false);
    cg_fail_if(g, LLVMBuildICmp(g->B, LLVMIntSLT, r, LLVMConstInt(g->i32, 0, 0), "refused"),
               LLVMBuildNeg(g->B, r, "rc"));
    a->in_place = LLVMBuildICmp(g->B, LLVMIntEQ, r, LLVMConstInt(g->i32, 1, 0), "in_place");
    /* the present's strides this call: the caller's when in place (read now, before any
     * node runs), else compact (set when the cat is lowered) */
    cg_value *cp = cg_get(g, a->present);
    LLVMValueRef st = LLVMBuildLoad2(g->B, g->ptr, LLVMBuildStructGEP2(g->B, g->tensor_t,
                                     LLVMBuildGEP2(g->B, g->tensor_t, outputs, (LLVMValueRef[]){cg_i64(g, (int64_t)a->output)}, 1, "o"),
                                     5, "stp"), "strides");
    LLVMBasicBlockRef here = LLVMGetInsertBlock(g->B), read = cg_block(g, "grown.strides"), done = cg_block(g, "grown.done");
    LLVMBuildCondBr(g->B, a->in_place, read, done);
    LLVMPositionBuilderAtEnd(g->B, read);
    LLVMValueRef given[CG_MAX_RANK];
    int r4 = a->present->meta.rank;
    for (int d = 0; d < r4; d++) {
      LLVMValueRef idx[1] = {cg_i64(g, d)};
      /* in place only with strides given (sc_rt_cache_in_place): st is not NULL here */
      given[d] = LLVMBuildLoad2(g->B, g->i64, LLVMBuildGEP2(g->B, g->i64, st, idx, 1, "sp"), "s");
    }
    LLVMBasicBlockRef read_end = LLVMGetInsertBlock(g->B);
    LLVMBuildBr(g->B, done);
    LLVMPositionBuilderAtEnd(g->B, done);
    for (int d = 0; d < r4; d++) {
      cp->grown_strides[d] = LLVMBuildPhi(g->B, g->i64, "gs");
      LLVMValueRef vals[2] = {given[d], cg_i64(g, 0)};
      LLVMBasicBlockRef bbs[2] = {read_end, here};
      LLVMAddIncoming(cp->grown_strides[d], vals, bbs, 2);
    }
  }
}

static cg_append *site_of(cg *g, int tag) { return tag > 0 && tag <= g->n_appends ? &g->appends[tag - 1] : NULL; }

static LLVMValueRef in_place(cg *g, const cg_append *a) {
  return a && a->in_place && !g->cuda ? a->in_place : LLVMConstInt(g->i1, 0, 0);
}

LLVMValueRef cg_cache_input_kept(cg *g, const sc_value *v) {
  if (g->cuda || !g->n_appends) return NULL;
  cg_append *a = site_of(g, cg_get(g, v)->past_of);
  return a && a->past == v && a->in_place ? a->in_place : NULL;
}

bool cg_cache_output_strided_ok(cg *g, size_t output) {
  for (int s = 0; s < g->n_appends && !g->cuda; s++)
    if (g->appends[s].output == output) return true;
  return false;
}

/* Copies x (compact) into dst, whose dims have strides st (sc_k_copy_into). */
static void copy_into(cg *g, cg_value *x, LLVMValueRef dst, LLVMValueRef *st, sc_dtype dt) {
  int r = x->v->meta.rank;
  LLVMValueRef shape = cg_entry_array(g, g->i64, r, "shape"), strides = cg_entry_array(g, g->i64, r, "dst_st");
  for (int d = 0; d < r; d++) {
    LLVMValueRef idx[1] = {cg_i64(g, d)};
    LLVMBuildStore(g->B, x->dims[d], LLVMBuildGEP2(g->B, g->i64, shape, idx, 1, "sh"));
    LLVMBuildStore(g->B, st[d], LLVMBuildGEP2(g->B, g->i64, strides, idx, 1, "st"));
  }
  LLVMTypeRef p[6] = {g->ptr, g->ptr, g->i32, g->ptr, g->ptr, g->i64};
  LLVMValueRef a[6] = {x->data, dst, LLVMConstInt(g->i32, (unsigned)r, 0), shape, strides, cg_elem_size(g, dt)};
  cg_call(g, "sc_k_copy_into", g->voidt, p, 6, a, 6, false);
}

static LLVMValueRef at_elements(cg *g, LLVMValueRef base, LLVMValueRef elements, sc_dtype dt) {
  LLVMValueRef bytes = LLVMBuildMul(g->B, elements, cg_elem_size(g, dt), "off");
  return LLVMBuildGEP2(g->B, g->i8, base, &bytes, 1, "at");
}

bool cg_cat_of_input_alone(cg *g, const sc_node *n) {
  const sc_value *ops[2], *y = node_output(n);
  if (!y || cat_operands(n, ops) != 1 || ops[0]->def_node >= 0 || ops[0]->meta.dtype != y->meta.dtype) return false;
  if (cg_get(g, ops[0])->state) return false; /* a buffer the program updates in place */
  for (size_t m = 0; m < g->p->n_mutations; m++)
    if (strcmp(g->p->mutations[m].target, ops[0]->name) == 0) return false;
  return true;
}

bool cg_lower_cache_cat(cg *g, const sc_node *n) {
  const sc_value *y = node_output(n), *ops[2];
  cg_value *cy = cg_get(g, y);
  int k = cat_operands(n, ops);
  if (k == 1) { /* an input alone (the past, or a cache returned as it came): its elements */
    cg_value *x = cg_get(g, ops[0]);
    cg_set_dims(g, cy);
    cy->data = x->data;
    cg_note_alias(g, cy, x);
    cy->ready = true;
    return true;
  }
  cg_append *a = site_of(g, cy->append);
  cg_value *past = cg_get(g, ops[0]), *fresh = cg_get(g, ops[1]);
  cg_value *out = cg_produce(g, y); /* the caller's tensor when in place (cg_entry.c, place_outputs) */
  if (a && a->in_place && !out->placed) /* a workspace buffer is compact: never written through the caller's strides */
    return cg_error(g, SC_DIAG_CODEGEN, n->path, "internal error: cache '%s' may grow in place but is not placed in "
                    "the caller's tensor", y->name);
  int r = y->meta.rank;
  LLVMValueRef compact[CG_MAX_RANK], acc = cg_i64(g, 1), inp = in_place(g, a);
  for (int d = r - 1; d >= 0; d--) {
    compact[d] = acc;
    acc = LLVMBuildMul(g->B, acc, out->dims[d], "s");
  }
  for (int d = 0; d < r; d++)
    out->grown_strides[d] = a && a->in_place ? LLVMBuildSelect(g->B, inp, out->grown_strides[d], compact[d], "gst") : compact[d];
  /* the past's elements: already in place, or copied */
  LLVMBasicBlockRef copy = cg_block(g, "cache.copy"), appended = cg_block(g, "cache.new");
  LLVMBuildCondBr(g->B, inp, appended, copy);
  LLVMPositionBuilderAtEnd(g->B, copy);
  copy_into(g, past, out->data, out->grown_strides, y->meta.dtype);
  LLVMBuildBr(g->B, appended);
  LLVMPositionBuilderAtEnd(g->B, appended);
  /* the new elements after them */
  LLVMValueRef from = LLVMBuildMul(g->B, past->dims[a->dim], out->grown_strides[a->dim], "from");
  copy_into(g, fresh, at_elements(g, out->data, from, y->meta.dtype), out->grown_strides, y->meta.dtype);
  return true;
}

/* int shapec_model_output_grows(int output, int *dim): the call input whose cache output
 * `output` may grow in place over (its dim in *dim when dim is not NULL), or -1. */
void cg_emit_cache_api(cg *g) {
  LLVMTypeRef p[2] = {g->i32, g->ptr};
  LLVMValueRef fn = LLVMAddFunction(g->M, "shapec_model_output_grows", LLVMFunctionType(g->i32, p, 2, 0));
  LLVMPositionBuilderAtEnd(g->B, LLVMAppendBasicBlockInContext(g->C, fn, "entry"));
  LLVMValueRef output = LLVMGetParam(fn, 0), dim = LLVMGetParam(fn, 1);
  for (int s = 0; s < g->n_appends; s++) {
    const cg_append *a = &g->appends[s];
    LLVMBasicBlockRef hit = LLVMAppendBasicBlockInContext(g->C, fn, "hit"), store = LLVMAppendBasicBlockInContext(g->C, fn, "store"),
                      ret = LLVMAppendBasicBlockInContext(g->C, fn, "ret"), next = LLVMAppendBasicBlockInContext(g->C, fn, "next");
    LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntEQ, output, LLVMConstInt(g->i32, a->output, 0), "is"), hit, next);
    LLVMPositionBuilderAtEnd(g->B, hit);
    LLVMBuildCondBr(g->B, LLVMBuildIsNull(g->B, dim, "nodim"), ret, store);
    LLVMPositionBuilderAtEnd(g->B, store);
    LLVMBuildStore(g->B, LLVMConstInt(g->i32, (unsigned)a->dim, 0), dim);
    LLVMBuildBr(g->B, ret);
    LLVMPositionBuilderAtEnd(g->B, ret);
    LLVMBuildRet(g->B, LLVMConstInt(g->i32, a->input, 0));
    LLVMPositionBuilderAtEnd(g->B, next);
  }
  LLVMBuildRet(g->B, LLVMConstInt(g->i32, (unsigned long long)-1, 1));
}
