/* report.c - constraints.json writer; see report.h. */
#include "report.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"

/* Integers are written exactly (cJSON would go through a double). */
static cJSON *int_json(int64_t v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", (long long)v);
  return cJSON_CreateRaw(buf);
}

static void add_int(cJSON *obj, const char *key, int64_t v) { cJSON_AddItemToObject(obj, key, int_json(v)); }

static cJSON *shape_json(const sc_tensor_meta *m) {
  cJSON *arr = cJSON_CreateArray();
  for (int i = 0; i < m->rank; i++) {
    int64_t c;
    if (sc_expr_is_const(m->sizes[i], &c)) {
      cJSON_AddItemToArray(arr, int_json(c));
    } else {
      sc_strbuf sb = {0};
      sc_expr_print(&sb, m->sizes[i]);
      cJSON_AddItemToArray(arr, cJSON_CreateString(sc_strbuf_cstr(&sb)));
      sc_strbuf_free(&sb);
    }
  }
  return arr;
}

static cJSON *dim_json(const sc_dim_spec *d) {
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
  if (d->sample >= 0) add_int(o, "sample", d->sample);
  else cJSON_AddNullToObject(o, "sample");
  return o;
}

static cJSON *inputs_json(const sc_program *p, const sc_dynspec *spec) {
  cJSON *arr = cJSON_CreateArray();
  for (size_t i = 0; i < spec->n_inputs; i++) {
    const sc_input_dims *in = &spec->inputs[i];
    const sc_value *v = sc_input_spec_value(in->input);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", v ? v->name : "?");
    cJSON_AddStringToObject(o, "kind", v ? sc_value_kind_name(v->kind) : "constant");
    if (in->value) {
      cJSON_AddStringToObject(o, "dtype", sc_dtype_name(in->value->meta.dtype));
      cJSON *sample = cJSON_CreateArray();
      for (int k = 0; k < in->rank; k++)
        cJSON_AddItemToArray(sample, in->dims[k].sample >= 0 ? int_json(in->dims[k].sample)
                                                             : cJSON_CreateNull());
      cJSON_AddItemToObject(o, "sample_shape", sample);
      cJSON *dims = cJSON_CreateArray();
      for (int k = 0; k < in->rank; k++) cJSON_AddItemToArray(dims, dim_json(&in->dims[k]));
      cJSON_AddItemToObject(o, "dims", dims);
    }
    cJSON_AddItemToArray(arr, o);
  }
  (void)p;
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
      cJSON_AddItemToObject(o, "shape", shape_json(&v->meta));
    } else {
      cJSON_AddStringToObject(o, "kind", v ? sc_value_kind_name(v->kind) : "constant");
    }
    cJSON_AddItemToArray(arr, o);
  }
  return arr;
}

static cJSON *roots_json(const sc_dynspec *spec) {
  cJSON *o = cJSON_CreateObject();
  for (size_t i = 0; i < spec->n_roots; i++) {
    const sc_root_dim *r = &spec->roots[i];
    cJSON *d = cJSON_CreateObject();
    add_int(d, "min", r->min);
    if (r->has_max) add_int(d, "max", r->max);
    else cJSON_AddStringToObject(d, "max", "int_oo");
    cJSON *der = cJSON_CreateArray();
    for (size_t k = 0; k < r->n_derived; k++) cJSON_AddItemToArray(der, cJSON_CreateString(r->derived[k]));
    cJSON_AddItemToObject(d, "derived", der);
    cJSON_AddItemToObject(o, r->name, d);
  }
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

char *sc_report_render(sc_ctx *ctx, const sc_program *p, const sc_dynspec *spec) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddNumberToObject(root, "format", SC_REPORT_FORMAT);
  cJSON_AddStringToObject(root, "shapec_version", SHAPEC_VERSION);
  cJSON_AddStringToObject(root, "model", p->file);
  if (spec->file) cJSON_AddStringToObject(root, "spec", spec->file);
  else cJSON_AddNullToObject(root, "spec");
  cJSON_AddStringToObject(root, "status", ctx->diags.n_errors ? "error" : "ok");
  /* the shape analysis (symbols, guards, range constraints) is not part of this version */
  cJSON_AddStringToObject(root, "analysis", "not-run");
  cJSON_AddItemToObject(root, "inputs", inputs_json(p, spec));
  cJSON_AddItemToObject(root, "outputs", outputs_json(p));
  cJSON_AddItemToObject(root, "dims", roots_json(spec));
  cJSON_AddItemToObject(root, "diagnostics", diagnostics_json(&ctx->diags));
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
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
      if (line_start) {
        out[o++] = ' ';
        out[o++] = ' ';
      } else {
        out[o++] = ' ';
      }
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

bool sc_report_write(sc_ctx *ctx, const char *path, const sc_program *p, const sc_dynspec *spec) {
  char *text = sc_report_render(ctx, p, spec);
  bool ok = sc_file_write_atomic(ctx, path, text, strlen(text));
  free(text);
  return ok;
}
