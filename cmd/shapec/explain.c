/* explain.c - `shapec explain`: why each input dim has its range, relation or constant
 * value, told from the report's guards: each with its node, operator, JSON path, the
 * shape rule that emitted it, its outcome, and the input dims it involves. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/report/contract.h"

static const char *str(const cJSON *o, const char *name) {
  const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, name));
  return s ? s : "?";
}


/* "x.size()[0], y.size()[1]": the sources of the symbols expr mentions. */
static void involved_dims(const cJSON *report, const char *expr, char *out, size_t n) {
  out[0] = '\0';
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(report, "symbols")) {
    if (!s->string || !sc_text_mentions_symbol(expr, s->string)) continue;
    size_t len = strlen(out);
    snprintf(out + len, n - len, "%s%s", len ? ", " : "", str(s, "source"));
  }
}

/* "x.0" -> "x.size()[0]"; anything else is taken as written. */
static void subject_of(const char *dim, char *out, size_t n) {
  const char *dot = strrchr(dim, '.');
  if (dot && dot[1] && strspn(dot + 1, "0123456789") == strlen(dot + 1))
    snprintf(out, n, "%.*s.size()[%s]", (int)(dot - dim), dim, dot + 1);
  else snprintf(out, n, "%s", dim);
}

/* Where a dim's facts come from when no guard says: the spec's entry for it, or, for a
 * file exported without a spec (kind PROGRAM, or no spec at all), the program's own sizes
 * and range_constraints. */
static const char *origin_of(const cJSON *report, const char *kind) {
  bool from_program = strcmp(kind, "PROGRAM") == 0 || cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(report, "spec"));
  return from_program ? "the program (its own sizes and range_constraints; no spec was given)" : "the spec";
}

static void explain_dim(const cJSON *report, const char *subject, const cJSON *size, const cJSON *sample,
                        const char *kind) {
  const char *sym = NULL;
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(report, "symbols")) {
    if (strcmp(str(s, "source"), subject) == 0) sym = s->string;
  }
  printf("%s", subject);
  if (sym) printf(" (%s, %s)", sym, str(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(report, "symbols"), sym), "kind"));
  if (cJSON_IsNumber(size)) {
    printf(": static %.0f", size->valuedouble);
  } else if (cJSON_IsString(size) && sym && strcmp(size->valuestring, sym) == 0) {
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(report, "range_constraints"), sym);
    const cJSON *lo = cJSON_GetObjectItemCaseSensitive(r, "min"), *hi = cJSON_GetObjectItemCaseSensitive(r, "max");
    printf(": range [");
    if (cJSON_IsNumber(lo)) printf("%.0f", lo->valuedouble);
    else printf("-int_oo");
    printf(", ");
    if (cJSON_IsNumber(hi)) printf("%.0f", hi->valuedouble);
    else printf("int_oo");
    printf("]");
  } else if (cJSON_IsString(size)) {
    char dims[1024];
    involved_dims(report, size->valuestring, dims, sizeof dims);
    printf(": = %s (in terms of %s)", size->valuestring, dims);
  }
  if (cJSON_IsNumber(sample)) printf(", sample %.0f", sample->valuedouble);
  printf("\n");
  if (!sym && cJSON_IsString(size)) { /* another dim's symbol, or an expression of others' */
    char dims[1024];
    involved_dims(report, size->valuestring, dims, sizeof dims);
    printf("  no symbol of its own: tied to %s (%s) by the program's shapes or guards\n", dims, size->valuestring);
    return;
  }
  if (!sym) {
    printf("  no symbol: static, from %s\n", origin_of(report, kind));
    return;
  }
  const cJSON *sp;
  cJSON_ArrayForEach(sp, cJSON_GetObjectItemCaseSensitive(report, "specializations")) {
    if (strcmp(str(sp, "source"), subject) != 0) continue;
    const char *node = str(sp, "node");
    if (!*node || strcmp(node, "?") == 0) /* a condition the program itself states (guards_code[i]) */
      printf("  first pinned by %s from the program's %s\n", str(sp, "guard"), str(sp, "path"));
    else
      printf("  first pinned by %s at node %s (%s, %s, rule %s)\n", str(sp, "guard"), node, str(sp, "op"),
             str(sp, "path"), str(sp, "rule"));
  }
  int n = 0;
  const cJSON *g;
  const char *lists[2] = {"guards", "runtime_asserts"};
  for (int l = 0; l < 2; l++) {
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(report, lists[l])) {
      const char *expr = str(g, "expr");
      if (!sc_text_mentions_symbol(expr, sym)) continue;
      char dims[1024];
      involved_dims(report, expr, dims, sizeof dims);
      const char *node = str(g, "node");
      if (!*node || strcmp(node, "?") == 0) /* no node: a condition the program itself states (guards_code[i]) */
        printf("  %s from the program's %s: %s; involves %s\n", expr, str(g, "path"),
               l == 0 ? str(g, "outcome") : "runtime assert", dims);
      else
        printf("  %s at node %s (%s, %s, rule %s): %s; involves %s\n", expr, node, str(g, "op"), str(g, "path"),
               str(g, "rule"), l == 0 ? str(g, "outcome") : "runtime assert", dims);
      n++;
    }
  }
  if (n == 0) printf("  no guard mentions it: the range comes from %s\n", origin_of(report, kind));
}

bool sc_explain_report(const char *report_json, const char *dim, bool only_violations) {
  cJSON *report = cJSON_Parse(report_json);
  if (!report) return false;
  char want[512] = "";
  if (dim) subject_of(dim, want, sizeof want);
  bool found = false;
  const cJSON *in;
  cJSON_ArrayForEach(in, cJSON_GetObjectItemCaseSensitive(report, "inputs")) {
    if (strcmp(str(in, "kind"), "user_input") != 0) continue;
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(in, "shape"), *sample = cJSON_GetObjectItemCaseSensitive(in, "sample_shape");
    for (int k = 0; k < cJSON_GetArraySize(shape); k++) {
      char subject[512];
      snprintf(subject, sizeof subject, "%s.size()[%d]", str(in, "name"), k);
      if (dim && strcmp(subject, want) != 0) continue;
      if (only_violations) { /* only dims that a violated guard involves */
        bool involved = false;
        const cJSON *g, *s;
        cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(report, "guards")) {
          if (strcmp(str(g, "outcome"), "violation") != 0) continue;
          cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(report, "symbols")) {
            if (strcmp(str(s, "source"), subject) == 0 && sc_text_mentions_symbol(str(g, "expr"), s->string)) involved = true;
          }
        }
        if (!involved) continue;
      }
      const cJSON *dim_entry = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(in, "dims"), k);
      explain_dim(report, subject, cJSON_GetArrayItem(shape, k), cJSON_GetArrayItem(sample, k), str(dim_entry, "spec"));
      found = true;
    }
  }
  cJSON_Delete(report);
  return found || (!dim && only_violations);
}
