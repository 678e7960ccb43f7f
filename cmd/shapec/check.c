/* check.c - `shapec check`: runs the analysis of one model, or of every model of a
 * manifest, compares each report's contract with a committed baseline
 * (lib/contract.h), prints the changes in the user's terms, and writes a JUnit report. */
#include "check.h"

#include <cjson/cJSON.h>
#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag_format.h"
#include "lib/base/fileio.h"
#include "lib/base/phase.h"
#include "lib/driver/driver.h"
#include "lib/report/contract.h"

/* One model to check. */
typedef struct check_job {
  const char *name; /* shown in the output and as the JUnit suite */
  const char *model, *spec, *weights, *baseline;
} check_job;

/* What checking one model gave. */
typedef struct check_result {
  sc_contract_diff diff;
  bool compared;    /* there was a report and a baseline to compare */
  char *problem;    /* why not: the export stopped before its report, no baseline... */
  bool updated;
  double seconds;   /* how long the check took */
  sc_diag_code problem_code; /* the code of `problem` in a JSON or SARIF stream; 0: already reported */
} check_result;

static char *dup_printf(const char *fmt, const char *a, const char *b) {
  size_t n = (size_t)snprintf(NULL, 0, fmt, a, b) + 1;
  char *s = malloc(n);
  if (s) snprintf(s, n, fmt, a, b);
  return s;
}

char *sc_fresh_report(const char *model, const char *spec, const char *weights, bool prefer_deferred_asserts,
                      int *status) {
  char path[1100];
  sc_temp_template(path, sizeof path, "shapec-check");
  int fd = mkstemp(path);
  if (fd < 0) {
    fprintf(stderr, "shapec: check: cannot create a temporary file %s (set TMPDIR)\n", path);
    *status = SC_EXIT_IO;
    return NULL;
  }
  close(fd);
  sc_export_options opts = {.model = model, .spec = spec, .weights = weights, .report = path, .no_codegen = true,
                            .prefer_deferred_asserts = prefer_deferred_asserts};
  sc_ctx *ctx = sc_ctx_new();
  sc_export_result res;
  sc_driver_export(ctx, &opts, &res);
  char *text = NULL;
  if (res.report_path) {
    size_t len;
    text = sc_file_read(ctx, path, &len);
  }
  if (!text) { /* the model or spec could not be read: that is the user's error to see */
    sc_defer_diags(ctx);
    *status = (int)sc_diags_exit_class(&ctx->diags);
    if (*status == 0) *status = SC_EXIT_INTERNAL;
  }
  unlink(path);
  sc_export_result_free(&res);
  sc_ctx_free(ctx);
  return text;
}

/* Whether the report at path was written with --prefer-deferred-runtime-asserts. */
static bool written_deferred(const char *path) {
  sc_ctx *ctx = sc_ctx_new();
  size_t len;
  char *text = sc_file_read(ctx, path, &len);
  sc_ctx_free(ctx);
  cJSON *doc = text ? cJSON_Parse(text) : NULL;
  bool yes = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "prefer_deferred_runtime_asserts"));
  cJSON_Delete(doc);
  free(text);
  return yes;
}

static int check_one(const check_job *job, bool update, bool deferred, check_result *r) {
  memset(r, 0, sizeof *r);
  int status = 0;
  /* the contract is compared under the options the baseline was made with */
  if (!update && !deferred) deferred = written_deferred(job->baseline);
  char *current_text = sc_fresh_report(job->model, job->spec, job->weights, deferred, &status);
  if (!current_text) {
    r->problem = dup_printf("%s: the export stopped before its report (see the errors above)%s", job->name, "");
    return status;
  }
  if (update) {
    sc_ctx *ctx = sc_ctx_new();
    bool ok = sc_file_write_atomic(ctx, job->baseline, current_text, strlen(current_text));
    sc_defer_diags(ctx);
    sc_ctx_free(ctx);
    free(current_text);
    if (!ok) {
      r->problem = dup_printf("%s: cannot write the baseline %s", job->name, job->baseline);
      return SC_EXIT_IO;
    }
    r->updated = true;
    return 0;
  }
  sc_ctx *ctx = sc_ctx_new();
  size_t len;
  char *baseline_text = sc_file_read(ctx, job->baseline, &len);
  sc_ctx_free(ctx);
  if (!baseline_text) {
    free(current_text);
    r->problem = dup_printf("%s: cannot read the baseline %s (create it with --update)", job->name, job->baseline);
    r->problem_code = SC_DIAG_FILE_READ;
    return SC_EXIT_IO;
  }
  cJSON *baseline = cJSON_Parse(baseline_text), *current = cJSON_Parse(current_text);
  free(baseline_text);
  free(current_text);
  const char *format = baseline ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(baseline, "format")) : NULL;
  if (!current || !format || strcmp(format, "shapec-constraints") != 0) {
    cJSON_Delete(baseline);
    cJSON_Delete(current);
    r->problem = dup_printf("%s: the baseline %s is not a shapec report (constraints.json); recreate it with --update",
                            job->name, job->baseline);
    r->problem_code = SC_DIAG_CHECK_BASELINE;
    return SC_EXIT_USER;
  }
  sc_contract_compare(baseline, current, &r->diff);
  r->compared = true;
  cJSON_Delete(baseline);
  cJSON_Delete(current);
  return r->diff.n_changed ? SC_EXIT_USER : 0;
}

/* ---- JUnit ------------------------------------------------------------------------------ */

/* A testcase: passed, failed (a contract change: <failure>) or not run (a problem before
 * the comparison: <error>, as JUnit readers tell setup errors from failures). */
static void junit_case(xmlNodePtr suite, const char *classname, const char *name, const char *failure,
                       const char *detail, bool error, double seconds) {
  xmlNodePtr tc = xmlNewChild(suite, NULL, BAD_CAST "testcase", NULL);
  xmlNewProp(tc, BAD_CAST "classname", BAD_CAST classname);
  xmlNewProp(tc, BAD_CAST "name", BAD_CAST name);
  char num[32];
  snprintf(num, sizeof num, "%.3f", seconds);
  xmlNewProp(tc, BAD_CAST "time", BAD_CAST num);
  if (failure) {
    xmlNodePtr f = xmlNewChild(tc, NULL, BAD_CAST(error ? "error" : "failure"), NULL);
    xmlNewProp(f, BAD_CAST "message", BAD_CAST failure);
    xmlNewProp(f, BAD_CAST "type", BAD_CAST(error ? "setup-error" : "contract-change"));
    xmlAddChild(f, xmlNewText(BAD_CAST(detail ? detail : failure)));
  }
}

/* shapec.check.<model with its dots as underscores>: Jenkins reads the classname's last dot
 * as package.Class, so a path's dots would split it (examples/tutorial/model.json). */
static char *junit_classname(const char *name) {
  char *c = dup_printf("shapec.check.%s%s", name, "");
  for (char *p = c + strlen("shapec.check."); c && *p; p++)
    if (*p == '.') *p = '_';
  return c;
}

static void set_count(xmlNodePtr node, const char *attr, size_t n) {
  char num[32];
  snprintf(num, sizeof num, "%zu", n);
  xmlNewProp(node, BAD_CAST attr, BAD_CAST num);
}

static bool write_junit(const char *path, const check_job *jobs, const check_result *results, size_t n) {
  xmlDocPtr doc = xmlNewDoc(BAD_CAST "1.0");
  xmlNodePtr root = xmlNewNode(NULL, BAD_CAST "testsuites");
  xmlDocSetRootElement(doc, root);
  xmlNewProp(root, BAD_CAST "name", BAD_CAST "shapec check");
  size_t all_tests = 0, all_failures = 0, all_errors = 0;
  double all_seconds = 0;
  for (size_t j = 0; j < n; j++) {
    const check_result *r = &results[j];
    char *classname = junit_classname(jobs[j].name);
    xmlNodePtr suite = xmlNewChild(root, NULL, BAD_CAST "testsuite", NULL);
    xmlNewProp(suite, BAD_CAST "name", BAD_CAST jobs[j].name);
    size_t tests = 0, failures = 0, errors = 0;
    if (!r->compared) { /* updated, or a problem before any comparison */
      junit_case(suite, classname, "report", r->problem ? r->problem : (r->updated ? NULL : "not compared"), NULL,
                 !r->updated, r->seconds);
      tests = 1;
      errors = !r->updated;
    }
    for (size_t i = 0; r->compared && i < r->diff.n_items; i++) {
      const sc_contract_item *it = &r->diff.items[i];
      char *text = it->changed ? sc_contract_describe(it) : NULL;
      /* the export's time goes to the status case; the others are read from its report */
      junit_case(suite, classname, it->name, text, text, false, i == 0 ? r->seconds : 0);
      free(text);
      tests++;
      failures += it->changed;
    }
    free(classname);
    set_count(suite, "tests", tests);
    set_count(suite, "failures", failures);
    set_count(suite, "errors", errors);
    char num[32];
    snprintf(num, sizeof num, "%.3f", r->seconds);
    xmlNewProp(suite, BAD_CAST "time", BAD_CAST num);
    all_tests += tests;
    all_failures += failures;
    all_errors += errors;
    all_seconds += r->seconds;
  }
  set_count(root, "tests", all_tests);
  set_count(root, "failures", all_failures);
  set_count(root, "errors", all_errors);
  char num[32];
  snprintf(num, sizeof num, "%.3f", all_seconds);
  xmlNewProp(root, BAD_CAST "time", BAD_CAST num);
  xmlChar *mem = NULL;
  int size = 0;
  xmlDocDumpFormatMemoryEnc(doc, &mem, &size, "UTF-8", 1);
  xmlFreeDoc(doc);
  sc_ctx *ctx = sc_ctx_new();
  bool ok = mem && sc_file_write_atomic(ctx, path, mem, (size_t)size);
  sc_defer_diags(ctx);
  sc_ctx_free(ctx);
  xmlFree(mem);
  return ok;
}

/* ---- manifest ---------------------------------------------------------------------------- */

/* dir of path + rel, unless rel is absolute. */
static char *relative_to(const char *path, const char *rel) {
  if (rel[0] == '/') return strdup(rel);
  const char *slash = strrchr(path, '/');
  if (!slash) return strdup(rel);
  size_t n = (size_t)(slash - path) + 1 + strlen(rel) + 1;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%.*s/%s", (int)(slash - path), path, rel);
  return s;
}

static void manifest_error(const char *path, const char *json_path, const char *what) {
  sc_ctx *ctx = sc_ctx_new();
  sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_CHECK_MANIFEST, SC_SEV_ERROR, path, json_path, "%s", what);
  sc_diag_set_hint(&ctx->diags, d,
                   "a manifest is {\"models\": [{\"model\": ..., \"spec\": ..., \"baseline\": ...}, ...]}");
  sc_defer_diags(ctx);
  sc_ctx_free(ctx);
}

/* {"models": [{"model": ..., "spec": ..., "baseline": ..., "weights": ..., "name": ...}]},
 * paths relative to the manifest.  Returns the number of jobs, or -1 after an error. */
static int read_manifest(const char *path, check_job **jobs_out) {
  sc_ctx *ctx = sc_ctx_new();
  size_t len;
  char *text = sc_file_read(ctx, path, &len);
  int status = (int)sc_diags_exit_class(&ctx->diags);
  sc_defer_diags(ctx);
  sc_ctx_free(ctx);
  if (!text) return -status;
  cJSON *root = cJSON_Parse(text);
  free(text);
  const cJSON *models = cJSON_GetObjectItemCaseSensitive(root, "models");
  if (!cJSON_IsArray(models)) {
    manifest_error(path, NULL, root ? "'models' is missing or not an array" : "the manifest is not JSON");
    cJSON_Delete(root);
    return -SC_EXIT_USER;
  }
  int n = cJSON_GetArraySize(models), k = 0;
  check_job *jobs = calloc((size_t)n + 1, sizeof *jobs);
  const cJSON *m;
  cJSON_ArrayForEach(m, models) {
    const char *model = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "model"));
    const char *baseline = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "baseline"));
    if (!model || !baseline) {
      char at[32];
      snprintf(at, sizeof at, "models[%d]", k);
      manifest_error(path, at, "'model' and 'baseline' are required strings");
      cJSON_Delete(root);
      free(jobs);
      return -SC_EXIT_USER;
    }
    const char *spec = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "spec"));
    const char *weights = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "weights"));
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "name"));
    jobs[k].model = relative_to(path, model);
    jobs[k].baseline = relative_to(path, baseline);
    jobs[k].spec = spec ? relative_to(path, spec) : NULL;
    jobs[k].weights = weights ? relative_to(path, weights) : NULL;
    jobs[k].name = name ? strdup(name) : strdup(jobs[k].model);
    k++;
  }
  cJSON_Delete(root);
  *jobs_out = jobs;
  return k;
}

/* A problem before the comparison: a line for people, or a diagnostic in the stream. */
static void report_problem(const check_result *r, const check_job *job) {
  if (sc_diags_as_text()) {
    fprintf(stderr, "shapec: check: %s\n", r->problem);
    return;
  }
  if (!r->problem_code) return; /* the export's own diagnostics are in the stream */
  sc_ctx *ctx = sc_ctx_new();
  sc_diag *d = sc_diags_add(&ctx->diags, r->problem_code, SC_SEV_ERROR, job->baseline, NULL, "%s", r->problem);
  sc_diag_set_hint(&ctx->diags, d, "write the baseline with shapec check --update");
  sc_defer_diags(ctx);
  sc_ctx_free(ctx);
}

/* A contract change, as a diagnostic on the baseline (for CI annotations). */
static void report_change(const check_job *job, const char *line);

/* The input dim an input guard's text names first ("x.size()[1]" in "((x.size()[0]*...",
 * any input's), written into dim; false when it names none. */
static bool first_dim(const char *text, char *dim, size_t n) {
  const char *at = strstr(text, ".size()[");
  if (!at) return false;
  const char *start = at;
  while (start > text && (start[-1] == '_' || start[-1] == '.' || (start[-1] >= '0' && start[-1] <= '9') ||
                          (start[-1] >= 'a' && start[-1] <= 'z') || (start[-1] >= 'A' && start[-1] <= 'Z') ||
                          start[-1] == '[' || start[-1] == ']'))
    start--;
  while (start < at && (*start == '.' || *start == '[' || *start == ']')) start++; /* not a bracket of an expression */
  const char *end = strchr(at + 8, ']');
  if (!end || start == at || (size_t)(end + 1 - start) >= n) return false;
  snprintf(dim, n, "%.*s", (int)(end + 1 - start), start);
  return true;
}

static bool is_input_guard(const sc_contract_item *it) { return strncmp(it->name, "input guard ", 12) == 0; }

/* One change: its line, and to JUnit and the diagnostics stream. */
static void print_change(const check_job *job, const sc_contract_item *it, const char *indent) {
  char *line = sc_contract_describe(it);
  printf("%s%s\n", indent, line);
  report_change(job, line);
  free(line);
}

/* The changes in the user's terms, an input guard under the input dim it names first:
 * the dim's own change, then its guards, indented; a dim whose range did not change gets a
 * line of its own for its guards.  Guards over no input dim, and the rest, as they come. */
static void print_changes(const check_job *job, const sc_contract_diff *d) {
  char dim[256], other[256];
  bool *done = calloc(d->n_items ? d->n_items : 1, sizeof *done);
  for (size_t i = 0; i < d->n_items; i++) {
    const sc_contract_item *it = &d->items[i];
    if (!it->changed || done[i] || is_input_guard(it)) continue;
    print_change(job, it, "  ");
    done[i] = true;
    for (size_t k = 0; k < d->n_items; k++)
      if (!done[k] && d->items[k].changed && is_input_guard(&d->items[k]) &&
          first_dim(d->items[k].name + 12, dim, sizeof dim) && strcmp(dim, it->name) == 0) {
        print_change(job, &d->items[k], "      ");
        done[k] = true;
      }
  }
  for (size_t i = 0; i < d->n_items; i++) { /* guards of dims whose range stayed */
    const sc_contract_item *it = &d->items[i];
    if (!it->changed || done[i] || !first_dim(it->name + 12, dim, sizeof dim)) continue;
    printf("  %s: range unchanged; its input guards:\n", dim);
    for (size_t k = i; k < d->n_items; k++)
      if (!done[k] && d->items[k].changed && is_input_guard(&d->items[k]) &&
          first_dim(d->items[k].name + 12, other, sizeof other) && strcmp(other, dim) == 0) {
        print_change(job, &d->items[k], "      ");
        done[k] = true;
      }
  }
  for (size_t i = 0; i < d->n_items; i++)
    if (d->items[i].changed && !done[i]) print_change(job, &d->items[i], "  ");
  free(done);
}

static void report_change(const check_job *job, const char *line) {
  if (sc_diags_as_text()) return; /* stdout has it */
  sc_ctx *ctx = sc_ctx_new();
  sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_CONTRACT_CHANGED, SC_SEV_ERROR, job->baseline, NULL, "%s: %s",
                            job->name, line);
  sc_diag_set_hint(&ctx->diags, d, "if the change is intended, update the baseline: shapec check --update");
  sc_defer_diags(ctx);
  sc_ctx_free(ctx);
}

int sc_cmd_check(const sc_check_options *o) {
  check_job single = {o->model, o->model, o->spec, o->weights, o->baseline};
  check_job *jobs = &single;
  int n = 1;
  if (o->manifest) {
    n = read_manifest(o->manifest, &jobs);
    if (n < 0) {
      sc_flush_diags();
      return -n;
    }
  }
  check_result *results = calloc((size_t)n + 1, sizeof *results);
  int status = 0;
  size_t changed_models = 0;
  for (int j = 0; j < n; j++) {
    double t0 = sc_clock_seconds();
    int s = check_one(&jobs[j], o->update, o->prefer_deferred_asserts, &results[j]);
    results[j].seconds = sc_clock_seconds() - t0;
    check_result *r = &results[j];
    if (r->problem) report_problem(r, &jobs[j]);
    if (r->updated) printf("%s: baseline %s updated\n", jobs[j].name, jobs[j].baseline);
    if (r->compared && r->diff.n_changed == 0) printf("%s: no change against %s\n", jobs[j].name, jobs[j].baseline);
    if (r->compared && r->diff.n_changed) {
      changed_models++;
      printf("%s: %zu change%s against %s:\n", jobs[j].name, r->diff.n_changed, r->diff.n_changed == 1 ? "" : "s",
             jobs[j].baseline);
      print_changes(&jobs[j], &r->diff);
    }
    /* the worst outcome decides: a file or internal problem over a change */
    if (s > status) status = s;
  }
  if (o->junit && !write_junit(o->junit, jobs, results, (size_t)n) && status < SC_EXIT_IO) status = SC_EXIT_IO;
  if (n > 1) printf("checked %d models: %zu changed\n", n, changed_models);
  sc_flush_diags();
  for (int j = 0; j < n; j++) {
    sc_contract_diff_free(&results[j].diff);
    free(results[j].problem);
  }
  free(results);
  if (jobs != &single) {
    for (int j = 0; j < n; j++) {
      free((void *)jobs[j].name);
      free((void *)jobs[j].model);
      free((void *)jobs[j].spec);
      free((void *)jobs[j].weights);
      free((void *)jobs[j].baseline);
    }
    free(jobs);
  }
  return status;
}
