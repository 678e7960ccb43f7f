/* safetensors.h - reads weights from a safetensors file and binds them to the program's
 * parameters, buffers and tensor constants by name, checking dtype and shape. */
#ifndef SC_SAFETENSORS_H
#define SC_SAFETENSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../ir/graph.h"
#include "context.h"

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
} sc_weights;

/* Reads and validates a safetensors file.  Returns NULL with weights-format errors. */
sc_weights *sc_weights_read_file(sc_ctx *ctx, const char *path);
sc_weights *sc_weights_read(sc_ctx *ctx, const char *file, unsigned char *buffer, size_t size);
void sc_weights_free(sc_weights *w);
const sc_weight *sc_weights_find(const sc_weights *w, const char *name);
/* Checks that every parameter, buffer and tensor constant has a weight of the right
 * dtype and shape.  A missing weight is an error when `required`, else a warning. */
bool sc_weights_bind(sc_ctx *ctx, const sc_weights *w, const sc_program *p, bool required);

#endif
