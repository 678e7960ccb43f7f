/* spec_reader.c - dynamic_shapes spec to sc_dynspec; see spec_reader.h. */
#include "spec_reader.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_reader.h"
#include "lib/base/digest.h"
#include "lib/base/fileio.h"

typedef struct spec_reader {
  sc_ctx *ctx;
  sc_jr jr;
  const sc_program *prog;
  sc_dynspec *spec;
  size_t next_input; /* positional form: the next flat user input to fill */
  size_t next_arg;   /* ... and the next forward argument (user inputs and constants, in order) */
} spec_reader;

/* The n-th forward argument of the signature when it is one that export turned into a
 * constant (an int, float, bool or None argument), else NULL. */
static const sc_input_spec *constant_argument(const sc_program *p, size_t n) {
  for (size_t i = 0, k = 0; i < p->n_input_specs; i++) {
    const sc_input_spec *s = &p->input_specs[i];
    if (s->kind != SC_INPUT_USER && s->kind != SC_INPUT_CONSTANT) continue;
    if (k++ == n) return s->kind == SC_INPUT_CONSTANT ? s : NULL;
  }
  return NULL;
}

const char *sc_dim_kind_name(sc_dim_kind kind) {
  switch (kind) {
    case SC_DIM_STATIC: return "STATIC";
    case SC_DIM_AUTO: return "AUTO";
    case SC_DIM_DYNAMIC: return "DYNAMIC";
    case SC_DIM_NAMED: return "NAMED";
    case SC_DIM_PROGRAM: return "PROGRAM";
  }
  return "?";
}

/* ---- the all-static starting point -------------------------------------------------- */

static int64_t sample_of(const sc_value *v, int d) {
  if (!v || d >= v->meta.rank) return -1;
  int64_t c;
  if (sc_expr_is_const(v->meta.sizes[d], &c)) return c;
  return v->meta.size_hints ? v->meta.size_hints[d] : -1;
}

sc_dynspec *sc_spec_static(sc_ctx *ctx, const sc_program *p) {
  sc_dynspec *s = sc_arena_alloc(&ctx->arena, sizeof *s);
  s->n_inputs = sc_program_n_user_inputs(p);
  s->inputs = sc_arena_alloc(&ctx->arena, (s->n_inputs ? s->n_inputs : 1) * sizeof *s->inputs);
  /* the user inputs in one walk of the input specs (asking for the k-th each time walked
   * them k times: 7.5 s of an export of 100,000 inputs) */
  for (size_t i = 0, at = 0; i < s->n_inputs; i++, at++) {
    sc_input_dims *in = &s->inputs[i];
    while (p->input_specs[at].kind != SC_INPUT_USER) at++;
    in->input = &p->input_specs[at];
    const sc_value *v = sc_input_spec_value(in->input);
    in->value = v && v->kind == SC_VALUE_TENSOR ? v : NULL;
    in->rank = in->value ? in->value->meta.rank : 0;
    if (v && v->kind == SC_VALUE_SYM_INT) {
      in->int_value = v;
      in->scalar = (sc_dim_spec){.kind = SC_DIM_STATIC, .static_size = -1, .sample = v->has_hint ? v->hint : -1};
    }
    in->dims = sc_arena_alloc(&ctx->arena, (size_t)(in->rank ? in->rank : 1) * sizeof *in->dims);
    for (int d = 0; d < in->rank; d++) {
      in->dims[d].kind = SC_DIM_STATIC;
      in->dims[d].static_size = -1;
      in->dims[d].sample = sample_of(in->value, d);
    }
  }
  return s;
}

sc_dynspec *sc_spec_from_program(sc_ctx *ctx, const sc_program *p) {
  sc_dynspec *s = sc_spec_static(ctx, p);
  s->from_program = true;
  for (size_t i = 0; i < s->n_inputs; i++) {
    sc_input_dims *in = &s->inputs[i];
    if (in->int_value && in->int_value->expr && !sc_expr_is_const(in->int_value->expr, NULL)) {
      in->scalar.kind = SC_DIM_PROGRAM;
      in->scalar.expr = in->int_value->expr;
    }
    for (int d = 0; d < in->rank; d++) {
      const sc_expr *e = in->value->meta.sizes[d];
      if (sc_expr_is_const(e, NULL)) continue;
      in->dims[d].kind = SC_DIM_PROGRAM;
      in->dims[d].expr = e;
    }
  }
  return s;
}

/* ---- dims ------------------------------------------------------------------------- */

static sc_root_dim *find_root(sc_dynspec *s, const char *name) {
  for (size_t i = 0; i < s->n_roots; i++)
    if (strcmp(s->roots[i].name, name) == 0) return &s->roots[i];
  return NULL;
}

/* Reads `text` as coeff*sym + offset.  Returns the symbol name, or NULL with *why set. */
static const char *parse_linear(sc_ctx *ctx, const char *text, int64_t *coeff, int64_t *offset, const char **why) {
  const char *err = NULL;
  int pos;
  const sc_expr *e = sc_expr_parse(ctx, text, &err, &pos);
  if (!e) {
    *why = err;
    return NULL;
  }
  const char *names[2];
  int n = sc_expr_symbols(e, names, 2);
  if (n != 1) {
    *why = n == 0 ? "it names no dimension" : "it names more than one root dimension";
    return NULL;
  }
  const sc_expr *sym = sc_expr_sym(ctx, names[0]);
  /* linear iff e - coeff*sym is a constant for coeff = e(sym=1) - e(sym=0) */
  const sc_expr *at0 = sc_expr_subst(ctx, e, names[0], sc_expr_int(ctx, 0));
  const sc_expr *at1 = sc_expr_subst(ctx, e, names[0], sc_expr_int(ctx, 1));
  int64_t c0, c1;
  if (!sc_expr_is_const(at0, &c0) || !sc_expr_is_const(at1, &c1) ||
      sc_expr_add(ctx, sc_expr_mul(ctx, sc_expr_int(ctx, c1 - c0), sym), at0) != e) {
    *why = "it is not of the form A*dim + B";
    return NULL;
  }
  if (c1 - c0 <= 0) {
    *why = "the coefficient A of A*dim + B must be positive";
    return NULL;
  }
  *coeff = c1 - c0;
  *offset = c0;
  return names[0];
}

static bool read_bounds(spec_reader *r, const cJSON *obj, bool *has_min, int64_t *min, bool *has_max, int64_t *max,
                        const char *what) {
  bool ok = true;
  const cJSON *mn = cJSON_GetObjectItemCaseSensitive(obj, "min");
  const cJSON *mx = cJSON_GetObjectItemCaseSensitive(obj, "max");
  *has_min = mn && !cJSON_IsNull(mn);
  *has_max = mx && !cJSON_IsNull(mx);
  if (*has_min) ok &= sc_jr_int_field(&r->jr, obj, "min", false, min);
  if (*has_max) ok &= sc_jr_int_field(&r->jr, obj, "max", false, max);
  if (!ok) return false;
  if ((*has_min && *min < 0) || (*has_max && *max < 0)) {
    size_t saved = sc_jr_push_key(&r->jr, (*has_min && *min < 0) ? "min" : "max");
    sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_SPEC_NEGATIVE_BOUND, "%s has a negative bound", what);
    sc_diag_set_hint(&r->ctx->diags, d, "sizes are never negative: use a min of 0 or more");
    sc_jr_pop(&r->jr, saved);
    return false;
  }
  if (*has_min && *has_max && *min > *max) {
    sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_SPEC_MIN_GT_MAX, "%s has min=%lld greater than max=%lld", what,
                             (long long)*min, (long long)*max);
    sc_diag_set_hint(&r->ctx->diags, d, "swap them, or widen the range so that min < max");
    return false;
  }
  if (*has_min && *has_max && *min == *max) {
    sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_SPEC_MIN_EQ_MAX, "%s has min=max=%lld, which torch refuses", what,
                             (long long)*min);
    sc_diag_set_hint(&r->ctx->diags, d, "a dim of one size is static: write the size %lld (or null) instead of a Dim",
                     (long long)*min);
    return false;
  }
  return true;
}

static bool read_dims(spec_reader *r, const cJSON *root) {
  const cJSON *dims = sc_jr_object_field(&r->jr, root, "dims", false);
  if (!dims) {
    const cJSON *raw = cJSON_GetObjectItemCaseSensitive(root, "dims");
    return !raw || cJSON_IsNull(raw);
  }
  sc_dynspec *s = r->spec;
  s->n_roots = 0;
  s->roots = sc_arena_alloc(&r->ctx->arena, (size_t)(cJSON_GetArraySize(dims) + 1) * sizeof *s->roots);
  bool ok = true;
  size_t saved = sc_jr_push_key(&r->jr, "dims");
  for (const cJSON *it = dims->child; it; it = it->next) {
    size_t s2 = sc_jr_push_key(&r->jr, it->string);
    sc_root_dim *rd = &s->roots[s->n_roots];
    rd->name = sc_ctx_intern(r->ctx, it->string);
    rd->path = sc_arena_strdup(&r->ctx->arena, r->jr.path);
    if (!sc_jr_expect_object(&r->jr, it)) {
      ok = false;
      sc_jr_pop(&r->jr, s2);
      continue;
    }
    bool has_min;
    char what[160];
    snprintf(what, sizeof what, "Dim '%s'", rd->name);
    const cJSON *min_given = cJSON_GetObjectItemCaseSensitive(it, "min");
    if (min_given && cJSON_IsNull(min_given)) { /* torch writes a root's min always, and its loader refuses null */
      size_t s3 = sc_jr_push_key(&r->jr, "min");
      sc_diag *d = sc_jr_error(&r->jr, SC_DIAG_WRONG_TYPE, "Expected dims in `spec['dims']` to map `min` to an int, got "
                               "%s: None", rd->name);
      sc_diag_set_hint(&r->ctx->diags, d, "write the Dim's lower bound as an int: 0 where it has none, as torch "
                       "writes it");
      sc_jr_pop(&r->jr, s3);
      ok = false;
    }
    if (!read_bounds(r, it, &has_min, &rd->min, &rd->has_max, &rd->max, what)) ok = false;
    if (!has_min) rd->min = 0;
    const cJSON *derived = sc_jr_array_field(&r->jr, it, "derived", false);
    if (derived) {
      size_t s3 = sc_jr_push_key(&r->jr, "derived");
      rd->derived = sc_arena_alloc(&r->ctx->arena, (size_t)(cJSON_GetArraySize(derived) + 1) * sizeof *rd->derived);
      size_t k = 0;
      for (const cJSON *d = derived->child; d; d = d->next, k++) {
        size_t s4 = sc_jr_push_index(&r->jr, k);
        const char *text;
        if (sc_jr_as_string(&r->jr, d, &text)) {
          int64_t a, b;
          const char *why = NULL;
          const char *sym = parse_linear(r->ctx, text, &a, &b, &why);
          if (!sym || strcmp(sym, rd->name) != 0) {
            sc_diag *dg = sc_jr_error(&r->jr, SC_DIAG_SPEC_NONLINEAR, "derived dim \"%s\" is not linear in '%s': %s",
                                      text, rd->name, why ? why : "it names another dimension");
            sc_diag_set_hint(&r->ctx->diags, dg, "derived dims have the form A*%s + B, e.g. \"2*%s\" or \"%s + 1\"",
                             rd->name, rd->name, rd->name);
            ok = false;
          } else {
            rd->derived[rd->n_derived++] = text;
          }
        } else {
          ok = false;
        }
        sc_jr_pop(&r->jr, s4);
      }
      sc_jr_pop(&r->jr, s3);
    }
    s->n_roots++;
    sc_jr_pop(&r->jr, s2);
  }
  sc_jr_pop(&r->jr, saved);
  return ok;
}

/* ---- leaves ----------------------------------------------------------------------- */

static bool hint_kind(const char *s, sc_dim_kind *kind) {
  if (strncmp(s, "_DimHint.", 9) == 0) s += 9;
  else if (strncmp(s, "Dim.", 4) == 0) s += 4;
  if (strcmp(s, "AUTO") == 0) *kind = SC_DIM_AUTO;
  else if (strcmp(s, "DYNAMIC") == 0) *kind = SC_DIM_DYNAMIC;
  else if (strcmp(s, "STATIC") == 0) *kind = SC_DIM_STATIC;
  else return false;
  return true;
}

/* A misspelt hint ("_DimHint.AUTOO", "AUTOMATIC") rather than an undeclared Dim name. */
static bool looks_like_hint(const char *text) {
  if (strncmp(text, "_DimHint", 8) == 0 || strncmp(text, "Dim.", 4) == 0) return true;
  for (const char *p = text; *p; p++)
    if (!isupper((unsigned char)*p) && *p != '_') return false;
  return *text != '\0';
}

static bool read_named_leaf(spec_reader *r, const char *text, sc_dim_spec *d) {
  int64_t a = 1, b = 0;
  const char *why = NULL;
  const char *sym = parse_linear(r->ctx, text, &a, &b, &why);
  if (!sym) {
    /* a bare identifier that parse_linear could not read cannot happen; anything else
     * is either a bad hint name or a non-linear expression */
    bool ident = true;
    for (const char *p = text; *p; p++) ident &= isalnum((unsigned char)*p) || *p == '_' || *p == '.';
    sc_diag *dg;
    if (ident) {
      dg = sc_jr_error(&r->jr, SC_DIAG_SPEC_BAD_LEAF, "\"%s\" is neither a Dim name nor a dim hint", text);
      sc_diag_set_hint(&r->ctx->diags, dg, "use \"_DimHint.AUTO\", \"_DimHint.DYNAMIC\", \"_DimHint.STATIC\", an int, "
                                           "null, or a name declared under \"dims\"");
    } else {
      dg = sc_jr_error(&r->jr, SC_DIAG_SPEC_NONLINEAR, "dim expression \"%s\" is not supported: %s", text, why);
      sc_diag_set_hint(&r->ctx->diags, dg, "a derived dim must be linear in one root Dim: A*dx + B");
    }
    return false;
  }
  const sc_root_dim *root = find_root(r->spec, sym);
  if (!root && looks_like_hint(text)) {
    sc_diag *dg = sc_jr_error(&r->jr, SC_DIAG_SPEC_BAD_LEAF, "\"%s\" is not a dim hint", text);
    sc_diag_set_hint(&r->ctx->diags, dg, "the hints are \"_DimHint.AUTO\", \"_DimHint.DYNAMIC\" and \"_DimHint.STATIC\"");
    return false;
  }
  if (!root) {
    sc_diag *dg = sc_jr_error(&r->jr, SC_DIAG_SPEC_UNKNOWN_DIM, "Dim '%s' is not declared in \"dims\"", sym);
    sc_diag_set_hint(&r->ctx->diags, dg, "add \"dims\": {\"%s\": {\"min\": 2, \"max\": null}} to the spec", sym);
    return false;
  }
  d->kind = SC_DIM_NAMED;
  d->root = root;
  d->coeff = a;
  d->offset = b;
  return true;
}

static bool read_leaf(spec_reader *r, const cJSON *leaf, sc_dim_spec *d) {
  d->path = sc_arena_strdup(&r->ctx->arena, r->jr.path);
  d->static_size = -1;
  if (!leaf || cJSON_IsNull(leaf)) {
    d->kind = SC_DIM_STATIC;
    d->text = "null";
    return true;
  }
  if (sc_json_is_number(leaf)) {
    d->kind = SC_DIM_STATIC;
    d->text = "int";
    if (!sc_jr_as_int(&r->jr, leaf, &d->static_size)) return false;
    if (d->sample >= 0 && d->static_size != d->sample) {
      sc_diag *dg = sc_jr_error(&r->jr, SC_DIAG_SPEC_STATIC_MISMATCH,
                                "static size %lld differs from the sample input's size %lld",
                                (long long)d->static_size, (long long)d->sample);
      sc_diag_set_hint(&r->ctx->diags, dg, "write %lld, or make the dim dynamic (\"_DimHint.AUTO\" or a Dim)",
                       (long long)d->sample);
      return false;
    }
    return true;
  }
  if (cJSON_IsString(leaf)) {
    d->text = sc_ctx_intern(r->ctx, leaf->valuestring);
    if (hint_kind(leaf->valuestring, &d->kind)) return true;
    return read_named_leaf(r, leaf->valuestring, d);
  }
  if (cJSON_IsObject(leaf)) {
    const char *type = NULL;
    if (!sc_jr_string_field(&r->jr, leaf, "type", true, &type)) return false;
    if (!type || !hint_kind(type, &d->kind)) {
      size_t saved = sc_jr_push_key(&r->jr, "type");
      sc_diag *dg = sc_jr_error(&r->jr, SC_DIAG_SPEC_BAD_LEAF, "unknown dim type \"%s\"", type ? type : "");
      sc_diag_set_hint(&r->ctx->diags, dg, "use \"AUTO\", \"DYNAMIC\" or \"STATIC\"");
      sc_jr_pop(&r->jr, saved);
      return false;
    }
    d->text = type;
    if (!read_bounds(r, leaf, &d->has_min, &d->min, &d->has_max, &d->max, "this dim")) return false;
    if (d->sample >= 0 && ((d->has_min && d->sample < d->min) || (d->has_max && d->sample > d->max))) {
      sc_diag *dg = sc_jr_error(&r->jr, SC_DIAG_SPEC_SAMPLE_RANGE, "the sample size %lld lies outside this dim's range "
                                "[%lld, %s]", (long long)d->sample, (long long)(d->has_min ? d->min : 0),
                                d->has_max ? sc_arena_printf(&r->ctx->arena, "%lld", (long long)d->max) : "int_oo");
      sc_diag_set_hint(&r->ctx->diags, dg, "widen min/max to include %lld, or use a sample inside the range",
                       (long long)d->sample);
      return false;
    }
    return true;
  }
  sc_diag *dg = sc_jr_error(&r->jr, SC_DIAG_SPEC_BAD_LEAF, "a dim spec cannot be %s", sc_json_type_name(leaf));
  sc_diag_set_hint(&r->ctx->diags, dg, "use an int, null, \"_DimHint.AUTO\"/\"STATIC\"/\"DYNAMIC\", a Dim name or "
                                       "an expression such as \"2*dx\"");
  return false;
}

/* ---- one input -------------------------------------------------------------------- */

/* An int input the program keeps as a SymInt: null or STATIC make it the sample value,
 * AUTO or DYNAMIC keep it symbolic.  torch's own serializer refuses every hint on an int
 * (2.14: "expected None"), so this form is shapec's; a named Dim is refused with torch's
 * message, as torch.export refuses it. */
static bool read_int_spec(spec_reader *r, const cJSON *node, sc_input_dims *in, const char *name) {
  if (!read_leaf(r, node, &in->scalar)) return false;
  if (in->scalar.kind == SC_DIM_NAMED) {
    sc_diag *dg = sc_jr_error(&r->jr, SC_DIAG_SPEC_BAD_LEAF, "Unable to specify input integers as dynamic through "
                              "named Dims. Please use Dim.AUTO/DYNAMIC instead. (input '%s')", name);
    sc_diag_set_hint(&r->ctx->diags, dg, "write \"_DimHint.DYNAMIC\" or \"_DimHint.AUTO\" for '%s'", name);
    return false;
  }
  if (in->scalar.kind == SC_DIM_STATIC && in->scalar.static_size >= 0 && in->scalar.static_size != in->scalar.sample) {
    sc_diag *dg = sc_jr_error(&r->jr, SC_DIAG_SPEC_BAD_LEAF, "input '%s' is the int %lld in the sample inputs, not %lld",
                              name, (long long)in->scalar.sample, (long long)in->scalar.static_size);
    sc_diag_set_hint(&r->ctx->diags, dg, "write null to keep the sample value, or \"_DimHint.DYNAMIC\"");
    return false;
  }
  return true;
}

static bool read_tensor_spec(spec_reader *r, const cJSON *node, sc_input_dims *in) {
  const char *name = in->input->arg.n_items && in->input->arg.items[0].value ? in->input->arg.items[0].value->name : "?";
  in->path = sc_arena_strdup(&r->ctx->arena, r->jr.path);
  if (!node || cJSON_IsNull(node)) return true;
  if (in->int_value) return read_int_spec(r, node, in, name);
  if (!in->value) {
    sc_diag *dg = sc_jr_error(&r->jr, SC_DIAG_SPEC_NOT_TENSOR, "input '%s' is not a tensor; its spec must be null", name);
    sc_diag_set_hint(&r->ctx->diags, dg, "write null for this input");
    return false;
  }
  bool ok = true;
  if (cJSON_IsArray(node)) {
    int n = cJSON_GetArraySize(node);
    if (n != in->rank) {
      sc_diag *dg = sc_jr_error(&r->jr, SC_DIAG_SPEC_RANK, "the spec for '%s' has %d dims but the input has rank %d",
                                name, n, in->rank);
      sc_diag_set_hint(&r->ctx->diags, dg, "give exactly one entry per dimension of '%s' (%d)", name, in->rank);
      return false;
    }
    int i = 0;
    for (const cJSON *e = node->child; e; e = e->next, i++) {
      size_t saved = sc_jr_push_index(&r->jr, (size_t)i);
      ok &= read_leaf(r, e, &in->dims[i]);
      sc_jr_pop(&r->jr, saved);
    }
    return ok;
  }
  if (cJSON_IsObject(node)) {
    for (const cJSON *e = node->child; e; e = e->next) {
      size_t saved = sc_jr_push_key(&r->jr, e->string);
      char *end;
      long idx = strtol(e->string, &end, 10);
      if (*e->string == '\0' || *end != '\0' || idx < 0 || idx >= in->rank) {
        sc_diag *dg = sc_jr_error(&r->jr, SC_DIAG_SPEC_RANK, "'%s' is not a dimension of '%s' (rank %d)", e->string,
                                  name, in->rank);
        sc_diag_set_hint(&r->ctx->diags, dg, "keys of a per-dim object are dimension numbers 0..%d", in->rank - 1);
        ok = false;
      } else {
        ok &= read_leaf(r, e, &in->dims[idx]);
      }
      sc_jr_pop(&r->jr, saved);
    }
    return ok;
  }
  sc_diag *dg = sc_jr_error(&r->jr, SC_DIAG_SPEC_BAD_LEAF, "the spec of tensor '%s' must be a list, an object or null, "
                                                           "not %s", name, sc_json_type_name(node));
  sc_diag_set_hint(&r->ctx->diags, dg, "e.g. [\"_DimHint.AUTO\", 5]");
  return false;
}

/* A nested pytree container, as opposed to one tensor's spec. */
static bool is_container(const cJSON *node) {
  if (cJSON_IsArray(node)) {
    for (const cJSON *e = node->child; e; e = e->next)
      if (cJSON_IsArray(e) || (cJSON_IsObject(e) && !cJSON_GetObjectItemCaseSensitive(e, "type"))) return true;
    return false;
  }
  if (cJSON_IsObject(node)) {
    for (const cJSON *e = node->child; e; e = e->next) {
      char *end;
      strtol(e->string, &end, 10);
      if (*e->string == '\0' || *end != '\0') return !cJSON_GetObjectItemCaseSensitive(node, "type");
    }
  }
  return false;
}

/* The Python type of a constant argument, as torch's messages name it. */
static const char *python_type_name(sc_arg_kind kind) {
  switch (kind) {
    case SC_ARG_INT: return "int";
    case SC_ARG_FLOAT: return "float";
    case SC_ARG_BOOL: return "bool";
    case SC_ARG_STRING: return "str";
    default: return "NoneType";
  }
}

static bool read_positional(spec_reader *r, const cJSON *node) {
  bool ok = true;
  size_t i = 0;
  for (const cJSON *e = node->child; e; e = e->next, i++) {
    size_t saved = cJSON_IsArray(node) ? sc_jr_push_index(&r->jr, i) : sc_jr_push_key(&r->jr, e->string);
    const sc_input_spec *constant = is_container(e) ? NULL : constant_argument(r->prog, r->next_arg);
    if (is_container(e)) {
      ok &= read_positional(r, e);
    } else if (constant) { /* torch's dumper writes null for a non-tensor argument */
      size_t position = r->next_arg++;
      if (!cJSON_IsNull(e)) {
        /* torch's own sentence first, where the leaf is one torch would name the same way */
        const char *hint = cJSON_IsString(e) && strncmp(e->valuestring, "_DimHint.", 9) == 0 ? e->valuestring + 9 : NULL;
        const char *torch_words =
            hint ? sc_arena_printf(&r->ctx->arena, "Cannot associate shape DimHint(%s) specified at `%s` to non-tensor "
                                   "type <class '%s'> at `inputs[%zu]` (expected None): ", hint, r->jr.path,
                                   python_type_name(constant->constant.kind), position)
                 : "";
        sc_diag *dg = sc_jr_error(&r->jr, SC_DIAG_SPEC_NOT_TENSOR, "%sargument '%s' is a constant of the exported "
                                  "program, not a tensor; its spec must be null", torch_words, constant->target);
        sc_diag_set_hint(&r->ctx->diags, dg, "write null for int, float and bool arguments");
        ok = false;
      }
    } else if (r->next_input < r->spec->n_inputs) {
      ok &= read_tensor_spec(r, e, &r->spec->inputs[r->next_input]);
      r->next_input++;
      r->next_arg++;
    } else {
      r->next_input++;
      r->next_arg++;
    }
    sc_jr_pop(&r->jr, saved);
  }
  return ok;
}

static long input_index_by_name(spec_reader *r, const char *key) {
  const sc_program *p = r->prog;
  size_t n = r->spec->n_inputs;
  if (p->n_forward_arg_names == n) {
    for (size_t i = 0; i < n; i++)
      if (strcmp(p->forward_arg_names[i], key) == 0) return (long)i;
  }
  for (size_t i = 0; i < n; i++) {
    const sc_value *v = sc_input_spec_value(r->spec->inputs[i].input);
    if (v && strcmp(v->name, key) == 0) return (long)i;
  }
  return -1;
}

static bool read_by_name(spec_reader *r, const cJSON *obj) {
  bool ok = true;
  for (const cJSON *e = obj->child; e; e = e->next) {
    size_t saved = sc_jr_push_key(&r->jr, e->string);
    long idx = input_index_by_name(r, e->string);
    if (idx < 0) {
      char names[512] = "";
      for (size_t i = 0; i < r->spec->n_inputs; i++) {
        const sc_value *v = sc_input_spec_value(r->spec->inputs[i].input);
        if (i) strncat(names, ", ", sizeof names - strlen(names) - 1);
        strncat(names, v ? v->name : "?", sizeof names - strlen(names) - 1);
      }
      sc_diag *dg = sc_jr_error(&r->jr, SC_DIAG_SPEC_UNKNOWN_INPUT, "the model has no user input named '%s'", e->string);
      sc_diag_set_hint(&r->ctx->diags, dg, "the user inputs are: %s", names[0] ? names : "(none)");
      ok = false;
    } else {
      ok &= read_tensor_spec(r, e, &r->spec->inputs[idx]);
    }
    sc_jr_pop(&r->jr, saved);
  }
  return ok;
}

/* ---- sample consistency ------------------------------------------------------------ */

static bool check_samples(spec_reader *r) {
  bool ok = true;
  sc_dynspec *s = r->spec;
  for (size_t i = 0; i < s->n_inputs; i++) {
    sc_input_dims *in = &s->inputs[i];
    for (int k = 0; k < in->rank; k++) {
      sc_dim_spec *d = &in->dims[k];
      if (d->kind != SC_DIM_NAMED || d->sample < 0) continue;
      sc_root_dim *root = (sc_root_dim *)d->root;
      const char *name = in->value->display ? in->value->display : in->value->name; /* xs[1], as torch names it */
      if (d->coeff * root->min + d->offset < 0) { /* torch refuses the Dim itself, before any sample */
        sc_diag *dg = sc_diags_add(&r->ctx->diags, SC_DIAG_SPEC_NEGATIVE_BOUND, SC_SEV_ERROR, r->jr.file, d->path,
                                   "Expected derived min value of %s to be >= 0. Please specify an appropriate min "
                                   "value for %s (currently %lld).", d->text, root->name, (long long)root->min);
        sc_diag_set_hint(&r->ctx->diags, dg, "%s reaches %lld at %s = %lld: give %s a min of at least %lld", d->text,
                         (long long)(d->coeff * root->min + d->offset), root->name, (long long)root->min, root->name,
                         (long long)((-d->offset + d->coeff - 1) / d->coeff));
        ok = false;
        continue;
      }
      if ((d->sample - d->offset) % d->coeff != 0) {
        sc_diag *dg = sc_diags_add(&r->ctx->diags, SC_DIAG_SPEC_SAMPLE_CONFLICT, SC_SEV_ERROR, r->jr.file, d->path,
                                   "%s.size()[%d] = %lld cannot equal %s for any integer %s", name, k,
                                   (long long)d->sample, d->text, root->name);
        sc_diag_set_hint(&r->ctx->diags, dg, "fix the sample input, or the expression for this dim");
        ok = false;
        continue;
      }
      int64_t value = (d->sample - d->offset) / d->coeff;
      if (root->has_sample && root->sample != value) {
        sc_diag *dg = sc_diags_add(&r->ctx->diags, SC_DIAG_SPEC_SAMPLE_CONFLICT, SC_SEV_ERROR, r->jr.file, d->path,
                                   "%s.size()[%d] = %lld implies %s = %lld, but %s = %lld implies %s = %lld", name, k,
                                   (long long)d->sample, root->name, (long long)value,
                                   root->sample_from ? root->sample_from : "another input", (long long)root->sample_dim,
                                   root->name, (long long)root->sample);
        sc_diag_set_hint(&r->ctx->diags, dg, "dims that share a Dim must have consistent sample sizes; use separate "
                                             "Dims if they really differ");
        ok = false;
        continue;
      }
      root->has_sample = true;
      root->sample = value;
      root->sample_from = sc_arena_printf(&r->ctx->arena, "%s.size()[%d]", name, k);
      root->sample_dim = d->sample;
      /* a sample of 0 or 1 is 0/1 specialization, which torch reports (with the fix
       * dx = 1) before it looks at the range: the analysis says so */
      if ((value < root->min || (root->has_max && value > root->max)) && value > 1) {
        char maxbuf[32];
        if (root->has_max) snprintf(maxbuf, sizeof maxbuf, "%lld", (long long)root->max);
        else snprintf(maxbuf, sizeof maxbuf, "int_oo");
        /* torch's words first: its range starts at 2 at least, as a dynamic dim's does */
        sc_diag *dg = sc_diags_add(&r->ctx->diags, SC_DIAG_SPEC_SAMPLE_RANGE, SC_SEV_ERROR, r->jr.file, d->path,
                                   "%lld not in range [%lld, %s]: %s.size()[%d] = %lld gives %s = %lld, outside its "
                                   "range [%lld, %s]", (long long)value, (long long)(root->min > 2 ? root->min : 2),
                                   maxbuf, name, k, (long long)d->sample, root->name, (long long)value,
                                   (long long)root->min, maxbuf);
        sc_diag_set_hint(&r->ctx->diags, dg, "widen the range of %s in \"dims\", or use a sample inside it", root->name);
        ok = false;
      }
    }
  }
  return ok;
}

/* ---- entry points ----------------------------------------------------------------- */

sc_dynspec *sc_spec_read(sc_ctx *ctx, const sc_program *p, const char *file, const char *text, size_t len) {
  cJSON *root = sc_json_parse(ctx, file, text, len);
  if (!root) return NULL;
  spec_reader r = {.ctx = ctx, .prog = p};
  sc_jr_init(&r.jr, ctx, file, NULL);
  r.spec = sc_spec_static(ctx, p);
  r.spec->file = sc_arena_strdup(&ctx->arena, file);
  sc_sha256_hex(text, len, r.spec->sha256);
  bool ok = sc_jr_expect_object(&r.jr, root);
  const cJSON *shapes = ok ? sc_jr_field(&r.jr, root, "dynamic_shapes", true) : NULL;
  ok = ok && shapes && read_dims(&r, root);
  if (ok) {
    size_t saved = sc_jr_push_key(&r.jr, "dynamic_shapes");
    if (cJSON_IsArray(shapes)) {
      ok = read_positional(&r, shapes);
      if (ok && r.next_input != r.spec->n_inputs) {
        sc_diag *dg = sc_jr_error(&r.jr, SC_DIAG_SPEC_INPUT_COUNT, "the spec describes %zu inputs but the model has %zu "
                                                                   "user inputs", r.next_input, r.spec->n_inputs);
        sc_diag_set_hint(&ctx->diags, dg, "give one entry per user input, in signature order (null for a static one)");
        ok = false;
      }
    } else if (cJSON_IsObject(shapes)) {
      ok = read_by_name(&r, shapes);
    } else if (!cJSON_IsNull(shapes)) {
      sc_jr_error(&r.jr, SC_DIAG_WRONG_TYPE, "dynamic_shapes must be a list, an object or null, not %s",
                  sc_json_type_name(shapes));
      ok = false;
    }
    sc_jr_pop(&r.jr, saved);
  }
  if (ok) ok = check_samples(&r);
  cJSON_Delete(root);
  return ok ? r.spec : NULL;
}

sc_dynspec *sc_spec_read_file(sc_ctx *ctx, const sc_program *p, const char *path) {
  size_t len;
  char *text = sc_file_read(ctx, path, &len);
  if (!text) return NULL;
  sc_dynspec *s = sc_spec_read(ctx, p, path, text, len);
  free(text);
  return s;
}
