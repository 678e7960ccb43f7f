/* output_folder.h - where an export may put its output folder, decided before anything
 * is touched.
 *
 * The output folder is replaced as a whole (publish.h), so it must be a folder that holds
 * nothing the export needs or the user stands in: the path is resolved first (links
 * followed, `.` and `..` taken away, as realpath does), then refused when it is the root,
 * the current folder or one above it, a folder holding one of the export's own inputs
 * (model, spec, weights, observations), a mount point, or a folder holding a mount point.
 * Every refusal is an SC0102 error that names the folder and says what to do. */
#ifndef SC_OUTPUT_FOLDER_H
#define SC_OUTPUT_FOLDER_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/base/context.h"

/* The absolute path OUTDIR names, links followed; the folders that do not exist yet are
 * appended as named.  NULL with an error when the path cannot be resolved or is refused.
 * inputs (n_inputs of them, NULL entries skipped) are the files the export reads. */
const char *sc_output_folder_resolve(sc_ctx *ctx, const char *outdir, const char *const *inputs, size_t n_inputs);

/* Whether a mount point lies at or below folder (an absolute, resolved path), as
 * /proc/self/mountinfo lists them; its path in *mount (arena) when one does. */
bool sc_output_folder_holds_mount(sc_ctx *ctx, const char *folder, const char **mount);

#endif
