/* graph.h - the program shapec compiles: values, nodes, graphs and the signature that
 * says which graph inputs are user inputs, parameters, buffers or constants.
 *
 * It mirrors torch.export's serialized ExportedProgram closely enough that every field a
 * later stage needs is here, and every object remembers its JSON path so that a late
 * error still points into the user's file.  Everything lives in the context's arena. */
#ifndef SC_GRAPH_H
#define SC_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "lib/base/context.h"
#include "lib/base/strmap.h"
#include "op_table.h"
#include "symexpr.h"

typedef enum sc_value_kind {
  SC_VALUE_TENSOR,
  SC_VALUE_SYM_INT,
  SC_VALUE_SYM_BOOL,
  SC_VALUE_SYM_FLOAT,
  SC_VALUE_CUSTOM_OBJ,
  SC_VALUE_TOKEN,
} sc_value_kind;

typedef struct sc_tensor_meta {
  sc_dtype dtype;
  int rank;
  const sc_expr **sizes;     /* rank entries */
  int64_t *size_hints;       /* sample size per dim; -1 when the file gives none */
  const sc_expr **strides;   /* rank entries, or NULL when absent */
  const sc_expr *storage_offset;
  bool requires_grad;
  const char *device_type;   /* "cpu", "cuda", "meta" */
  int device_index;          /* -1 when absent */
  int layout;
  sc_dtype rounds_to;        /* UNKNOWN, or float16/bfloat16: a float32 value standing for a half-precision
                              * one, whose numbers have that precision: rounded to it where an elementwise
                              * op computes it, and read as such by kernels that take half-precision
                              * operands (passes/half_precision.h) */
} sc_tensor_meta;

typedef struct sc_value {
  const char *name;
  sc_value_kind kind;
  sc_tensor_meta meta;       /* SC_VALUE_TENSOR */
  const sc_expr *expr;       /* SYM_INT / SYM_BOOL: the expression (or a constant) */
  bool has_hint;
  int64_t hint;              /* SYM_INT: sample value */
  double float_value;        /* SYM_FLOAT given as a constant */
  const char *class_fqn;     /* CUSTOM_OBJ */
  int def_node;              /* defining node index; -1 for a graph input; -2 not yet defined */
  const char *path;          /* where its meta is declared */
  const char *display;       /* a user input as torch's messages name it (d['y'] for d_y); NULL: name */
  /* set by the shape analysis (passes/shape_analysis.c) */
  const sc_expr **shape;     /* TENSOR: symbolic sizes, meta.rank entries: what the library computes */
  const sc_expr **shown;     /* TENSOR, or NULL when the same as shape: the sizes as the program's meta
                                shows them, with tracing's floor of 2 applied (shape's Min(2, s0) is 2) */
  const sc_expr *sym;        /* SYM_INT / SYM_BOOL: symbolic value */
} sc_value;

typedef enum sc_arg_kind {
  SC_ARG_NONE,
  SC_ARG_TENSOR,
  SC_ARG_TENSORS,
  SC_ARG_INT,
  SC_ARG_INTS,
  SC_ARG_FLOAT,
  SC_ARG_FLOATS,
  SC_ARG_STRING,
  SC_ARG_STRINGS,
  SC_ARG_SYM_INT,
  SC_ARG_SYM_INTS,
  SC_ARG_SCALAR_TYPE,
  SC_ARG_MEMORY_FORMAT,
  SC_ARG_LAYOUT,
  SC_ARG_DEVICE,
  SC_ARG_BOOL,
  SC_ARG_BOOLS,
  SC_ARG_SYM_BOOL,
  SC_ARG_SYM_BOOLS,
  SC_ARG_GRAPH,
  SC_ARG_OPTIONAL_TENSORS,
  SC_ARG_CUSTOM_OBJ,
  SC_ARG_OPERATOR,
  SC_ARG_SYM_FLOAT,
  SC_ARG_SYM_FLOATS,
  SC_ARG_OPTIONAL_TENSOR,
  SC_ARG_COMPLEX,
  SC_ARG_NESTED_TENSORS,
  SC_ARG_INT_LISTS,
  SC_ARG_STRING_TO_ARGUMENT,
  SC_ARG_TOKEN,
  SC_ARG_FLOAT_LISTS,        /* schema 8.20 */
} sc_arg_kind;

/* One element of an argument.  A reference to a value (tensor, SymInt, ...) has `value`
 * set; a literal has it NULL and uses the field of its kind. */
typedef struct sc_arg_item {
  sc_value *value;
  bool is_none;
  int64_t i;
  double f;
  bool b;
  const char *s;
} sc_arg_item;

struct sc_graph;

typedef struct sc_arg {
  sc_arg_kind kind;
  size_t n_items;            /* 1 for scalar kinds; the length for list kinds */
  sc_arg_item *items;
  struct sc_arg *lists;      /* NESTED_TENSORS, INT_LISTS, STRING_TO_ARGUMENT: n_items sub-arguments */
  const char **keys;         /* STRING_TO_ARGUMENT */
  struct sc_graph *graph;    /* GRAPH */
  double re, im;             /* COMPLEX */
  const char *device_type;   /* DEVICE */
  int device_index;
  const char *path;
} sc_arg;

typedef enum sc_arg_pass { SC_ARG_PASS_UNKNOWN, SC_ARG_PASS_POSITIONAL, SC_ARG_PASS_KEYWORD } sc_arg_pass;

typedef struct sc_named_arg {
  const char *name;
  sc_arg arg;
  sc_arg_pass pass;
} sc_named_arg;

typedef struct sc_node {
  const char *name;          /* node name, or the first output's name when absent */
  const char *target;
  const sc_op_info *op;
  bool inplace;              /* an in-place variant (aten.silu_) that op (aten.silu) computes,
                                its update resolved by passes/inplace_updates.c */
  sc_named_arg *inputs;
  size_t n_inputs;
  sc_arg *outputs;
  size_t n_outputs;
  const char *stack_trace;   /* from metadata, may be NULL */
  const char *path;
} sc_node;

typedef struct sc_graph {
  sc_arg *inputs;
  size_t n_inputs;
  sc_arg *outputs;
  size_t n_outputs;
  sc_node *nodes;
  size_t n_nodes;
  sc_strmap values;          /* name -> sc_value* */
  const char *path;
} sc_graph;

typedef enum sc_input_kind {
  SC_INPUT_USER,
  SC_INPUT_PARAMETER,
  SC_INPUT_BUFFER,
  SC_INPUT_TENSOR_CONSTANT,
  SC_INPUT_CONSTANT,
  SC_INPUT_CUSTOM_OBJ,
  SC_INPUT_TOKEN,
} sc_input_kind;

typedef struct sc_input_spec {
  sc_input_kind kind;
  sc_arg arg;                /* the graph input it describes (absent for CONSTANT) */
  const char *target;        /* parameter_name / buffer_name / tensor_constant_name / name */
  bool persistent;           /* buffers */
  sc_arg constant;           /* CONSTANT: its value (NONE, INT, FLOAT, STRING, BOOL) */
  const char *path;
} sc_input_spec;

typedef struct sc_output_spec {
  sc_arg arg;                /* a user output */
  const char *path;
} sc_output_spec;

/* A graph output that is not returned but written back after the call: a buffer's new
 * value (buffer_mutation) or a user input's (user_input_mutation), as functionalization
 * (run_decompositions) writes an in-place update. */
typedef enum { SC_MUTATE_BUFFER, SC_MUTATE_USER_INPUT } sc_mutation_kind;

typedef struct sc_mutation {
  sc_mutation_kind kind;
  sc_arg arg;                /* the new value */
  const char *target;        /* buffer_name / user_input_name */
  const char *path;
} sc_mutation;

typedef struct sc_range {
  const char *symbol;
  bool has_min, has_max;     /* absent means unbounded */
  int64_t min, max;
  const char *path;
} sc_range;

typedef struct sc_program {
  const char *file;          /* for diagnostics: the JSON's file, or ARCHIVE.pt2:MEMBER */
  const char *source;        /* the file the user named (the .pt2 or the .json), or NULL */
  char sha256[65];           /* of that file's bytes (empty when read from text) */
  int schema_major, schema_minor;
  const char *torch_version;
  sc_graph *graph;
  sc_input_spec *input_specs;
  size_t n_input_specs;
  sc_output_spec *output_specs;  /* user outputs only */
  size_t n_output_specs;
  sc_mutation *mutations;        /* the other graph outputs: write-backs */
  size_t n_mutations;
  sc_range *ranges;          /* for printing: the file's, then the analysis's */
  size_t n_ranges;
  const sc_range *file_ranges; /* range_constraints as the file gives them */
  size_t n_file_ranges;
  const char **forward_arg_names; /* from module_call_graph, may be NULL */
  size_t n_forward_arg_names;
  const char **guards_code;  /* the Python-level input guards (schema 8.x, torch 2.8+): "L['x'].size()[0] > 4" */
  const char **guards_code_paths;
  size_t n_guards_code;
} sc_program;

/* Returns the value named `name` in g, or NULL. */
sc_value *sc_graph_find_value(const sc_graph *g, const char *name);
/* Adds a value; returns NULL (adding nothing) when the name is taken. */
sc_value *sc_graph_add_value(sc_ctx *ctx, sc_graph *g, const char *name, sc_value_kind kind);
/* An argument holding the one tensor v (for a node a pass puts in). */
sc_arg sc_tensor_arg(sc_ctx *ctx, sc_value *v, const char *path);
/* Sets every node output's def_node to its node's index (after nodes were put in or moved). */
void sc_graph_number_defs(sc_graph *g);
const char *sc_value_kind_name(sc_value_kind kind);
const char *sc_input_kind_name(sc_input_kind kind);
/* The graph-input value an input spec refers to, or NULL. */
sc_value *sc_input_spec_value(const sc_input_spec *spec);
/* Counts the user inputs and returns the i-th one (or NULL). */
size_t sc_program_n_user_inputs(const sc_program *p);
const sc_input_spec *sc_program_user_input(const sc_program *p, size_t i);

/* What a caller passes, in the order of the program's signature, as to ep.module(): every
 * user input (a tensor, or an int the program keeps symbolic) and every constant input
 * that is an int, a float or a bool (torch's module checks it equals the traced value).
 * A scalar is passed as a 0-d tensor of dtype int64, float64 or bool. */
typedef struct sc_call_input {
  const sc_input_spec *spec;
  const sc_value *value;     /* the tensor or SymInt of a user input; NULL for a constant */
  const char *name;
  sc_dtype dtype;
  int rank;                  /* 0 for a scalar */
} sc_call_input;
size_t sc_program_n_call_inputs(const sc_program *p);
/* The k-th; false past the end. */
bool sc_program_call_input(const sc_program *p, size_t k, sc_call_input *out);

/* Prints the program in the spirit of torch's print(ep). */
void sc_program_print(sc_strbuf *sb, const sc_program *p);
/* Appends "f32[s0, 5]". */
void sc_tensor_meta_print(sc_strbuf *sb, const sc_tensor_meta *m);

#endif
