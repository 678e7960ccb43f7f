/* main.c - the shapec command line: parses arguments, runs the driver, prints
 * diagnostics and chooses the exit status.  Nothing else happens here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cpu_backend.h"
#include "lib/driver.h"
#include "run.h"

static const char *const usage_main =
    "usage: shapec <command> [options]\n"
    "       shapec --help | --version\n"
    "\n"
    "Ahead-of-time compiler for torch.export programs with dynamic shapes.\n"
    "\n"
    "commands:\n"
    "  export MODEL [--dynamic SPEC] ...   analyse a serialized ExportedProgram (.json or\n"
    "                                      .pt2) against a dynamic_shapes spec, write the\n"
    "                                      report and build OUTDIR/model.so\n"
    "  run MODEL.so --input NAME=FILE.npy   run a built library on .npy inputs\n"
    "\n"
    "Run 'shapec export --help' for the options of a command.\n"
    "\n"
    "exit status:\n"
    "  0  success\n"
    "  1  the model or spec is rejected (user error, constraint violation)\n"
    "  2  usage error (bad command line)\n"
    "  3  a file cannot be read or written\n"
    "  4  internal or backend failure\n";

static const char *const usage_export =
    "usage: shapec export MODEL [--dynamic SPEC] [--weights FILE] [-o OUTDIR]\n"
    "                           [--report FILE] [--fix-spec FILE] [--no-codegen]\n"
    "                           [--cpu NAME] [--emit-llvm]\n"
    "                           [--external-weights] [-q]\n"
    "\n"
    "Reads MODEL, the JSON torch.export writes for an ExportedProgram (schema 8.x), runs\n"
    "torch.export's dynamic-shape analysis against SPEC and prints the program with its\n"
    "symbolic shapes and range constraints.  Writes the machine-readable report to\n"
    "OUTDIR/constraints.json, also when the spec is violated (with suggested fixes).\n"
    "\n"
    "options:\n"
    "  --dynamic SPEC   dynamic_shapes spec as torch serializes it:\n"
    "                   {\"dynamic_shapes\": ..., \"dims\": {\"dx\": {\"min\": 4, \"max\": 256}}}\n"
    "                   (without it the export is fully static)\n"
    "  --weights FILE   safetensors file with the parameters, buffers and constants\n"
    "                   (default: MODEL with the .safetensors extension, if present)\n"
    "  -o, --output OUTDIR   output directory (default: shapec-out)\n"
    "  --report FILE    write the report here instead of OUTDIR/constraints.json\n"
    "  --fix-spec FILE  write SPEC with every suggested fix applied\n"
    "  --no-codegen     stop after the analysis; write only the report (no weights needed)\n"
    "  --cpu NAME       build for this CPU instead of the host's: x86-64, x86-64-v2/v3/v4,\n"
    "                   haswell, skylake, skylake-avx512, icelake-server, sapphirerapids,\n"
    "                   znver2/3/4; the library refuses to run on a CPU without its features\n"
    "  --emit-llvm      also write OUTDIR/model.ll, the generated LLVM IR\n"
    "  --external-weights  keep the weights in OUTDIR/model.weights (mapped by the library\n"
    "                   on its first run) instead of inside model.so, for very large models\n"
    "  -q, --quiet      do not print the program\n"
    "  -h, --help       show this help\n"
    "\n"
    "exit status: 0 success, 1 model or spec rejected, 2 usage error,\n"
    "             3 file cannot be read or written, 4 internal failure\n";

static int usage_error(const char *fmt, const char *arg, const char *usage) {
  fprintf(stderr, "shapec: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n\n%s", usage);
  return SC_EXIT_USAGE;
}

static int print_diags_and_status(const sc_ctx *ctx) {
  for (size_t i = 0; i < ctx->diags.n_items; i++) sc_diag_print(stderr, &ctx->diags.items[i]);
  sc_exit_class status = sc_diags_exit_class(&ctx->diags);
  return (int)status;
}

/* Takes the value of an option given as `--opt VALUE` or `--opt=VALUE`. */
static const char *option_value(int argc, char **argv, int *i, const char *name, const char **err) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (a[n] == '=') return a + n + 1;
  if (*i + 1 >= argc) {
    *err = name;
    return NULL;
  }
  return argv[++*i];
}

static bool is_option(const char *a, const char *name) {
  size_t n = strlen(name);
  return strncmp(a, name, n) == 0 && (a[n] == '\0' || (a[n] == '=' && name[1] == '-'));
}

static int cmd_export(int argc, char **argv) {
  sc_export_options opts = {0};
  bool quiet = false;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const char *missing = NULL;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(usage_export, stdout);
      return 0;
    } else if (is_option(a, "--dynamic")) {
      opts.spec = option_value(argc, argv, &i, "--dynamic", &missing);
    } else if (is_option(a, "--weights")) {
      opts.weights = option_value(argc, argv, &i, "--weights", &missing);
    } else if (is_option(a, "--output")) {
      opts.outdir = option_value(argc, argv, &i, "--output", &missing);
    } else if (strcmp(a, "-o") == 0) {
      opts.outdir = option_value(argc, argv, &i, "-o", &missing);
    } else if (is_option(a, "--report")) {
      opts.report = option_value(argc, argv, &i, "--report", &missing);
    } else if (is_option(a, "--fix-spec")) {
      opts.fix_spec = option_value(argc, argv, &i, "--fix-spec", &missing);
    } else if (is_option(a, "--cpu")) {
      opts.cpu = option_value(argc, argv, &i, "--cpu", &missing);
    } else if (strcmp(a, "--emit-llvm") == 0) {
      opts.emit_llvm = true;
    } else if (strcmp(a, "--external-weights") == 0) {
      opts.external_weights = true;
    } else if (strcmp(a, "--no-codegen") == 0) {
      opts.no_codegen = true;
    } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
      quiet = true;
    } else if (a[0] == '-' && a[1] != '\0') {
      return usage_error("export: unknown option '%s'", a, usage_export);
    } else if (opts.model) {
      return usage_error("export: more than one MODEL given ('%s')", a, usage_export);
    } else {
      opts.model = a;
    }
    if (missing) return usage_error("export: option %s needs a value", missing, usage_export);
    if ((opts.spec && !*opts.spec) || (opts.outdir && !*opts.outdir) || (opts.report && !*opts.report) ||
        (opts.weights && !*opts.weights) || (opts.fix_spec && !*opts.fix_spec) || (opts.cpu && !*opts.cpu))
      return usage_error("export: option '%s' needs a non-empty value", a, usage_export);
  }
  if (!opts.model) return usage_error("export: %s", "no MODEL given", usage_export);
  if (opts.cpu && !sc_cpu_is_known(opts.cpu)) {
    fprintf(stderr, "shapec: export: --cpu %s: not a CPU shapec knows; use one of: %s\n", opts.cpu, sc_cpu_known_names());
    return 2;
  }

  sc_ctx *ctx = sc_ctx_new();
  sc_export_result res;
  bool ok = sc_driver_export(ctx, &opts, &res);
  if (ok && !quiet) {
    sc_strbuf sb = {0};
    sc_program_print(&sb, res.program);
    if (res.analysed) sc_analysis_print(&sb, &res.analysis);
    fputs(sc_strbuf_cstr(&sb), stdout);
    sc_strbuf_free(&sb);
  }
  int status = print_diags_and_status(ctx);
  if (res.fixed_spec_path) fprintf(stderr, "shapec: wrote the corrected spec to %s\n", res.fixed_spec_path);
  if (!ok && res.report_path) fprintf(stderr, "shapec: wrote %s (status: error)\n", res.report_path);
  if (ok) {
    fprintf(stderr, "shapec: wrote %s\n", res.report_path);
    if (res.library_path) fprintf(stderr, "shapec: wrote %s\n", res.library_path);
    if (res.library_path && opts.external_weights)
      fprintf(stderr, "shapec: wrote %s/model.weights (keep it beside model.so)\n",
              opts.outdir ? opts.outdir : "shapec-out");
    status = 0;
  } else if (status == 0) {
    status = SC_EXIT_INTERNAL; /* a failure must always have an error recorded */
    fprintf(stderr, "shapec: internal error: export failed without a diagnostic\n");
  }
  sc_export_result_free(&res);
  sc_ctx_free(ctx);
  return status;
}

static const char *const usage_run =
    "usage: shapec run MODEL.so --input NAME=FILE.npy ... [--out DIR] [--bench N]\n"
    "\n"
    "Loads a library built by `shapec export`, checks the inputs against its guards, runs it\n"
    "and writes each output to DIR/<output name>.npy (DIR defaults to the current directory).\n"
    ".npy files: float32, float64, int64, int32 or bool, C order.\n"
    "\n"
    "options:\n"
    "  --input NAME=FILE.npy   one per model input\n"
    "  --out DIR               where the outputs go\n"
    "  --bench N               also time N runs after a warm-up: median, min, max\n"
    "\n"
    "exit status: 0 success, 1 an input does not fit the model, 2 usage error,\n"
    "             3 a file cannot be read or written, 4 the library failed\n";

static int cmd_run(int argc, char **argv) {
  sc_run_options o = {0};
  const char *names[256], *files[256];
  o.input_names = names;
  o.input_files = files;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *missing = NULL, *v;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(usage_run, stdout);
      return 0;
    } else if (is_option(a, "--input")) {
      v = option_value(argc, argv, &i, "--input", &missing);
      const char *eq = v ? strchr(v, '=') : NULL;
      if (!missing && (!eq || eq == v || !eq[1])) return usage_error("run: --input takes NAME=FILE.npy, not '%s'", v, usage_run);
      if (!missing && o.n_inputs < 256) {
        names[o.n_inputs] = strndup(v, (size_t)(eq - v));
        files[o.n_inputs++] = eq + 1;
      }
    } else if (is_option(a, "--out")) {
      o.outdir = option_value(argc, argv, &i, "--out", &missing);
    } else if (is_option(a, "--bench")) {
      v = option_value(argc, argv, &i, "--bench", &missing);
      char *end;
      long n = v ? strtol(v, &end, 10) : 0;
      if (!missing && (*end || n <= 0 || n > 10000000)) return usage_error("run: --bench takes a positive count, not '%s'", v, usage_run);
      o.bench = (int)n;
    } else if (a[0] == '-' && a[1] != '\0') {
      return usage_error("run: unknown option '%s'", a, usage_run);
    } else if (o.model) {
      return usage_error("run: more than one library given ('%s')", a, usage_run);
    } else {
      o.model = a;
    }
    if (missing) return usage_error("run: option %s needs a value", missing, usage_run);
  }
  if (!o.model) return usage_error("run: %s", "no MODEL.so given", usage_run);
  sc_ctx *ctx = sc_ctx_new();
  int status = sc_cmd_run(ctx, &o);
  for (size_t i = 0; i < ctx->diags.n_items; i++) sc_diag_print(stderr, &ctx->diags.items[i]);
  if (status == 0 && ctx->diags.n_errors) status = (int)sc_diags_exit_class(&ctx->diags);
  for (size_t i = 0; i < o.n_inputs; i++) free((void *)names[i]);
  sc_ctx_free(ctx);
  return status;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage_error("%s", "no command given", usage_main);
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    fputs(usage_main, stdout);
    return 0;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("shapec %s\n", SHAPEC_VERSION);
    return 0;
  }
  if (strcmp(cmd, "export") == 0) return cmd_export(argc - 2, argv + 2);
  if (strcmp(cmd, "run") == 0) return cmd_run(argc - 2, argv + 2);
  return usage_error("unknown command '%s'", cmd, usage_main);
}
