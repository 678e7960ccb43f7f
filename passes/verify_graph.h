/* verify_graph.h - checks that every value a node reads is defined before it.
 *
 * requires: a program read by the model reader (values resolved, def_node set)
 * provides: every node input and graph output refers to a graph input or to the output
 *           of an earlier node; errors otherwise (undefined-value, use-before-definition) */
#ifndef SC_VERIFY_GRAPH_H
#define SC_VERIFY_GRAPH_H

#include <stdbool.h>

#include "ir/graph.h"

/* Returns true when the program's graphs (subgraphs included) are well formed. */
bool sc_verify_graph(sc_ctx *ctx, const sc_program *p);

#endif
