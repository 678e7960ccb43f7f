/* dim_moves.h - movedim / moveaxis as permute, fliplr / flipud as flip (dim_moves.c). */
#ifndef SHAPEC_FRONTEND_DIM_MOVES_H
#define SHAPEC_FRONTEND_DIM_MOVES_H

#include <stdbool.h>

#include "ir/graph.h"
#include "lib/base/context.h"

/* Whether target is one of the ops rewritten here. */
bool sc_is_dim_move(const char *target);

/* Rewrites every such node of g in place, its dims computed from its input's rank; false
 * with a diagnostic for dims that are not constants or not a valid move. */
bool sc_rewrite_dim_moves(sc_ctx *ctx, const char *file, sc_graph *g);

#endif
