/* weights.h - the tensors a program's parameters, buffers and tensor constants hold.
 *
 * Filled by a frontend (lib/frontend/safetensors.c, lib/frontend/pt2_reader.c), checked
 * against the program here, and read by the backends, which embed them in the library. */
#ifndef SC_WEIGHTS_H
#define SC_WEIGHTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"
#include "lib/base/context.h"
#include "lib/base/strmap.h"

typedef struct sc_weight {
  const char *name;
  sc_dtype dtype;
  int rank;
  int64_t *shape;
  const unsigned char *data; /* points into the file buffer */
  size_t nbytes;
} sc_weight;

typedef struct sc_weights {
  const char *file;
  unsigned char *buffer;     /* the whole file (heap; sc_weights_free releases it) */
  size_t size;
  sc_weight *items;
  size_t n_items;
  sc_strmap by_name;         /* name -> item, once sc_weights_index ran (else a linear search) */
} sc_weights;

/* Releases the file buffer; the items (in the arena) stay. */
void sc_weights_free(sc_weights *w);
/* Indexes the items by name, so that finding each of a large model's thousands of weights
 * costs the same; the readers call it once they have filled the items. */
void sc_weights_index(sc_weights *w, sc_arena *arena);
/* The weight named `name`, or NULL (also when w is NULL); the first one of that name. */
const sc_weight *sc_weights_find(const sc_weights *w, const char *name);
/* Checks that every parameter, buffer and tensor constant has a weight of the right
 * dtype and shape.  A missing weight is an error when `required`, else a warning. */
bool sc_weights_bind(sc_ctx *ctx, const sc_weights *w, const sc_program *p, bool required);

#endif
