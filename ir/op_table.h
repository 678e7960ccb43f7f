/* op_table.h - the operators shapec knows, generated from ops.def. */
#ifndef SC_OP_TABLE_H
#define SC_OP_TABLE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum sc_op_id {
#define SC_OP(id, target, cls) SC_OP_##id,
#include "ops.def"
#undef SC_OP
  SC_OP_COUNT
} sc_op_id;

typedef enum sc_op_class {
  SC_OPC_ELEMENTWISE,
  SC_OPC_MATMUL,
  SC_OPC_CONV,
  SC_OPC_POOL,
  SC_OPC_NORM,
  SC_OPC_REDUCTION,
  SC_OPC_VIEW,
  SC_OPC_INDEXING,
  SC_OPC_CREATION,
  SC_OPC_DATA_DEPENDENT,
  SC_OPC_SYMBOLIC,
  SC_OPC_ASSERT,
} sc_op_class;

typedef struct sc_op_info {
  sc_op_id id;
  const char *target; /* serialized name, e.g. torch.ops.aten.addmm.default */
  sc_op_class op_class;
} sc_op_info;

/* Returns the entry for a serialized target, or NULL. */
const sc_op_info *sc_op_lookup(const char *target);
const sc_op_info *sc_op_get(sc_op_id id);
/* For the in-place variant of a known elementwise operator ("torch.ops.aten.silu_.default"),
 * the functional one it updates its first argument with ("torch.ops.aten.silu.default");
 * NULL for any other target. */
const sc_op_info *sc_op_lookup_inplace(const char *target);
/* The name of an operator's first tensor argument in its schema: "self", or "input" for
 * aten.dropout (whose in-place variant calls it self). */
/* An op whose only form updates self (fill_diagonal_): its node is read as in place. */
bool sc_op_only_in_place(const sc_op_info *op);
const char *sc_op_self_name(const sc_op_info *op);
/* Fills `out` with up to `max` known targets closest to `target` (edit distance), best
 * first; returns how many. */
size_t sc_op_closest(const char *target, const char **out, size_t max);
const char *sc_op_class_name(sc_op_class cls);

#endif
