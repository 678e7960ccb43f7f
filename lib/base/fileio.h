/* fileio.h - whole-file reads and atomic writes (temporary name, fsync, rename), so an
 * interrupted run never leaves a half-written output or loses the previous one. */
#ifndef SC_FILEIO_H
#define SC_FILEIO_H

#include <stdbool.h>
#include <stddef.h>

#include "context.h"

/* Reads the whole file into a heap buffer (NUL-terminated; free it).  Returns NULL with
 * a file-read error recorded. */
char *sc_file_read(sc_ctx *ctx, const char *path, size_t *len);
/* Writes data to path atomically.  Returns false with a file-write error recorded; the
 * previous contents of path are then untouched. */
bool sc_file_write_atomic(sc_ctx *ctx, const char *path, const void *data, size_t len);
/* A mkstemp/mkdtemp template "<$TMPDIR or /tmp>/<name>-XXXXXX" in out. */
void sc_temp_template(char *out, size_t n, const char *name);
/* Creates a directory if it does not exist (one level).  false with a file-write error. */
bool sc_dir_ensure(sc_ctx *ctx, const char *path);
bool sc_file_exists(const char *path);

#endif
