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

#include "args.h"
#include "lib/base/fileio.h"
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
    for (size_t i = 0; i < ctx->diags.n_items; i++) sc_diag_print(stderr, &ctx->diags.items[i]);
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
    for (size_t i = 0; i < ctx->diags.n_items; i++) sc_diag_print(stderr, &ctx->diags.items[i]);
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
    return SC_EXIT_USER;
  }
  sc_contract_compare(baseline, current, &r->diff);
  r->compared = true;
  cJSON_Delete(baseline);
  cJSON_Delete(current);
  return r->diff.n_changed ? SC_EXIT_USER : 0;
}

/* ---- JUnit ------------------------------------------------------------------------------ */

static void junit_case(xmlNodePtr suite, const char *classname, const char *name, const char *failure,
                       const char *detail) {
  xmlNodePtr tc = xmlNewChild(suite, NULL, BAD_CAST "testcase", NULL);
  xmlNewProp(tc, BAD_CAST "classname", BAD_CAST classname);
  xmlNewProp(tc, BAD_CAST "name", BAD_CAST name);
  if (failure) {
    xmlNodePtr f = xmlNewChild(tc, NULL, BAD_CAST "failure", NULL);
    xmlNewProp(f, BAD_CAST "message", BAD_CAST failure);
    xmlNewProp(f, BAD_CAST "type", BAD_CAST "contract-change");
    xmlAddChild(f, xmlNewText(BAD_CAST(detail ? detail : failure)));
  }
}

static bool write_junit(const char *path, const check_job *jobs, const check_result *results, size_t n) {
  xmlDocPtr doc = xmlNewDoc(BAD_CAST "1.0");
  xmlNodePtr root = xmlNewNode(NULL, BAD_CAST "testsuites");
  xmlDocSetRootElement(doc, root);
  xmlNewProp(root, BAD_CAST "name", BAD_CAST "shapec check");
  size_t all_tests = 0, all_failures = 0;
  for (size_t j = 0; j < n; j++) {
    const check_result *r = &results[j];
    xmlNodePtr suite = xmlNewChild(root, NULL, BAD_CAST "testsuite", NULL);
    xmlNewProp(suite, BAD_CAST "name", BAD_CAST jobs[j].name);
    size_t tests = 0, failures = 0;
    if (!r->compared) {
      junit_case(suite, jobs[j].name, "report", r->problem ? r->problem : (r->updated ? NULL : "not compared"), NULL);
      tests = 1;
      failures = r->problem || !r->updated;
    }
    for (size_t i = 0; r->compared && i < r->diff.n_items; i++) {
      const sc_contract_item *it = &r->diff.items[i];
      char *text = it->changed ? sc_contract_describe(it) : NULL;
      junit_case(suite, jobs[j].name, it->name, text, text);
      free(text);
      tests++;
      failures += it->changed;
    }
    char num[32];
    snprintf(num, sizeof num, "%zu", tests);
    xmlNewProp(suite, BAD_CAST "tests", BAD_CAST num);
    snprintf(num, sizeof num, "%zu", failures);
    xmlNewProp(suite, BAD_CAST "failures", BAD_CAST num);
    xmlNewProp(suite, BAD_CAST "errors", BAD_CAST "0");
    all_tests += tests;
    all_failures += failures;
  }
  char num[32];
  snprintf(num, sizeof num, "%zu", all_tests);
  xmlNewProp(root, BAD_CAST "tests", BAD_CAST num);
  snprintf(num, sizeof num, "%zu", all_failures);
  xmlNewProp(root, BAD_CAST "failures", BAD_CAST num);
  xmlChar *mem = NULL;
  int size = 0;
  xmlDocDumpFormatMemoryEnc(doc, &mem, &size, "UTF-8", 1);
  xmlFreeDoc(doc);
  sc_ctx *ctx = sc_ctx_new();
  bool ok = mem && sc_file_write_atomic(ctx, path, mem, (size_t)size);
  for (size_t i = 0; i < ctx->diags.n_items; i++) sc_diag_print(stderr, &ctx->diags.items[i]);
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

/* {"models": [{"model": ..., "spec": ..., "baseline": ..., "weights": ..., "name": ...}]},
 * paths relative to the manifest.  Returns the number of jobs, or -1 after an error. */
static int read_manifest(const char *path, check_job **jobs_out) {
  sc_ctx *ctx = sc_ctx_new();
  size_t len;
  char *text = sc_file_read(ctx, path, &len);
  int status = sc_print_diags(ctx);
  sc_ctx_free(ctx);
  if (!text) return -status;
  cJSON *root = cJSON_Parse(text);
  free(text);
  const cJSON *models = cJSON_GetObjectItemCaseSensitive(root, "models");
  if (!cJSON_IsArray(models)) {
    fprintf(stderr, "%s: error: a manifest is {\"models\": [{\"model\": ..., \"spec\": ..., \"baseline\": ...}, ...]}; "
                    "'models' is %s\n", path, root ? "missing or not an array" : "unreadable (not JSON)");
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
      fprintf(stderr, "%s: error: at models[%d]: 'model' and 'baseline' are required strings\n", path, k);
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

int sc_cmd_check(const sc_check_options *o) {
  check_job single = {o->model, o->model, o->spec, o->weights, o->baseline};
  check_job *jobs = &single;
  int n = 1;
  if (o->manifest) {
    n = read_manifest(o->manifest, &jobs);
    if (n < 0) return -n;
  }
  check_result *results = calloc((size_t)n + 1, sizeof *results);
  int status = 0;
  size_t changed_models = 0;
  for (int j = 0; j < n; j++) {
    int s = check_one(&jobs[j], o->update, o->prefer_deferred_asserts, &results[j]);
    check_result *r = &results[j];
    if (r->problem) fprintf(stderr, "shapec: check: %s\n", r->problem);
    if (r->updated) printf("%s: baseline %s updated\n", jobs[j].name, jobs[j].baseline);
    if (r->compared && r->diff.n_changed == 0) printf("%s: no change against %s\n", jobs[j].name, jobs[j].baseline);
    if (r->compared && r->diff.n_changed) {
      changed_models++;
      printf("%s: %zu change%s against %s:\n", jobs[j].name, r->diff.n_changed, r->diff.n_changed == 1 ? "" : "s",
             jobs[j].baseline);
      for (size_t i = 0; i < r->diff.n_items; i++) {
        if (!r->diff.items[i].changed) continue;
        char *line = sc_contract_describe(&r->diff.items[i]);
        printf("  %s\n", line);
        free(line);
      }
    }
    /* the worst outcome decides: a file or internal problem over a change */
    if (s > status) status = s;
  }
  if (o->junit && !write_junit(o->junit, jobs, results, (size_t)n) && status < SC_EXIT_IO) status = SC_EXIT_IO;
  if (n > 1) printf("checked %d models: %zu changed\n", n, changed_models);
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
