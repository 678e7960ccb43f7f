/* input_paths.h - the names torch gives the program's flat inputs in its messages.
 *
 * torch.export flattens the forward arguments (a dict d = {"y": t} becomes the
 * placeholder d_y) and records how in module_call_graph's in_spec, a pytree TreeSpec
 * serialized as JSON.  ep.module() names a leaf by its path from the argument:
 * d['y'].size()[0], xs[1].size()[0].  This reads the paths back.
 *
 * requires: the in_spec text and forward_arg_names of the root module's signature
 * provides: one display name per leaf, in flattening order (the order of the user and
 *           constant inputs of the graph signature) */
#ifndef SC_INPUT_PATHS_H
#define SC_INPUT_PATHS_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/base/context.h"

/* Returns the number of leaves and sets *names (arena strings), or returns 0 when the
 * spec is not one this reads (an unknown container, malformed text). */
size_t sc_input_paths(sc_ctx *ctx, const char *in_spec, const char *const *arg_names, size_t n_args,
                      const char ***names);

#endif
