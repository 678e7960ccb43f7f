/* fuzz_npy.c - the .npy reader of `shapec run`. */
#include "fuzz_common.h"
#include "lib/frontend/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_input_file(data, size, ".npy");
  sc_ctx *ctx = sc_ctx_new();
  sc_npy a;
  memset(&a, 0, sizeof a);
  if (sc_npy_read(ctx, path, &a)) sc_npy_free(&a);
  sc_ctx_free(ctx);
  return 0;
}
