/* inline_wrappers.h - higher-order ops that only wrap a subgraph (wrap_with_set_grad_enabled,
 * wrap_with_autocast) replaced by the subgraph's nodes, so that every later stage sees
 * plain ATen nodes (inline_wrappers.c). */
#ifndef SHAPEC_FRONTEND_INLINE_WRAPPERS_H
#define SHAPEC_FRONTEND_INLINE_WRAPPERS_H

#include <stdbool.h>

#include "ir/graph.h"
#include "lib/base/context.h"

/* Whether target is such a wrapper (the reader takes it without an op of the table). */
bool sc_is_inlined_wrapper(const char *target);

/* Replaces every wrapper node of g (nested ones too) by its subgraph's nodes and renumbers
 * the values' defining nodes; false with a diagnostic (file, the node's path) when a
 * subgraph's inputs or outputs do not match the wrapper's. */
bool sc_inline_wrappers(sc_ctx *ctx, const char *file, sc_graph *g);

#endif
