/* main.c - the shapec command line: parses arguments, runs the driver, prints
 * diagnostics and chooses the exit status.  Nothing else happens here. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "backends/library.h"
#include "check.h"
#include "inspect.h"
#include "lib/base/fileio.h"
#include "lib/driver/driver.h"
#include "run.h"

static const char *const usage_main =
    "usage: shapec <command> [options]\n"
    "       shapec help [COMMAND] | --help | --version\n"
    "\n"
    "Ahead-of-time compiler for torch.export programs with dynamic shapes.\n"
    "\n"
    "commands:\n"
    "  export MODEL [--dynamic SPEC] ...   analyse a serialized ExportedProgram (.json or\n"
    "                                      .pt2) against a dynamic_shapes spec, write the\n"
    "                                      report and build OUTDIR/model.so\n"
    "  run MODEL.so --input NAME=FILE.npy   run a built library on .npy inputs\n"
    "  check MODEL --baseline FILE ...     compare the range constraints with a committed\n"
    "                                      report (CI); JUnit output; --manifest for many\n"
    "  explain MODEL [--dynamic SPEC]      why each input dim has its range or value\n"
    "  inspect MODEL.so [--json]           what a built library expects: inputs, ranges,\n"
    "                                      guards, targets, how it was built\n"
    "\n"
    "Run 'shapec help COMMAND' (or 'shapec COMMAND --help') for the options of a command.\n"
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
    "                           [--prefer-deferred-runtime-asserts]\n"
    "                           [--target cpu|cuda|cpu,cuda] [--cuda-arch SM] [--cuda-emulate]\n"
    "                           [--cpu NAME] [--emit-llvm]\n"
    "                           [--external-weights] [--explain] [-q] [-v]\n"
    "                           [--diagnostics-format text|json|sarif] [--name NAME]\n"
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
    "  --prefer-deferred-runtime-asserts\n"
    "                   as torch.export's prefer_deferred_runtime_asserts_over_guards: a guard\n"
    "                   on a Dim that the spec cannot state (dx % 2 == 0, dx != 3) is checked\n"
    "                   by the library on each call instead of being a violation\n"
    "  --target LIST    cpu (default), cuda, or cpu,cuda: the tensors the library computes\n"
    "                   on.  cuda builds PTX kernels (through LLVM's NVPTX target, with\n"
    "                   libdevice from the CUDA toolkit) and a launcher that loads the\n"
    "                   CUDA driver at run time; cpu,cuda puts both in one library, which\n"
    "                   picks by the tensors' device.  Also writes OUTDIR/model.ptx and\n"
    "                   OUTDIR/model_kernels.ptx (embedded in the library too)\n"
    "  --cuda-arch SM   the GPU the PTX targets: sm_75, sm_80 (default), sm_86, sm_87,\n"
    "                   sm_89, sm_90, sm_90a; newer GPUs run it through the driver's JIT\n"
    "  --cuda-emulate   build the CUDA code for this CPU instead of PTX, run by an emulated\n"
    "                   driver one kernel thread after another: CUDA tensors are host\n"
    "                   memory.  For testing the CUDA path without a GPU (slow)\n"
    "  --cpu NAME       build for this CPU instead of the host's: x86-64, x86-64-v2/v3/v4,\n"
    "                   haswell, skylake, skylake-avx512, icelake-server, sapphirerapids,\n"
    "                   znver2/3/4; the library refuses to run on a CPU without its features\n"
    "  --emit-llvm      also write OUTDIR/model.ll, the generated LLVM IR\n"
    "  --external-weights  keep the weights in OUTDIR/model.weights (mapped by the library\n"
    "                   on its first run) instead of inside model.so, for very large models\n"
    "  --explain        on a constraint violation, also explain the dims involved: the\n"
    "                   guards behind each (as `shapec explain` does)\n"
    "  -q, --quiet      do not print the program\n"
    "  --diagnostics-format text|json|sarif\n"
    "                   how errors and warnings go to stderr: text (the default), one JSON\n"
    "                   document, or SARIF 2.1.0 for CI annotations; each names its code,\n"
    "                   file, JSON path and line:col, and a violation the spec entries to edit\n"
    "  --name NAME      the library's functions are shapec_NAME_* (model.h declares them)\n"
    "                   and its SONAME is NAME.so (OUTDIR/NAME.so links to model.so), so\n"
    "                   that several models live in one process or one executable\n"
    "  -v, --verbose    print each phase's wall-clock time on stderr as it ends (reading,\n"
    "                   analysis, weights, lowering, LLVM optimization and code generation,\n"
    "                   link), which also shows a long export's progress\n"
    "  -h, --help       show this help\n"
    "\n"
    "exit status: 0 success, 1 model or spec rejected, 2 usage error,\n"
    "             3 file cannot be read or written, 4 internal failure\n";

/* "cpu", "cuda" or "cpu,cuda" (either order). */
static bool parse_targets(const char *list, sc_export_options *opts) {
  char buf[64];
  if (strlen(list) >= sizeof buf) return false;
  strcpy(buf, list);
  opts->target_cpu = opts->target_cuda = false;
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (strcmp(t, "cpu") == 0) opts->target_cpu = true;
    else if (strcmp(t, "cuda") == 0) opts->target_cuda = true;
    else return false;
  }
  return opts->target_cpu || opts->target_cuda;
}

static int cmd_export(int argc, char **argv) {
  sc_export_options opts = {0};
  bool quiet = false, explain = false, verbose = false;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const char *missing = NULL;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(usage_export, stdout);
      return 0;
    } else if (sc_is_option(a, "--dynamic")) {
      opts.spec = sc_option_value(argc, argv, &i, "--dynamic", &missing);
    } else if (sc_is_option(a, "--weights")) {
      opts.weights = sc_option_value(argc, argv, &i, "--weights", &missing);
    } else if (sc_is_option(a, "--output")) {
      opts.outdir = sc_option_value(argc, argv, &i, "--output", &missing);
    } else if (strcmp(a, "-o") == 0) {
      opts.outdir = sc_option_value(argc, argv, &i, "-o", &missing);
    } else if (sc_is_option(a, "--report")) {
      opts.report = sc_option_value(argc, argv, &i, "--report", &missing);
    } else if (sc_is_option(a, "--fix-spec")) {
      opts.fix_spec = sc_option_value(argc, argv, &i, "--fix-spec", &missing);
    } else if (sc_is_option(a, "--cpu")) {
      opts.cpu = sc_option_value(argc, argv, &i, "--cpu", &missing);
    } else if (sc_is_option(a, "--target")) {
      const char *t = sc_option_value(argc, argv, &i, "--target", &missing);
      if (t && !parse_targets(t, &opts))
        return sc_usage_error("export: --target %s: give cpu, cuda or cpu,cuda", t, usage_export);
    } else if (sc_is_option(a, "--name")) {
      opts.name = sc_option_value(argc, argv, &i, "--name", &missing);
      const char *n = opts.name;
      bool ident = n && (isalpha((unsigned char)*n) || *n == '_');
      for (const char *c = n; ident && *c; c++) ident = isalnum((unsigned char)*c) || *c == '_';
      if (n && (!ident || strcmp(n, "model") == 0))
        return sc_usage_error("export: --name %s: give a C identifier other than 'model' (letters, digits, _)", n,
                              usage_export);
    } else if (sc_is_option(a, "--cuda-arch")) {
      opts.cuda_arch = sc_option_value(argc, argv, &i, "--cuda-arch", &missing);
    } else if (strcmp(a, "--cuda-emulate") == 0) {
      opts.cuda_emulate = true;
    } else if (strcmp(a, "--emit-llvm") == 0) {
      opts.emit_llvm = true;
    } else if (strcmp(a, "--external-weights") == 0) {
      opts.external_weights = true;
    } else if (strcmp(a, "--explain") == 0) {
      explain = true;
    } else if (strcmp(a, "--no-codegen") == 0) {
      opts.no_codegen = true;
    } else if (strcmp(a, "--prefer-deferred-runtime-asserts") == 0) {
      opts.prefer_deferred_asserts = true;
    } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
      quiet = true;
    } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
      verbose = true;
    } else if (sc_is_option(a, "--diagnostics-format")) {
      const char *f = sc_option_value(argc, argv, &i, "--diagnostics-format", &missing);
      sc_diags_format format;
      if (f && !sc_diags_format_parse(f, &format))
        return sc_usage_error("export: --diagnostics-format %s: give text, json or sarif", f, usage_export);
      if (f) sc_set_diags_format(format);
    } else if (a[0] == '-' && a[1] != '\0') {
      return sc_usage_error("export: unknown option '%s'", a, usage_export);
    } else if (opts.model) {
      return sc_usage_error("export: more than one MODEL given ('%s')", a, usage_export);
    } else {
      opts.model = a;
    }
    if (missing) return sc_usage_error("export: option %s needs a value", missing, usage_export);
    if ((opts.spec && !*opts.spec) || (opts.outdir && !*opts.outdir) || (opts.report && !*opts.report) ||
        (opts.weights && !*opts.weights) || (opts.fix_spec && !*opts.fix_spec) || (opts.cpu && !*opts.cpu))
      return sc_usage_error("export: option '%s' needs a non-empty value", a, usage_export);
  }
  if (!opts.model) return sc_usage_error("export: %s", "no MODEL given", usage_export);
  if (opts.cuda_arch && !sc_cuda_arch_is_known(opts.cuda_arch)) {
    fprintf(stderr, "shapec: export: --cuda-arch %s: not a GPU LLVM 19 builds for; use one of: %s\n", opts.cuda_arch,
            sc_cuda_known_archs());
    return 2;
  }
  if (opts.cuda_emulate && !opts.target_cuda)
    return sc_usage_error("export: %s", "--cuda-emulate needs --target cuda or --target cpu,cuda", usage_export);
  if (opts.cuda_arch && !opts.target_cuda)
    return sc_usage_error("export: %s", "--cuda-arch needs --target cuda or --target cpu,cuda", usage_export);
  if (opts.cpu && !sc_cpu_is_known(opts.cpu)) {
    fprintf(stderr, "shapec: export: --cpu %s: not a CPU shapec knows; use one of: %s\n", opts.cpu, sc_cpu_known_names());
    return 2;
  }

  sc_ctx *ctx = sc_ctx_new();
  ctx->verbose = verbose;
  sc_export_result res;
  bool ok = sc_driver_export(ctx, &opts, &res);
  if (ok && !quiet) {
    sc_strbuf sb = {0};
    sc_program_print(&sb, res.program);
    if (res.analysed) sc_analysis_print(&sb, &res.analysis);
    fputs(sc_strbuf_cstr(&sb), stdout);
    sc_strbuf_free(&sb);
  }
  int status = sc_print_diags(ctx);
  bool notes = sc_diags_as_text(); /* what was written: for people, not in a JSON or SARIF stream */
  if (notes && res.fixed_spec_path) fprintf(stderr, "shapec: wrote the corrected spec to %s\n", res.fixed_spec_path);
  if (notes && !ok && res.report_path) fprintf(stderr, "shapec: wrote %s (status: error)\n", res.report_path);
  if (!ok && explain && res.report_path && res.analysed && res.analysis.env.n_violations) {
    size_t len;
    char *text = sc_file_read(ctx, res.report_path, &len);
    if (text) {
      printf("\nWhy (the guards behind each dim a violation involves):\n");
      sc_explain_report(text, NULL, true);
      free(text);
    }
  }
  if (ok) {
    if (notes) fprintf(stderr, "shapec: wrote %s\n", res.report_path);
    if (notes && res.library_path) fprintf(stderr, "shapec: wrote %s\n", res.library_path);
    if (notes && res.library_path && opts.external_weights)
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
    "                  [--device cpu|cuda|cuda:N]\n"
    "\n"
    "Loads a library built by `shapec export`, checks the inputs against its guards, runs it\n"
    "and writes each output to DIR/<output name>.npy (DIR defaults to the current directory).\n"
    ".npy files: float32, float64, int64, int32 or bool, C order.\n"
    "\n"
    "options:\n"
    "  --input NAME=FILE.npy   one per model input\n"
    "  --out DIR               where the outputs go\n"
    "  --bench N               also time N runs after a warm-up: median, min, max\n"
    "  --device D              where the tensors live: cpu (default) or cuda[:N], for a\n"
    "                          library exported with --target cuda (inputs are copied to\n"
    "                          GPU N, outputs back; --bench times the runs alone)\n"
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
    } else if (sc_is_option(a, "--input")) {
      v = sc_option_value(argc, argv, &i, "--input", &missing);
      const char *eq = v ? strchr(v, '=') : NULL;
      if (!missing && (!eq || eq == v || !eq[1])) return sc_usage_error("run: --input takes NAME=FILE.npy, not '%s'", v, usage_run);
      if (!missing && o.n_inputs == 256) return sc_usage_error("run: more than 256 --input options ('%s')", v, usage_run);
      if (!missing) {
        names[o.n_inputs] = strndup(v, (size_t)(eq - v));
        files[o.n_inputs++] = eq + 1;
      }
    } else if (sc_is_option(a, "--out")) {
      o.outdir = sc_option_value(argc, argv, &i, "--out", &missing);
    } else if (sc_is_option(a, "--device")) {
      v = sc_option_value(argc, argv, &i, "--device", &missing);
      if (!missing && strcmp(v, "cpu") != 0) {
        char *end = NULL;
        long id = strncmp(v, "cuda:", 5) == 0 ? strtol(v + 5, &end, 10) : 0;
        if ((strcmp(v, "cuda") != 0 && (strncmp(v, "cuda:", 5) != 0 || !v[5] || *end || id < 0 || id > 1023)))
          return sc_usage_error("run: --device takes cpu, cuda or cuda:N, not '%s'", v, usage_run);
        o.cuda = true;
        o.cuda_device = (int)id;
      }
    } else if (sc_is_option(a, "--bench")) {
      v = sc_option_value(argc, argv, &i, "--bench", &missing);
      char *end;
      long n = v ? strtol(v, &end, 10) : 0;
      if (!missing && (*end || n <= 0 || n > 10000000)) return sc_usage_error("run: --bench takes a positive count, not '%s'", v, usage_run);
      o.bench = (int)n;
    } else if (a[0] == '-' && a[1] != '\0') {
      return sc_usage_error("run: unknown option '%s'", a, usage_run);
    } else if (o.model) {
      return sc_usage_error("run: more than one library given ('%s')", a, usage_run);
    } else {
      o.model = a;
    }
    if (missing) return sc_usage_error("run: option %s needs a value", missing, usage_run);
  }
  if (!o.model) return sc_usage_error("run: %s", "no MODEL.so given", usage_run);
  sc_ctx *ctx = sc_ctx_new();
  int status = sc_cmd_run(ctx, &o);
  for (size_t i = 0; i < ctx->diags.n_items; i++) sc_diag_print(stderr, &ctx->diags.items[i]);
  if (status == 0 && ctx->diags.n_errors) status = (int)sc_diags_exit_class(&ctx->diags);
  for (size_t i = 0; i < o.n_inputs; i++) free((void *)names[i]);
  sc_ctx_free(ctx);
  return status;
}

static const char *const usage_check =
    "usage: shapec check MODEL [--dynamic SPEC] [--weights FILE] --baseline FILE\n"
    "                          [--junit FILE] [--update] [--prefer-deferred-runtime-asserts]\n"
    "                          [--diagnostics-format text|json|sarif]\n"
    "       shapec check --manifest FILE [--junit FILE] [--update]\n"
    "\n"
    "Runs the shape analysis (no code generation) and compares its contract with a\n"
    "committed report (a constraints.json written by `shapec export` or `--update`): the\n"
    "export's status, each input's dtype, rank and dims (static, range, or relation to\n"
    "other dims), the outputs' shapes and the runtime asserts.  Symbols are compared by the\n"
    "input dims they stand for, so renumbered symbols are no change.  Each change is\n"
    "printed with the guard that caused it:\n"
    "  x.size()[0]: range [2, int_oo] -> [2, 512], new guard Le(s0, 512) from node view_3 (...)\n"
    "\n"
    "options:\n"
    "  --baseline FILE  the committed report\n"
    "  --manifest FILE  check several models: {\"models\": [{\"model\": ..., \"spec\": ...,\n"
    "                   \"baseline\": ..., \"weights\": ..., \"name\": ...}]}, paths relative to FILE\n"
    "  --junit FILE     also write a JUnit XML report: a test case per input dim, per\n"
    "                   runtime assert, for the outputs and the status\n"
    "  --update         rewrite the baseline(s) with the current report instead (atomically)\n"
    "  --prefer-deferred-runtime-asserts\n"
    "                   analyse as `shapec export --prefer-deferred-runtime-asserts` does (a\n"
    "                   baseline written with it is checked with it anyway)\n"
    "\n"
    "exit status: 0 no change, 1 a change (or a rejected model or invalid baseline),\n"
    "             2 usage error, 3 a file cannot be read or written\n";

static int cmd_check(int argc, char **argv) {
  sc_check_options o = {0};
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *missing = NULL;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(usage_check, stdout);
      return 0;
    } else if (sc_is_option(a, "--dynamic")) {
      o.spec = sc_option_value(argc, argv, &i, "--dynamic", &missing);
    } else if (sc_is_option(a, "--weights")) {
      o.weights = sc_option_value(argc, argv, &i, "--weights", &missing);
    } else if (sc_is_option(a, "--baseline")) {
      o.baseline = sc_option_value(argc, argv, &i, "--baseline", &missing);
    } else if (sc_is_option(a, "--manifest")) {
      o.manifest = sc_option_value(argc, argv, &i, "--manifest", &missing);
    } else if (sc_is_option(a, "--junit")) {
      o.junit = sc_option_value(argc, argv, &i, "--junit", &missing);
    } else if (strcmp(a, "--update") == 0) {
      o.update = true;
    } else if (strcmp(a, "--prefer-deferred-runtime-asserts") == 0) {
      o.prefer_deferred_asserts = true;
    } else if (sc_is_option(a, "--diagnostics-format")) {
      const char *f = sc_option_value(argc, argv, &i, "--diagnostics-format", &missing);
      sc_diags_format format;
      if (f && !sc_diags_format_parse(f, &format))
        return sc_usage_error("check: --diagnostics-format %s: give text, json or sarif", f, usage_check);
      if (f) sc_set_diags_format(format);
    } else if (a[0] == '-' && a[1] != '\0') {
      return sc_usage_error("check: unknown option '%s'", a, usage_check);
    } else if (o.model) {
      return sc_usage_error("check: more than one MODEL given ('%s')", a, usage_check);
    } else {
      o.model = a;
    }
    if (missing) return sc_usage_error("check: option %s needs a value", missing, usage_check);
    if ((o.spec && !*o.spec) || (o.weights && !*o.weights) || (o.baseline && !*o.baseline) ||
        (o.manifest && !*o.manifest) || (o.junit && !*o.junit))
      return sc_usage_error("check: option '%s' needs a non-empty value", a, usage_check);
  }
  if (o.manifest && (o.model || o.spec || o.baseline || o.weights))
    return sc_usage_error("check: %s", "--manifest names the models; give no MODEL, --dynamic, --weights or --baseline",
                          usage_check);
  if (!o.manifest && !o.model) return sc_usage_error("check: %s", "no MODEL (or --manifest) given", usage_check);
  if (!o.manifest && !o.baseline) return sc_usage_error("check: %s", "no --baseline given", usage_check);
  return sc_cmd_check(&o);
}

static const char *const usage_explain =
    "usage: shapec explain MODEL [--dynamic SPEC] [--weights FILE] [--dim NAME.K]\n"
    "                            [--prefer-deferred-runtime-asserts]\n"
    "\n"
    "Runs the shape analysis and explains, for each user input dim (or the one --dim names,\n"
    "e.g. x.0 or 'x.size()[0]'), why it has its range, relation or constant value: every\n"
    "guard on its symbol with the node, operator, JSON path and shape rule that emitted it,\n"
    "its outcome and the input dims it involves; for a specialization, the guard that first\n"
    "pinned it.\n"
    "\n"
    "exit status: 0 success, 1 no such dim or the model is rejected before the analysis,\n"
    "             2 usage error, 3 a file cannot be read\n";

static const char *const usage_inspect =
    "usage: shapec inspect MODEL.so [--json]\n"
    "\n"
    "What a built library expects, read from the library alone (the report it embeds): its\n"
    "inputs and outputs with their dtypes and symbolic shapes, the ranges of the symbols,\n"
    "the replacements, the guards it checks on every call, its runtime asserts, its targets\n"
    "(CPU features, CUDA architecture), and the model and spec it was built from.\n"
    "\n"
    "options:\n"
    "  --json           print the embedded report (constraints.json) as it is\n"
    "  -h, --help       show this help\n"
    "\n"
    "exit status: 0 printed; 2 usage error; 3 not a loadable shapec library\n";

static int cmd_inspect(int argc, char **argv) {
  const char *path = NULL;
  bool as_json = false;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      fputs(usage_inspect, stdout);
      return 0;
    } else if (strcmp(argv[i], "--json") == 0) {
      as_json = true;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return sc_usage_error("inspect: unknown option '%s'", argv[i], usage_inspect);
    } else if (path) {
      return sc_usage_error("inspect: more than one MODEL.so given ('%s')", argv[i], usage_inspect);
    } else {
      path = argv[i];
    }
  }
  if (!path) return sc_usage_error("inspect: %s", "no MODEL.so given", usage_inspect);
  return sc_cmd_inspect(path, as_json);
}

static int cmd_explain(int argc, char **argv) {
  const char *model = NULL, *spec = NULL, *weights = NULL, *dim = NULL;
  bool deferred = false;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *missing = NULL;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(usage_explain, stdout);
      return 0;
    } else if (sc_is_option(a, "--dynamic")) {
      spec = sc_option_value(argc, argv, &i, "--dynamic", &missing);
    } else if (sc_is_option(a, "--weights")) {
      weights = sc_option_value(argc, argv, &i, "--weights", &missing);
    } else if (sc_is_option(a, "--dim")) {
      dim = sc_option_value(argc, argv, &i, "--dim", &missing);
    } else if (strcmp(a, "--prefer-deferred-runtime-asserts") == 0) {
      deferred = true;
    } else if (a[0] == '-' && a[1] != '\0') {
      return sc_usage_error("explain: unknown option '%s'", a, usage_explain);
    } else if (model) {
      return sc_usage_error("explain: more than one MODEL given ('%s')", a, usage_explain);
    } else {
      model = a;
    }
    if (missing) return sc_usage_error("explain: option %s needs a value", missing, usage_explain);
  }
  if (!model) return sc_usage_error("explain: %s", "no MODEL given", usage_explain);
  int status = 0;
  char *report = sc_fresh_report(model, spec, weights, deferred, &status);
  if (!report) return status;
  bool found = sc_explain_report(report, dim, false);
  free(report);
  if (!found) {
    fprintf(stderr, "shapec: explain: %s is not a dim of a user input (write it as NAME.K, e.g. x.0)\n", dim);
    return SC_EXIT_USER;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) return sc_usage_error("%s", "no command given", usage_main);
  const char *cmd = argv[1];
  if (strcmp(cmd, "help") == 0 && argc > 2) { /* shapec help CMD: that command's own help */
    static const struct {
      const char *name;
      const char *const *usage;
    } commands[] = {{"export", &usage_export}, {"run", &usage_run}, {"check", &usage_check}, {"explain", &usage_explain},
                    {"inspect", &usage_inspect}};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
      if (strcmp(argv[2], commands[i].name) == 0) {
        fputs(*commands[i].usage, stdout);
        return 0;
      }
    return sc_usage_error("help: unknown command '%s'", argv[2], usage_main);
  }
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
  if (strcmp(cmd, "check") == 0) return cmd_check(argc - 2, argv + 2);
  if (strcmp(cmd, "explain") == 0) return cmd_explain(argc - 2, argv + 2);
  if (strcmp(cmd, "inspect") == 0) return cmd_inspect(argc - 2, argv + 2);
  return sc_usage_error("unknown command '%s'", cmd, usage_main);
}
