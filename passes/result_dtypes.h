/* result_dtypes.h - the dtype each operator's result has in torch, where it is fixed by the
 * operator and its inputs, checked against the dtype the program declares.
 *
 * The library sizes every buffer from the declared dtype, and a kernel writes the type it
 * computes: indices are int64 whatever the file says, a matrix product writes its
 * operands' type.  A program that declares another dtype (a crafted or damaged file) would
 * have the kernel write past the buffer; it is refused instead (SC0319 result-dtype).
 *
 * requires: a program read by the model reader
 * provides: for every node output with a dtype torch fixes, the declared dtype is that one */
#ifndef SC_RESULT_DTYPES_H
#define SC_RESULT_DTYPES_H

#include <stdbool.h>

#include "ir/graph.h"

/* The dtype torch gives output k of n (counting list items in order), or
 * SC_DTYPE_UNKNOWN where it is not fixed by the op and its inputs' dtypes. */
sc_dtype sc_result_dtype(const sc_node *n, int k);
/* Checks every node of the program (subgraphs not included); errors for each mismatch. */
bool sc_check_result_dtypes(sc_ctx *ctx, const sc_program *p);

#endif
