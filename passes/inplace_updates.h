/* inplace_updates.h - in-place operators (add_, mul_, relu_, hardtanh_) as torch runs them.
 *
 * The default export IR keeps in-place ops; shapec computes every op into a new value.
 * That is the same program when nothing reads the old value afterwards.  This pass makes
 * it so: every later reader of the updated tensor reads the op's result instead, and an
 * update of a buffer or a user input becomes a write-back after the call (a mutation, as
 * run_decompositions() would write it), which the library performs like ep.module().
 *
 * requires: a verified program (sc_verify_graph)
 * provides: no node reads a tensor that an earlier in-place op updated; p->mutations
 *           lists the write-backs; an update through a slice, select or in-order view
 *           becomes a scatter into (or a view_as of) its base, and the other views of that
 *           base read afterwards are taken again of the new base; an update through any
 *           other view whose base is read again (or is an input) is refused (SC0318
 *           inplace-through-view): shapec has no aliasing views */
#ifndef SC_INPLACE_UPDATES_H
#define SC_INPLACE_UPDATES_H

#include <stdbool.h>

#include "ir/graph.h"

bool sc_resolve_inplace_updates(sc_ctx *ctx, sc_program *p);

#endif
