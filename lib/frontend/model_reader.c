/* model_reader.c - serialized ExportedProgram (JSON) to program IR; see model_reader.h.
 *
 * The layout follows torch/_export/serde/schema.py: every union is an object with exactly
 * one member named after the union field (`{"as_tensor": {"name": "x"}}`), enums are
 * integers, optional fields may be null or absent. */
#include "model_reader.h"

#include <stdlib.h>
#include <string.h>

#include "arg_renames.h"
#include "dim_moves.h"
#include "conv_padding.h"
#include "inline_wrappers.h"
#include "input_paths.h"
#include "json_document.h"
#include "lib/base/digest.h"
#include "lib/base/fileio.h"

/* The top graph's two containers that grow with the program, read one member at a time
 * (json_document.h): their trees would take ten times the file. */
static const char *const big_containers[] = {"graph_module.graph.tensor_values", "graph_module.graph.nodes", NULL};
enum { BIG_TENSOR_VALUES, BIG_NODES };

typedef struct reader {
  sc_ctx *ctx;
  sc_jr jr;
  int graph_depth;
  const sc_json_document *doc;  /* NULL when the text was parsed whole */
  const cJSON *top_graph;       /* the graph object whose big containers the document deferred */
} reader;

/* The deferred container `which` of graph object obj, or NULL when obj's members are in the tree. */
static const sc_json_container *deferred(const reader *r, const cJSON *obj, int which) {
  if (!r->doc || obj != r->top_graph || !r->doc->containers[which].deferred) return NULL;
  return &r->doc->containers[which];
}

/* Members of a container, from the tree or parsed one at a time: `next` returns each in
 * turn (NULL after the last, or for a member that is not JSON, with *failed set) and
 * `done` frees what `next` parsed. */
typedef struct member_walk {
  const reader *r;
  const sc_json_container *c;
  const cJSON *tree_next;
  cJSON *parsed;
  size_t i, n;
} member_walk;

static member_walk walk_members(const reader *r, const cJSON *container, const sc_json_container *c) {
  return (member_walk){.r = r, .c = c, .tree_next = c ? NULL : container->child,
                       .n = c ? c->n_members : (size_t)cJSON_GetArraySize(container)};
}

static const cJSON *next_member(member_walk *w, bool *failed) {
  cJSON_Delete(w->parsed);
  w->parsed = NULL;
  if (w->i == w->n) return NULL;
  size_t i = w->i++;
  if (!w->c) {
    const cJSON *it = w->tree_next;
    w->tree_next = it->next;
    return it;
  }
  w->parsed = sc_json_document_member(w->r->doc, w->c, i);
  if (!w->parsed) *failed = true;
  return w->parsed;
}

static bool read_graph(reader *r, const cJSON *obj, sc_graph *g);

/* ---- unions --------------------------------------------------------------------- */

/* Checks that item is a one-member object whose key is in `members` (NULL-terminated)
 * and returns the member's index; records bad-union and returns -1 otherwise.  The path
 * is extended with the member's key on success (caller pops with *saved). */
static int union_member(reader *r, const cJSON *item, const char *const *members, const char *what,
                        const cJSON **value, size_t *saved) {
  if (!sc_jr_expect_object(&r->jr, item)) return -1;
  int n = cJSON_GetArraySize(item);
  if (n != 1) {
    sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_BAD_UNION, "%s must have exactly one member, found %d", what, n);
    sc_diag_set_hint(&r->ctx->diags, d, "a union is written as one member named after its kind, e.g. {\"%s\": ...}",
                     members[0]);
    return -1;
  }
  const cJSON *m = item->child;
  for (int i = 0; members[i]; i++) {
    if (strcmp(m->string, members[i]) == 0) {
      *value = m;
      *saved = sc_jr_push_key(&r->jr, m->string);
      return i;
    }
  }
  char list[512] = "";
  for (int i = 0; members[i]; i++) {
    if (i) strncat(list, ", ", sizeof list - strlen(list) - 1);
    strncat(list, members[i], sizeof list - strlen(list) - 1);
  }
  sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_BAD_UNION, "unknown member '%s' of %s", m->string, what);
  sc_diag_set_hint(&r->ctx->diags, d, "expected one of: %s", list);
  return -1;
}

/* ---- symbolic values -------------------------------------------------------------- */

static const sc_expr *read_expr_str(reader *r, const cJSON *sym_expr, bool want_bool) {
  const char *text;
  if (!sc_jr_expect_object(&r->jr, sym_expr) || !sc_jr_string_field(&r->jr, sym_expr, "expr_str", true, &text) ||
      !text)
    return NULL;
  const char *err = NULL;
  int pos = 0;
  const sc_expr *e = sc_expr_parse(r->ctx, text, &err, &pos);
  size_t saved = sc_jr_push_key(&r->jr, "expr_str");
  if (!e) {
    sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_BAD_EXPR, "cannot read symbolic expression \"%s\": %s at offset %d",
                             text, err, pos);
    sc_diag_set_hint(&r->ctx->diags, d,
                     "shapec reads sympy's printed form: +, -, *, //, Mod, Min, Max, Eq, Ne, <, <=, >, >=");
  } else if (sc_expr_is_bool(e) != want_bool) {
    sc_jr_error(&r->jr, SC_DIAG_BAD_EXPR, "expression \"%s\" is %s where %s was expected", text,
                want_bool ? "an integer" : "a boolean", want_bool ? "a boolean" : "an integer");
    e = NULL;
  }
  sc_jr_pop(&r->jr, saved);
  return e;
}

/* Reads a SymInt union into an expression and its hint; *has_hint says whether the file
 * gives one (a constant is its own hint). */
static bool read_sym_int(reader *r, const cJSON *item, const sc_expr **out, int64_t *hint, bool *has_hint) {
  static const char *const members[] = {"as_expr", "as_int", NULL};
  const cJSON *v;
  size_t saved;
  *hint = 0;
  *has_hint = false;
  int which = union_member(r, item, members, "a SymInt", &v, &saved);
  if (which < 0) return false;
  bool ok = true;
  if (which == 1) {
    int64_t n = 0;
    ok = sc_jr_as_int(&r->jr, v, &n);
    *out = sc_expr_int(r->ctx, n);
    *hint = n;
    *has_hint = ok;
  } else {
    *out = read_expr_str(r, v, false);
    ok = *out != NULL;
    const cJSON *h = ok ? cJSON_GetObjectItemCaseSensitive(v, "hint") : NULL;
    if (h && !cJSON_IsNull(h)) {
      static const char *const hint_members[] = {"as_int", "as_bool", "as_float", NULL};
      const cJSON *hv;
      size_t s2, s3 = sc_jr_push_key(&r->jr, "hint");
      int hw = union_member(r, h, hint_members, "a SymExprHint", &hv, &s2);
      if (hw == 0) ok = *has_hint = sc_jr_as_int(&r->jr, hv, hint);
      else if (hw < 0) ok = false;
      if (hw >= 0) sc_jr_pop(&r->jr, s2);
      sc_jr_pop(&r->jr, s3);
    }
  }
  sc_jr_pop(&r->jr, saved);
  return ok;
}

/* ---- tensor metadata -------------------------------------------------------------- */

/* Reads a list of SymInts; sizes and strides of a tensor are never negative. */
static bool read_sym_int_list(reader *r, const cJSON *arr, const sc_expr ***exprs, int64_t **hints, int *n_out) {
  if (!sc_jr_expect_array(&r->jr, arr)) return false;
  int n = cJSON_GetArraySize(arr);
  *exprs = sc_arena_alloc(&r->ctx->arena, (size_t)(n ? n : 1) * sizeof **exprs);
  int64_t *h = sc_arena_alloc(&r->ctx->arena, (size_t)(n ? n : 1) * sizeof *h);
  bool ok = true;
  int i = 0;
  for (const cJSON *it = arr->child; it; it = it->next, i++) {
    size_t saved = sc_jr_push_index(&r->jr, (size_t)i);
    bool has_hint;
    if (!read_sym_int(r, it, &(*exprs)[i], &h[i], &has_hint)) {
      ok = false;
      (*exprs)[i] = sc_expr_int(r->ctx, 0);
    } else if (has_hint && h[i] < 0) {
      sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_NEGATIVE_SIZE, "%lld is negative", (long long)h[i]);
      sc_diag_set_hint(&r->ctx->diags, d, "tensor sizes and strides are never negative");
      ok = false;
    }
    if (!has_hint) h[i] = -1;
    sc_jr_pop(&r->jr, saved);
  }
  if (hints) *hints = h;
  *n_out = n;
  return ok;
}

static bool read_device(reader *r, const cJSON *obj, const char **type, int *index) {
  if (!sc_jr_expect_object(&r->jr, obj)) return false;
  int64_t idx = -1;
  *type = "cpu";
  bool ok = sc_jr_string_field(&r->jr, obj, "type", true, type);
  const cJSON *ix = cJSON_GetObjectItemCaseSensitive(obj, "index");
  if (ix && !cJSON_IsNull(ix)) ok &= sc_jr_int_field(&r->jr, obj, "index", false, &idx);
  *index = (int)idx;
  return ok;
}

static bool read_dtype(reader *r, const cJSON *obj, const char *key, sc_dtype *out) {
  int64_t code;
  if (!sc_jr_int_field(&r->jr, obj, key, true, &code)) return false;
  size_t saved = sc_jr_push_key(&r->jr, key);
  bool ok = true;
  if (!sc_dtype_is_known((int)code) || code != (int)code) {
    sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_BAD_ENUM, "unknown dtype code %lld", (long long)code);
    sc_diag_set_hint(&r->ctx->diags, d, "dtype codes follow torch's ScalarType: 7 is float32, 5 is int64, 12 is bool");
    ok = false;
  } else if (!sc_dtype_is_supported((sc_dtype)code)) {
    sc_jr_error(&r->jr, SC_DIAG_UNSUPPORTED_DTYPE, "dtype %s is not supported by shapec",
                sc_dtype_name((sc_dtype)code));
    ok = false;
  }
  sc_jr_pop(&r->jr, saved);
  *out = (sc_dtype)code;
  return ok;
}

static bool read_tensor_meta(reader *r, const cJSON *obj, sc_tensor_meta *m) {
  if (!sc_jr_expect_object(&r->jr, obj)) return false;
  bool ok = read_dtype(r, obj, "dtype", &m->dtype);
  const cJSON *sizes = sc_jr_field(&r->jr, obj, "sizes", true);
  if (sizes) {
    size_t saved = sc_jr_push_key(&r->jr, "sizes");
    ok &= read_sym_int_list(r, sizes, &m->sizes, &m->size_hints, &m->rank);
    sc_jr_pop(&r->jr, saved);
  } else {
    ok = false;
  }
  const cJSON *strides = cJSON_GetObjectItemCaseSensitive(obj, "strides");
  if (strides && !cJSON_IsNull(strides)) {
    size_t saved = sc_jr_push_key(&r->jr, "strides");
    int n = 0;
    ok &= read_sym_int_list(r, strides, &m->strides, NULL, &n);
    if (ok && sizes && n != m->rank) {
      sc_jr_error(&r->jr, SC_DIAG_WRONG_TYPE, "%d strides for a tensor of rank %d", n, m->rank);
      ok = false;
    }
    sc_jr_pop(&r->jr, saved);
  }
  const cJSON *off = cJSON_GetObjectItemCaseSensitive(obj, "storage_offset");
  if (off && !cJSON_IsNull(off)) {
    size_t saved = sc_jr_push_key(&r->jr, "storage_offset");
    int64_t hint;
    bool has_hint;
    ok &= read_sym_int(r, off, &m->storage_offset, &hint, &has_hint);
    sc_jr_pop(&r->jr, saved);
  }
  ok &= sc_jr_bool_field(&r->jr, obj, "requires_grad", false, &m->requires_grad);
  const cJSON *dev = cJSON_GetObjectItemCaseSensitive(obj, "device");
  m->device_type = "cpu";
  m->device_index = -1;
  if (dev && !cJSON_IsNull(dev)) {
    size_t saved = sc_jr_push_key(&r->jr, "device");
    ok &= read_device(r, dev, &m->device_type, &m->device_index);
    sc_jr_pop(&r->jr, saved);
  }
  int64_t layout = 7;
  const cJSON *lay = cJSON_GetObjectItemCaseSensitive(obj, "layout");
  if (lay && !cJSON_IsNull(lay)) ok &= sc_jr_int_field(&r->jr, obj, "layout", false, &layout);
  m->layout = (int)layout;
  if (ok && layout != 7) {
    size_t saved = sc_jr_push_key(&r->jr, "layout");
    sc_jr_error(&r->jr, SC_DIAG_BAD_ENUM, "layout %lld is not supported; shapec reads strided (7) tensors only",
                (long long)layout);
    sc_jr_pop(&r->jr, saved);
    ok = false;
  }
  return ok;
}

/* ---- value tables ----------------------------------------------------------------- */

static sc_value *define_value(reader *r, sc_graph *g, const char *name, sc_value_kind kind) {
  sc_value *v = sc_graph_add_value(r->ctx, g, name, kind);
  if (!v) {
    sc_value *old = sc_graph_find_value(g, name);
    sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_DUPLICATE_NAME, "value '%s' is declared twice (as a %s and as a %s)",
                             name, sc_value_kind_name(old->kind), sc_value_kind_name(kind));
    sc_diag_set_hint(&r->ctx->diags, d, "each name may appear in only one of tensor_values, sym_int_values, "
                                        "sym_bool_values, sym_float_values, custom_obj_values");
    return NULL;
  }
  v->path = sc_arena_strdup(&r->ctx->arena, r->jr.path);
  return v;
}

static bool read_value_table(reader *r, const cJSON *graph, const char *key, sc_value_kind kind, sc_graph *g,
                             bool required) {
  const cJSON *table = sc_jr_object_field(&r->jr, graph, key, required);
  if (!table) return !required || false;
  bool ok = true;
  size_t saved = sc_jr_push_key(&r->jr, key);
  member_walk w = walk_members(r, table, kind == SC_VALUE_TENSOR ? deferred(r, graph, BIG_TENSOR_VALUES) : NULL);
  bool failed = false;
  for (const cJSON *it; (it = next_member(&w, &failed)) || w.i < w.n;) {
    if (!it) { /* a member that is not JSON: its syntax error is recorded */
      ok = false;
      continue;
    }
    size_t s2 = sc_jr_push_key(&r->jr, it->string);
    sc_value *v = define_value(r, g, it->string, kind);
    if (!v) {
      ok = false;
    } else if (kind == SC_VALUE_TENSOR) {
      ok &= read_tensor_meta(r, it, &v->meta);
    } else if (kind == SC_VALUE_SYM_INT) {
      ok &= read_sym_int(r, it, &v->expr, &v->hint, &v->has_hint);
    } else if (kind == SC_VALUE_SYM_BOOL) {
      static const char *const members[] = {"as_expr", "as_bool", NULL};
      const cJSON *u;
      size_t s3;
      int which = union_member(r, it, members, "a SymBool", &u, &s3);
      if (which == 0) {
        v->expr = read_expr_str(r, u, true);
        ok &= v->expr != NULL;
      } else if (which == 1) {
        bool b = false;
        ok &= sc_jr_as_bool(&r->jr, u, &b);
        v->expr = sc_expr_bool(r->ctx, b);
      } else {
        ok = false;
      }
      if (which >= 0) sc_jr_pop(&r->jr, s3);
    } else if (kind == SC_VALUE_SYM_FLOAT) {
      static const char *const members[] = {"as_expr", "as_float", NULL};
      const cJSON *u;
      size_t s3;
      int which = union_member(r, it, members, "a SymFloat", &u, &s3);
      if (which == 1) ok &= sc_jr_as_float(&r->jr, u, &v->float_value);
      else if (which == 0) ok &= sc_jr_expect_object(&r->jr, u);
      else ok = false;
      if (which >= 0) sc_jr_pop(&r->jr, s3);
    } else if (kind == SC_VALUE_CUSTOM_OBJ) {
      ok &= sc_jr_expect_object(&r->jr, it) && sc_jr_string_field(&r->jr, it, "class_fqn", true, &v->class_fqn);
    }
    sc_jr_pop(&r->jr, s2);
  }
  sc_jr_pop(&r->jr, saved);
  return ok && !failed;
}

/* ---- arguments -------------------------------------------------------------------- */

static sc_value *resolve(reader *r, sc_graph *g, const char *name, sc_value_kind kind) {
  sc_value *v = sc_graph_find_value(g, name);
  if (!v) {
    if (kind == SC_VALUE_TENSOR) {
      sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_MISSING_META, "tensor '%s' has no entry in graph.tensor_values", name);
      sc_diag_set_hint(&r->ctx->diags, d, "every tensor the graph names needs its TensorMeta in tensor_values");
    } else {
      sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_UNDEFINED_VALUE, "%s '%s' is not defined", sc_value_kind_name(kind), name);
      sc_diag_set_hint(&r->ctx->diags, d, "declare it in the graph's value tables and produce it from an earlier node");
    }
    return NULL;
  }
  if (v->kind != kind) {
    sc_jr_error(&r->jr, SC_DIAG_VALUE_KIND, "'%s' is a %s, but it is used as a %s", name,
                sc_value_kind_name(v->kind), sc_value_kind_name(kind));
    return NULL;
  }
  return v;
}

static bool read_name_ref(reader *r, sc_graph *g, const cJSON *obj, sc_value_kind kind, sc_arg_item *it) {
  const char *name;
  if (!sc_jr_expect_object(&r->jr, obj) || !sc_jr_string_field(&r->jr, obj, "name", true, &name)) return false;
  size_t saved = sc_jr_push_key(&r->jr, "name");
  it->value = resolve(r, g, name, kind);
  sc_jr_pop(&r->jr, saved);
  return it->value != NULL;
}

/* Reads a SymIntArgument / SymBoolArgument / SymFloatArgument union. */
static bool read_sym_ref(reader *r, sc_graph *g, const cJSON *item, sc_arg_kind kind, sc_arg_item *it) {
  static const char *const int_members[] = {"as_name", "as_int", NULL};
  static const char *const bool_members[] = {"as_name", "as_bool", NULL};
  static const char *const float_members[] = {"as_name", "as_float", NULL};
  const char *const *members = kind == SC_ARG_SYM_INT ? int_members : kind == SC_ARG_SYM_BOOL ? bool_members : float_members;
  const char *what = kind == SC_ARG_SYM_INT ? "a SymIntArgument" : kind == SC_ARG_SYM_BOOL ? "a SymBoolArgument" : "a SymFloatArgument";
  sc_value_kind vk = kind == SC_ARG_SYM_INT ? SC_VALUE_SYM_INT : kind == SC_ARG_SYM_BOOL ? SC_VALUE_SYM_BOOL : SC_VALUE_SYM_FLOAT;
  const cJSON *v;
  size_t saved;
  int which = union_member(r, item, members, what, &v, &saved);
  if (which < 0) return false;
  bool ok;
  if (which == 0) {
    const char *name = NULL;
    ok = sc_jr_as_string(&r->jr, v, &name);
    if (ok) it->value = resolve(r, g, name, vk);
    ok = ok && it->value;
  } else if (kind == SC_ARG_SYM_INT) {
    ok = sc_jr_as_int(&r->jr, v, &it->i);
  } else if (kind == SC_ARG_SYM_BOOL) {
    ok = sc_jr_as_bool(&r->jr, v, &it->b);
  } else {
    ok = sc_jr_as_float(&r->jr, v, &it->f);
  }
  sc_jr_pop(&r->jr, saved);
  return ok;
}

static bool read_optional_tensor(reader *r, sc_graph *g, const cJSON *item, sc_arg_item *it) {
  static const char *const members[] = {"as_tensor", "as_none", NULL};
  const cJSON *v;
  size_t saved;
  int which = union_member(r, item, members, "an OptionalTensorArgument", &v, &saved);
  if (which < 0) return false;
  bool ok = true;
  if (which == 0) ok = read_name_ref(r, g, v, SC_VALUE_TENSOR, it);
  else it->is_none = true;
  sc_jr_pop(&r->jr, saved);
  return ok;
}

static const char *const argument_members[] = {
    "as_none",           "as_tensor",          "as_tensors",       "as_int",          "as_ints",
    "as_float",          "as_floats",          "as_string",        "as_strings",      "as_sym_int",
    "as_sym_ints",       "as_scalar_type",     "as_memory_format", "as_layout",       "as_device",
    "as_bool",           "as_bools",           "as_sym_bool",      "as_sym_bools",    "as_graph",
    "as_optional_tensors", "as_custom_obj",    "as_operator",      "as_sym_float",    "as_sym_floats",
    "as_optional_tensor", "as_complex",        "as_nested_tensors", "as_int_lists",   "as_string_to_argument",
    "as_float_lists",    NULL};
/* sc_arg_kind for each entry of argument_members, in the same order. */
static const sc_arg_kind argument_kinds[] = {
    SC_ARG_NONE,        SC_ARG_TENSOR,          SC_ARG_TENSORS,         SC_ARG_INT,        SC_ARG_INTS,
    SC_ARG_FLOAT,       SC_ARG_FLOATS,          SC_ARG_STRING,          SC_ARG_STRINGS,    SC_ARG_SYM_INT,
    SC_ARG_SYM_INTS,    SC_ARG_SCALAR_TYPE,     SC_ARG_MEMORY_FORMAT,   SC_ARG_LAYOUT,     SC_ARG_DEVICE,
    SC_ARG_BOOL,        SC_ARG_BOOLS,           SC_ARG_SYM_BOOL,        SC_ARG_SYM_BOOLS,  SC_ARG_GRAPH,
    SC_ARG_OPTIONAL_TENSORS, SC_ARG_CUSTOM_OBJ, SC_ARG_OPERATOR,        SC_ARG_SYM_FLOAT,  SC_ARG_SYM_FLOATS,
    SC_ARG_OPTIONAL_TENSOR, SC_ARG_COMPLEX,     SC_ARG_NESTED_TENSORS,  SC_ARG_INT_LISTS,  SC_ARG_STRING_TO_ARGUMENT,
    SC_ARG_FLOAT_LISTS,
};

static bool read_argument(reader *r, sc_graph *g, const cJSON *item, sc_arg *a);

/* Reads one scalar element of kind k (a list element, or the scalar itself). */
static bool read_item(reader *r, sc_graph *g, sc_arg_kind k, const cJSON *v, sc_arg_item *it) {
  switch (k) {
    case SC_ARG_TENSOR:
    case SC_ARG_TENSORS: return read_name_ref(r, g, v, SC_VALUE_TENSOR, it);
    case SC_ARG_INT:
    case SC_ARG_INTS:
    case SC_ARG_MEMORY_FORMAT:
    case SC_ARG_LAYOUT: return sc_jr_as_int(&r->jr, v, &it->i);
    case SC_ARG_SCALAR_TYPE:
      if (!sc_jr_as_int(&r->jr, v, &it->i)) return false;
      if (!sc_dtype_is_known((int)it->i)) {
        sc_jr_error(&r->jr, SC_DIAG_BAD_ENUM, "unknown scalar type code %lld", (long long)it->i);
        return false;
      }
      return true;
    case SC_ARG_FLOAT:
    case SC_ARG_FLOATS: return sc_jr_as_float(&r->jr, v, &it->f);
    case SC_ARG_STRING:
    case SC_ARG_STRINGS:
    case SC_ARG_OPERATOR: return sc_jr_as_string(&r->jr, v, &it->s);
    case SC_ARG_BOOL:
    case SC_ARG_BOOLS: return sc_jr_as_bool(&r->jr, v, &it->b);
    case SC_ARG_SYM_INT:
    case SC_ARG_SYM_INTS: return read_sym_ref(r, g, v, SC_ARG_SYM_INT, it);
    case SC_ARG_SYM_BOOL:
    case SC_ARG_SYM_BOOLS: return read_sym_ref(r, g, v, SC_ARG_SYM_BOOL, it);
    case SC_ARG_SYM_FLOAT:
    case SC_ARG_SYM_FLOATS: return read_sym_ref(r, g, v, SC_ARG_SYM_FLOAT, it);
    case SC_ARG_OPTIONAL_TENSOR:
    case SC_ARG_OPTIONAL_TENSORS: return read_optional_tensor(r, g, v, it);
    case SC_ARG_CUSTOM_OBJ: {
      const char *fqn;
      if (!read_name_ref(r, g, v, SC_VALUE_CUSTOM_OBJ, it)) return false;
      return sc_jr_string_field(&r->jr, v, "class_fqn", true, &fqn);
    }
    default: return false;
  }
}

static bool is_list(sc_arg_kind k) {
  return k == SC_ARG_TENSORS || k == SC_ARG_INTS || k == SC_ARG_FLOATS || k == SC_ARG_STRINGS ||
         k == SC_ARG_SYM_INTS || k == SC_ARG_BOOLS || k == SC_ARG_SYM_BOOLS || k == SC_ARG_OPTIONAL_TENSORS ||
         k == SC_ARG_SYM_FLOATS;
}

static bool read_list(reader *r, sc_graph *g, sc_arg_kind k, const cJSON *v, sc_arg *a) {
  if (!sc_jr_expect_array(&r->jr, v)) return false;
  a->n_items = (size_t)cJSON_GetArraySize(v);
  a->items = sc_arena_alloc(&r->ctx->arena, (a->n_items ? a->n_items : 1) * sizeof *a->items);
  bool ok = true;
  size_t i = 0;
  for (const cJSON *e = v->child; e; e = e->next, i++) {
    size_t saved = sc_jr_push_index(&r->jr, i);
    ok &= read_item(r, g, k, e, &a->items[i]);
    sc_jr_pop(&r->jr, saved);
  }
  return ok;
}

static bool read_nested(reader *r, sc_graph *g, sc_arg_kind inner, const cJSON *v, sc_arg *a) {
  if (!sc_jr_expect_array(&r->jr, v)) return false;
  a->n_items = (size_t)cJSON_GetArraySize(v);
  a->lists = sc_arena_alloc(&r->ctx->arena, (a->n_items ? a->n_items : 1) * sizeof *a->lists);
  bool ok = true;
  size_t i = 0;
  for (const cJSON *e = v->child; e; e = e->next, i++) {
    size_t saved = sc_jr_push_index(&r->jr, i);
    a->lists[i].kind = inner;
    ok &= read_list(r, g, inner, e, &a->lists[i]);
    sc_jr_pop(&r->jr, saved);
  }
  return ok;
}

static bool read_subgraph(reader *r, const cJSON *v, sc_arg *a) {
  const char *name = NULL;
  if (!sc_jr_expect_object(&r->jr, v) || !sc_jr_string_field(&r->jr, v, "name", true, &name)) return false;
  const cJSON *gobj = sc_jr_object_field(&r->jr, v, "graph", true);
  if (!gobj) return false;
  if (r->graph_depth >= 32) {
    sc_jr_error(&r->jr, SC_DIAG_WRONG_TYPE, "subgraphs nested more than 32 deep");
    return false;
  }
  a->items = sc_arena_alloc(&r->ctx->arena, sizeof *a->items);
  a->n_items = 1;
  a->items[0].s = name;
  a->graph = sc_arena_alloc(&r->ctx->arena, sizeof *a->graph);
  sc_strmap_init(&a->graph->values, &r->ctx->arena);
  size_t saved = sc_jr_push_key(&r->jr, "graph");
  r->graph_depth++;
  bool ok = read_graph(r, gobj, a->graph);
  r->graph_depth--;
  sc_jr_pop(&r->jr, saved);
  return ok;
}

static bool read_argument(reader *r, sc_graph *g, const cJSON *item, sc_arg *a) {
  const cJSON *v;
  size_t saved;
  a->path = sc_arena_strdup(&r->ctx->arena, r->jr.path);
  int which = union_member(r, item, argument_members, "an Argument", &v, &saved);
  if (which < 0) return false;
  sc_arg_kind k = argument_kinds[which];
  a->kind = k;
  bool ok = true;
  if (k == SC_ARG_NONE) {
    /* as_none is `true` in schema 8; older writers used [] or {} */
  } else if (is_list(k)) {
    ok = read_list(r, g, k, v, a);
  } else if (k == SC_ARG_NESTED_TENSORS) {
    ok = read_nested(r, g, SC_ARG_TENSORS, v, a);
  } else if (k == SC_ARG_INT_LISTS) {
    ok = read_nested(r, g, SC_ARG_INTS, v, a);
  } else if (k == SC_ARG_FLOAT_LISTS) {
    ok = read_nested(r, g, SC_ARG_FLOATS, v, a);
  } else if (k == SC_ARG_GRAPH) {
    ok = read_subgraph(r, v, a);
  } else if (k == SC_ARG_DEVICE) {
    ok = read_device(r, v, &a->device_type, &a->device_index);
  } else if (k == SC_ARG_COMPLEX) {
    const cJSON *re = sc_jr_field(&r->jr, v, "real", true), *im = sc_jr_field(&r->jr, v, "imag", true);
    ok = sc_jr_expect_object(&r->jr, v) && re && im && sc_jr_as_float(&r->jr, re, &a->re) &&
         sc_jr_as_float(&r->jr, im, &a->im);
  } else if (k == SC_ARG_STRING_TO_ARGUMENT) {
    ok = sc_jr_expect_object(&r->jr, v);
    if (ok) {
      a->n_items = (size_t)cJSON_GetArraySize(v);
      a->lists = sc_arena_alloc(&r->ctx->arena, (a->n_items ? a->n_items : 1) * sizeof *a->lists);
      a->keys = sc_arena_alloc(&r->ctx->arena, (a->n_items ? a->n_items : 1) * sizeof *a->keys);
      size_t i = 0;
      for (const cJSON *e = v->child; e; e = e->next, i++) {
        size_t s2 = sc_jr_push_key(&r->jr, e->string);
        a->keys[i] = sc_ctx_intern(r->ctx, e->string);
        ok &= read_argument(r, g, e, &a->lists[i]);
        sc_jr_pop(&r->jr, s2);
      }
    }
  } else {
    a->n_items = 1;
    a->items = sc_arena_alloc(&r->ctx->arena, sizeof *a->items);
    ok = read_item(r, g, k, v, &a->items[0]);
  }
  sc_jr_pop(&r->jr, saved);
  return ok;
}

/* ---- nodes and graphs ------------------------------------------------------------- */

/* Marks every value an output argument names as defined by node `index`. */
static bool define_outputs(reader *r, const sc_arg *a, int index) {
  bool ok = true;
  if (a->lists) {
    for (size_t i = 0; i < a->n_items; i++) ok &= define_outputs(r, &a->lists[i], index);
    return ok;
  }
  for (size_t i = 0; i < a->n_items; i++) {
    sc_value *v = a->items[i].value;
    if (!v) continue;
    if (v->def_node != -2) {
      sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_DUPLICATE_NAME, "value '%s' is defined twice (first by %s)", v->name,
                               v->def_node == -1 ? "a graph input" : "an earlier node");
      sc_diag_set_hint(&r->ctx->diags, d, "give each node output a unique name");
      ok = false;
    } else {
      v->def_node = index;
    }
  }
  return ok;
}

/* Whether torch's run_decompositions() rewrites target (ir/aten_decomposable.def, generated
 * by scripts/gen_ops_doc.py from torch 2.14's table). */
static bool is_decomposable(const char *target) {
  static const char *const decomposable[] = {
#define SC_DECOMPOSABLE(t) t,
#include "ir/aten_decomposable.def"
#undef SC_DECOMPOSABLE
  };
  for (size_t i = 0; i < sizeof decomposable / sizeof *decomposable; i++)
    if (strcmp(decomposable[i], target) == 0) return true;
  /* vmap's markers in the pre-dispatch IR (Mamba's scan): run_decompositions() traces them away */
  return strncmp(target, "torch._functorch.predispatch.", 29) == 0;
}

static bool read_node(reader *r, sc_graph *g, const cJSON *obj, sc_node *n, int index, sc_strmap *node_names) {
  n->path = sc_arena_strdup(&r->ctx->arena, r->jr.path);
  if (!sc_jr_expect_object(&r->jr, obj)) return false;
  bool ok = sc_jr_string_field(&r->jr, obj, "target", true, &n->target);
  if (ok && n->target) {
    n->op = sc_op_lookup(n->target);
    if (!n->op && (n->op = sc_op_lookup_inplace(n->target))) n->inplace = true;
    if (sc_op_only_in_place(n->op)) n->inplace = true;
    /* a wrapper's nodes replace it (inline_wrappers.c); padding modes and dim moves are
     * rewritten after the graph is read (conv_padding.c, dim_moves.c) */
    if (!n->op && !sc_is_inlined_wrapper(n->target) && !sc_conv_padding_overload(n->target) &&
        !sc_is_dim_move(n->target)) {
      const char *close[3];
      size_t nc = sc_op_closest(n->target, close, 3);
      size_t saved = sc_jr_push_key(&r->jr, "target");
      sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_UNKNOWN_OPERATOR, "unknown operator '%s'", n->target);
      if (is_decomposable(n->target)) /* a way forward without changing shapec */
        sc_diag_set_hint(&r->ctx->diags, d, "torch's run_decompositions() rewrites it into core ATen operators: export "
                         "ep = ep.run_decompositions() and save that (docs/ops-coverage.md lists what shapec compiles)");
      else
        sc_diag_set_hint(&r->ctx->diags, d, "run_decompositions() keeps it (a core ATen or custom operator); closest "
                         "known operators: %s%s%s%s%s.  Adding it: an entry in ir/ops.def, its shape rule in "
                         "passes/shape_rules.c, its lowering in backends/llvm/cg_ops.c (docs/ops-coverage.md)",
                         nc > 0 ? close[0] : "", nc > 1 ? ", " : "", nc > 1 ? close[1] : "", nc > 2 ? ", " : "",
                         nc > 2 ? close[2] : "");
      sc_jr_pop(&r->jr, saved);
      ok = false;
    }
  }
  const cJSON *inputs = sc_jr_array_field(&r->jr, obj, "inputs", true);
  const cJSON *outputs = sc_jr_array_field(&r->jr, obj, "outputs", true);
  ok &= inputs && outputs;
  if (inputs) {
    size_t saved = sc_jr_push_key(&r->jr, "inputs");
    n->n_inputs = (size_t)cJSON_GetArraySize(inputs);
    n->inputs = sc_arena_alloc(&r->ctx->arena, (n->n_inputs ? n->n_inputs : 1) * sizeof *n->inputs);
    size_t i = 0;
    for (const cJSON *it = inputs->child; it; it = it->next, i++) {
      size_t s2 = sc_jr_push_index(&r->jr, i);
      sc_named_arg *na = &n->inputs[i];
      if (sc_jr_expect_object(&r->jr, it)) {
        ok &= sc_jr_string_field(&r->jr, it, "name", true, &na->name);
        const cJSON *arg = sc_jr_field(&r->jr, it, "arg", true);
        if (arg) {
          size_t s3 = sc_jr_push_key(&r->jr, "arg");
          ok &= read_argument(r, g, arg, &na->arg);
          sc_jr_pop(&r->jr, s3);
        } else {
          ok = false;
        }
        int64_t kind = 0;
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(it, "kind");
        if (k && !cJSON_IsNull(k)) ok &= sc_jr_int_field(&r->jr, it, "kind", false, &kind);
        na->pass = kind == 1 ? SC_ARG_PASS_POSITIONAL : kind == 2 ? SC_ARG_PASS_KEYWORD : SC_ARG_PASS_UNKNOWN;
      } else {
        ok = false;
      }
      sc_jr_pop(&r->jr, s2);
    }
    sc_jr_pop(&r->jr, saved);
    /* an in-place variant's self is the functional operator's first argument */
    if (n->inplace && n->n_inputs && n->inputs[0].name && strcmp(n->inputs[0].name, "self") == 0)
      n->inputs[0].name = sc_op_self_name(n->op);
  }
  if (outputs) {
    size_t saved = sc_jr_push_key(&r->jr, "outputs");
    n->n_outputs = (size_t)cJSON_GetArraySize(outputs);
    n->outputs = sc_arena_alloc(&r->ctx->arena, (n->n_outputs ? n->n_outputs : 1) * sizeof *n->outputs);
    size_t i = 0;
    for (const cJSON *it = outputs->child; it; it = it->next, i++) {
      size_t s2 = sc_jr_push_index(&r->jr, i);
      if (read_argument(r, g, it, &n->outputs[i])) ok &= define_outputs(r, &n->outputs[i], index);
      else ok = false;
      sc_jr_pop(&r->jr, s2);
    }
    sc_jr_pop(&r->jr, saved);
  }
  const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
  const cJSON *st = cJSON_IsObject(meta) ? cJSON_GetObjectItemCaseSensitive(meta, "stack_trace") : NULL;
  /* interned: the nodes of a layer repeated a thousand times share their traces */
  if (cJSON_IsString(st)) n->stack_trace = sc_ctx_intern(r->ctx, st->valuestring);
  ok &= sc_jr_string_field(&r->jr, obj, "name", false, &n->name);
  if (!n->name) {
    for (size_t i = 0; i < n->n_outputs && !n->name; i++)
      if (n->outputs[i].n_items && n->outputs[i].items[0].value) n->name = n->outputs[i].items[0].value->name;
    if (!n->name) n->name = sc_arena_printf(&r->ctx->arena, "node_%d", index);
  }
  if (!sc_strmap_put(node_names, n->name, n)) {
    sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_DUPLICATE_NAME, "node name '%s' is used twice", n->name);
    sc_diag_set_hint(&r->ctx->diags, d, "node names must be unique within a graph");
    ok = false;
  }
  return ok;
}

static bool read_graph(reader *r, const cJSON *obj, sc_graph *g) {
  g->path = sc_arena_strdup(&r->ctx->arena, r->jr.path);
  bool ok = read_value_table(r, obj, "tensor_values", SC_VALUE_TENSOR, g, true);
  ok &= read_value_table(r, obj, "sym_int_values", SC_VALUE_SYM_INT, g, true);
  ok &= read_value_table(r, obj, "sym_bool_values", SC_VALUE_SYM_BOOL, g, true);
  ok &= read_value_table(r, obj, "sym_float_values", SC_VALUE_SYM_FLOAT, g, false);
  ok &= read_value_table(r, obj, "custom_obj_values", SC_VALUE_CUSTOM_OBJ, g, false);

  const cJSON *inputs = sc_jr_array_field(&r->jr, obj, "inputs", true);
  if (inputs) {
    size_t saved = sc_jr_push_key(&r->jr, "inputs");
    g->n_inputs = (size_t)cJSON_GetArraySize(inputs);
    g->inputs = sc_arena_alloc(&r->ctx->arena, (g->n_inputs ? g->n_inputs : 1) * sizeof *g->inputs);
    size_t i = 0;
    for (const cJSON *it = inputs->child; it; it = it->next, i++) {
      size_t s2 = sc_jr_push_index(&r->jr, i);
      if (read_argument(r, g, it, &g->inputs[i])) ok &= define_outputs(r, &g->inputs[i], -1);
      else ok = false;
      sc_jr_pop(&r->jr, s2);
    }
    sc_jr_pop(&r->jr, saved);
  } else {
    ok = false;
  }

  const cJSON *nodes = sc_jr_array_field(&r->jr, obj, "nodes", true);
  if (nodes) {
    sc_strmap node_names;
    sc_strmap_init(&node_names, &r->ctx->arena);
    size_t saved = sc_jr_push_key(&r->jr, "nodes");
    member_walk w = walk_members(r, nodes, deferred(r, obj, BIG_NODES));
    g->n_nodes = w.n;
    g->nodes = sc_arena_alloc(&r->ctx->arena, (g->n_nodes ? g->n_nodes : 1) * sizeof *g->nodes);
    bool failed = false;
    for (const cJSON *it; (it = next_member(&w, &failed)) || w.i < w.n;) {
      size_t i = w.i - 1;
      if (!it) continue;
      size_t s2 = sc_jr_push_index(&r->jr, i);
      ok &= read_node(r, g, it, &g->nodes[i], (int)i, &node_names);
      sc_jr_pop(&r->jr, s2);
    }
    ok &= !failed;
    sc_strmap_release(&node_names);
    sc_jr_pop(&r->jr, saved);
  } else {
    ok = false;
  }

  const cJSON *outputs = sc_jr_array_field(&r->jr, obj, "outputs", true);
  if (outputs) {
    size_t saved = sc_jr_push_key(&r->jr, "outputs");
    g->n_outputs = (size_t)cJSON_GetArraySize(outputs);
    g->outputs = sc_arena_alloc(&r->ctx->arena, (g->n_outputs ? g->n_outputs : 1) * sizeof *g->outputs);
    size_t i = 0;
    for (const cJSON *it = outputs->child; it; it = it->next, i++) {
      size_t s2 = sc_jr_push_index(&r->jr, i);
      ok &= read_argument(r, g, it, &g->outputs[i]);
      sc_jr_pop(&r->jr, s2);
    }
    sc_jr_pop(&r->jr, saved);
  } else {
    ok = false;
  }
  return ok;
}

/* ---- signature -------------------------------------------------------------------- */

/* The single value a spec's argument names, for matching with the graph's inputs. */
static const char *arg_value_name(const sc_arg *a) {
  return a->n_items && a->items && a->items[0].value ? a->items[0].value->name : NULL;
}

static bool read_input_spec(reader *r, sc_program *p, const cJSON *item, sc_input_spec *s, size_t index) {
  static const char *const members[] = {"user_input", "parameter", "buffer", "tensor_constant",
                                        "constant_input", "custom_obj", "token", NULL};
  static const sc_input_kind kinds[] = {SC_INPUT_USER, SC_INPUT_PARAMETER, SC_INPUT_BUFFER, SC_INPUT_TENSOR_CONSTANT,
                                        SC_INPUT_CONSTANT, SC_INPUT_CUSTOM_OBJ, SC_INPUT_TOKEN};
  static const char *const target_keys[] = {NULL, "parameter_name", "buffer_name", "tensor_constant_name", "name",
                                            "custom_obj_name", NULL};
  s->path = sc_arena_strdup(&r->ctx->arena, r->jr.path);
  const cJSON *v;
  size_t saved;
  int which = union_member(r, item, members, "an InputSpec", &v, &saved);
  if (which < 0) return false;
  s->kind = kinds[which];
  bool ok = sc_jr_expect_object(&r->jr, v);
  if (ok && (s->kind == SC_INPUT_CUSTOM_OBJ || s->kind == SC_INPUT_TOKEN)) {
    sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_UNSUPPORTED_SPEC, "input kind '%s' is not supported", members[which]);
    sc_diag_set_hint(&r->ctx->diags, d, "shapec compiles programs whose inputs are user inputs, parameters, buffers "
                                        "and constants; export without TorchBind objects or effect tokens");
    ok = false;
  } else if (ok) {
    if (target_keys[which]) ok &= sc_jr_string_field(&r->jr, v, target_keys[which], true, &s->target);
    if (s->kind == SC_INPUT_BUFFER) ok &= sc_jr_bool_field(&r->jr, v, "persistent", false, &s->persistent);
    if (s->kind == SC_INPUT_CONSTANT) {
      static const char *const cmembers[] = {"as_none", "as_int", "as_float", "as_string", "as_bool", NULL};
      static const sc_arg_kind ckinds[] = {SC_ARG_NONE, SC_ARG_INT, SC_ARG_FLOAT, SC_ARG_STRING, SC_ARG_BOOL};
      const cJSON *cv = sc_jr_field(&r->jr, v, "value", true);
      if (cv) {
        size_t s2 = sc_jr_push_key(&r->jr, "value"), s3;
        const cJSON *u;
        int cw = union_member(r, cv, cmembers, "a ConstantValue", &u, &s3);
        if (cw >= 0) {
          s->constant.kind = ckinds[cw];
          s->constant.n_items = 1;
          s->constant.items = sc_arena_alloc(&r->ctx->arena, sizeof *s->constant.items);
          if (cw == 0) s->constant.items[0].is_none = true;
          else ok &= read_item(r, p->graph, ckinds[cw], u, &s->constant.items[0]);
          sc_jr_pop(&r->jr, s3);
        } else {
          ok = false;
        }
        sc_jr_pop(&r->jr, s2);
      } else {
        ok = false;
      }
    } else {
      const cJSON *arg = sc_jr_field(&r->jr, v, "arg", true);
      if (arg) {
        size_t s2 = sc_jr_push_key(&r->jr, "arg");
        if (s->kind == SC_INPUT_USER) {
          ok &= read_argument(r, p->graph, arg, &s->arg);
        } else {
          s->arg.kind = SC_ARG_TENSOR;
          s->arg.n_items = 1;
          s->arg.items = sc_arena_alloc(&r->ctx->arena, sizeof *s->arg.items);
          s->arg.path = sc_arena_strdup(&r->ctx->arena, r->jr.path);
          ok &= read_name_ref(r, p->graph, arg, SC_VALUE_TENSOR, &s->arg.items[0]);
        }
        sc_jr_pop(&r->jr, s2);
      } else {
        ok = false;
      }
    }
  }
  /* The i-th spec describes the i-th graph input. */
  if (ok && s->kind != SC_INPUT_CONSTANT && index < p->graph->n_inputs) {
    const char *want = arg_value_name(&p->graph->inputs[index]), *got = arg_value_name(&s->arg);
    if (want && got && want != got) {
      sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_SIGNATURE_MISMATCH,
                               "input spec %zu names '%s' but graph input %zu is '%s'", index, got, index, want);
      sc_diag_set_hint(&r->ctx->diags, d, "input_specs must list the graph's inputs in the same order");
      ok = false;
    }
  }
  sc_jr_pop(&r->jr, saved);
  return ok;
}

/* One OutputSpec: a user output into *out, a buffer or user-input mutation appended to
 * p->mutations; the training-only kinds are refused. */
static bool read_output_spec(reader *r, sc_program *p, const cJSON *item, sc_output_spec *out, bool *is_user) {
  static const char *const members[] = {"user_output", "loss_output", "buffer_mutation", "gradient_to_parameter",
                                        "gradient_to_user_input", "user_input_mutation", "token",
                                        "parameter_mutation", NULL};
  const char *path = sc_arena_strdup(&r->ctx->arena, r->jr.path);
  const cJSON *v;
  size_t saved;
  *is_user = false;
  int which = union_member(r, item, members, "an OutputSpec", &v, &saved);
  if (which < 0) return false;
  bool ok = false;
  if (which != 0 && which != 2 && which != 5) {
    sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_UNSUPPORTED_SPEC, "output kind '%s' is not supported", members[which]);
    sc_diag_set_hint(&r->ctx->diags, d, "shapec compiles inference programs: export the module in eval mode with "
                                        "torch.export.export(...), without gradients, losses or effect tokens");
  } else if (sc_jr_expect_object(&r->jr, v)) {
    const cJSON *arg = sc_jr_field(&r->jr, v, "arg", true);
    const char *target_key = which == 2 ? "buffer_name" : which == 5 ? "user_input_name" : NULL, *target = NULL;
    if (arg && (!target_key || sc_jr_string_field(&r->jr, v, target_key, true, &target))) {
      sc_arg value = {0};
      size_t s2 = sc_jr_push_key(&r->jr, "arg");
      if (which == 0) {
        ok = read_argument(r, p->graph, arg, &value);
      } else { /* a TensorArgument, as for the inputs of parameters and buffers */
        value.kind = SC_ARG_TENSOR;
        value.n_items = 1;
        value.items = sc_arena_alloc(&r->ctx->arena, sizeof *value.items);
        value.path = sc_arena_strdup(&r->ctx->arena, r->jr.path);
        ok = read_name_ref(r, p->graph, arg, SC_VALUE_TENSOR, &value.items[0]);
      }
      sc_jr_pop(&r->jr, s2);
      if (ok && which == 0) {
        out->arg = value;
        out->path = path;
        *is_user = true;
      } else if (ok) {
        sc_mutation *m = &p->mutations[p->n_mutations++];
        m->kind = which == 2 ? SC_MUTATE_BUFFER : SC_MUTATE_USER_INPUT;
        m->arg = value;
        m->target = sc_arena_strdup(&r->ctx->arena, target);
        m->path = path;
      }
    }
  }
  sc_jr_pop(&r->jr, saved);
  return ok;
}

static bool read_signature(reader *r, sc_program *p, const cJSON *sig) {
  const cJSON *ins = sc_jr_array_field(&r->jr, sig, "input_specs", true);
  const cJSON *outs = sc_jr_array_field(&r->jr, sig, "output_specs", true);
  if (!ins || !outs) return false;
  bool ok = true;
  size_t saved = sc_jr_push_key(&r->jr, "input_specs");
  p->n_input_specs = (size_t)cJSON_GetArraySize(ins);
  p->input_specs = sc_arena_alloc(&r->ctx->arena, (p->n_input_specs ? p->n_input_specs : 1) * sizeof *p->input_specs);
  size_t i = 0;
  for (const cJSON *it = ins->child; it; it = it->next, i++) {
    size_t s2 = sc_jr_push_index(&r->jr, i);
    ok &= read_input_spec(r, p, it, &p->input_specs[i], i);
    sc_jr_pop(&r->jr, s2);
  }
  /* torch writes a graph input for every spec, constant inputs included */
  if (ok && p->n_input_specs != p->graph->n_inputs) {
    sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_SIGNATURE_MISMATCH, "%zu input specs for %zu graph inputs",
                             p->n_input_specs, p->graph->n_inputs);
    sc_diag_set_hint(&r->ctx->diags, d, "the signature must describe every graph input exactly once");
    ok = false;
  }
  sc_jr_pop(&r->jr, saved);

  saved = sc_jr_push_key(&r->jr, "output_specs");
  size_t n_specs = (size_t)cJSON_GetArraySize(outs);
  p->output_specs = sc_arena_alloc(&r->ctx->arena, (n_specs ? n_specs : 1) * sizeof *p->output_specs);
  p->mutations = sc_arena_alloc(&r->ctx->arena, (n_specs ? n_specs : 1) * sizeof *p->mutations);
  p->n_output_specs = p->n_mutations = 0;
  i = 0;
  for (const cJSON *it = outs->child; it; it = it->next, i++) {
    size_t s2 = sc_jr_push_index(&r->jr, i);
    bool is_user;
    ok &= read_output_spec(r, p, it, &p->output_specs[p->n_output_specs], &is_user);
    p->n_output_specs += is_user;
    sc_jr_pop(&r->jr, s2);
  }
  if (ok && n_specs != p->graph->n_outputs) {
    sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_SIGNATURE_MISMATCH, "%zu output specs for %zu graph outputs",
                             n_specs, p->graph->n_outputs);
    sc_diag_set_hint(&r->ctx->diags, d, "the signature must describe every graph output exactly once");
    ok = false;
  }
  sc_jr_pop(&r->jr, saved);
  return ok;
}

/* ---- program ---------------------------------------------------------------------- */

/* A range bound: an integer, null (unbounded) or Python's +-Infinity. */
/* Whether a long integer as the JSON reader keeps it ("\x01" then the digits, maybe a
 * sign) lies beyond int64 (json_reader.c, sc_json_exact_int). */
static bool past_int64(const char *text) {
  if (text[0] != '\x01') return false;
  const char *d = text + 1 + (text[1] == '-');
  size_t n = strspn(d, "0123456789");
  if (n == 0 || d[n]) return false;
  while (n > 1 && *d == '0') d++, n--;
  return n > 19 || (n == 19 && strcmp(d, text[1] == '-' ? "9223372036854775808" : "9223372036854775807") > 0);
}

static bool read_bound(reader *r, const cJSON *obj, const char *key, bool *has, int64_t *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  *has = false;
  if (!v || cJSON_IsNull(v)) return true;
  size_t saved = sc_jr_push_key(&r->jr, key);
  bool ok;
  if (cJSON_IsString(v) && (strcmp(v->valuestring, "Infinity") == 0 || strcmp(v->valuestring, "-Infinity") == 0)) {
    ok = true;
  } else if (cJSON_IsString(v) && past_int64(v->valuestring)) {
    ok = true; /* torch 2.6 writes some unbounded ends as 2^63 + 1: unbounded too */
  } else {
    ok = sc_jr_as_int(&r->jr, v, out);
    /* torch writes int_oo as sys.maxsize - 1 (and its negation): unbounded */
    *has = ok && *out < INT64_MAX - 1 && *out > -(INT64_MAX - 1);
  }
  sc_jr_pop(&r->jr, saved);
  return ok;
}

static bool read_ranges(reader *r, sc_program *p, const cJSON *root) {
  const cJSON *rc = sc_jr_object_field(&r->jr, root, "range_constraints", false);
  if (!rc) return !cJSON_GetObjectItemCaseSensitive(root, "range_constraints") ||
                  cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(root, "range_constraints"));
  bool ok = true;
  size_t saved = sc_jr_push_key(&r->jr, "range_constraints");
  p->n_ranges = (size_t)cJSON_GetArraySize(rc);
  p->ranges = sc_arena_alloc(&r->ctx->arena, (p->n_ranges ? p->n_ranges : 1) * sizeof *p->ranges);
  size_t i = 0;
  for (const cJSON *it = rc->child; it; it = it->next, i++) {
    size_t s2 = sc_jr_push_key(&r->jr, it->string);
    sc_range *rg = &p->ranges[i];
    rg->symbol = sc_ctx_intern(r->ctx, it->string);
    rg->path = sc_arena_strdup(&r->ctx->arena, r->jr.path);
    if (sc_jr_expect_object(&r->jr, it)) {
      ok &= read_bound(r, it, "min_val", &rg->has_min, &rg->min);
      ok &= read_bound(r, it, "max_val", &rg->has_max, &rg->max);
    } else {
      ok = false;
    }
    sc_jr_pop(&r->jr, s2);
  }
  sc_jr_pop(&r->jr, saved);
  p->file_ranges = p->ranges;
  p->n_file_ranges = p->n_ranges;
  return ok;
}

/* guards_code: a list of Python expressions over the inputs (L['x'].size()[0]); older
 * writers have none. */
static bool read_guards_code(reader *r, sc_program *p, const cJSON *root) {
  const cJSON *gc = cJSON_GetObjectItemCaseSensitive(root, "guards_code");
  if (!gc || cJSON_IsNull(gc)) return true;
  size_t saved = sc_jr_push_key(&r->jr, "guards_code");
  bool ok = sc_jr_expect_array(&r->jr, gc);
  if (ok) {
    size_t n = (size_t)cJSON_GetArraySize(gc);
    p->guards_code = sc_arena_alloc(&r->ctx->arena, (n ? n : 1) * sizeof *p->guards_code);
    p->guards_code_paths = sc_arena_alloc(&r->ctx->arena, (n ? n : 1) * sizeof *p->guards_code_paths);
    size_t i = 0;
    for (const cJSON *g = gc->child; g; g = g->next, i++) {
      size_t s2 = sc_jr_push_index(&r->jr, i);
      const char *text;
      if (sc_jr_as_string(&r->jr, g, &text)) {
        p->guards_code[p->n_guards_code] = sc_arena_strdup(&r->ctx->arena, text);
        p->guards_code_paths[p->n_guards_code++] = sc_arena_strdup(&r->ctx->arena, r->jr.path);
      } else {
        ok = false;
      }
      sc_jr_pop(&r->jr, s2);
    }
  }
  sc_jr_pop(&r->jr, saved);
  return ok;
}

/* Each user input as torch's messages name it (d['y'] for the placeholder d_y), from the
 * signature's in_spec; left unnamed when the leaves do not line up with the inputs. */
static void name_inputs_as_torch(reader *r, sc_program *p, const cJSON *in_spec) {
  const char **names;
  size_t n = cJSON_IsString(in_spec) ? sc_input_paths(r->ctx, in_spec->valuestring, p->forward_arg_names,
                                                      p->n_forward_arg_names, &names)
                                     : 0;
  size_t leaves = 0;
  for (size_t i = 0; i < p->n_input_specs; i++)
    leaves += p->input_specs[i].kind == SC_INPUT_USER || p->input_specs[i].kind == SC_INPUT_CONSTANT;
  if (!n || n != leaves) return;
  for (size_t i = 0, k = 0; i < p->n_input_specs; i++) {
    const sc_input_spec *s = &p->input_specs[i];
    if (s->kind != SC_INPUT_USER && s->kind != SC_INPUT_CONSTANT) continue;
    sc_value *v = s->kind == SC_INPUT_USER ? sc_input_spec_value(s) : NULL;
    if (v && strcmp(names[k], v->name) != 0) v->display = names[k];
    k++;
  }
}

static void read_forward_arg_names(reader *r, sc_program *p, const cJSON *gm) {
  const cJSON *mcg = cJSON_GetObjectItemCaseSensitive(gm, "module_call_graph");
  if (!cJSON_IsArray(mcg)) return;
  for (const cJSON *e = mcg->child; e; e = e->next) {
    const cJSON *fqn = cJSON_GetObjectItemCaseSensitive(e, "fqn");
    if (!cJSON_IsString(fqn) || fqn->valuestring[0]) continue;
    const cJSON *sig = cJSON_GetObjectItemCaseSensitive(e, "signature");
    const cJSON *names = cJSON_IsObject(sig) ? cJSON_GetObjectItemCaseSensitive(sig, "forward_arg_names") : NULL;
    if (!cJSON_IsArray(names)) return;
    size_t n = (size_t)cJSON_GetArraySize(names);
    p->forward_arg_names = sc_arena_alloc(&r->ctx->arena, (n ? n : 1) * sizeof *p->forward_arg_names);
    for (const cJSON *s = names->child; s; s = s->next)
      if (cJSON_IsString(s)) p->forward_arg_names[p->n_forward_arg_names++] = sc_ctx_intern(r->ctx, s->valuestring);
    name_inputs_as_torch(r, p, cJSON_GetObjectItemCaseSensitive(sig, "in_spec"));
    return;
  }
}

static sc_program *read_program(reader *r, const cJSON *root) {
  if (!sc_jr_expect_object(&r->jr, root)) return NULL;
  sc_program *p = sc_arena_alloc(&r->ctx->arena, sizeof *p);
  p->file = sc_arena_strdup(&r->ctx->arena, r->jr.file);
  const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "schema_version");
  const char *torch_version = NULL;
  sc_jr_string_field(&r->jr, root, "torch_version", false, &torch_version);
  const char *writer = torch_version ? sc_arena_printf(&r->ctx->arena, "torch %s", torch_version) : NULL;
  if (cJSON_IsNumber(ver)) { /* the serializer of the first torch.export releases */
    size_t s0 = sc_jr_push_key(&r->jr, "schema_version");
    sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_SCHEMA_VERSION,
                             "schema_version is the bare number %g: the program was written by %s, whose serializer "
                             "predates the versioned schema; shapec reads schema %d.x (torch 2.6 writes 8.2, torch 2.14 "
                             "writes 8.20)", ver->valuedouble, writer ? writer : "an early torch.export (torch 2.1 or 2.2)",
                             SC_SCHEMA_MAJOR);
    sc_diag_set_hint(&r->ctx->diags, d, "load the model in Python and export it again with torch 2.6 or later "
                                        "(torch.export.export, then torch.export.save)");
    sc_jr_pop(&r->jr, s0);
    return NULL;
  }
  ver = sc_jr_object_field(&r->jr, root, "schema_version", true);
  if (!ver) return NULL;
  int64_t major = 0, minor = 0;
  size_t saved = sc_jr_push_key(&r->jr, "schema_version");
  bool ok = sc_jr_int_field(&r->jr, ver, "major", true, &major) && sc_jr_int_field(&r->jr, ver, "minor", true, &minor);
  if (ok && major != SC_SCHEMA_MAJOR) {
    size_t s2 = sc_jr_push_key(&r->jr, "major");
    sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_SCHEMA_VERSION,
                             "the program has schema version %lld.%lld, written by %s; shapec reads schema %d.x (torch "
                             "2.6 writes 8.2, torch 2.14 writes 8.20)", (long long)major, (long long)minor,
                             writer ? writer : major < SC_SCHEMA_MAJOR ? "a torch older than 2.6" : "a torch newer than "
                             "shapec knows", SC_SCHEMA_MAJOR);
    sc_diag_set_hint(&r->ctx->diags, d, major < SC_SCHEMA_MAJOR
                         ? "export the model again with torch 2.6 or later (torch.export.save)"
                         : "export with torch 2.6 to 2.14, or use a shapec that reads this schema");
    sc_jr_pop(&r->jr, s2);
    ok = false;
  }
  sc_jr_pop(&r->jr, saved);
  if (!ok) return NULL;
  p->schema_major = (int)major;
  p->schema_minor = (int)minor;
  p->torch_version = torch_version;

  const cJSON *gm = sc_jr_object_field(&r->jr, root, "graph_module", true);
  if (!gm) return NULL;
  saved = sc_jr_push_key(&r->jr, "graph_module");
  const cJSON *graph = sc_jr_object_field(&r->jr, gm, "graph", true);
  const cJSON *sig = sc_jr_object_field(&r->jr, gm, "signature", true);
  if (graph) {
    r->top_graph = graph;
    p->graph = sc_arena_alloc(&r->ctx->arena, sizeof *p->graph);
    sc_strmap_init(&p->graph->values, &r->ctx->arena);
    size_t s2 = sc_jr_push_key(&r->jr, "graph");
    ok &= read_graph(r, graph, p->graph);
    ok = ok && sc_inline_wrappers(r->ctx, p->file, p->graph);
    ok = ok && sc_normalize_conv_padding(r->ctx, p->file, p->graph);
    ok = ok && sc_rewrite_dim_moves(r->ctx, p->file, p->graph);
    if (ok) sc_rename_alias_args(p->graph);
    sc_jr_pop(&r->jr, s2);
  } else {
    ok = false;
  }
  if (sig && p->graph) {
    size_t s2 = sc_jr_push_key(&r->jr, "signature");
    ok &= read_signature(r, p, sig);
    sc_jr_pop(&r->jr, s2);
  } else {
    ok = false;
  }
  read_forward_arg_names(r, p, gm);
  sc_jr_pop(&r->jr, saved);
  ok &= read_ranges(r, p, root);
  ok &= read_guards_code(r, p, root);
  return ok ? p : NULL;
}

/* view, when given, is where text lies: pages already read are given back as reading goes. */
static sc_program *read_text(sc_ctx *ctx, const char *file, const char *text, size_t len, const sc_file_view *view) {
  sc_json_document doc;
  if (!sc_json_document_parse(&doc, ctx, file, text, len, view, big_containers)) return NULL;
  reader r = {.ctx = ctx, .doc = &doc};
  sc_jr_init(&r.jr, ctx, file, NULL);
  sc_program *p = read_program(&r, doc.root);
  sc_json_document_free(&doc);
  if (p && ctx->diags.n_errors) return NULL;
  return p;
}

sc_program *sc_model_read(sc_ctx *ctx, const char *file, const char *text, size_t len) {
  return read_text(ctx, file, text, len, NULL);
}

sc_program *sc_model_read_file(sc_ctx *ctx, const char *path) {
  sc_file_view view;
  if (!sc_file_view_open(ctx, path, &view)) return NULL;
  /* the digest first, while the program takes no memory yet: hashed at the end, the whole
   * file came back into memory beside the program (a third more at the peak) */
  char sha256[SC_SHA256_HEX_LEN + 1];
  sc_sha256_hex(view.data, view.len, sha256);
  sc_file_view_forget(&view, 0, view.len);
  sc_program *p = read_text(ctx, path, view.data, view.len, &view);
  if (p) {
    p->source = sc_arena_strdup(&ctx->arena, path);
    memcpy(p->sha256, sha256, sizeof sha256);
  }
  sc_file_view_close(&view);
  return p;
}

bool sc_model_read_tensor_meta(sc_ctx *ctx, const char *file, const char *path, const char *json_text,
                               sc_tensor_meta *out) {
  cJSON *root = sc_json_parse(ctx, file, json_text, strlen(json_text));
  if (!root) return false;
  reader r = {.ctx = ctx};
  sc_jr_init(&r.jr, ctx, file, path);
  memset(out, 0, sizeof *out);
  bool ok = read_tensor_meta(&r, root, out);
  cJSON_Delete(root);
  return ok;
}
