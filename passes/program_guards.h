/* program_guards.h - the program's own Python-level guards (guards_code).
 *
 * torch 2.8 and later write, beside the graph, the guards that tracing put on the inputs
 * as Python expressions over a dict L of the forward arguments:
 *     L['x'].size()[0] > 4
 *     (((-1) + L['x'].size()[0]) % 2) == 0
 *     L['d']['a'].size()[0] == L['d']['b'].size()[0] and L['xs'][0].size()[1] == 3
 * ep.module() checks them on every call.  This reads them back as conditions over the
 * analysed input sizes (so they hold the program's symbols, or the spec's when one is
 * given), in the subset of Python such guards use: integers, + - * // % **, unary minus,
 * comparisons (chained too), and / or / not, parentheses, Max / Min, and L[...] paths
 * ending in .size()[k], .size(k) or, for an int input, nothing.
 *
 * requires: the user inputs' shapes (sc_value.shape) or SymInt values (sc_value.sym) */
#ifndef SC_PROGRAM_GUARDS_H
#define SC_PROGRAM_GUARDS_H

#include "ir/graph.h"
#include "ir/symexpr.h"

typedef struct sc_program_guard {
  const sc_expr *cond;   /* over the inputs' analysed sizes, not yet resolved */
  const sc_expr *raw;    /* over the inputs' sizes as given on a call: symbols named by their
                            source, x.size()[1] (or n for an int input), as ep.module()
                            evaluates the guard */
  const char *text;      /* as ep.module() prints it when it fails: ast.unparse of the guard
                            with L['x'] written x, L['d']['a'] d_a (`-1 + x.size()[0] >= 2`) */
} sc_program_guard;

/* Parses one guard.  Returns false with *err (an arena message) and *col (0-based) when
 * the text is outside the subset or names something that is not an input size. */
bool sc_program_guard_parse(sc_ctx *ctx, const sc_program *p, const char *text, sc_program_guard *out, const char **err,
                            int *col);

#endif
