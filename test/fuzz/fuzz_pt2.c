/* fuzz_pt2.c - the .pt2 archive reader: every layout torch.export.save has written, the
 * program inside and the weights (raw payloads, torch.save pickles, strided views). */
#include "fuzz_common.h"
#include "ir/weights.h"
#include "lib/frontend/pt2_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_input_file(data, size, ".pt2");
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p = NULL;
  sc_weights *w = NULL;
  sc_pt2_read(ctx, path, &p, &w);
  unlink(path); /* fork mode's jobs would each leave one in /dev/shm */
  sc_weights_free(w);
  sc_ctx_free(ctx);
  return 0;
}
