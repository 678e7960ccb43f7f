/* fuzz_pickle.c - the torch.save reader: the zip, then data.pkl through the pickle machine
 * that only rebuilds tensors. */
#include "fuzz_common.h"
#include "lib/frontend/torch_pickle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sc_ctx *ctx = sc_ctx_new();
  sc_torch_tensors t;
  memset(&t, 0, sizeof t);
  sc_torch_save_read(ctx, "fuzz.pt", data, size, "tensor", &t);
  sc_torch_tensors_free(&t);
  sc_ctx_free(ctx);
  return 0;
}
