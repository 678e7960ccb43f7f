/* einsum_equation.h - an einsum equation ("bhqd,bhkd->bhqk", "...ij,...jk", "ii->i") read
 * into label numbers per operand dim and for the output, torch's rules: letters a-z A-Z,
 * one "..." per operand standing for its unnamed leading dims (right-aligned across
 * operands, as broadcasting aligns them), the output given after "->" or implicit (the
 * "..." dims, then the letters used once, in alphabetical order, upper case first). */
#ifndef SHAPEC_IR_EINSUM_EQUATION_H
#define SHAPEC_IR_EINSUM_EQUATION_H

#include <stdbool.h>
#include <stddef.h>

#define SC_EINSUM_MAX_OPERANDS 8
#define SC_EINSUM_MAX_DIMS 16
/* labels: 0-51 the letters (A-Z, then a-z), SC_EINSUM_ELLIPSIS + k the k-th "..." dim
 * counted from the right */
#define SC_EINSUM_ELLIPSIS 64
#define SC_EINSUM_LABELS (SC_EINSUM_ELLIPSIS + SC_EINSUM_MAX_DIMS)

typedef struct sc_einsum {
  int n_operands;
  int rank[SC_EINSUM_MAX_OPERANDS];
  int labels[SC_EINSUM_MAX_OPERANDS][SC_EINSUM_MAX_DIMS];
  int out_rank;
  int out[SC_EINSUM_MAX_DIMS];
} sc_einsum;

/* Reads eq for operands of the given ranks; false with torch-like words in err. */
bool sc_einsum_parse(const char *eq, const int *ranks, int n_operands, sc_einsum *e, char *err, size_t errlen);

#endif
