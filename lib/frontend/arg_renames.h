/* arg_renames.h - aliases whose arguments carry other names than their op's (swapaxes'
 * axis0 / axis1 are transpose's dim0 / dim1): the names rewritten once, after reading
 * (arg_renames.c). */
#ifndef SHAPEC_FRONTEND_ARG_RENAMES_H
#define SHAPEC_FRONTEND_ARG_RENAMES_H

#include "ir/graph.h"

/* Renames the arguments of every such node of g to its op's names. */
void sc_rename_alias_args(sc_graph *g);

#endif
