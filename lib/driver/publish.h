/* publish.h - an export's output folder replaced as one unit.
 *
 * The report, the library, its header, weights and PTX are built in a staging folder
 * beside the output folder (PARENT/.NAME.staging-PID-XXXXXX), under an exclusive lock on
 * PARENT, and then swapped with the output folder in one atomic rename (renameat2
 * RENAME_EXCHANGE): a reader sees the old set or the new one, never a mix, and two exports
 * into one folder take turns.  Files in the output folder that shapec did not write are
 * carried over.  A failed export leaves a previous library and its report untouched (its
 * own report goes beside them as constraints.failed.json).  A killed export leaves only
 * its staging folder, which the next export into the same parent removes. */
#ifndef SC_PUBLISH_H
#define SC_PUBLISH_H

#include <stdbool.h>

#include "lib/base/context.h"

typedef struct sc_publish {
  const char *final;   /* the output folder */
  const char *staging; /* where this export writes */
  int lock_fd;         /* the parent folder, locked; -1 when not held */
} sc_publish;

/* Locks the parent of outdir (waiting for another export there), removes what killed
 * exports left, and creates the staging folder.  False with an error. */
bool sc_publish_begin(sc_ctx *ctx, const char *outdir, sc_publish *pub);
/* Whether the output folder holds a library from an earlier export. */
bool sc_publish_has_library(const sc_publish *pub);
/* Makes the staged files the output folder's; false with an error (then nothing moved). */
bool sc_publish_commit(sc_ctx *ctx, sc_publish *pub);
/* A failed export beside a library to keep: the staged report becomes
 * OUTDIR/constraints.failed.json and the rest is dropped. */
void sc_publish_keep_previous(sc_ctx *ctx, sc_publish *pub);
/* Removes the staging folder and releases the lock (after commit, it only unlocks). */
void sc_publish_end(sc_publish *pub);

#endif
