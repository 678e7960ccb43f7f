/* driver.c - the export pipeline; see driver.h. */
#include "lib/base/phase.h"
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/library.h"
#include "lib/base/fileio.h"
#include "publish.h"
#include "lib/frontend/model_reader.h"
#include "lib/frontend/pt2_reader.h"
#include "lib/frontend/spec_reader.h"
#include "lib/observe/spec_infer.h"
#include "lib/report/report.h"
#include "lib/report/spec_fix.h"
#include "passes/half_precision.h"
#include "passes/inplace_updates.h"
#include "passes/result_dtypes.h"
#include "passes/verify_graph.h"

const char *sc_driver_default_weights(sc_ctx *ctx, const char *model) {
  const char *slash = strrchr(model, '/');
  const char *dot = strrchr(model, '.');
  size_t stem = (dot && (!slash || dot > slash)) ? (size_t)(dot - model) : strlen(model);
  return sc_arena_printf(&ctx->arena, "%.*s.safetensors", (int)stem, model);
}

void sc_export_result_free(sc_export_result *r) {
  free(r->inferred_spec);
  free(r->inferred_summary);
  r->inferred_spec = r->inferred_summary = NULL;
  if (r->weights) sc_weights_free(r->weights);
  r->weights = NULL;
  if (r->analysed) sc_analysis_release(&r->analysis);
  r->analysed = false;
}

/* The program's range constraints become the analysis's, for printing. */
static void adopt_ranges(sc_ctx *ctx, sc_program *p, const sc_analysis *a) {
  const sc_shape_env *env = &a->env;
  p->ranges = sc_arena_alloc(&ctx->arena, (env->n_symbols ? env->n_symbols : 1) * sizeof *p->ranges);
  p->n_ranges = 0;
  for (size_t i = 0; i < env->n_symbols; i++) {
    const sc_symbol *s = &env->symbols[i];
    if (s->replacement) continue;
    sc_range_iv r = sc_analysis_reported_range(s);
    p->ranges[p->n_ranges++] = (sc_range){s->name, r.lo != SC_NEG_INT_OO, r.hi != SC_INT_OO, r.lo, r.hi, NULL};
  }
}

static bool load_weights(sc_ctx *ctx, const sc_export_options *opts, sc_export_result *out) {
  const char *weights = opts->weights;
  if (out->weights && weights) { /* --weights overrides an archive's own */
    sc_weights_free(out->weights);
    out->weights = NULL;
  }
  if (!weights && !out->weights) {
    const char *guess = sc_driver_default_weights(ctx, opts->model);
    if (sc_file_exists(guess)) weights = guess;
  }
  if (weights && !out->weights) {
    out->weights = sc_weights_read_file(ctx, weights);
    if (!out->weights) return false;
  }
  return sc_weights_bind(ctx, out->weights, out->program, !opts->no_codegen);
}

/* The corrected spec's text on the violation's diagnostic that edits the spec file, so
 * that a SARIF document carries it as the result's fix. */
static void attach_fixed_spec(sc_ctx *ctx, const char *spec_path, const cJSON *fixed) {
  if (!fixed || !spec_path) return;
  for (size_t i = 0; i < ctx->diags.n_items; i++) {
    sc_diag *d = &ctx->diags.items[i];
    if (d->code != SC_DIAG_CONSTRAINT_VIOLATION || !d->edit_file || strcmp(d->edit_file, spec_path) != 0) continue;
    char *text = sc_json_render(fixed);
    d->edit_result = sc_arena_strdup(ctx->diags.arena, text);
    free(text);
  }
}

/* The corrected spec (where asked) and the report: into dir (the staging folder), or to
 * --report's path. */
static bool write_outputs(sc_ctx *ctx, const sc_export_options *opts, sc_export_result *out, const cJSON *fixed,
                          const char *dir) {
  bool ok = true;
  if (opts->fix_spec && fixed) {
    char *text = sc_json_render(fixed);
    if (sc_file_write_atomic(ctx, opts->fix_spec, text, strlen(text))) out->fixed_spec_path = opts->fix_spec;
    else ok = false;
    free(text);
  }
  if (out->inferred_spec && dir) { /* --observed: the spec the library was built with, beside it */
    const char *spec_path = sc_arena_printf(&ctx->arena, "%s/spec.json", dir);
    if (!sc_file_write_atomic(ctx, spec_path, out->inferred_spec, strlen(out->inferred_spec))) ok = false;
  }
  const char *path = opts->report ? opts->report : sc_arena_printf(&ctx->arena, "%s/constraints.json", dir);
  /* the report shows a corrected spec only when there is something to correct */
  const cJSON *shown = out->analysed && out->analysis.env.n_violations ? fixed : NULL;
  if (!sc_report_write(ctx, path, out->program, out->spec, out->analysed ? &out->analysis : NULL, shown)) return false;
  out->report_path = path;
  return ok;
}

/* Writes the report and builds the library into the staging folder. */
static bool produce(sc_ctx *ctx, const sc_export_options *opts, sc_export_result *out, const cJSON *fixed, bool ok,
                    const char *dir) {
  ok &= write_outputs(ctx, opts, out, fixed, dir);
  if (!ok || opts->no_codegen) return ok;
  /* the library embeds the report it was built with */
  char *report = sc_report_render(ctx, out->program, out->spec, &out->analysis, NULL);
  /* after the report, which shows the program as torch wrote it */
  if (sc_program_has_half(out->program)) sc_compute_half_in_float32(ctx, out->program, out->weights);
  sc_library_options copts = {opts->cpu, dir, report, opts->emit_llvm, opts->external_weights,
                              opts->target_cpu || !opts->target_cuda, opts->target_cuda, opts->cuda_arch,
                              opts->cuda_emulate, opts->name, opts->metadata, opts->n_metadata};
  ok = sc_library_build(ctx, out->program, &out->analysis, out->weights, &copts);
  free(report);
  if (ok) out->library_path = sc_arena_printf(&ctx->arena, "%s/model.so", dir);
  else write_outputs(ctx, opts, out, NULL, dir); /* the report said "ok": now with the code-generation error */
  return ok;
}

/* Where the outputs now are: the output folder's names for what was staged. */
static const char *published(sc_ctx *ctx, const sc_publish *pub, const char *staged, const char *as) {
  if (!staged) return NULL;
  size_t n = strlen(pub->staged_in);
  if (strncmp(staged, pub->staged_in, n) != 0) return staged; /* --report FILE: written where asked */
  return sc_arena_printf(&ctx->arena, "%s/%s", pub->named, as ? as : staged + n + 1);
}

/* The files an export reads, which its output folder must not hold (NULL entries: none):
 * model, spec, weights, then each observations path. */
static const char *const *export_inputs(sc_ctx *ctx, const sc_export_options *opts) {
  const char **inputs = sc_arena_alloc(&ctx->arena, (opts->n_observed + 3) * sizeof *inputs);
  inputs[0] = opts->model;
  inputs[1] = opts->spec;
  inputs[2] = opts->weights ? opts->weights : sc_driver_default_weights(ctx, opts->model);
  for (size_t i = 0; i < opts->n_observed; i++) inputs[3 + i] = opts->observed[i];
  return inputs;
}

/* --observed: the spec every rank infers alike from the same observations. */
static bool infer_spec(sc_ctx *ctx, const sc_export_options *opts, sc_export_result *out) {
  double t = sc_phase_start();
  sc_obs_set set;
  if (!sc_obs_collect(ctx, opts->observed, opts->n_observed, opts->observed_world_size, opts->observed_wait_s, &set))
    return false;
  sc_infer_options io = {opts->model, opts->observed_ranges, opts->prefer_deferred_asserts};
  sc_strbuf summary = {0};
  cJSON *spec = sc_spec_infer(ctx, &set, &io, &summary);
  if (spec) {
    out->inferred_spec = sc_json_render(spec);
    out->inferred_summary = strdup(sc_strbuf_cstr(&summary));
    cJSON_Delete(spec);
  }
  sc_strbuf_free(&summary);
  sc_phase_end(ctx, "infer the spec from the observations", t);
  return spec != NULL;
}

bool sc_driver_export(sc_ctx *ctx, const sc_export_options *opts, sc_export_result *out) {
  memset(out, 0, sizeof *out);
  double t = sc_phase_start();
  if (sc_pt2_looks_like_archive(opts->model)) {
    if (!sc_pt2_read(ctx, opts->model, &out->program, &out->weights)) return false;
  } else {
    out->program = sc_model_read_file(ctx, opts->model);
  }
  if (!out->program || !sc_verify_graph(ctx, out->program)) return false;
  if (!sc_check_result_dtypes(ctx, out->program) || !sc_resolve_inplace_updates(ctx, out->program)) return false;
  sc_phase_end(ctx, "read the model", t);
  t = sc_phase_start();

  if (opts->n_observed) {
    if (!infer_spec(ctx, opts, out)) return false;
    out->spec = sc_spec_read(ctx, out->program, "spec.json", out->inferred_spec, strlen(out->inferred_spec));
  } else {
    out->spec = opts->spec ? sc_spec_read_file(ctx, out->program, opts->spec) : sc_spec_from_program(ctx, out->program);
  }
  /* no spec file to read is not an error in a spec: nothing is written */
  if (!out->spec && (!opts->spec || sc_diags_exit_class(&ctx->diags) == SC_EXIT_IO)) return false;

  bool ok = false;
  cJSON *fixed = NULL;
  if (out->spec) {
    out->spec->prefer_deferred_asserts = opts->prefer_deferred_asserts;
    out->spec->metadata = opts->metadata;
    out->spec->n_metadata = opts->n_metadata;
    sc_phase_end(ctx, "read the spec", t);
    t = sc_phase_start();
    ok = sc_analysis_run(ctx, out->program, out->spec, &out->analysis);
    sc_phase_end(ctx, "shape analysis", t);
    out->analysed = true;
    adopt_ranges(ctx, out->program, &out->analysis);
    if (out->analysis.env.n_violations || opts->fix_spec)
      fixed = sc_spec_fix(ctx, opts->spec, out->analysis.env.violations, out->analysis.env.n_violations);
    attach_fixed_spec(ctx, opts->spec, fixed);
    t = sc_phase_start();
    if (ok) ok = load_weights(ctx, opts, out);
    sc_phase_end(ctx, "weights", t);
  } else {
    /* a spec that cannot be used still gets its report, status "error" with the
     * diagnostics, as a violation does: the inputs without their dims */
    sc_dynspec *unread = sc_arena_alloc(&ctx->arena, sizeof *unread);
    unread->file = opts->spec;
    out->spec = unread;
  }
  if (opts->report && opts->no_codegen) { /* nothing goes to the output folder */
    ok &= write_outputs(ctx, opts, out, fixed, NULL);
    cJSON_Delete(fixed);
    return ok && ctx->diags.n_errors == 0;
  }
  sc_publish pub;
  if (!sc_publish_begin(ctx, opts->outdir ? opts->outdir : "shapec-out", export_inputs(ctx, opts),
                        opts->n_observed + 3, &pub)) {
    cJSON_Delete(fixed);
    return false;
  }
  ok = produce(ctx, opts, out, fixed, ok, pub.staged_in);
  t = sc_phase_start();
  cJSON_Delete(fixed);
  if (ok || !sc_publish_has_library(&pub)) {
    /* the new set replaces the old one (a failed export's report, where no library is lost) */
    if (sc_publish_commit(ctx, &pub)) {
      out->report_path = published(ctx, &pub, out->report_path, NULL);
      out->library_path = published(ctx, &pub, out->library_path, NULL);
    } else {
      ok = false;
      out->report_path = out->library_path = NULL;
    }
  } else { /* a failed export keeps the earlier library and its report */
    sc_publish_keep_previous(ctx, &pub);
    out->report_path = published(ctx, &pub, out->report_path, "constraints.failed.json");
    out->library_path = NULL;
  }
  sc_publish_end(ctx, &pub);
  sc_phase_end(ctx, "publish the outputs", t);
  return ok && ctx->diags.n_errors == 0;
}
