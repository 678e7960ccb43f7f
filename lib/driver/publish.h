/* publish.h - an export's output folder replaced as one unit.
 *
 * The output folder is resolved and vetted first (output_folder.h: links followed; the
 * current folder, one holding an input, a mount point are refused).  The report, the
 * library, its header, weights and PTX are then built in a staging folder beside the
 * resolved folder (PARENT/.NAME.staging-PID-XXXXXX), under an exclusive lock on PARENT,
 * and swapped with the output folder in one atomic rename (renameat2 RENAME_EXCHANGE): a
 * reader sees the old set or the new one, never a mix, and two exports into one folder
 * take turns.  Files in the output folder that shapec did not write are carried over,
 * each name recorded first in the staging folder's manifest (.shapec-staging); if one
 * cannot be moved, the ones already moved go back and nothing is published.  shapec
 * deletes only what it wrote: an entry it cannot place is left where it is, with a
 * warning that says where.  A failed export leaves a previous library and its report
 * untouched (its own report goes beside them as constraints.failed.json).  A killed
 * export leaves only its staging folder, which the next export into the same parent
 * tidies up (the user's files in it go back to the output folder). */
#ifndef SC_PUBLISH_H
#define SC_PUBLISH_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/base/context.h"

typedef struct sc_publish {
  const char *named;   /* the output folder as the user named it: what messages show */
  const char *final;   /* the output folder, resolved: where the work happens */
  const char *staged_in; /* where this export writes: the paths it hands out start so */
  const char *staging; /* the staging folder while it is there to tidy; NULL after */
  int lock_fd;         /* the parent folder, locked; -1 when not held */
  const char **written; /* the names this export staged (listed at commit) */
  size_t n_written;
  const char **carried; /* the user's entries now in the staging folder */
  size_t n_carried;
} sc_publish;

/* Resolves and vets outdir (inputs: the files the export reads, NULL entries skipped),
 * locks its parent (waiting for another export there), tidies what killed exports left,
 * and creates the staging folder.  False with an error, nothing touched. */
bool sc_publish_begin(sc_ctx *ctx, const char *outdir, const char *const *inputs, size_t n_inputs, sc_publish *pub);
/* Whether the output folder holds a library from an earlier export. */
bool sc_publish_has_library(const sc_publish *pub);
/* Makes the staged files the output folder's; false with an error (then every file is
 * where it was).  With nothing staged, the output folder is left as it is. */
bool sc_publish_commit(sc_ctx *ctx, sc_publish *pub);
/* A failed export beside a library to keep: the staged report becomes
 * OUTDIR/constraints.failed.json and the rest is dropped. */
void sc_publish_keep_previous(sc_ctx *ctx, sc_publish *pub);
/* Removes what shapec wrote in the staging folder, and the folder when nothing else is
 * left in it, and releases the lock. */
void sc_publish_end(sc_ctx *ctx, sc_publish *pub);

#endif
