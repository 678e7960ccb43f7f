/* cli_export.c - `shapec export`: its command line, the driver's export, and what is
 * printed of it (the program, the diagnostics, the files written). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/library.h"
#include "commands.h"
#include "diag_format.h"
#include "lib/base/fileio.h"
#include "lib/driver/driver.h"
#include "check.h"
#include "options.h"

const char sc_usage_export[] =
    "usage: shapec export MODEL [--dynamic SPEC] [--weights FILE] [-o OUTDIR]\n"
    "                           [--report FILE] [--fix-spec FILE] [--no-codegen]\n"
    "                           [--prefer-deferred-runtime-asserts]\n"
    "                           [--target cpu|cuda|cpu,cuda] [--cuda-arch SM] [--cuda-emulate]\n"
    "                           [--cpu NAME] [--emit-llvm]\n"
    "                           [--external-weights] [--explain] [-q] [-v]\n"
    "                           [--diagnostics-format text|json|sarif] [--name NAME]\n"
    "                           [--metadata KEY=VALUE ...]\n"
    "                           [--observed OBS ... [--ranges] [--wait S] [--world-size N]]\n"
    "\n"
    "Reads MODEL, the JSON torch.export writes for an ExportedProgram (schema 8.x), runs\n"
    "torch.export's dynamic-shape analysis against SPEC and prints the program with its\n"
    "symbolic shapes and range constraints.  Writes the machine-readable report to\n"
    "OUTDIR/constraints.json, also when the spec is violated (with suggested fixes).\n"
    "\n"
    "options:\n"
    "  --dynamic SPEC   dynamic_shapes spec as torch serializes it:\n"
    "                   {\"dynamic_shapes\": ..., \"dims\": {\"dx\": {\"min\": 4, \"max\": 256}}}\n"
    "                   (without it: the program's own dynamism, its symbolic sizes,\n"
    "                   range_constraints and guards_code; static where its sizes are)\n"
    "  --observed OBS   instead of --dynamic: infer the spec from observations (a file, or\n"
    "                   a folder of rank-<R>.json files; repeat for several), as `shapec spec\n"
    "                   infer --model MODEL` does, and write it to OUTDIR/spec.json.  Every\n"
    "                   rank that exports with the same model and observations builds the\n"
    "                   same report and model.so, byte for byte (docs/observations.md)\n"
    "  --ranges         with --observed: named Dims with the observed [min, max], not AUTO\n"
    "  --wait SECONDS   with --observed: wait that long for every rank's file in a folder\n"
    "  --world-size N   with --observed: how many ranks a folder must hold\n"
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
    "  --name NAME      the library's functions are shapec_NAME_* (NAME.h declares them;\n"
    "                   model.h too, with shapec_model_* names for them) and its SONAME is\n"
    "                   NAME.so (OUTDIR/NAME.so, the same file as model.so), so that several\n"
    "                   models live in one process or one executable\n"
    "  --metadata KEY=VALUE  a fact of your own (a model version, a training run), kept in\n"
    "                   the report and the library: shapec_model_metadata(KEY), inspect,\n"
    "                   Model.metadata in Python; repeat it for more, the last value wins\n"
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

enum {
  OPT_DYNAMIC = 2, OPT_WEIGHTS, OPT_OUTPUT, OPT_REPORT, OPT_FIX_SPEC, OPT_CPU, OPT_TARGET, OPT_NAME, OPT_CUDA_ARCH,
  OPT_CUDA_EMULATE, OPT_EMIT_LLVM, OPT_EXTERNAL_WEIGHTS, OPT_EXPLAIN, OPT_NO_CODEGEN, OPT_DEFERRED, OPT_QUIET,
  OPT_VERBOSE, OPT_DIAGS_FORMAT, OPT_OBSERVED, OPT_RANGES, OPT_WAIT, OPT_WORLD_SIZE, OPT_METADATA,
};

static const sc_option export_options[] = {
    {"dynamic", 0, true, OPT_DYNAMIC},
    {"weights", 0, true, OPT_WEIGHTS},
    {"output", 'o', true, OPT_OUTPUT},
    {"report", 0, true, OPT_REPORT},
    {"fix-spec", 0, true, OPT_FIX_SPEC},
    {"cpu", 0, true, OPT_CPU},
    {"target", 0, true, OPT_TARGET},
    {"name", 0, true, OPT_NAME},
    {"cuda-arch", 0, true, OPT_CUDA_ARCH},
    {"cuda-emulate", 0, false, OPT_CUDA_EMULATE},
    {"emit-llvm", 0, false, OPT_EMIT_LLVM},
    {"external-weights", 0, false, OPT_EXTERNAL_WEIGHTS},
    {"explain", 0, false, OPT_EXPLAIN},
    {"no-codegen", 0, false, OPT_NO_CODEGEN},
    {"prefer-deferred-runtime-asserts", 0, false, OPT_DEFERRED},
    {"quiet", 'q', false, OPT_QUIET},
    {"verbose", 'v', false, OPT_VERBOSE},
    {"diagnostics-format", 0, true, OPT_DIAGS_FORMAT},
    {"observed", 0, true, OPT_OBSERVED},
    {"ranges", 0, false, OPT_RANGES},
    {"wait", 0, true, OPT_WAIT},
    {"world-size", 0, true, OPT_WORLD_SIZE},
    {"metadata", 0, true, OPT_METADATA},
};

/* A C identifier other than "model": it becomes part of every exported symbol. */
static bool is_library_name(const char *n) {
  bool ident = isalpha((unsigned char)*n) || *n == '_';
  for (const char *c = n; ident && *c; c++) ident = isalnum((unsigned char)*c) || *c == '_';
  return ident && strcmp(n, "model") != 0;
}

/* Reads the command line into opts; returns -1 to go on, or the exit status. */
static int parse_export_args(int argc, char **argv, sc_export_options *opts, bool *quiet, bool *explain,
                             bool *verbose) {
  sc_options p;
  sc_options_begin(&p, "export", sc_usage_export, export_options, sizeof export_options / sizeof *export_options, argc,
                   argv);
  int id, status = -1;
  const char *v;
  const char **observed = (const char **)opts->observed; /* room for every argument */
  char *end;
  long n;
  while (status < 0 && (id = sc_options_next(&p, &v)) != SC_OPTIONS_END) {
    switch (id) {
    case SC_OPTIONS_STOP: status = sc_options_status(&p); break;
    case OPT_OBSERVED: observed[opts->n_observed++] = v; break;
    case OPT_METADATA:
      if (!strchr(v, '=') || *v == '=')
        status = sc_options_error(&p, "--metadata %s: give KEY=VALUE (a key, '=', then the value, maybe empty)", v);
      ((const char **)opts->metadata)[opts->n_metadata++] = v;
      break;
    case OPT_RANGES: opts->observed_ranges = true; break;
    case OPT_WAIT:
      n = strtol(v, &end, 10);
      if (*end || n < 0 || n > 86400) status = sc_options_error(&p, "--wait takes seconds (0 to 86400), not '%s'", v);
      opts->observed_wait_s = (int)n;
      break;
    case OPT_WORLD_SIZE:
      n = strtol(v, &end, 10);
      if (*end || n < 1 || n > 1000000)
        status = sc_options_error(&p, "--world-size takes a process count from 1, not '%s'", v);
      opts->observed_world_size = (int)n;
      break;
    case SC_OPTIONS_POSITIONAL:
      if (opts->model) status = sc_options_error(&p, "more than one MODEL given ('%s')", v);
      opts->model = v;
      break;
    case OPT_DYNAMIC: opts->spec = v; break;
    case OPT_WEIGHTS: opts->weights = v; break;
    case OPT_OUTPUT: opts->outdir = v; break;
    case OPT_REPORT: opts->report = v; break;
    case OPT_FIX_SPEC: opts->fix_spec = v; break;
    case OPT_CPU: opts->cpu = v; break;
    case OPT_TARGET:
      if (!parse_targets(v, opts)) status = sc_options_error(&p, "--target %s: give cpu, cuda or cpu,cuda", v);
      break;
    case OPT_NAME:
      if (!is_library_name(v))
        status = sc_options_error(&p, "--name %s: give a C identifier other than 'model' (letters, digits, _)", v);
      opts->name = v;
      break;
    case OPT_CUDA_ARCH: opts->cuda_arch = v; break;
    case OPT_CUDA_EMULATE: opts->cuda_emulate = true; break;
    case OPT_EMIT_LLVM: opts->emit_llvm = true; break;
    case OPT_EXTERNAL_WEIGHTS: opts->external_weights = true; break;
    case OPT_EXPLAIN: *explain = true; break;
    case OPT_NO_CODEGEN: opts->no_codegen = true; break;
    case OPT_DEFERRED: opts->prefer_deferred_asserts = true; break;
    case OPT_QUIET: *quiet = true; break;
    case OPT_VERBOSE: *verbose = true; break;
    case OPT_DIAGS_FORMAT: status = sc_options_diags_format(&p, v); break;
    }
  }
  if (status < 0 && !opts->model) status = sc_options_error(&p, "%s", "no MODEL given");
  if (status < 0 && opts->n_observed && opts->spec)
    status = sc_options_error(&p, "%s", "give --dynamic SPEC or --observed OBS, not both (--observed infers the spec)");
  if (status < 0 && !opts->n_observed && (opts->observed_ranges || opts->observed_wait_s || opts->observed_world_size))
    status = sc_options_error(&p, "%s", "--ranges, --wait and --world-size go with --observed");
  if (status < 0 && opts->cuda_emulate && !opts->target_cuda)
    status = sc_options_error(&p, "%s", "--cuda-emulate needs --target cuda or --target cpu,cuda");
  if (status < 0 && opts->cuda_arch && !opts->target_cuda)
    status = sc_options_error(&p, "%s", "--cuda-arch needs --target cuda or --target cpu,cuda");
  sc_options_end(&p);
  if (status >= 0) return status;
  if (opts->cuda_arch && !sc_cuda_arch_is_known(opts->cuda_arch)) {
    fprintf(stderr, "shapec: export: --cuda-arch %s: not a GPU LLVM 19 builds for; use one of: %s\n", opts->cuda_arch,
            sc_cuda_known_archs());
    return SC_EXIT_USAGE;
  }
  if (opts->cpu && !sc_cpu_is_known(opts->cpu)) {
    fprintf(stderr, "shapec: export: --cpu %s: not a CPU shapec knows; use one of: %s\n", opts->cpu,
            sc_cpu_known_names());
    return SC_EXIT_USAGE;
  }
  return -1;
}

int sc_main_export(int argc, char **argv) {
  sc_export_options opts = {0};
  const char **observed = calloc((size_t)argc + 1, sizeof *observed);
  const char **metadata = calloc((size_t)argc + 1, sizeof *metadata); /* room for every argument */
  opts.observed = observed;
  opts.metadata = metadata;
  bool quiet = false, explain = false, verbose = false;
  int parsed = parse_export_args(argc, argv, &opts, &quiet, &explain, &verbose);
  if (parsed >= 0) {
    free(observed);
    free(metadata);
    return parsed;
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
  bool notes = sc_diags_as_text(); /* what was written: for people, not in a JSON or SARIF stream */
  if (notes && !quiet && res.inferred_summary) fputs(res.inferred_summary, stderr);
  int status = sc_print_diags(ctx);
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
    if (notes && res.inferred_spec)
      fprintf(stderr, "shapec: wrote %s/spec.json (the spec inferred from the observations)\n",
              opts.outdir ? opts.outdir : "shapec-out");
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
  free(observed);
  free(metadata);
  return status;
}

