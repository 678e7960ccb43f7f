/* fit_check.c - observed calls against an export's report (fit_check.h). */
#include "fit_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/symexpr.h"

/* The symbols bound to one call's sizes and values. */
typedef struct binding {
  const char **names;
  int64_t *values;
  size_t n;
} binding;

static bool lookup(void *env, const char *name, int64_t *value) {
  const binding *b = env;
  for (size_t i = 0; i < b->n; i++)
    if (strcmp(b->names[i], name) == 0) {
      *value = b->values[i];
      return true;
    }
  return false;
}

static const sc_obs_value *call_value(const sc_obs_call *c, const char *name) {
  for (size_t i = 0; i < c->n_values; i++)
    if (strcmp(c->values[i].name, name) == 0) return &c->values[i];
  return NULL;
}

/* The observed value of a symbol's source ("x.size()[1]" or "n"); false when the call
 * has none. */
static bool source_value(const sc_obs_call *c, const char *source, int64_t *out) {
  char name[256];
  int dim = -1;
  const char *dot = strstr(source, ".size()[");
  if (dot) {
    size_t n = (size_t)(dot - source);
    const char *digits = dot + strlen(".size()[");
    char *end;
    long k = strtol(digits, &end, 10); /* too large: LONG_MAX, past every rank */
    if (n >= sizeof name || *digits < '0' || *digits > '9' || k >= SC_OBS_MAX_RANK || strcmp(end, "]") != 0) return false;
    dim = (int)k;
    memcpy(name, source, n);
    name[n] = '\0';
  } else {
    if (strlen(source) >= sizeof name) return false;
    strcpy(name, source);
  }
  const sc_obs_value *v = call_value(c, name);
  if (!v) return false;
  if (dim >= 0) {
    if (v->kind != SC_OBS_TENSOR || dim >= v->rank) return false;
    *out = v->sizes[dim];
    return true;
  }
  if (v->kind != SC_OBS_INT && v->kind != SC_OBS_BOOL) return false;
  *out = v->i;
  return true;
}

static const char *str_of(const cJSON *o, const char *key) {
  return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* Evaluates a report expression under the binding; false when it cannot be (a symbol the
 * call does not bind, such as an unbacked one). */
static bool eval_text(sc_ctx *ctx, const char *text, const binding *b, int64_t *out) {
  const sc_expr *e = text ? sc_expr_parse(ctx, text, NULL, NULL) : NULL;
  return e && sc_expr_eval(e, lookup, (void *)b, out);
}

/* Why one call does not fit, or NULL; *path gets the JSON path of the value at fault. */
static const char *why_not(sc_ctx *ctx, const cJSON *report, const sc_obs_call *c, size_t call_index,
                           const char **path) {
  const cJSON *symbols = cJSON_GetObjectItemCaseSensitive(report, "symbols");
  size_t n_symbols = (size_t)cJSON_GetArraySize(symbols);
  binding b = {sc_arena_alloc(&ctx->arena, (n_symbols + 1) * sizeof *b.names),
               sc_arena_alloc(&ctx->arena, (n_symbols + 1) * sizeof *b.values), 0};
  const cJSON *s;
  cJSON_ArrayForEach(s, symbols) {
    const char *source = str_of(s, "source");
    if (source && source_value(c, source, &b.values[b.n])) b.names[b.n++] = s->string;
  }
  *path = sc_arena_printf(&ctx->arena, "calls[%zu]", call_index);
  /* each user input: its rank, its static sizes, and sizes that are expressions of others */
  const cJSON *in;
  cJSON_ArrayForEach(in, cJSON_GetObjectItemCaseSensitive(report, "inputs")) {
    const char *name = str_of(in, "name"), *kind = str_of(in, "kind");
    if (!name || !kind || strcmp(kind, "user_input") != 0) continue;
    const sc_obs_value *v = call_value(c, name);
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(in, "shape");
    if (!v || !shape) continue;
    *path = sc_arena_printf(&ctx->arena, "calls[%zu].%s", call_index, name);
    if (v->kind != SC_OBS_TENSOR) return sc_arena_printf(&ctx->arena, "'%s' is a tensor in the program", name);
    if (v->rank != cJSON_GetArraySize(shape))
      return sc_arena_printf(&ctx->arena, "'%s' has %d dims, but the program's has %d", name, v->rank,
                             cJSON_GetArraySize(shape));
    int k = 0;
    const cJSON *size;
    cJSON_ArrayForEach(size, shape) {
      int64_t want;
      /* a number from the report: an integer in int64's range (the cast of another is undefined) */
      bool known = cJSON_IsNumber(size) ? size->valuedouble >= -9.2e18 && size->valuedouble <= 9.2e18 &&
                                              (want = (int64_t)size->valuedouble, true)
                                        : eval_text(ctx, cJSON_GetStringValue(size), &b, &want);
      if (known && want != v->sizes[k]) {
        *path = sc_arena_printf(&ctx->arena, "calls[%zu].%s[%d]", call_index, name, k);
        if (cJSON_IsNumber(size))
          return sc_arena_printf(&ctx->arena, "%s.size()[%d] = %lld, but the program's is always %lld", name, k,
                                 (long long)v->sizes[k], (long long)want);
        return sc_arena_printf(&ctx->arena, "%s.size()[%d] = %lld, but the program needs %s = %lld", name, k,
                               (long long)v->sizes[k], cJSON_GetStringValue(size), (long long)want);
      }
      k++;
    }
  }
  /* the ranges of the symbols the call binds; a size's lower bound of 2 is tracing's
   * assumption, which the library does not check (0 and 1 run, as in ep.module()) */
  *path = sc_arena_printf(&ctx->arena, "calls[%zu]", call_index);
  const cJSON *ranges = cJSON_GetObjectItemCaseSensitive(report, "range_constraints");
  for (size_t i = 0; i < b.n; i++) {
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(ranges, b.names[i]);
    const char *source = str_of(cJSON_GetObjectItemCaseSensitive(symbols, b.names[i]), "source");
    if (!r || !source) continue;
    bool is_size = strstr(source, ".size()[") != NULL;
    const cJSON *lo = cJSON_GetObjectItemCaseSensitive(r, "min"), *hi = cJSON_GetObjectItemCaseSensitive(r, "max");
    int64_t x = b.values[i];
    if (cJSON_IsNumber(hi) && x > (int64_t)hi->valuedouble)
      return sc_arena_printf(&ctx->arena, "%s = %lld is more than %lld, the most the export allows (%s)", source,
                             (long long)x, (long long)hi->valuedouble, b.names[i]);
    if (cJSON_IsNumber(lo) && x < (int64_t)lo->valuedouble && (!is_size || lo->valuedouble > 2))
      return sc_arena_printf(&ctx->arena, "%s = %lld is less than %lld, the least the export allows (%s)", source,
                             (long long)x, (long long)lo->valuedouble, b.names[i]);
  }
  /* the program's guards and the runtime asserts that only inputs decide */
  const cJSON *g;
  cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(report, "input_guards")) {
    int64_t holds;
    if (eval_text(ctx, str_of(g, "expr"), &b, &holds) && !holds)
      return sc_arena_printf(&ctx->arena, "the program's guard %s does not hold",
                             str_of(g, "text") && *str_of(g, "text") ? str_of(g, "text") : str_of(g, "expr"));
  }
  cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(report, "runtime_asserts")) {
    int64_t holds;
    if (eval_text(ctx, str_of(g, "expr"), &b, &holds) && !holds)
      return sc_arena_printf(&ctx->arena, "the runtime assert %s does not hold", str_of(g, "expr"));
  }
  return NULL;
}

bool sc_obs_fit_report(sc_ctx *ctx, const sc_obs_set *set, const cJSON *report, int max_errors) {
  int n_errors = 0;
  size_t n_bad = 0;
  for (size_t i = 0; i < set->n_files; i++) {
    const sc_obs_file *f = &set->files[i];
    for (size_t c = 0; c < f->n_calls; c++) {
      const char *path;
      const char *why = why_not(ctx, report, &f->calls[c], c, &path);
      if (!why) continue;
      n_bad++;
      if (n_errors++ >= max_errors) continue;
      sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_OBS_CONTRADICTION, SC_SEV_ERROR, f->path, path,
                                "rank %d's call %zu does not fit the export: %s", f->rank, c, why);
      if (strncmp(why, "the program's guard", 19) == 0 || strncmp(why, "the runtime assert", 18) == 0)
        sc_diag_set_hint(&ctx->diags, d,
                         "the program holds only where torch's trace held; export it again from torch with an "
                         "example like this call, or leave the call out of the observations");
      else
        sc_diag_set_hint(&ctx->diags, d,
                         "the program cannot serve this call (it was traced for other sizes); export it from torch "
                         "again with this size dynamic, or leave the call out of the observations");
    }
  }
  if (n_bad > (size_t)max_errors)
    sc_diags_add(&ctx->diags, SC_DIAG_OBS_CONTRADICTION, SC_SEV_ERROR, NULL, NULL,
                 "%zu observed calls in all do not fit the export (the first %d are shown)", n_bad, max_errors);
  return n_bad == 0;
}
