/* npy.h - NumPy .npy files (format 1.0/2.0/3.0; float32, float64, int64, int32, bool;
 * little-endian, C order) for `shapec run`. */
#ifndef SC_NPY_H
#define SC_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/dtype.h"
#include "lib/base/context.h"

typedef struct sc_npy {
  sc_dtype dtype;
  int ndim;
  int64_t shape[16];
  void *data;      /* heap, 64-byte aligned; free with sc_npy_free */
  size_t nbytes;
} sc_npy;

/* Reads a file; false with an error (file-read, or npy-format naming what is wrong). */
bool sc_npy_read(sc_ctx *ctx, const char *path, sc_npy *out);
/* Writes a file atomically. */
bool sc_npy_write(sc_ctx *ctx, const char *path, const sc_npy *a);
void sc_npy_free(sc_npy *a);

#endif
