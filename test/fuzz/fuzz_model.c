/* fuzz_model.c - the model reader (ExportedProgram JSON) and the graph checks after it. */
#include "fuzz_common.h"
#include "lib/frontend/model_reader.h"
#include "passes/inplace_updates.h"
#include "passes/verify_graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sc_ctx *ctx = sc_ctx_new();
  char *text = fuzz_text(data, size);
  sc_program *p = sc_model_read(ctx, "fuzz.json", text, size);
  if (p && sc_verify_graph(ctx, p)) sc_resolve_inplace_updates(ctx, p);
  free(text);
  sc_ctx_free(ctx);
  return 0;
}
