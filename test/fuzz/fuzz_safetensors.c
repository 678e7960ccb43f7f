/* fuzz_safetensors.c - the safetensors reader (the weights own the buffer when it reads). */
#include "fuzz_common.h"
#include "ir/weights.h"
#include "lib/frontend/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sc_ctx *ctx = sc_ctx_new();
  unsigned char *copy = malloc(size ? size : 1);
  if (!copy) abort();
  memcpy(copy, data, size);
  sc_weights *w = sc_weights_read(ctx, "fuzz.safetensors", copy, size);
  if (w) sc_weights_free(w);
  else free(copy);
  sc_ctx_free(ctx);
  return 0;
}
