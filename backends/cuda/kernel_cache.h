/* kernel_cache.h - shapec's device kernels as PTX, kept on disk between exports.
 *
 * The kernels (backends/cuda/device/ with libdevice linked in) give the same PTX for every
 * model of one --cuda-arch, and compiling them is most of a small model's CUDA export
 * (0.5 of 0.7 s).  The PTX is stored under a key that names everything it depends on: this
 * shapec build (its ELF build ID), the LLVM it runs on, the arch, and the bytes of the
 * kernels' bitcode and of libdevice.  A file whose text does not match the digest in its
 * first line is ignored and replaced.
 *
 * Where: $SHAPEC_CACHE_DIR; set but empty turns the cache off; unset, $XDG_CACHE_HOME/shapec,
 * else $HOME/.cache/shapec.  The cache never fails an export: a folder that cannot be
 * created or written only means the kernels are compiled every time. */
#ifndef SC_KERNEL_CACHE_H
#define SC_KERNEL_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/base/context.h"

typedef struct sc_kernel_cache {
  const char *path; /* the entry's file; NULL where the cache is off */
} sc_kernel_cache;

/* The entry for these inputs (arena-allocated path); path NULL where the cache is off or
 * this build has no build ID to name itself by. */
sc_kernel_cache sc_kernel_cache_open(sc_ctx *ctx, const char *arch, const void *bitcode, size_t bitcode_len,
                                     const char *libdevice_path);
/* The cached PTX (heap, NUL-terminated; free it) and its length, or NULL on a miss. */
char *sc_kernel_cache_read(const sc_kernel_cache *cache, size_t *len);
/* Stores the PTX; quietly does nothing where the folder cannot be written. */
void sc_kernel_cache_write(sc_ctx *ctx, const sc_kernel_cache *cache, const char *ptx, size_t len);

#endif
