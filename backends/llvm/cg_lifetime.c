/* cg_lifetime.c - when each intermediate buffer of a run is dead.
 *
 * Every node output that owns memory gets a buffer; keeping them all until the run returns
 * makes the workspace the sum of every activation (about 1 GB for mobilenet_v2 at batch 8)
 * and every call page-faults through all of it.  So each buffer dies right after the last
 * node that reads it, or reads a view of it, is emitted: on the CPU its region of the
 * planned workspace goes to later buffers (cg_workspace.c), on the device it is freed.
 * Reads inside a fused loop happen when the loop's root node runs, so an inlined node's
 * reads count at its consumer's position.  Graph outputs live until they are copied out. */
#include <limits.h>
#include <stdlib.h>

#include "lower.h"

void cg_inlined_readers(cg *g, int *reader) {
  const sc_graph *gr = g->p->graph;
  for (size_t i = 0; i < gr->n_nodes; i++) reader[i] = -1;
  for (size_t i = 0; i < gr->n_nodes; i++) {
    const sc_node *nd = &gr->nodes[i];
    for (size_t k = 0; k < nd->n_inputs; k++) {
      const sc_arg *a = &nd->inputs[k].arg;
      for (size_t j = 0; j < a->n_items; j++) {
        const sc_value *v = a->items[j].value;
        if (v && v->kind == SC_VALUE_TENSOR && v->def_node >= 0 && cg_get(g, v)->inlined) reader[v->def_node] = (int)i;
      }
    }
  }
}

void cg_plan_lifetimes(cg *g) {
  const sc_graph *gr = g->p->graph;
  size_t n = gr->n_nodes;
  int *consumer = malloc((n + 1) * sizeof *consumer), *when = malloc((n + 1) * sizeof *when);
  if (!consumer || !when) {
    free(consumer);
    free(when);
    g->failed = true;
    return;
  }
  cg_inlined_readers(g, consumer);
  for (size_t r = n; r-- > 0;) when[r] = consumer[r] > (int)r ? when[consumer[r]] : (int)r;
  for (size_t i = 0; i < n; i++) {
    const sc_node *nd = &gr->nodes[i];
    for (size_t k = 0; k < nd->n_inputs; k++) {
      const sc_arg *a = &nd->inputs[k].arg;
      for (size_t j = 0; j < a->n_items; j++) {
        const sc_value *v = a->items[j].value;
        if (!v || v->kind != SC_VALUE_TENSOR) continue;
        cg_value *cv = cg_get(g, v);
        if (when[i] > cv->last_use) cv->last_use = when[i];
      }
    }
  }
  for (size_t i = 0; i < gr->n_outputs; i++)
    if (gr->outputs[i].n_items && gr->outputs[i].items[0].value) cg_get(g, gr->outputs[i].items[0].value)->last_use = INT_MAX;
  free(consumer);
  free(when);
}

void cg_note_alias(cg *g, cg_value *alias, cg_value *of) {
  (void)g;
  alias->owner = of->owner;
  if (alias->owner && alias->last_use > alias->owner->free_after) alias->owner->free_after = alias->last_use;
}

void cg_release_dead(cg *g, int node) {
  LLVMTypeRef fp[1] = {g->ptr};
  int live = 0; /* the owners still alive move to the front, in order: a walk per node over every
                   buffer taken so far was quadratic in a long graph */
  for (int i = 0; i < g->n_owners; i++) {
    cg_value *o = g->owners[i];
    if (o->freed) continue;
    if (o->free_after > node) {
      g->owners[live++] = o;
      continue;
    }
    o->freed = true;
    if (!g->cuda) { /* its region is free for the buffers taken after this node */
      cg_workspace_end(g, o, node);
      continue;
    }
    LLVMValueRef idx[1] = {cg_i64(g, o->slot)};
    LLVMValueRef slot = LLVMBuildGEP2(g->B, g->ptr, g->buffers, idx, 1, "slot");
    LLVMValueRef args[1] = {LLVMBuildLoad2(g->B, g->ptr, slot, "p")};
    cg_call(g, "sc_rt_free", g->voidt, fp, 1, args, 1, false);
    LLVMBuildStore(g->B, LLVMConstNull(g->ptr), slot); /* the exit frees what is left */
  }
  g->n_owners = live;
}
