/* npy.h - NumPy .npy files (format 1.0/2.0/3.0; float32, float64, float16, int64, int32,
 * int16, uint16, int8, uint8, bool; little-endian, C order) for `shapec run`.  NumPy has
 * no bfloat16: a bfloat16 input comes as float32 values (rounded to nearest even, as
 * torch's .to(torch.bfloat16)) or as its bit patterns in a 16-bit integer array (what
 * `t.view(torch.int16).numpy()` gives); a bfloat16 output is written as float32 values,
 * which hold it exactly. */
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
/* An array read for an input of dtype `want`: when want is float16 or bfloat16, a float32
 * array is rounded to it in place and, for bfloat16, 16-bit integers are taken as its
 * bits.  True when the array now has dtype want; false (unchanged) for any other case,
 * which the library then refuses by dtype. */
bool sc_npy_as_half(sc_npy *a, sc_dtype want);
/* A bfloat16 array widened to float32 (exact); false for any other dtype. */
bool sc_npy_widen_bf16(sc_npy *a);

#endif
