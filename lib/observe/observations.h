/* observations.h - the input shapes (and int, float, bool input values) that processes
 * saw, one file per process, merged in rank order.
 *
 * A file (docs/observations.md):
 *   {"format": "shapec-observations", "version": 1, "rank": 0, "world_size": 4,
 *    "model_sha256": "...", "calls": [{"x": [8, 128], "n": 5}, {"x": [8, 96], "n": 5}]}
 * Only "calls" is required: a tensor input is its list of sizes, a scalar its value.
 * `shapec run --record-shapes`, the Python package and people write them. */
#ifndef SC_OBSERVATIONS_H
#define SC_OBSERVATIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/context.h"

#define SC_OBS_FORMAT "shapec-observations"
#define SC_OBS_VERSION 1
#define SC_OBS_MAX_RANK 64
/* ranks are below this, world sizes at most this (in files, names and the environment) */
#define SC_OBS_MAX_PROCESSES 1000000

typedef enum sc_obs_kind { SC_OBS_TENSOR, SC_OBS_INT, SC_OBS_FLOAT, SC_OBS_BOOL } sc_obs_kind;

/* One input in one call. */
typedef struct sc_obs_value {
  const char *name;
  sc_obs_kind kind;
  int rank;        /* TENSOR */
  int64_t *sizes;  /* TENSOR: rank sizes */
  int64_t i;       /* INT, BOOL (0 or 1) */
  double f;        /* FLOAT */
} sc_obs_value;

typedef struct sc_obs_call {
  sc_obs_value *values;
  size_t n_values;
} sc_obs_call;

typedef struct sc_obs_file {
  const char *path;
  int rank, world_size;     /* -1 where the file does not say */
  const char *model_sha256; /* NULL where the file does not say */
  sc_obs_call *calls;
  size_t n_calls;
} sc_obs_file;

/* What every call of every file says of one input, merged in rank order. */
typedef struct sc_obs_input {
  const char *name;
  sc_obs_kind kind;
  int rank;               /* TENSOR */
  /* per dim (TENSOR) or [0] (a scalar): the first value (rank 0's first call), the least
   * and the most, and whether it ever differs from the first */
  int64_t first[SC_OBS_MAX_RANK], min[SC_OBS_MAX_RANK], max[SC_OBS_MAX_RANK];
  bool varies[SC_OBS_MAX_RANK];
  double first_f;         /* FLOAT */
  const sc_obs_file *first_file; /* where it was first seen, for messages */
} sc_obs_input;

typedef struct sc_obs_set {
  sc_obs_file *files;     /* sorted by rank */
  size_t n_files;
  sc_obs_input *inputs;   /* in the order rank 0 first names them */
  size_t n_inputs;
  size_t n_calls;
  int world_size;         /* -1: not said */
  const char *model_sha256; /* the one the files agree on, or NULL */
} sc_obs_set;

/* Reads one file; false with errors (file, JSON path, line:col) recorded. */
bool sc_obs_read(sc_ctx *ctx, const char *path, sc_obs_file *out);

/* Reads the observations PATHS name, each a file or a folder of rank-<R>.json files (the
 * folder's files must be ranks 0..WORLD_SIZE-1, each once; world_size < 0: from the
 * files, else from the environment's WORLD_SIZE).  wait_s > 0: waits up to that many
 * seconds for missing ranks to appear.  Then sorts the files by rank (a file without one
 * takes its place on the command line) and merges them.  False with errors: an unreadable
 * file, a missing or twice-given rank, files for different models, an input with another
 * kind or rank in another call. */
bool sc_obs_collect(sc_ctx *ctx, const char *const *paths, size_t n_paths, int world_size, int wait_s,
                    sc_obs_set *out);

/* The file name of this process's observations in a folder, from the launcher's
 * environment: rank-<R>.json, R from RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK or
 * PMI_RANK; NULL (with *why set) when none is set. */
const char *sc_obs_rank_file(sc_ctx *ctx, const char *folder, const char **why);

/* Appends one call to the observations at path (a folder, an existing folder, or a path
 * ending in '/': this process's rank file in it), creating the file; under a lock, the
 * file replaced atomically, so processes may share it and a reader never sees half a
 * call.  model_sha256 may be NULL.  Returns the file written, or NULL with an error. */
const char *sc_obs_append(sc_ctx *ctx, const char *path, const char *model_sha256, const sc_obs_call *call);

/* "x.size()[1]" or "n": how messages name an input's dim (dim < 0: the scalar). */
const char *sc_obs_dim_name(sc_ctx *ctx, const char *input, int dim);

#endif
