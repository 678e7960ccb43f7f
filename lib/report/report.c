/* report.c - constraints.json writer; see report.h. */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/fileio.h"
#include "passes/shape_analysis.h"

/* Integers are written exactly (cJSON would go through a double). */
static cJSON *int_json(int64_t v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", (long long)v);
  return cJSON_CreateRaw(buf);
}

static void add_int(cJSON *obj, const char *key, int64_t v) { cJSON_AddItemToObject(obj, key, int_json(v)); }

static cJSON *expr_json(const sc_expr *e) {
  int64_t c;
  if (sc_expr_is_const(e, &c)) return int_json(c);
  sc_strbuf sb = {0};
  sc_expr_print(&sb, e);
  cJSON *s = cJSON_CreateString(sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return s;
}

static void add_expr_string(cJSON *obj, const char *key, const sc_expr *e) {
  sc_strbuf sb = {0};
  sc_expr_print(&sb, e);
  cJSON_AddStringToObject(obj, key, sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
}

/* The analysed shape when there is one, else the program's meta. */
static cJSON *shape_json(const sc_value *v) {
  cJSON *arr = cJSON_CreateArray();
  for (int i = 0; i < v->meta.rank; i++) cJSON_AddItemToArray(arr, expr_json(v->shown ? v->shown[i] : v->shape ? v->shape[i] : v->meta.sizes[i]));
  return arr;
}

static cJSON *dim_spec_json(const sc_dim_spec *d) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "spec", sc_dim_kind_name(d->kind));
  if (d->kind == SC_DIM_NAMED) {
    cJSON_AddStringToObject(o, "dim", d->root->name);
    add_int(o, "coeff", d->coeff);
    add_int(o, "offset", d->offset);
  }
  if (d->kind == SC_DIM_STATIC && d->static_size >= 0) add_int(o, "size", d->static_size);
  if (d->has_min) add_int(o, "min", d->min);
  if (d->has_max) add_int(o, "max", d->max);
  return o;
}

static const char *input_kind_json(sc_input_kind k) {
  switch (k) {
    case SC_INPUT_USER: return "user_input";
    case SC_INPUT_PARAMETER: return "parameter";
    case SC_INPUT_BUFFER: return "buffer";
    case SC_INPUT_TENSOR_CONSTANT: return "tensor_constant";
    case SC_INPUT_CONSTANT: return "constant_input";
    default: return "other";
  }
}

static cJSON *inputs_json(const sc_program *p, const sc_dynspec *spec) {
  cJSON *arr = cJSON_CreateArray();
  size_t user = 0;
  for (size_t i = 0; i < p->n_input_specs; i++) {
    const sc_input_spec *s = &p->input_specs[i];
    const sc_value *v = sc_input_spec_value(s);
    const sc_input_dims *in = s->kind == SC_INPUT_USER && user < spec->n_inputs ? &spec->inputs[user++] : NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", v ? v->name : (s->target ? s->target : "?"));
    cJSON_AddStringToObject(o, "kind", input_kind_json(s->kind));
    if (s->target && s->kind != SC_INPUT_USER) cJSON_AddStringToObject(o, "target", s->target);
    if (v && v->kind == SC_VALUE_TENSOR) {
      cJSON_AddStringToObject(o, "dtype", sc_dtype_name(v->meta.dtype));
      cJSON_AddItemToObject(o, "shape", shape_json(v));
      if (in) {
        cJSON *sample = cJSON_CreateArray();
        for (int k = 0; k < in->rank; k++)
          cJSON_AddItemToArray(sample, in->dims[k].sample >= 0 ? int_json(in->dims[k].sample) : cJSON_CreateNull());
        cJSON_AddItemToObject(o, "sample_shape", sample);
        cJSON *dims = cJSON_CreateArray();
        for (int k = 0; k < in->rank; k++) cJSON_AddItemToArray(dims, dim_spec_json(&in->dims[k]));
        cJSON_AddItemToObject(o, "dims", dims);
      }
    } else if (v) {
      cJSON_AddStringToObject(o, "value_kind", sc_value_kind_name(v->kind));
    }
    cJSON_AddItemToArray(arr, o);
  }
  return arr;
}

static cJSON *outputs_json(const sc_program *p) {
  cJSON *arr = cJSON_CreateArray();
  for (size_t i = 0; i < p->n_output_specs; i++) {
    const sc_arg *a = &p->output_specs[i].arg;
    const sc_value *v = a->n_items ? a->items[0].value : NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", v ? v->name : "?");
    if (v && v->kind == SC_VALUE_TENSOR) {
      cJSON_AddStringToObject(o, "dtype", sc_dtype_name(v->meta.dtype));
      cJSON_AddItemToObject(o, "shape", shape_json(v));
    } else if (v) {
      cJSON_AddStringToObject(o, "value_kind", sc_value_kind_name(v->kind));
      if (v->sym) add_expr_string(o, "value", v->sym);
    }
    cJSON_AddItemToArray(arr, o);
  }
  return arr;
}

/* The write-backs after each call: [{"kind": "buffer", "target": "count", "value": "add"}]. */
static cJSON *mutations_json(const sc_program *p) {
  cJSON *arr = cJSON_CreateArray();
  for (size_t i = 0; i < p->n_mutations; i++) {
    const sc_mutation *m = &p->mutations[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", m->kind == SC_MUTATE_BUFFER ? "buffer" : "user_input");
    cJSON_AddStringToObject(o, "target", m->target);
    cJSON_AddStringToObject(o, "value", m->arg.n_items && m->arg.items[0].value ? m->arg.items[0].value->name : "?");
    cJSON_AddItemToArray(arr, o);
  }
  return arr;
}

static cJSON *range_json(sc_range_iv r) {
  cJSON *o = cJSON_CreateObject();
  if (r.lo == SC_NEG_INT_OO) cJSON_AddNullToObject(o, "min");
  else add_int(o, "min", r.lo);
  if (r.hi == SC_INT_OO) cJSON_AddNullToObject(o, "max");
  else add_int(o, "max", r.hi);
  return o;
}

static const char *outcome_name(sc_guard_outcome o) {
  switch (o) {
    case SC_GUARD_TRUE: return "statically_true";
    case SC_GUARD_REPLACEMENT: return "replacement";
    case SC_GUARD_SPECIALIZATION: return "specialization";
    case SC_GUARD_RANGE: return "range";
    case SC_GUARD_RUNTIME_ASSERT: return "runtime_assert";
    case SC_GUARD_VIOLATION: return "violation";
    case SC_GUARD_INPUT: return "input_guard";
  }
  return "?";
}

static void add_provenance(cJSON *o, const sc_provenance *p) {
  if (p->node == SC_PROV_SPEC || p->node == SC_PROV_GUARDS_CODE) {
    cJSON_AddStringToObject(o, "node", "");
    if (p->node == SC_PROV_GUARDS_CODE) cJSON_AddStringToObject(o, "path", p->path);
    cJSON_AddStringToObject(o, "rule", p->node == SC_PROV_SPEC ? "spec" : "guards_code");
    return;
  }
  cJSON_AddStringToObject(o, "node", p->node_name);
  cJSON_AddStringToObject(o, "op", p->op);
  cJSON_AddStringToObject(o, "path", p->path);
  cJSON_AddStringToObject(o, "rule", p->rule);
}

static void add_analysis(cJSON *root, const sc_analysis *a) {
  const sc_shape_env *env = &a->env;
  cJSON *symbols = cJSON_AddObjectToObject(root, "symbols");
  cJSON *ranges = cJSON_AddObjectToObject(root, "range_constraints");
  cJSON *repl = cJSON_AddObjectToObject(root, "replacements");
  cJSON *spec = cJSON_AddArrayToObject(root, "specializations");
  for (size_t i = 0; i < env->n_symbols; i++) {
    const sc_symbol *s = &env->symbols[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "source", s->source ? s->source : "");
    /* a phantom Dim (only its derived sizes are inputs) narrows like an AUTO size, and is a Dim */
    cJSON_AddStringToObject(o, "kind", s->dim ? "Dim" : sc_sym_origin_name(s->origin));
    if (s->dim) cJSON_AddStringToObject(o, "dim", s->dim->name);
    else cJSON_AddNullToObject(o, "dim");
    if (s->has_hint) add_int(o, "hint", s->hint);
    else cJSON_AddNullToObject(o, "hint");
    cJSON_AddItemToObject(symbols, s->name, o);
    if (!s->replacement) {
      cJSON_AddItemToObject(ranges, s->name, range_json(sc_analysis_reported_range(s)));
      continue;
    }
    int64_t v;
    if (sc_expr_is_const(s->replacement, &v)) {
      cJSON *sp = cJSON_CreateObject();
      cJSON_AddStringToObject(sp, "source", s->source ? s->source : s->name);
      cJSON_AddStringToObject(sp, "symbol", s->name);
      add_int(sp, "value", v);
      add_expr_string(sp, "guard", s->replaced_guard);
      add_provenance(sp, &s->replaced_at);
      cJSON_AddItemToArray(spec, sp);
    } else {
      add_expr_string(repl, s->name, s->replacement);
    }
  }
  /* derived input sizes, as torch lists them: "2*s17 + 1": {"min": 5, "max": 65} */
  for (size_t i = 0; i < a->n_derived; i++) {
    const char *key = sc_expr_to_string(a->env.ctx, a->derived[i].expr);
    if (!cJSON_GetObjectItemCaseSensitive(ranges, key)) cJSON_AddItemToObject(ranges, key, range_json(a->derived[i].range));
  }
  /* without a spec the contract is the program's: its range_constraints entries for
   * symbols the analysis does not have (torch 2.6 lists unbacked symbols it replaced)
   * are carried over as the program states them */
  if (a->spec->from_program)
    for (size_t i = 0; i < a->program->n_file_ranges; i++) {
      const sc_range *r = &a->program->file_ranges[i];
      if (cJSON_GetObjectItemCaseSensitive(ranges, r->symbol)) continue;
      cJSON_AddItemToObject(ranges, r->symbol, range_json(sc_iv(r->has_min ? r->min : SC_NEG_INT_OO,
                                                                 r->has_max ? r->max : SC_INT_OO)));
    }
  cJSON *guards = cJSON_AddArrayToObject(root, "guards");
  cJSON *asserts = cJSON_AddArrayToObject(root, "runtime_asserts");
  cJSON *input_guards = cJSON_AddArrayToObject(root, "input_guards");
  for (size_t i = 0; i < env->n_guards; i++) {
    const sc_guard *g = &env->guards[i];
    cJSON *o = cJSON_CreateObject();
    add_expr_string(o, "expr", g->expr);
    if (g->outcome == SC_GUARD_INPUT) { /* checked on every call, before the run */
      cJSON_AddStringToObject(o, "text", g->text ? g->text : "");
      cJSON_AddStringToObject(o, "from", g->prov.rule);
      cJSON_AddItemToArray(input_guards, o);
      continue;
    }
    add_provenance(o, &g->prov);
    if (g->outcome == SC_GUARD_RUNTIME_ASSERT) {
      cJSON_AddItemToArray(asserts, o);
      continue;
    }
    cJSON_AddStringToObject(o, "outcome", outcome_name(g->outcome));
    if (g->symbol) cJSON_AddStringToObject(o, "symbol", g->symbol);
    cJSON_AddItemToArray(guards, o);
  }
}

static cJSON *error_json(const sc_ctx *ctx, const sc_analysis *a, const cJSON *fixed_spec) {
  const sc_diag *first = NULL;
  for (size_t i = 0; i < ctx->diags.n_items && !first; i++)
    if (ctx->diags.items[i].severity == SC_SEV_ERROR) first = &ctx->diags.items[i];
  if (!first) return NULL;
  cJSON *o = cJSON_CreateObject();
  bool violation = a && a->env.n_violations;
  cJSON_AddStringToObject(o, "kind", violation ? "ConstraintViolation" : sc_diag_code_slug(first->code));
  sc_strbuf sb = {0};
  if (violation) {
    sc_strbuf_append(&sb, sc_analysis_violations_text((sc_ctx *)ctx, a, false));
  } else {
    sc_strbuf_append(&sb, first->message);
  }
  cJSON_AddStringToObject(o, "message", sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  cJSON *fixes = cJSON_AddArrayToObject(o, "suggested_fixes");
  const char **lines;
  size_t n_lines = violation ? sc_analysis_fix_lines((sc_ctx *)ctx, a, &lines) : 0;
  for (size_t i = 0; i < n_lines; i++) cJSON_AddItemToArray(fixes, cJSON_CreateString(lines[i]));
  if (fixed_spec) cJSON_AddItemToObject(o, "fixed_spec", cJSON_Duplicate(fixed_spec, 1));
  return o;
}

static cJSON *diagnostics_json(const sc_diags *diags) {
  cJSON *arr = cJSON_CreateArray();
  for (size_t i = 0; i < diags->n_items; i++) {
    const sc_diag *d = &diags->items[i];
    cJSON *o = cJSON_CreateObject();
    char code[16];
    snprintf(code, sizeof code, "SC%04d", (int)d->code);
    cJSON_AddStringToObject(o, "code", code);
    cJSON_AddStringToObject(o, "severity", d->severity == SC_SEV_ERROR ? "error"
                                           : d->severity == SC_SEV_WARNING ? "warning" : "note");
    if (d->file) cJSON_AddStringToObject(o, "file", d->file);
    if (d->path) cJSON_AddStringToObject(o, "path", d->path);
    cJSON_AddStringToObject(o, "message", d->message);
    if (d->hint) cJSON_AddStringToObject(o, "hint", d->hint);
    cJSON_AddItemToArray(arr, o);
  }
  return arr;
}

char *sc_json_render(const cJSON *root) {
  char *text = cJSON_Print(root);
  if (!text) sc_fatal_oom();
  /* cJSON indents with tabs and writes ":\t"; rewrite to two-space indentation so the
   * report diffs and reads like any other JSON file (strings hold no raw tabs: cJSON
   * escapes them). */
  size_t n = strlen(text);
  char *out = sc_xmalloc(2 * n + 2);
  size_t o = 0;
  bool line_start = true;
  for (size_t i = 0; i < n; i++) {
    char c = text[i];
    if (c == '\t') {
      out[o++] = ' ';
      if (line_start) out[o++] = ' ';
      continue;
    }
    line_start = c == '\n';
    out[o++] = c;
  }
  out[o++] = '\n';
  out[o] = '\0';
  cJSON_free(text);
  return out;
}

char *sc_report_render(sc_ctx *ctx, const sc_program *p, const sc_dynspec *spec, const sc_analysis *analysis,
                       const cJSON *fixed_spec) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "format", SC_REPORT_FORMAT);
  add_int(root, "version", SC_REPORT_VERSION);
  cJSON_AddStringToObject(root, "shapec_version", SHAPEC_VERSION);
  cJSON_AddStringToObject(root, "status", ctx->diags.n_errors ? "error" : "ok");
  /* files by name and content, never by path: the same model and spec give the same
   * report (and library) in any folder, on any machine */
  cJSON_AddStringToObject(root, "model", sc_path_file_name(p->source ? p->source : p->file));
  if (p->sha256[0]) cJSON_AddStringToObject(root, "model_sha256", p->sha256);
  if (spec->file) cJSON_AddStringToObject(root, "spec", sc_path_file_name(spec->file));
  else cJSON_AddNullToObject(root, "spec");
  if (spec->file && spec->sha256[0]) cJSON_AddStringToObject(root, "spec_sha256", spec->sha256);
  /* whose dynamism this is: a spec's, the program's own (no spec), or none */
  cJSON_AddStringToObject(root, "dynamism", spec->file ? "spec" : spec->from_program ? "program" : "static");
  if (spec->prefer_deferred_asserts) cJSON_AddTrueToObject(root, "prefer_deferred_runtime_asserts");
  if (spec->n_metadata) { /* export --metadata KEY=VALUE, in the order given */
    cJSON *meta = cJSON_AddObjectToObject(root, "metadata");
    for (size_t i = 0; i < spec->n_metadata; i++) {
      const char *eq = strchr(spec->metadata[i], '=');
      if (!eq) continue;
      char *key = sc_arena_printf(&ctx->arena, "%.*s", (int)(eq - spec->metadata[i]), spec->metadata[i]);
      if (cJSON_GetObjectItemCaseSensitive(meta, key)) /* the last value given for a key wins */
        cJSON_ReplaceItemInObjectCaseSensitive(meta, key, cJSON_CreateString(eq + 1));
      else
        cJSON_AddStringToObject(meta, key, eq + 1);
    }
  }
  cJSON_AddItemToObject(root, "inputs", inputs_json(p, spec));
  cJSON_AddItemToObject(root, "outputs", outputs_json(p));
  if (p->n_mutations) cJSON_AddItemToObject(root, "mutations", mutations_json(p));
  if (analysis) add_analysis(root, analysis);
  cJSON *err = error_json(ctx, analysis, fixed_spec);
  if (err) cJSON_AddItemToObject(root, "error", err);
  cJSON_AddItemToObject(root, "diagnostics", diagnostics_json(&ctx->diags));
  char *out = sc_json_render(root);
  cJSON_Delete(root);
  return out;
}

bool sc_report_write(sc_ctx *ctx, const char *path, const sc_program *p, const sc_dynspec *spec,
                     const sc_analysis *analysis, const cJSON *fixed_spec) {
  char *text = sc_report_render(ctx, p, spec, analysis, fixed_spec);
  bool ok = sc_file_write_atomic(ctx, path, text, strlen(text));
  free(text);
  return ok;
}
