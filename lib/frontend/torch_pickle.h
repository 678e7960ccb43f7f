/* torch_pickle.h - the tensors of a torch.save file (the zip with <name>/data.pkl and
 * <name>/data/<key> storages), as torch.export's archives hold their weights:
 * serialized_state_dict.pt (torch 2.1-2.7), data/weights/model.pt (2.8), a pickled
 * payload (2.9 and later).
 *
 * data.pkl is read by a small pickle machine that understands the tensor-rebuild
 * protocol and nothing else: it never executes or imports anything, and refuses every
 * global but collections.OrderedDict, torch's typed storages and torch._utils'
 * _rebuild_tensor_v2 / _rebuild_parameter(_with_state), by name (SC0704). */
#ifndef SC_TORCH_PICKLE_H
#define SC_TORCH_PICKLE_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/base/context.h"
#include "strided.h"

typedef struct sc_torch_tensors {
  sc_strided *views;         /* heap, cap of them allocated */
  size_t n, cap;
  unsigned char **storages;  /* heap: the storages the views point into */
  size_t n_storages;
} sc_torch_tensors;

/* Reads the torch.save file in (data, len), named `display` in diagnostics, and appends
 * its tensors to out: the entries of its top-level dict, or its one tensor, named
 * lone_name.  A name the dict gives twice keeps its last tensor, as in Python.  What it
 * inflates and builds is charged to ctx->budget, or, when that is NULL, to a budget of its
 * own for a file of len bytes (lib/base/budget.h).  Returns false with SC0704 (the
 * pickle), SC0701 (the zip) or SC0703 (past the budget) errors. */
bool sc_torch_save_read(sc_ctx *ctx, const char *display, const unsigned char *data, size_t len, const char *lone_name,
                        sc_torch_tensors *out);
void sc_torch_tensors_free(sc_torch_tensors *t);

#endif
