/* graph.c - small helpers over the program IR; see graph.h. */
#include "graph.h"

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
