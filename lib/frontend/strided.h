/* strided.h - a tensor stored as a strided view of a flat storage (a .pt2 payload, a
 * torch.save storage), checked and copied out into contiguous weights. */
#ifndef SC_STRIDED_H
#define SC_STRIDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/weights.h"
#include "lib/base/context.h"

#define SC_STRIDED_MAX_RANK 16
/* the most bytes one tensor, or all of a model's, may unpack to */
#define SC_STRIDED_MAX_BYTES ((uint64_t)1 << 36)

typedef struct sc_strided {
  const char *name;              /* the weight's fully qualified name */
  sc_dtype dtype;
  int rank;
  int64_t sizes[SC_STRIDED_MAX_RANK];
  int64_t strides[SC_STRIDED_MAX_RANK]; /* in elements */
  int64_t offset;                /* storage offset, in elements */
  const unsigned char *storage;  /* the storage's bytes (not owned) */
  size_t storage_len;
} sc_strided;

/* Fills strides for a contiguous (row-major) view of sizes. */
void sc_strided_set_contiguous(sc_strided *s);

/* Checks that the view lies inside its storage: no negative size, stride or offset, no
 * overflow of int64 arithmetic.  Returns false with a reason in why (a static string). */
bool sc_strided_check(const sc_strided *s, const char **why);

/* The weights of n checked views, each copied out contiguously into one heap buffer
 * (w->buffer, released by sc_weights_free).  file names them in diagnostics.  NULL with
 * SC0703 when a view does not fit its storage, or when the buffer would pass ctx->budget
 * (the file being read, when there is one: stride-0 views unpack to more than they store). */
sc_weights *sc_strided_to_weights(sc_ctx *ctx, const char *file, const sc_strided *views, size_t n);

#endif
