/* safetensors.h - reads the weights (ir/weights.h) from a safetensors file. */
#ifndef SC_SAFETENSORS_H
#define SC_SAFETENSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/weights.h"
#include "lib/base/context.h"

/* Reads and validates a safetensors file.  Returns NULL with weights-format errors. */
sc_weights *sc_weights_read_file(sc_ctx *ctx, const char *path);
sc_weights *sc_weights_read(sc_ctx *ctx, const char *file, unsigned char *buffer, size_t size);

#endif
