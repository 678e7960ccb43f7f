/* spec_infer.c - a spec from merged observations (spec_infer.h). */
#include "spec_infer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit_check.h"
#include "lib/base/fileio.h"
#include "lib/frontend/model_reader.h"
#include "lib/frontend/pt2_reader.h"
#include "lib/frontend/spec_reader.h"
#include "lib/report/report.h"
#include "lib/report/spec_fix.h"
#include "passes/inplace_updates.h"
#include "passes/result_dtypes.h"
#include "passes/shape_analysis.h"
#include "passes/verify_graph.h"

#define AUTO_LEAF "_DimHint.AUTO"
enum { MAX_FIX_ROUNDS = 8, MAX_FIT_ERRORS = 10 };

/* What the program says of one user input: its name, whether it is a tensor, its rank
 * and the sizes (or the int) it was traced with (-1: unknown). */
typedef struct program_input {
  const char *name;
  bool tensor;
  int rank;
  int64_t sample[SC_OBS_MAX_RANK];
} program_input;

typedef struct program_view {
  program_input *inputs;
  size_t n_inputs;
  const char *sha256;
  const char *path;
} program_view;

/* Reads the model as the export does, into ctx (a scratch context). */
static sc_program *read_program(sc_ctx *ctx, const char *path) {
  sc_program *p = NULL;
  if (sc_pt2_looks_like_archive(path)) {
    sc_weights *w = NULL;
    bool ok = sc_pt2_read(ctx, path, &p, &w);
    if (w) sc_weights_free(w);
    if (!ok) return NULL;
  } else {
    p = sc_model_read_file(ctx, path);
  }
  if (!p || !sc_verify_graph(ctx, p) || !sc_check_result_dtypes(ctx, p) || !sc_resolve_inplace_updates(ctx, p))
    return NULL;
  return p;
}

static void view_program(sc_ctx *ctx, const sc_program *p, const char *path, program_view *out) {
  sc_dynspec *spec = sc_spec_static(ctx, p);
  out->n_inputs = spec->n_inputs;
  out->inputs = sc_arena_alloc(&ctx->arena, (spec->n_inputs ? spec->n_inputs : 1) * sizeof *out->inputs);
  out->sha256 = p->sha256[0] ? sc_arena_strdup(&ctx->arena, p->sha256) : NULL;
  out->path = path;
  /* names copied: p lives in a scratch context */
  for (size_t i = 0; i < spec->n_inputs; i++) {
    const sc_input_dims *in = &spec->inputs[i];
    const sc_value *v = in->value ? in->value : in->int_value ? in->int_value : sc_input_spec_value(in->input);
    program_input *pi = &out->inputs[i];
    pi->name = sc_arena_strdup(&ctx->arena, v ? v->name : in->input->target ? in->input->target : "?");
    pi->tensor = in->value && in->value->kind == SC_VALUE_TENSOR;
    pi->rank = pi->tensor ? in->rank : 0;
    for (int k = 0; k < pi->rank && k < SC_OBS_MAX_RANK; k++) pi->sample[k] = in->dims[k].sample;
    pi->sample[0] = pi->tensor ? pi->sample[0] : in->scalar.sample;
  }
}

/* Observed inputs against the program's: names, kinds and ranks, the model's digest. */
static bool match_program(sc_ctx *ctx, const sc_obs_set *set, const program_view *pv) {
  bool ok = true;
  const char *first_file = set->n_files ? set->files[0].path : NULL;
  if (set->model_sha256 && pv->sha256 && strcmp(set->model_sha256, pv->sha256) != 0) {
    sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_OBS_CONFLICT, SC_SEV_ERROR, first_file, "model_sha256",
                              "the observations were recorded for another model (model_sha256 %.12s..., %s's is "
                              "%.12s...)", set->model_sha256, sc_path_file_name(pv->path), pv->sha256);
    sc_diag_set_hint(&ctx->diags, d, "give the model the ranks ran, or record the observations again with this one");
    return false;
  }
  for (size_t i = 0; i < set->n_inputs; i++) {
    const sc_obs_input *o = &set->inputs[i];
    const program_input *pi = NULL;
    for (size_t j = 0; j < pv->n_inputs && !pi; j++)
      if (strcmp(pv->inputs[j].name, o->name) == 0) pi = &pv->inputs[j];
    if (!pi) {
      sc_strbuf names = {0};
      for (size_t j = 0; j < pv->n_inputs; j++) sc_strbuf_printf(&names, "%s%s", j ? ", " : "", pv->inputs[j].name);
      sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_OBS_CONFLICT, SC_SEV_ERROR, o->first_file->path, NULL,
                                "'%s' is observed, but %s has no input of that name", o->name,
                                sc_path_file_name(pv->path));
      sc_diag_set_hint(&ctx->diags, d, "its inputs are: %s (observations of another model?)", sc_strbuf_cstr(&names));
      sc_strbuf_free(&names);
      ok = false;
    } else if (pi->tensor != (o->kind == SC_OBS_TENSOR) || (pi->tensor && pi->rank != o->rank)) {
      sc_diag *d = sc_diags_add(
          &ctx->diags, SC_DIAG_OBS_CONFLICT, SC_SEV_ERROR, o->first_file->path, NULL,
          "'%s' is observed as %s, but the program's is %s", o->name,
          o->kind == SC_OBS_TENSOR ? sc_arena_printf(&ctx->arena, "a tensor of rank %d", o->rank) : "a scalar",
          pi->tensor ? sc_arena_printf(&ctx->arena, "a tensor of rank %d", pi->rank) : "a scalar");
      sc_diag_set_hint(&ctx->diags, d, "observations of another model? record them with this model's inputs");
      ok = false;
    }
  }
  for (size_t j = 0; j < pv->n_inputs; j++) {
    bool seen = false;
    for (size_t i = 0; i < set->n_inputs && !seen; i++) seen = strcmp(set->inputs[i].name, pv->inputs[j].name) == 0;
    if (!seen) {
      sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_OBS_CONFLICT, SC_SEV_ERROR, first_file, NULL,
                                "input '%s' of %s is in no observed call", pv->inputs[j].name,
                                sc_path_file_name(pv->path));
      sc_diag_set_hint(&ctx->diags, d, "record every input of every call");
      ok = false;
    }
  }
  return ok;
}

static const program_input *program_input_named(const program_view *pv, const char *name) {
  for (size_t j = 0; pv && j < pv->n_inputs; j++)
    if (strcmp(pv->inputs[j].name, name) == 0) return &pv->inputs[j];
  return NULL;
}

/* The automatic-dynamic decision for every observed dim, as a spec. */
static cJSON *first_spec(sc_ctx *ctx, const sc_obs_set *set, const program_view *pv, const sc_infer_options *o) {
  cJSON *root = cJSON_CreateObject();
  cJSON *shapes = cJSON_AddObjectToObject(root, "dynamic_shapes");
  cJSON *dims = cJSON_AddObjectToObject(root, "dims");
  size_t n = pv ? pv->n_inputs : set->n_inputs;
  for (size_t j = 0; j < n; j++) { /* the program's order when there is one, else rank 0's */
    const sc_obs_input *in = NULL;
    for (size_t i = 0; i < set->n_inputs && !in; i++)
      if (strcmp(set->inputs[i].name, pv ? pv->inputs[j].name : set->inputs[j].name) == 0) in = &set->inputs[i];
    const program_input *pi = in ? program_input_named(pv, in->name) : NULL;
    if (in->kind == SC_OBS_FLOAT || in->kind == SC_OBS_BOOL) {
      if (in->varies[0]) {
        sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_OBS_CONTRADICTION, SC_SEV_ERROR, in->first_file->path, NULL,
                                  "'%s' takes more than one value, but torch.export makes a %s input a constant: one "
                                  "library serves one value", in->name, in->kind == SC_OBS_FLOAT ? "float" : "bool");
        sc_diag_set_hint(&ctx->diags, d, "pass it as a tensor, or build one library per value");
        cJSON_Delete(root);
        return NULL;
      }
      cJSON_AddNullToObject(shapes, in->name);
      continue;
    }
    if (in->kind == SC_OBS_INT) {
      /* an int that varies is dynamic; one that does not is the constant it was traced as,
       * unless the program was traced with another value */
      bool dynamic = in->varies[0] || (pi && pi->sample[0] >= 0 && pi->sample[0] != in->first[0]);
      if (dynamic) cJSON_AddStringToObject(shapes, in->name, AUTO_LEAF);
      else cJSON_AddNullToObject(shapes, in->name);
      continue;
    }
    cJSON *leaves = cJSON_AddArrayToObject(shapes, in->name);
    for (int k = 0; k < in->rank; k++) {
      bool retrace = pi && pi->sample[k] >= 0 && pi->sample[k] != in->first[k];
      if (!in->varies[k] && !retrace) {
        cJSON_AddItemToArray(leaves, cJSON_CreateNumber((double)in->first[k]));
      } else if (o->ranges && in->varies[k]) {
        const char *name = sc_arena_printf(&ctx->arena, "%s_dim%d", in->name, k);
        cJSON_AddItemToArray(leaves, cJSON_CreateString(name));
        cJSON *d = cJSON_AddObjectToObject(dims, name);
        cJSON_AddNumberToObject(d, "min", (double)in->min[k]);
        cJSON_AddNumberToObject(d, "max", (double)in->max[k]);
      } else {
        cJSON_AddItemToArray(leaves, cJSON_CreateString(AUTO_LEAF));
      }
    }
  }
  return root;
}

/* One line per input dim: what the spec says of it and what was observed. */
static void summarize(sc_ctx *ctx, const sc_obs_set *set, const cJSON *spec, const program_view *pv, sc_strbuf *out) {
  if (!out) return;
  sc_strbuf_printf(out, "merged %zu call%s from %zu file%s (ranks %d..%d)\n", set->n_calls, set->n_calls == 1 ? "" : "s",
                   set->n_files, set->n_files == 1 ? "" : "s", set->files[0].rank, set->files[set->n_files - 1].rank);
  const cJSON *shapes = cJSON_GetObjectItemCaseSensitive(spec, "dynamic_shapes");
  const cJSON *leaf_list;
  cJSON_ArrayForEach(leaf_list, shapes) {
    const sc_obs_input *in = NULL;
    for (size_t i = 0; i < set->n_inputs && !in; i++)
      if (strcmp(set->inputs[i].name, leaf_list->string) == 0) in = &set->inputs[i];
    if (!in) continue;
    const program_input *pi = program_input_named(pv, in->name);
    int n = cJSON_IsArray(leaf_list) ? cJSON_GetArraySize(leaf_list) : 1;
    for (int k = 0; k < n; k++) {
      const cJSON *leaf = cJSON_IsArray(leaf_list) ? cJSON_GetArrayItem(leaf_list, k) : leaf_list;
      const char *dim = sc_obs_dim_name(ctx, in->name, cJSON_IsArray(leaf_list) ? k : -1);
      int64_t lo = in->min[k], hi = in->max[k];
      if (in->kind == SC_OBS_FLOAT) {
        sc_strbuf_printf(out, "  %s: static (%g in every call)\n", dim, in->first_f);
      } else if (cJSON_IsNumber(leaf) || cJSON_IsNull(leaf)) {
        sc_strbuf_printf(out, "  %s: static (%lld in every call)\n", dim, (long long)in->first[k]);
      } else if (!in->varies[k]) {
        sc_strbuf_printf(out, "  %s: %s: %lld in every call, but the program was traced with %lld\n", dim,
                         leaf->valuestring, (long long)in->first[k], (long long)(pi ? pi->sample[k] : -1));
      } else {
        const char *leaf_text = leaf->valuestring;
        const char *own = sc_arena_printf(&ctx->arena, "%s_dim%d", in->name, k);
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(spec, "dims"), leaf_text);
        if (strcmp(leaf_text, AUTO_LEAF) == 0)
          sc_strbuf_printf(out, "  %s: dynamic (AUTO; observed %lld..%lld)\n", dim, (long long)lo, (long long)hi);
        else if (strcmp(leaf_text, own) == 0 && d)
          sc_strbuf_printf(out, "  %s: dynamic, Dim %s (observed %lld..%lld)\n", dim, leaf_text, (long long)lo,
                           (long long)hi);
        else
          sc_strbuf_printf(out, "  %s: dynamic, %s: the program relates it to another dim (observed %lld..%lld)\n", dim,
                           leaf_text, (long long)lo, (long long)hi);
      }
    }
  }
}

/* The spec after the analysis's own fixes (dims the program relates share a Dim), and
 * every call checked against the resulting contract. */
static cJSON *settle_with_program(sc_ctx *ctx, const sc_obs_set *set, cJSON *spec, const sc_infer_options *o) {
  for (int round = 0;; round++) {
    sc_ctx *scratch = sc_ctx_new();
    sc_program *p = read_program(scratch, o->model);
    char *text = sc_json_render(spec);
    sc_dynspec *ds = p ? sc_spec_read(scratch, p, "spec.json", text, strlen(text)) : NULL;
    free(text);
    if (!ds) {
      sc_diags_copy(&ctx->diags, &scratch->diags);
      sc_ctx_free(scratch);
      cJSON_Delete(spec);
      return NULL;
    }
    ds->prefer_deferred_asserts = o->prefer_deferred_asserts;
    sc_analysis a;
    sc_analysis_run(scratch, p, ds, &a);
    size_t n_violations = a.env.n_violations;
    bool other_errors = scratch->diags.n_errors > n_violations;
    if (n_violations && !other_errors && round < MAX_FIX_ROUNDS) {
      sc_spec_fix_apply(scratch, spec, a.env.violations, n_violations);
      sc_analysis_release(&a);
      sc_ctx_free(scratch);
      continue;
    }
    bool ok = scratch->diags.n_errors == 0;
    if (!ok) {
      sc_diags_copy(&ctx->diags, &scratch->diags);
      if (n_violations)
        sc_diags_add(&ctx->diags, SC_DIAG_OBS_CONTRADICTION, SC_SEV_ERROR, o->model, NULL,
                     "no spec both fits the observations and is one the program accepts: %s",
                     sc_analysis_violations_text(scratch, &a, false));
    } else {
      char *report_text = sc_report_render(scratch, p, ds, &a, NULL);
      cJSON *report = cJSON_Parse(report_text);
      free(report_text);
      ok = report && sc_obs_fit_report(ctx, set, report, MAX_FIT_ERRORS);
      cJSON_Delete(report);
    }
    sc_analysis_release(&a);
    sc_ctx_free(scratch);
    if (!ok) {
      cJSON_Delete(spec);
      return NULL;
    }
    return spec;
  }
}

cJSON *sc_spec_infer(sc_ctx *ctx, const sc_obs_set *set, const sc_infer_options *o, sc_strbuf *summary) {
  program_view pv = {0};
  if (o->model) {
    sc_ctx *scratch = sc_ctx_new();
    sc_program *p = read_program(scratch, o->model);
    if (p) view_program(ctx, p, o->model, &pv);
    else sc_diags_copy(&ctx->diags, &scratch->diags);
    sc_ctx_free(scratch);
    if (!p || !match_program(ctx, set, &pv)) return NULL;
  }
  cJSON *spec = first_spec(ctx, set, o->model ? &pv : NULL, o);
  if (spec && o->model) spec = settle_with_program(ctx, set, spec, o);
  if (spec) sc_spec_complete_dims(spec);
  if (spec) summarize(ctx, set, spec, o->model ? &pv : NULL, summary);
  return spec;
}
