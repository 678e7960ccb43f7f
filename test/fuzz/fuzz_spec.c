/* fuzz_spec.c - the dynamic_shapes spec reader, against the tutorial program (four inputs,
 * ranks 2, 1, 2, 1), then the analysis with that spec. */
#include "fuzz_common.h"
#include "lib/frontend/model_reader.h"
#include "lib/frontend/spec_reader.h"
#include "passes/shape_analysis.h"

#ifndef FUZZ_TUTORIAL_MODEL
#error "FUZZ_TUTORIAL_MODEL: the path of test/golden/models/tutorial.json"
#endif

static char *model_text;
static size_t model_len;

static void load_model(void) {
  FILE *f = fopen(FUZZ_TUTORIAL_MODEL, "rb");
  if (!f) abort();
  fseek(f, 0, SEEK_END);
  model_len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  model_text = malloc(model_len + 1);
  if (!model_text || fread(model_text, 1, model_len, f) != model_len) abort();
  model_text[model_len] = 0;
  fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!model_text) load_model();
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p = sc_model_read(ctx, "tutorial.json", model_text, model_len);
  if (!p) abort(); /* the fixed model always reads */
  char *text = fuzz_text(data, size);
  sc_dynspec *spec = sc_spec_read(ctx, p, "fuzz-spec.json", text, size);
  if (spec) {
    sc_analysis a;
    sc_analysis_run(ctx, p, spec, &a);
    sc_analysis_release(&a);
  }
  free(text);
  sc_ctx_free(ctx);
  return 0;
}
