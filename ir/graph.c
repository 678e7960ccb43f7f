/* graph.c - small helpers over the program IR; see graph.h. */
#include "graph.h"

#include <string.h>

sc_value *sc_graph_find_value(const sc_graph *g, const char *name) { return sc_strmap_get(&g->values, name); }

sc_value *sc_graph_add_value(sc_ctx *ctx, sc_graph *g, const char *name, sc_value_kind kind) {
  if (sc_strmap_get(&g->values, name)) return NULL;
  sc_value *v = sc_arena_alloc(&ctx->arena, sizeof *v);
  v->name = sc_ctx_intern(ctx, name);
  v->kind = kind;
  v->def_node = -2;
  v->meta.device_index = -1;
  sc_strmap_put(&g->values, v->name, v);
  return v;
}

sc_arg sc_tensor_arg(sc_ctx *ctx, sc_value *v, const char *path) {
  sc_arg a = {.kind = SC_ARG_TENSOR, .n_items = 1, .path = path};
  a.items = sc_arena_alloc(&ctx->arena, sizeof *a.items);
  memset(a.items, 0, sizeof *a.items);
  a.items[0].value = v;
  return a;
}

static void number_defs(const sc_arg *a, int index) {
  if (a->lists) {
    for (size_t i = 0; i < a->n_items; i++) number_defs(&a->lists[i], index);
    return;
  }
  for (size_t i = 0; i < a->n_items; i++)
    if (a->items[i].value) a->items[i].value->def_node = index;
}

void sc_graph_number_defs(sc_graph *g) {
  for (size_t i = 0; i < g->n_nodes; i++)
    for (size_t k = 0; k < g->nodes[i].n_outputs; k++) number_defs(&g->nodes[i].outputs[k], (int)i);
}

const char *sc_value_kind_name(sc_value_kind kind) {
  switch (kind) {
    case SC_VALUE_TENSOR: return "tensor";
    case SC_VALUE_SYM_INT: return "SymInt";
    case SC_VALUE_SYM_BOOL: return "SymBool";
    case SC_VALUE_SYM_FLOAT: return "SymFloat";
    case SC_VALUE_CUSTOM_OBJ: return "custom object";
    case SC_VALUE_TOKEN: return "token";
  }
  return "?";
}

const char *sc_input_kind_name(sc_input_kind kind) {
  switch (kind) {
    case SC_INPUT_USER: return "USER_INPUT";
    case SC_INPUT_PARAMETER: return "PARAMETER";
    case SC_INPUT_BUFFER: return "BUFFER";
    case SC_INPUT_TENSOR_CONSTANT: return "CONSTANT_TENSOR";
    case SC_INPUT_CONSTANT: return "CONSTANT_INPUT";
    case SC_INPUT_CUSTOM_OBJ: return "CUSTOM_OBJ";
    case SC_INPUT_TOKEN: return "TOKEN";
  }
  return "?";
}

sc_value *sc_input_spec_value(const sc_input_spec *spec) {
  return spec->arg.n_items ? spec->arg.items[0].value : NULL;
}

size_t sc_program_n_user_inputs(const sc_program *p) {
  size_t n = 0;
  for (size_t i = 0; i < p->n_input_specs; i++) n += p->input_specs[i].kind == SC_INPUT_USER;
  return n;
}

const sc_input_spec *sc_program_user_input(const sc_program *p, size_t k) {
  for (size_t i = 0; i < p->n_input_specs; i++)
    if (p->input_specs[i].kind == SC_INPUT_USER && k-- == 0) return &p->input_specs[i];
  return NULL;
}

/* A constant input the caller passes: an int, a float or a bool (not None or a string). */
static bool constant_is_passed(const sc_input_spec *s) {
  return s->kind == SC_INPUT_CONSTANT && s->constant.n_items == 1 &&
         (s->constant.kind == SC_ARG_INT || s->constant.kind == SC_ARG_FLOAT || s->constant.kind == SC_ARG_BOOL);
}

size_t sc_program_n_call_inputs(const sc_program *p) {
  size_t n = 0;
  for (size_t i = 0; i < p->n_input_specs; i++) n += p->input_specs[i].kind == SC_INPUT_USER || constant_is_passed(&p->input_specs[i]);
  return n;
}

bool sc_program_call_input(const sc_program *p, size_t k, sc_call_input *out) {
  for (size_t i = 0; i < p->n_input_specs; i++) {
    const sc_input_spec *s = &p->input_specs[i];
    if ((s->kind != SC_INPUT_USER && !constant_is_passed(s)) || k-- != 0) continue;
    const sc_value *v = s->kind == SC_INPUT_USER ? sc_input_spec_value(s) : NULL;
    *out = (sc_call_input){.spec = s, .value = v, .name = v ? v->name : s->target};
    if (v && v->kind == SC_VALUE_TENSOR) {
      out->dtype = v->meta.dtype;
      out->rank = v->meta.rank;
    } else if (v) {
      out->dtype = v->kind == SC_VALUE_SYM_BOOL ? SC_DTYPE_BOOL : v->kind == SC_VALUE_SYM_FLOAT ? SC_DTYPE_F64 : SC_DTYPE_I64;
    } else {
      out->dtype = s->constant.kind == SC_ARG_FLOAT ? SC_DTYPE_F64 : s->constant.kind == SC_ARG_BOOL ? SC_DTYPE_BOOL : SC_DTYPE_I64;
    }
    return true;
  }
  return false;
}
