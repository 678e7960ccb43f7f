/* safetensors.h - the tensor index of a safetensors file in memory (safetensors.c), read by
 * a model library that replaces its weights at load (weights.c). */
#ifndef SC_RT_SAFETENSORS_H
#define SC_RT_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

enum { SC_ST_MAX_DIMS = 16 };

typedef struct sc_st_tensor {
  char name[512];
  char dtype[16];               /* "F32", "BF16", "F16", "I64", ... as the file names it */
  int ndim;
  int64_t shape[SC_ST_MAX_DIMS];
  uint64_t begin, end;          /* data_offsets, past the header */
  const unsigned char *data;    /* the first byte, in the caller's buffer */
} sc_st_tensor;

typedef struct sc_st_file {
  sc_st_tensor *tensors;        /* sorted by name */
  int n;
} sc_st_file;

/* Indexes `size` bytes of a safetensors file (every tensor's bytes within the file).
 * SHAPEC_OK, or SHAPEC_ERR_WEIGHTS with a message in err. */
int sc_st_index(const unsigned char *file, uint64_t size, sc_st_file *out, char *err, size_t errlen);
/* The tensor named `name`, or NULL. */
const sc_st_tensor *sc_st_find(const sc_st_file *f, const char *name);
void sc_st_free(sc_st_file *f);

#endif
