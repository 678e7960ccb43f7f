/* dynspec.h - the dynamic_shapes spec: what the user says about each input dimension.
 *
 * One entry per user input (in signature order) and one per root Dim.  A named or
 * derived dim reads size = coeff * root + offset.  Built by lib/spec_reader.c; the shape
 * analysis turns it into symbols and ranges. */
#ifndef SC_DYNSPEC_H
#define SC_DYNSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"

typedef enum sc_dim_kind {
  SC_DIM_STATIC,  /* an int, null, STATIC, or not mentioned */
  SC_DIM_AUTO,
  SC_DIM_DYNAMIC,
  SC_DIM_NAMED,   /* a Dim, or an expression A*dim + B of one */
  SC_DIM_PROGRAM, /* no spec: the program's own symbolic size (its tensor meta) */
} sc_dim_kind;

typedef struct sc_root_dim {
  const char *name;
  int64_t min;         /* torch's Dim default is 0 */
  bool has_max;        /* false: unbounded (int_oo) */
  int64_t max;
  const char **derived;
  size_t n_derived;
  bool has_sample;     /* value implied by the sample inputs */
  int64_t sample;
  const char *sample_from; /* the dim that implied it, "y.size()[0]", and its size */
  int64_t sample_dim;
  const char *path;
} sc_root_dim;

typedef struct sc_dim_spec {
  sc_dim_kind kind;
  int64_t static_size;       /* STATIC from an int leaf; -1 means "the sample size" */
  const sc_root_dim *root;   /* NAMED */
  int64_t coeff, offset;     /* NAMED: size = coeff * root + offset */
  bool has_min, has_max;     /* AUTO / DYNAMIC given as {"type": ..., "min": ..., "max": ...} */
  int64_t min, max;
  int64_t sample;            /* the sample size of this dim; -1 when unknown */
  const struct sc_expr *expr; /* PROGRAM: the size in the program's symbols ("s77", "2*s17 + 1") */
  const char *text;          /* the leaf as written, for messages */
  const char *path;
} sc_dim_spec;

typedef struct sc_input_dims {
  const sc_input_spec *input;
  const sc_value *value;     /* the tensor, or NULL for a non-tensor input */
  int rank;
  sc_dim_spec *dims;
  const char *path;          /* where its spec is, or NULL when unspecified */
  const sc_value *int_value; /* an int input the program keeps as a SymInt, else NULL */
  sc_dim_spec scalar;        /* ... and what the spec says of it: STATIC (the sample), AUTO,
                                DYNAMIC or PROGRAM (the program's own symbol) */
} sc_input_dims;

typedef struct sc_dynspec {
  const char *file;          /* NULL for a spec that is not a file (static, or the program's own) */
  char sha256[65];           /* of the spec's text, when it has one */
  bool from_program;         /* no --dynamic: the contract is the program's own (its metas, range_constraints,
                                guards_code), static where the program is */
  sc_root_dim *roots;
  size_t n_roots;
  sc_input_dims *inputs;     /* one per user input */
  bool prefer_deferred_asserts; /* torch's prefer_deferred_runtime_asserts_over_guards: a guard the
                                   spec language cannot state is checked on each call, not a violation */
  const char *const *metadata;  /* export --metadata: "KEY=VALUE" each, for the report */
  size_t n_metadata;
  size_t n_inputs;
} sc_dynspec;

const char *sc_dim_kind_name(sc_dim_kind kind);

#endif
