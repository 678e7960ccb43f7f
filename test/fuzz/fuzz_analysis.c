/* fuzz_analysis.c - the whole analysis: a model JSON read, checked, its own dynamism as the
 * spec (range_constraints, guards_code), every shape rule and guard decision, the report. */
#include "fuzz_common.h"
#include "lib/frontend/model_reader.h"
#include "lib/frontend/spec_reader.h"
#include "passes/inplace_updates.h"
#include "passes/shape_analysis.h"
#include "passes/verify_graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sc_ctx *ctx = sc_ctx_new();
  char *text = fuzz_text(data, size);
  sc_program *p = sc_model_read(ctx, "fuzz.json", text, size);
  if (p && sc_verify_graph(ctx, p) && sc_resolve_inplace_updates(ctx, p)) {
    sc_dynspec *spec = sc_spec_from_program(ctx, p);
    sc_analysis a;
    if (spec) {
      sc_analysis_run(ctx, p, spec, &a);
      sc_analysis_release(&a);
    }
  }
  free(text);
  sc_ctx_free(ctx);
  return 0;
}
