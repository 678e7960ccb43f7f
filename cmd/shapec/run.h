/* run.h - the `shapec run` command. */
#ifndef SC_CMD_RUN_H
#define SC_CMD_RUN_H

#include <stddef.h>

#include "lib/base/context.h"

typedef struct sc_run_options {
  const char *model;
  const char **input_names, **input_files;
  size_t n_inputs;
  const char *outdir;
  int bench;
  const char *record_shapes; /* --record-shapes: append the inputs' shapes to these observations */
  const char *weights;       /* --weights: a safetensors file replacing the library's weights */
  bool cuda;        /* --device cuda[:N] */
  int cuda_device;
} sc_run_options;

/* Returns the exit status; diagnostics are in ctx. */
int sc_cmd_run(sc_ctx *ctx, const sc_run_options *o);

#endif
