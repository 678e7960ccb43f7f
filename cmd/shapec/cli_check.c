/* cli_check.c - the command lines of `shapec check` and `shapec explain` (check.c and
 * explain.c do the work). */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "commands.h"
#include "diag_format.h"
#include "lib/base/diag.h"
#include "options.h"

const char sc_usage_check[] =
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
    "  --junit FILE     also write a JUnit XML report: a test case per input dim, per input\n"
    "                   guard, per runtime assert, for the outputs and the status (a setup\n"
    "                   problem is an <error>; docs/ci.md)\n"
    "  --update         rewrite the baseline(s) with the current report instead (atomically)\n"
    "  --prefer-deferred-runtime-asserts\n"
    "                   analyse as `shapec export --prefer-deferred-runtime-asserts` does (a\n"
    "                   baseline written with it is checked with it anyway)\n"
    "\n"
    "exit status: 0 no change, 1 a change (or a rejected model or invalid baseline),\n"
    "             2 usage error, 3 a file cannot be read or written\n";

const char sc_usage_explain[] =
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


enum { OPT_DYNAMIC = 2, OPT_WEIGHTS, OPT_BASELINE, OPT_MANIFEST, OPT_JUNIT, OPT_UPDATE, OPT_DEFERRED, OPT_DIAGS_FORMAT,
       OPT_DIM };

static const sc_option check_options[] = {
    {"dynamic", 0, true, OPT_DYNAMIC},
    {"weights", 0, true, OPT_WEIGHTS},
    {"baseline", 0, true, OPT_BASELINE},
    {"manifest", 0, true, OPT_MANIFEST},
    {"junit", 0, true, OPT_JUNIT},
    {"update", 0, false, OPT_UPDATE},
    {"prefer-deferred-runtime-asserts", 0, false, OPT_DEFERRED},
    {"diagnostics-format", 0, true, OPT_DIAGS_FORMAT},
};

static int parse_check_args(int argc, char **argv, sc_check_options *o) {
  sc_options p;
  sc_options_begin(&p, "check", sc_usage_check, check_options, sizeof check_options / sizeof *check_options, argc,
                   argv);
  int id, status = -1;
  const char *v;
  while (status < 0 && (id = sc_options_next(&p, &v)) != SC_OPTIONS_END) {
    switch (id) {
    case SC_OPTIONS_STOP: status = sc_options_status(&p); break;
    case SC_OPTIONS_POSITIONAL:
      if (o->model) status = sc_options_error(&p, "more than one MODEL given ('%s')", v);
      o->model = v;
      break;
    case OPT_DYNAMIC: o->spec = v; break;
    case OPT_WEIGHTS: o->weights = v; break;
    case OPT_BASELINE: o->baseline = v; break;
    case OPT_MANIFEST: o->manifest = v; break;
    case OPT_JUNIT: o->junit = v; break;
    case OPT_UPDATE: o->update = true; break;
    case OPT_DEFERRED: o->prefer_deferred_asserts = true; break;
    case OPT_DIAGS_FORMAT: status = sc_options_diags_format(&p, v); break;
    }
  }
  if (status < 0 && o->manifest && (o->model || o->spec || o->baseline || o->weights))
    status = sc_options_error(&p, "%s",
                              "--manifest names the models; give no MODEL, --dynamic, --weights or --baseline");
  if (status < 0 && !o->manifest && !o->model) status = sc_options_error(&p, "%s", "no MODEL (or --manifest) given");
  if (status < 0 && !o->manifest && !o->baseline) status = sc_options_error(&p, "%s", "no --baseline given");
  sc_options_end(&p);
  return status;
}

int sc_main_check(int argc, char **argv) {
  sc_check_options o = {0};
  int status = parse_check_args(argc, argv, &o);
  return status >= 0 ? status : sc_cmd_check(&o);
}

static const sc_option explain_options[] = {
    {"dynamic", 0, true, OPT_DYNAMIC},
    {"weights", 0, true, OPT_WEIGHTS},
    {"dim", 0, true, OPT_DIM},
    {"prefer-deferred-runtime-asserts", 0, false, OPT_DEFERRED},
};

int sc_main_explain(int argc, char **argv) {
  const char *model = NULL, *spec = NULL, *weights = NULL, *dim = NULL;
  bool deferred = false;
  sc_options p;
  sc_options_begin(&p, "explain", sc_usage_explain, explain_options, sizeof explain_options / sizeof *explain_options,
                   argc, argv);
  int id, status = -1;
  const char *v;
  while (status < 0 && (id = sc_options_next(&p, &v)) != SC_OPTIONS_END) {
    switch (id) {
    case SC_OPTIONS_STOP: status = sc_options_status(&p); break;
    case SC_OPTIONS_POSITIONAL:
      if (model) status = sc_options_error(&p, "more than one MODEL given ('%s')", v);
      model = v;
      break;
    case OPT_DYNAMIC: spec = v; break;
    case OPT_WEIGHTS: weights = v; break;
    case OPT_DIM: dim = v; break;
    case OPT_DEFERRED: deferred = true; break;
    }
  }
  if (status < 0 && !model) status = sc_options_error(&p, "%s", "no MODEL given");
  sc_options_end(&p);
  if (status >= 0) return status;
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
