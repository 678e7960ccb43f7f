/* cli_run.c - `shapec run`: its command line (run.c runs the library). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "lib/base/diag.h"
#include "options.h"
#include "run.h"

const char sc_usage_run[] =
    "usage: shapec run MODEL.so --input NAME=FILE.npy ... [--out DIR] [--bench N]\n"
    "                  [--device cpu|cuda|cuda:N] [--record-shapes OBS] [--weights FILE]\n"
    "\n"
    "Loads a library built by `shapec export`, checks the inputs against its guards, runs it\n"
    "and writes the K-th output the program returns to DIR/output_K.npy (DIR defaults to the\n"
    "current directory); stdout lists the files, stderr each output's node, dtype and shape.\n"
    ".npy files: float32, float64, int64, int32 or bool, C order.\n"
    "\n"
    "options:\n"
    "  -i, --input NAME=FILE.npy  one per model input (NAME=VALUE for an int, float or\n"
    "                          bool input)\n"
    "  --out DIR               where the outputs go\n"
    "  --bench N               also time N runs after a warm-up: median, min, max\n"
    "  --record-shapes OBS     append this call's input shapes (and scalar values) to the\n"
    "                          observations file OBS, or to rank-<RANK>.json in the folder\n"
    "                          OBS (a folder, or a path ending in /; RANK from the launcher),\n"
    "                          before the guards are checked: `shapec spec infer` merges them\n"
    "  --weights FILE          compute with the weights of a safetensors file (the library's\n"
    "                          names, dtypes and shapes; a library exported with\n"
    "                          --external-weights; `shapec inspect` lists them)\n"
    "  --device D              where the tensors live: cpu (default) or cuda[:N], for a\n"
    "                          library exported with --target cuda (inputs are copied to\n"
    "                          GPU N, outputs back; --bench times the runs alone)\n"
    "\n"
    "exit status: 0 success, 1 an input does not fit the model, 2 usage error,\n"
    "             3 a file cannot be read or written, 4 the library failed\n";


enum { OPT_INPUT = 2, OPT_OUT, OPT_DEVICE, OPT_BENCH, OPT_RECORD, OPT_WEIGHTS };

static const sc_option run_options[] = {
    {"input", 'i', true, OPT_INPUT},
    {"out", 0, true, OPT_OUT},
    {"device", 0, true, OPT_DEVICE},
    {"bench", 0, true, OPT_BENCH},
    {"record-shapes", 0, true, OPT_RECORD},
    {"weights", 0, true, OPT_WEIGHTS},
};

enum { MAX_INPUTS = 256 };

/* "cpu", "cuda" or "cuda:N" into o; false for anything else. */
static bool parse_device(const char *v, sc_run_options *o) {
  if (strcmp(v, "cpu") == 0) return true;
  long id = 0;
  if (strncmp(v, "cuda:", 5) == 0) {
    char *end;
    id = strtol(v + 5, &end, 10);
    if (!v[5] || *end || id < 0 || id > 1023) return false;
  } else if (strcmp(v, "cuda") != 0) {
    return false;
  }
  o->cuda = true;
  o->cuda_device = (int)id;
  return true;
}

static int parse_run_args(int argc, char **argv, sc_run_options *o) {
  sc_options p;
  sc_options_begin(&p, "run", sc_usage_run, run_options, sizeof run_options / sizeof *run_options, argc, argv);
  int id, status = -1;
  const char *v;
  while (status < 0 && (id = sc_options_next(&p, &v)) != SC_OPTIONS_END) {
    switch (id) {
    case SC_OPTIONS_STOP: status = sc_options_status(&p); break;
    case SC_OPTIONS_POSITIONAL:
      if (o->model) status = sc_options_error(&p, "more than one library given ('%s')", v);
      o->model = v;
      break;
    case OPT_INPUT: {
      const char *eq = strchr(v, '=');
      if (!eq || eq == v || !eq[1]) {
        status = sc_options_error(&p, "--input takes NAME=FILE.npy (or NAME=VALUE for a scalar), not '%s'", v);
      } else if (o->n_inputs == MAX_INPUTS) {
        status = sc_options_error(&p, "more than 256 --input options ('%s')", v);
      } else {
        o->input_names[o->n_inputs] = strndup(v, (size_t)(eq - v));
        o->input_files[o->n_inputs++] = eq + 1;
      }
      break;
    }
    case OPT_OUT: o->outdir = v; break;
    case OPT_RECORD: o->record_shapes = v; break;
    case OPT_WEIGHTS: o->weights = v; break;
    case OPT_DEVICE:
      if (!parse_device(v, o)) status = sc_options_error(&p, "--device takes cpu, cuda or cuda:N, not '%s'", v);
      break;
    case OPT_BENCH: {
      char *end;
      long n = strtol(v, &end, 10);
      if (*end || n <= 0 || n > 10000000) status = sc_options_error(&p, "--bench takes a positive count, not '%s'", v);
      o->bench = (int)n;
      break;
    }
    }
  }
  if (status < 0 && !o->model) status = sc_options_error(&p, "%s", "no MODEL.so given");
  sc_options_end(&p);
  return status;
}

int sc_main_run(int argc, char **argv) {
  sc_run_options o = {0};
  const char *names[MAX_INPUTS], *files[MAX_INPUTS];
  o.input_names = names;
  o.input_files = files;
  int status = parse_run_args(argc, argv, &o);
  if (status < 0) {
    sc_ctx *ctx = sc_ctx_new();
    status = sc_cmd_run(ctx, &o);
    for (size_t i = 0; i < ctx->diags.n_items; i++) sc_diag_print(stderr, &ctx->diags.items[i]);
    if (status == 0 && ctx->diags.n_errors) status = (int)sc_diags_exit_class(&ctx->diags);
    sc_ctx_free(ctx);
  }
  for (size_t i = 0; i < o.n_inputs; i++) free((void *)names[i]);
  return status;
}
