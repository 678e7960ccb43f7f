/* json_locate.h - where a JSON path's value starts in a JSON text, as line and column.
 *
 * Diagnostics name JSON paths (dynamic_shapes.w[1], dims.dx); an editor wants line:col.
 * The text is scanned, not parsed into a tree: each member that is not on the path is
 * skipped. */
#ifndef SC_JSON_LOCATE_H
#define SC_JSON_LOCATE_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/base/context.h"

/* Finds `path` (keys joined by '.', array indexes as [i]) in text; sets 1-based line and
 * column (in bytes) of its value.  False when the path is not there or the text is not JSON. */
bool sc_json_locate(const char *text, size_t len, const char *path, int *line, int *col);

/* Gives each diagnostic whose file is a JSON file of at most 16 MB, and that names a JSON
 * path without a line, that path's line and column, and each spec entry to edit its own
 * (the first 100 diagnostics). */
void sc_diags_locate(sc_ctx *ctx);

#endif
