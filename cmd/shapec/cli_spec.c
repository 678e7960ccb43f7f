/* cli_spec.c - `shapec spec infer`: one dynamic_shapes spec from the shapes that many
 * processes observed (lib/observe does the work). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "diag_format.h"
#include "lib/base/fileio.h"
#include "lib/observe/spec_infer.h"
#include "lib/report/report.h"
#include "options.h"

const char sc_usage_spec[] =
    "usage: shapec spec infer OBS... [--model MODEL] [-o SPEC] [--ranges] [--wait SECONDS]\n"
    "                        [--world-size N] [--prefer-deferred-runtime-asserts] [-q]\n"
    "                        [--diagnostics-format text|json|sarif]\n"
    "\n"
    "Merges the observations of every process in rank order, as torch's compiler\n"
    "collectives do for automatic dynamic shapes, and writes one dynamic_shapes spec: a dim\n"
    "that takes more than one value in any call of any rank is dynamic (AUTO), a dim that\n"
    "never changes stays static.  Every rank that merges the same files writes the same\n"
    "spec, byte for byte.  OBS is an observations file or a folder of rank-<R>.json files\n"
    "(written by `shapec run --record-shapes`, the Python package, or by hand; see\n"
    "docs/observations.md).\n"
    "\n"
    "options:\n"
    "  --model MODEL    the program the spec is for: dims it relates share one Dim, the\n"
    "                   observations must name its inputs (and its SHA-256 when they carry\n"
    "                   one), and every observed call is checked against the export the spec\n"
    "                   gives (a call the library would refuse is an error)\n"
    "  -o, --output SPEC  write the spec here (atomically) instead of to stdout\n"
    "  --ranges         named Dims with the observed [min, max] instead of AUTO\n"
    "  --wait SECONDS   wait up to SECONDS for every rank's file to appear in a folder\n"
    "  --world-size N   how many ranks a folder must hold (default: the files' world_size,\n"
    "                   else WORLD_SIZE from the environment, else ranks 0..the highest)\n"
    "  --prefer-deferred-runtime-asserts\n"
    "                   analyse as `shapec export --prefer-deferred-runtime-asserts` will\n"
    "  -q, --quiet      do not print what was decided for each dim (stderr)\n"
    "  --diagnostics-format text|json|sarif\n"
    "                   how errors go to stderr (as for export)\n"
    "\n"
    "exit status: 0 written, 1 observations missing, conflicting or contradicting the\n"
    "             program, 2 usage error, 3 a file cannot be read or written\n";

enum { OPT_MODEL = 2, OPT_OUTPUT, OPT_RANGES, OPT_WAIT, OPT_WORLD_SIZE, OPT_DEFERRED, OPT_QUIET, OPT_DIAGS_FORMAT };

static const sc_option spec_options[] = {
    {"model", 0, true, OPT_MODEL},
    {"output", 'o', true, OPT_OUTPUT},
    {"ranges", 0, false, OPT_RANGES},
    {"wait", 0, true, OPT_WAIT},
    {"world-size", 0, true, OPT_WORLD_SIZE},
    {"prefer-deferred-runtime-asserts", 0, false, OPT_DEFERRED},
    {"quiet", 'q', false, OPT_QUIET},
    {"diagnostics-format", 0, true, OPT_DIAGS_FORMAT},
};

/* A count within [lo, hi], or -1. */
static int parse_count(const char *v, int lo, int hi) {
  char *end;
  long n = strtol(v, &end, 10);
  return *end || n < lo || n > hi ? -1 : (int)n;
}

int sc_main_spec(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "infer") != 0) {
    if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
      fputs(sc_usage_spec, stdout);
      return 0;
    }
    fprintf(stderr, "shapec: spec: %s\n\n%s", argc < 2 ? "give a subcommand: infer" : "the only subcommand is 'infer'",
            sc_usage_spec);
    return SC_EXIT_USAGE;
  }
  const char **obs = calloc((size_t)argc, sizeof *obs);
  size_t n_obs = 0;
  const char *output = NULL;
  sc_infer_options io = {0};
  int wait_s = 0, world_size = -1;
  bool quiet = false;
  sc_options p;
  sc_options_begin(&p, "spec infer", sc_usage_spec, spec_options, sizeof spec_options / sizeof *spec_options, argc - 1,
                   argv + 1);
  int id, status = -1;
  const char *v;
  while (status < 0 && (id = sc_options_next(&p, &v)) != SC_OPTIONS_END) {
    switch (id) {
    case SC_OPTIONS_STOP: status = sc_options_status(&p); break;
    case SC_OPTIONS_POSITIONAL: obs[n_obs++] = v; break;
    case OPT_MODEL: io.model = v; break;
    case OPT_OUTPUT: output = v; break;
    case OPT_RANGES: io.ranges = true; break;
    case OPT_WAIT:
      if ((wait_s = parse_count(v, 0, 86400)) < 0) status = sc_options_error(&p, "--wait takes seconds (0 to 86400), not '%s'", v);
      break;
    case OPT_WORLD_SIZE:
      if ((world_size = parse_count(v, 1, 1000000)) < 0)
        status = sc_options_error(&p, "--world-size takes a process count from 1, not '%s'", v);
      break;
    case OPT_DEFERRED: io.prefer_deferred_asserts = true; break;
    case OPT_QUIET: quiet = true; break;
    case OPT_DIAGS_FORMAT: status = sc_options_diags_format(&p, v); break;
    }
  }
  if (status < 0 && n_obs == 0) status = sc_options_error(&p, "%s", "no observations given (files or a folder)");
  sc_options_end(&p);
  if (status >= 0) {
    free(obs);
    return status;
  }

  sc_ctx *ctx = sc_ctx_new();
  sc_obs_set set;
  sc_strbuf summary = {0};
  cJSON *spec = NULL;
  if (sc_obs_collect(ctx, obs, n_obs, world_size, wait_s, &set)) spec = sc_spec_infer(ctx, &set, &io, &summary);
  if (spec) {
    char *text = sc_json_render(spec);
    if (output) {
      if (sc_file_write_atomic(ctx, output, text, strlen(text)) && !quiet && sc_diags_as_text())
        fprintf(stderr, "shapec: wrote %s\n", output);
    } else {
      fputs(text, stdout);
    }
    free(text);
    cJSON_Delete(spec);
  }
  if (!quiet && sc_diags_as_text() && summary.len) fputs(sc_strbuf_cstr(&summary), stderr);
  status = sc_print_diags(ctx);
  sc_strbuf_free(&summary);
  sc_ctx_free(ctx);
  free(obs);
  return status;
}
