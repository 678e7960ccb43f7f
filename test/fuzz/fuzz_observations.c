/* fuzz_observations.c - an observations file: read, merged, and turned into a spec against
 * the tutorial program (which analyses it and checks every call against the result). */
#include "fuzz_common.h"
#include "lib/observe/spec_infer.h"

#ifndef FUZZ_TUTORIAL_MODEL
#error "FUZZ_TUTORIAL_MODEL: the path of examples/tutorial/model.json"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_input_file(data, size, "-obs.json");
  sc_ctx *ctx = sc_ctx_new();
  sc_obs_set set;
  if (sc_obs_collect(ctx, &path, 1, -1, 0, &set)) {
    sc_infer_options plain = {0}, with_model = {.model = FUZZ_TUTORIAL_MODEL, .ranges = size % 2 == 0};
    cJSON_Delete(sc_spec_infer(ctx, &set, &plain, NULL));
    cJSON_Delete(sc_spec_infer(ctx, &set, &with_model, NULL));
  }
  sc_ctx_free(ctx);
  return 0;
}
