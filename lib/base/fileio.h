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
/* A whole file to read: a read-only mapping of a regular file, so that its pages can be
 * given back while it is read (sc_file_view_forget), or a heap copy of anything else.
 * A mapped file that shrinks while mapped would raise SIGBUS; a handler turns that into
 * an error message and exit status 3. */
typedef struct sc_file_view {
  const char *data;          /* not NUL-terminated when mapped */
  size_t len;
  bool mapped;
} sc_file_view;

bool sc_file_view_open(sc_ctx *ctx, const char *path, sc_file_view *out);
/* The text in [start, end) will not be read again soon: the pages wholly before end
 * (from start's page on) leave the process; read again, they come back from the page
 * cache.  Nothing happens for a heap copy. */
void sc_file_view_forget(const sc_file_view *view, size_t start, size_t end);
void sc_file_view_close(sc_file_view *view);

/* Writes data to path atomically.  Returns false with a file-write error recorded; the
 * previous contents of path are then untouched. */
bool sc_file_write_atomic(sc_ctx *ctx, const char *path, const void *data, size_t len);
/* A mkstemp/mkdtemp template "<$TMPDIR or /tmp>/<name>-XXXXXX" in out. */
void sc_temp_template(char *out, size_t n, const char *name);
/* Creates a directory, and the folders above it, if they do not exist (mkdir -p).  false
 * with a file-write error. */
bool sc_dir_ensure(sc_ctx *ctx, const char *path);
bool sc_file_exists(const char *path);

/* The last component of a path ("model.pt2" for "/data/run3/model.pt2"): how a generated
 * file names its sources, so that it does not depend on where they lie. */
const char *sc_path_file_name(const char *path);
/* The folder a path names its last component in ("a/b" for "a/b/c", "." for "c", "/" for
 * "/c"), in the arena. */
char *sc_path_parent(sc_ctx *ctx, const char *path);

#endif
