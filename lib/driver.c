/* driver.c - the export pipeline; see driver.h. */
#include "driver.h"

#include <stdio.h>
#include <string.h>

#include "../passes/verify_graph.h"
#include "fileio.h"
#include "model_reader.h"
#include "report.h"
#include "spec_reader.h"

const char *sc_driver_default_weights(sc_ctx *ctx, const char *model) {
  const char *slash = strrchr(model, '/');
  const char *dot = strrchr(model, '.');
  size_t stem = (dot && (!slash || dot > slash)) ? (size_t)(dot - model) : strlen(model);
  return sc_arena_printf(&ctx->arena, "%.*s.safetensors", (int)stem, model);
}

void sc_export_result_free(sc_export_result *r) {
  if (r->weights) sc_weights_free(r->weights);
  r->weights = NULL;
}

bool sc_driver_export(sc_ctx *ctx, const sc_export_options *opts, sc_export_result *out) {
  memset(out, 0, sizeof *out);
  out->program = sc_model_read_file(ctx, opts->model);
  if (!out->program || !sc_verify_graph(ctx, out->program)) return false;

  out->spec = opts->spec ? sc_spec_read_file(ctx, out->program, opts->spec) : sc_spec_static(ctx, out->program);
  if (!out->spec) return false;

  const char *weights = opts->weights;
  if (!weights) {
    const char *guess = sc_driver_default_weights(ctx, opts->model);
    if (sc_file_exists(guess)) weights = guess;
  }
  if (weights) {
    out->weights = sc_weights_read_file(ctx, weights);
    if (!out->weights) return false;
  }
  if (!sc_weights_bind(ctx, out->weights, out->program, !opts->no_codegen)) return false;
  out->codegen_skipped = !opts->no_codegen;

  const char *outdir = opts->outdir ? opts->outdir : "shapec-out";
  out->report_path = opts->report ? opts->report : sc_arena_printf(&ctx->arena, "%s/constraints.json", outdir);
  if (!opts->report && !sc_dir_ensure(ctx, outdir)) return false;
  return sc_report_write(ctx, out->report_path, out->program, out->spec);
}
