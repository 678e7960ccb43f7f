/* verify_graph.c - definition-before-use check; see verify_graph.h. */
#include "verify_graph.h"

#include <stdio.h>

static bool check_graph(sc_ctx *ctx, const char *file, const sc_graph *g);

static bool check_item(sc_ctx *ctx, const char *file, const sc_arg *a, size_t k, const sc_value *v, int reader,
                       const char *reader_name) {
  if (!v || v->def_node == -1 || (v->def_node >= 0 && v->def_node < reader)) return true;
  char path[1200];
  if (a->n_items > 1 || a->kind == SC_ARG_TENSORS || a->kind == SC_ARG_SYM_INTS || a->kind == SC_ARG_OPTIONAL_TENSORS)
    snprintf(path, sizeof path, "%s[%zu]", a->path ? a->path : "", k);
  else
    snprintf(path, sizeof path, "%s", a->path ? a->path : "");
  sc_diag *d;
  if (v->def_node == -2) {
    d = sc_diags_add(&ctx->diags, SC_DIAG_UNDEFINED_VALUE, SC_SEV_ERROR, file, path,
                     "%s reads '%s', which no graph input or node output defines", reader_name, v->name);
    sc_diag_set_hint(&ctx->diags, d, "add the node that produces '%s', or make it a graph input", v->name);
  } else {
    d = sc_diags_add(&ctx->diags, SC_DIAG_USE_BEFORE_DEF, SC_SEV_ERROR, file, path,
                     "%s reads '%s' before node %d defines it", reader_name, v->name, v->def_node);
    sc_diag_set_hint(&ctx->diags, d, "nodes must be listed in topological order");
  }
  return false;
}

static bool check_arg(sc_ctx *ctx, const char *file, const sc_arg *a, int reader, const char *reader_name) {
  bool ok = true;
  if (a->graph) ok &= check_graph(ctx, file, a->graph);
  if (a->lists) {
    for (size_t i = 0; i < a->n_items; i++) ok &= check_arg(ctx, file, &a->lists[i], reader, reader_name);
    return ok;
  }
  for (size_t i = 0; i < a->n_items; i++) ok &= check_item(ctx, file, a, i, a->items[i].value, reader, reader_name);
  return ok;
}

static bool check_graph(sc_ctx *ctx, const char *file, const sc_graph *g) {
  bool ok = true;
  char who[300];
  for (size_t i = 0; i < g->n_nodes; i++) {
    const sc_node *n = &g->nodes[i];
    snprintf(who, sizeof who, "node '%s'", n->name);
    for (size_t k = 0; k < n->n_inputs; k++) ok &= check_arg(ctx, file, &n->inputs[k].arg, (int)i, who);
  }
  for (size_t i = 0; i < g->n_outputs; i++) ok &= check_arg(ctx, file, &g->outputs[i], (int)g->n_nodes, "the graph output");
  return ok;
}

bool sc_verify_graph(sc_ctx *ctx, const sc_program *p) { return check_graph(ctx, p->file, p->graph); }
