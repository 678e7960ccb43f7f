/* contract.c - the contract of a report and the difference between two (contract.h). */
#include "contract.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/strbuf.h"

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static const char *str_member(const cJSON *o, const char *name) {
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, name);
  return cJSON_IsString(m) ? m->valuestring : NULL;
}

/* The input dim a symbol stands for, "x.size()[0]", or NULL. */
static const char *symbol_source(const cJSON *report, const char *name, size_t len) {
  const cJSON *symbols = cJSON_GetObjectItemCaseSensitive(report, "symbols");
  const cJSON *s;
  cJSON_ArrayForEach(s, symbols) {
    if (s->string && strlen(s->string) == len && strncmp(s->string, name, len) == 0) return str_member(s, "source");
  }
  return NULL;
}

static char *canonical(const char *text);

/* An expression with every symbol written as its source: "s2*s3" -> "x.size()[0]*y.size()[0]",
 * its products and sums in one order (canonical), so that a torch or shapec that numbers its
 * symbols otherwise, and so multiplies them in another order, shows no change. */
static char *in_sources_raw(const cJSON *report, const char *expr);
static char *in_sources(const cJSON *report, const char *expr) {
  char *raw = in_sources_raw(report, expr), *c = canonical(raw);
  free(raw);
  return c;
}

/* Where text[from..to) splits at depth 0 (outside (), []) on sep: the pieces' bounds. */
static size_t split_top(const char *text, size_t from, size_t to, const char *sep, size_t *starts, size_t *ends,
                        size_t max) {
  size_t n = 0, piece = from, len = strlen(sep);
  int depth = 0;
  for (size_t i = from; i < to; i++) {
    char c = text[i];
    if (c == '(' || c == '[') depth++;
    else if (c == ')' || c == ']') depth--;
    else if (depth == 0 && i + len <= to && strncmp(text + i, sep, len) == 0 &&
             !(len == 1 && sep[0] == '*' && ((i + 1 < to && text[i + 1] == '*') || (i > from && text[i - 1] == '*')))) {
      if (n < max) starts[n] = piece, ends[n] = i;
      n++;
      piece = i + len;
      i += len - 1;
    }
  }
  if (n < max) starts[n] = piece, ends[n] = to;
  return n + 1;
}

static int by_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool is_number(const char *s) {
  if (*s == '-') s++;
  if (!*s) return false;
  for (; *s; s++)
    if (!isdigit((unsigned char)*s) && *s != '.') return false;
  return true;
}

enum { MAX_PIECES = 64 };

/* A factor with the arguments of its parentheses canonical: "Eq(b*a, c)" -> "Eq(a*b, c)". */
static void canonical_factor(const char *text, size_t from, size_t to, sc_strbuf *out) {
  const char *open = memchr(text + from, '(', to - from);
  if (!open || text[to - 1] != ')' || (size_t)(open - text) + 1 == to - 1) {
    sc_strbuf_append_n(out, text + from, to - from);
    return;
  }
  size_t in_from = (size_t)(open - text) + 1, in_to = to - 1;
  size_t starts[MAX_PIECES], ends[MAX_PIECES];
  size_t n = split_top(text, in_from, in_to, ", ", starts, ends, MAX_PIECES);
  sc_strbuf_append_n(out, text + from, in_from - from);
  for (size_t k = 0; k < n && n <= MAX_PIECES; k++) {
    char *arg = malloc(ends[k] - starts[k] + 1);
    memcpy(arg, text + starts[k], ends[k] - starts[k]);
    arg[ends[k] - starts[k]] = '\0';
    char *c = canonical(arg);
    sc_strbuf_printf(out, "%s%s", k ? ", " : "", c);
    free(c);
    free(arg);
  }
  if (n > MAX_PIECES) sc_strbuf_append_n(out, text + in_from, in_to - in_from);
  sc_strbuf_append(out, ")");
}

/* Whether text[from..to) holds c at depth 0. */
static bool has_top(const char *text, size_t from, size_t to, char c) {
  int depth = 0;
  for (size_t i = from; i < to; i++) {
    if (text[i] == '(' || text[i] == '[') depth++;
    else if (text[i] == ')' || text[i] == ']') depth--;
    else if (depth == 0 && text[i] == c) return true;
  }
  return false;
}

/* A term with its factors sorted, a number first: "y*2*x" -> "2*x*y".  A term with a
 * division at depth 0 keeps its order ((a*b)//c is not a*(b//c)). */
static char *canonical_term(const char *text, size_t from, size_t to) {
  size_t starts[MAX_PIECES], ends[MAX_PIECES];
  size_t n = split_top(text, from, to, "*", starts, ends, MAX_PIECES);
  sc_strbuf sb = {0};
  if (n > MAX_PIECES || has_top(text, from, to, '/')) {
    sc_strbuf_append_n(&sb, text + from, to - from);
  } else {
    char *factors[MAX_PIECES];
    for (size_t k = 0; k < n; k++) {
      sc_strbuf f = {0};
      canonical_factor(text, starts[k], ends[k], &f);
      factors[k] = dup_str(sc_strbuf_cstr(&f));
      sc_strbuf_free(&f);
    }
    qsort(factors, n, sizeof *factors, by_text);
    for (int numbers = 1; numbers >= 0; numbers--) /* the numbers first, then the rest in order */
      for (size_t k = 0; k < n; k++)
        if (is_number(factors[k]) == (numbers == 1)) sc_strbuf_printf(&sb, "%s%s", sb.len ? "*" : "", factors[k]);
    for (size_t k = 0; k < n; k++) free(factors[k]);
  }
  char *r = dup_str(sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return r;
}

/* A sum's terms in one order and each term's factors in one order: "y*x + 1" and
 * "1 + x*y" read alike.  Comparisons (Eq(..), "a <= b") keep their sides. */
static int canonical_depth; /* nesting of canonical(): a crafted baseline's expression may nest deeply */

static char *canonical_at(const char *text);
static char *canonical(const char *text) {
  if (canonical_depth >= 64) return dup_str(text); /* deeper than any expression torch writes: as written */
  canonical_depth++;
  char *r = canonical_at(text);
  canonical_depth--;
  return r;
}

static char *canonical_at(const char *text) {
  /* a comparison: each side on its own (nothing moves across the operator) */
  static const char *const ops[] = {" >= ", " <= ", " == ", " != ", " < ", " > "};
  int depth = 0;
  for (size_t i = 0; text[i]; i++) {
    if (text[i] == '(' || text[i] == '[') depth++;
    else if (text[i] == ')' || text[i] == ']') depth--;
    for (size_t o = 0; depth == 0 && o < sizeof ops / sizeof *ops; o++)
      if (strncmp(text + i, ops[o], strlen(ops[o])) == 0) {
        char *left = malloc(i + 1);
        memcpy(left, text, i);
        left[i] = '\0';
        char *l = canonical(left), *r = canonical(text + i + strlen(ops[o]));
        sc_strbuf sb = {0};
        sc_strbuf_printf(&sb, "%s%s%s", l, ops[o], r);
        char *out = dup_str(sc_strbuf_cstr(&sb));
        sc_strbuf_free(&sb);
        free(left), free(l), free(r);
        return out;
      }
  }
  size_t len = strlen(text), starts[MAX_PIECES], ends[MAX_PIECES];
  /* the terms, split at " + " and " - " at depth 0, each with its sign */
  char *terms[MAX_PIECES];
  bool negative[MAX_PIECES];
  size_t n = 0, piece = 0;
  depth = 0;
  bool neg = false, ok = true;
  if (text[0] == '-' && !is_number(text)) { /* a leading minus is the first term's sign */
    neg = true;
    piece = 1;
  }
  for (size_t i = piece; i <= len && ok; i++) {
    char c = i < len ? text[i] : '\0';
    if (c == '(' || c == '[') depth++;
    else if (c == ')' || c == ']') depth--;
    bool cut = i == len || (depth == 0 && i + 3 <= len && (strncmp(text + i, " + ", 3) == 0 || strncmp(text + i, " - ", 3) == 0));
    if (!cut) continue;
    if (n == MAX_PIECES) {
      ok = false;
      break;
    }
    terms[n] = canonical_term(text, piece, i);
    negative[n++] = neg;
    if (i < len) {
      neg = text[i + 1] == '-';
      piece = i + 3;
      i += 2;
    }
  }
  (void)starts, (void)ends;
  sc_strbuf sb = {0};
  if (ok && n > 1) {
    /* sort the terms (with their signs) by their text, a constant last, as sympy writes
     * "x + 2" */
    for (size_t a = 1; a < n; a++)
      for (size_t b = a; b > 0 && (is_number(terms[b - 1]) > is_number(terms[b]) ||
                                   (is_number(terms[b - 1]) == is_number(terms[b]) && strcmp(terms[b - 1], terms[b]) > 0));
           b--) {
        char *t = terms[b - 1];
        terms[b - 1] = terms[b], terms[b] = t;
        bool s = negative[b - 1];
        negative[b - 1] = negative[b], negative[b] = s;
      }
  }
  for (size_t k = 0; ok && k < n; k++) {
    if (k == 0) sc_strbuf_printf(&sb, "%s%s", negative[k] ? "-" : "", terms[k]);
    else sc_strbuf_printf(&sb, " %c %s", negative[k] ? '-' : '+', terms[k]);
  }
  for (size_t k = 0; k < n; k++) free(terms[k]);
  char *r = dup_str(ok ? sc_strbuf_cstr(&sb) : text);
  sc_strbuf_free(&sb);
  return r;
}

static char *in_sources_raw(const cJSON *report, const char *expr) {
  sc_strbuf sb = {0};
  for (const char *p = expr; *p;) {
    if (isalpha((unsigned char)*p) || *p == '_') {
      const char *start = p;
      while (isalnum((unsigned char)*p) || *p == '_') p++;
      const char *src = symbol_source(report, start, (size_t)(p - start));
      if (src) sc_strbuf_append(&sb, src);
      else sc_strbuf_append_n(&sb, start, (size_t)(p - start));
    } else {
      sc_strbuf_append_n(&sb, p, 1);
      p++;
    }
  }
  char *s = dup_str(sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return s;
}

/* Whether expr mentions the symbol sym as a whole word. */
bool sc_text_mentions_symbol(const char *expr, const char *sym) {
  size_t n = strlen(sym);
  for (const char *p = strstr(expr, sym); p; p = strstr(p + 1, sym)) {
    bool left = p == expr || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    bool right = !(isalnum((unsigned char)p[n]) || p[n] == '_');
    if (left && right) return true;
  }
  return false;
}

static void reset(sc_strbuf *sb) {
  sb->len = 0;
  if (sb->data) sb->data[0] = '\0';
}

static void bound_text(sc_strbuf *sb, const cJSON *v, const char *unbounded) {
  if (cJSON_IsNumber(v)) {
    /* exact for the integers a report holds (written in full, parsed as double) */
    sc_strbuf_printf(sb, "%.0f", v->valuedouble);
  } else {
    sc_strbuf_append(sb, unbounded);
  }
}

/* A fact per subject, in report order. */
typedef struct fact {
  char *name, *text;
  char *symbol; /* the symbol whose source this dim is (for causes), or NULL */
  char *spec;   /* the spec's entry for this dim, compact JSON, or NULL */
} fact;

typedef struct facts {
  fact *items;
  size_t n, cap;
} facts;

static fact *add_fact(facts *f, const char *name, const char *text, const char *symbol) {
  if (f->n == f->cap) {
    f->cap = f->cap ? 2 * f->cap : 16;
    f->items = realloc(f->items, f->cap * sizeof *f->items);
  }
  f->items[f->n] = (fact){dup_str(name), dup_str(text), symbol ? dup_str(symbol) : NULL, NULL};
  return &f->items[f->n++];
}

static void free_facts(facts *f) {
  for (size_t i = 0; i < f->n; i++) {
    free(f->items[i].name);
    free(f->items[i].text);
    free(f->items[i].symbol);
    free(f->items[i].spec);
  }
  free(f->items);
}

/* The symbol whose source is `subject`, or NULL. */
static const char *symbol_of_source(const cJSON *report, const char *subject) {
  const cJSON *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(report, "symbols")) {
    const char *src = str_member(s, "source");
    if (src && strcmp(src, subject) == 0) return s->string;
  }
  return NULL;
}

static void dim_fact(const cJSON *report, const char *subject, const cJSON *size, sc_strbuf *sb) {
  if (cJSON_IsNumber(size)) {
    sc_strbuf_printf(sb, "static %.0f", size->valuedouble);
    return;
  }
  const char *expr = cJSON_IsString(size) ? size->valuestring : "?";
  const char *own = symbol_of_source(report, subject);
  if (own && strcmp(own, expr) == 0) { /* its own symbol: its range */
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(report, "range_constraints"), expr);
    sc_strbuf_append(sb, "range [");
    bound_text(sb, cJSON_GetObjectItemCaseSensitive(r, "min"), "-int_oo");
    sc_strbuf_append(sb, ", ");
    bound_text(sb, cJSON_GetObjectItemCaseSensitive(r, "max"), "int_oo");
    sc_strbuf_append(sb, "]");
    return;
  }
  char *rel = in_sources(report, expr);
  sc_strbuf_printf(sb, "= %s", rel);
  free(rel);
}

static void shape_text(const cJSON *report, const cJSON *shape, sc_strbuf *sb) {
  sc_strbuf_append(sb, "[");
  int k = 0;
  const cJSON *d;
  cJSON_ArrayForEach(d, shape) {
    if (k++) sc_strbuf_append(sb, ", ");
    if (cJSON_IsNumber(d)) {
      sc_strbuf_printf(sb, "%.0f", d->valuedouble);
    } else if (cJSON_IsString(d)) {
      char *s = in_sources(report, d->valuestring);
      sc_strbuf_append(sb, s);
      free(s);
    }
  }
  sc_strbuf_append(sb, "]");
}

/* A dim's spec as the user writes it in the spec file: "_DimHint.AUTO", 4, null, "dx",
 * "2*dx + 1", with an object leaf's bounds. */
static char *spec_text(const cJSON *dim) {
  const char *kind = str_member(dim, "spec"), *root = str_member(dim, "dim");
  const cJSON *size = cJSON_GetObjectItemCaseSensitive(dim, "size"), *lo = cJSON_GetObjectItemCaseSensitive(dim, "min"),
              *hi = cJSON_GetObjectItemCaseSensitive(dim, "max");
  sc_strbuf sb = {0};
  if (!kind) sc_strbuf_append(&sb, "?");
  else if (strcmp(kind, "NAMED") == 0 && root) {
    const cJSON *coeff = cJSON_GetObjectItemCaseSensitive(dim, "coeff"), *offset = cJSON_GetObjectItemCaseSensitive(dim, "offset");
    double a = cJSON_IsNumber(coeff) ? coeff->valuedouble : 1, b = cJSON_IsNumber(offset) ? offset->valuedouble : 0;
    sc_strbuf_append(&sb, "\"");
    if (a != 1) sc_strbuf_printf(&sb, "%.0f*", a);
    sc_strbuf_append(&sb, root);
    if (b) sc_strbuf_printf(&sb, " %c %.0f", b < 0 ? '-' : '+', b < 0 ? -b : b);
    sc_strbuf_append(&sb, "\"");
  } else if (strcmp(kind, "STATIC") == 0 && cJSON_IsNumber(size)) sc_strbuf_printf(&sb, "%.0f", size->valuedouble);
  else if (strcmp(kind, "STATIC") == 0) sc_strbuf_append(&sb, "null");
  else if (strcmp(kind, "PROGRAM") == 0) sc_strbuf_append(&sb, "(the program's own)");
  else sc_strbuf_printf(&sb, "\"_DimHint.%s\"", kind);
  if (cJSON_IsNumber(lo) || cJSON_IsNumber(hi)) {
    sc_strbuf_append(&sb, " with");
    if (cJSON_IsNumber(lo)) sc_strbuf_printf(&sb, " min %.0f", lo->valuedouble);
    if (cJSON_IsNumber(hi)) sc_strbuf_printf(&sb, " max %.0f", hi->valuedouble);
  }
  char *r = dup_str(sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return r;
}

static void collect(const cJSON *report, facts *f) {
  sc_strbuf sb = {0};
  /* status */
  const char *status = str_member(report, "status");
  sc_strbuf_append(&sb, status ? status : "missing");
  const cJSON *err = cJSON_GetObjectItemCaseSensitive(report, "error");
  if (err) sc_strbuf_printf(&sb, ": %s", str_member(err, "kind") ? str_member(err, "kind") : "error");
  add_fact(f, "status", sc_strbuf_cstr(&sb), NULL);
  /* user inputs and their dims */
  const cJSON *in;
  cJSON_ArrayForEach(in, cJSON_GetObjectItemCaseSensitive(report, "inputs")) {
    const char *kind = str_member(in, "kind"), *name = str_member(in, "name");
    if (!kind || strcmp(kind, "user_input") != 0 || !name) continue;
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(in, "shape");
    reset(&sb);
    sc_strbuf_printf(&sb, "%s, rank %d", str_member(in, "dtype") ? str_member(in, "dtype") : "non-tensor",
                     cJSON_GetArraySize(shape));
    add_fact(f, name, sc_strbuf_cstr(&sb), NULL);
    int k = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, shape) {
      char subject[512];
      snprintf(subject, sizeof subject, "%s.size()[%d]", name, k++);
      reset(&sb);
      dim_fact(report, subject, d, &sb);
      fact *df = add_fact(f, subject, sc_strbuf_cstr(&sb), symbol_of_source(report, subject));
      const cJSON *spec = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(in, "dims"), k - 1);
      if (spec) df->spec = spec_text(spec);
    }
  }
  /* outputs */
  reset(&sb);
  const cJSON *out;
  int n_out = 0;
  cJSON_ArrayForEach(out, cJSON_GetObjectItemCaseSensitive(report, "outputs")) {
    if (n_out++) sc_strbuf_append(&sb, "; ");
    sc_strbuf_printf(&sb, "%s: %s ", str_member(out, "name") ? str_member(out, "name") : "?",
                     str_member(out, "dtype") ? str_member(out, "dtype") : "non-tensor");
    shape_text(report, cJSON_GetObjectItemCaseSensitive(out, "shape"), &sb);
  }
  add_fact(f, "outputs", sc_strbuf_cstr(&sb), NULL);
  /* runtime asserts: the subject is the condition itself */
  const cJSON *ra;
  cJSON_ArrayForEach(ra, cJSON_GetObjectItemCaseSensitive(report, "runtime_asserts")) {
    const char *expr = str_member(ra, "expr");
    if (!expr) continue;
    char *rel = in_sources(report, expr);
    reset(&sb);
    sc_strbuf_printf(&sb, "runtime assert %s", rel);
    add_fact(f, sc_strbuf_cstr(&sb), "checked at run time", NULL);
    free(rel);
  }
  /* input guards (guards_code, conditions beyond ranges): written over the inputs already */
  const cJSON *ig;
  cJSON_ArrayForEach(ig, cJSON_GetObjectItemCaseSensitive(report, "input_guards")) {
    const char *text = str_member(ig, "text");
    if (!text) continue;
    reset(&sb);
    sc_strbuf_printf(&sb, "input guard %s", text);
    add_fact(f, sc_strbuf_cstr(&sb), "checked on every call", NULL);
  }
  sc_strbuf_free(&sb);
}

static const fact *find(const facts *f, const char *name) {
  for (size_t i = 0; i < f->n; i++)
    if (strcmp(f->items[i].name, name) == 0) return &f->items[i];
  return NULL;
}

/* Whether `other` has a guard with the same condition, written in sources. */
static bool has_guard(const cJSON *other, const char *expr_in_sources) {
  const cJSON *g;
  cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(other, "guards")) {
    const char *e = str_member(g, "expr");
    if (!e) continue;
    char *s = in_sources(other, e);
    bool same = strcmp(s, expr_in_sources) == 0;
    free(s);
    if (same) return true;
  }
  return false;
}

/* A guard of `in` on `symbol` that `other` does not have: "<prefix> Le(s0, 512) from node
 * view_3 (graph_module.graph.nodes[17])<suffix>". */
/* A guard of `in` on `symbol` that `other` does not have: "<prefix> Le(s0, 512) from node
 * view_3 (graph_module.graph.nodes[17])<suffix>".  Guards whose outcome matches the kind
 * of change (a replacement for a new relation, a range for a new range) come first. */
static char *guard_cause(const cJSON *in, const cJSON *other, const char *symbol, const char *outcome, const char *prefix,
                         const char *suffix) {
  for (int pass = 0; pass < 2; pass++) {
    const cJSON *g;
    cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(in, "guards")) {
      const char *e = str_member(g, "expr"), *o = str_member(g, "outcome");
      if (!e || !sc_text_mentions_symbol(e, symbol)) continue;
      if (pass == 0 && (!outcome || !o || strcmp(o, outcome) != 0)) continue;
      char *s = in_sources(in, e);
      bool known = has_guard(other, s);
      free(s);
      if (known) continue;
      sc_strbuf sb = {0};
      char *dims = in_sources(in, e); /* in input dims, as every other fact */
      sc_strbuf_printf(&sb, "%s %s from node %s (%s)%s", prefix, dims, str_member(g, "node") ? str_member(g, "node") : "?",
                       str_member(g, "path") ? str_member(g, "path") : "?", suffix);
      free(dims);
      char *r = dup_str(sc_strbuf_cstr(&sb));
      sc_strbuf_free(&sb);
      return r;
    }
  }
  return NULL;
}

/* The guard outcome that explains a fact of this kind. */
static const char *outcome_for(const char *fact_text) {
  if (!fact_text) return NULL;
  if (strncmp(fact_text, "= ", 2) == 0) return "replacement";
  if (strncmp(fact_text, "range [", 7) == 0) return "range";
  if (strncmp(fact_text, "static ", 7) == 0) return "specialization";
  return NULL;
}

static char *specialization_cause(const cJSON *report, const char *subject) {
  const cJSON *sp;
  cJSON_ArrayForEach(sp, cJSON_GetObjectItemCaseSensitive(report, "specializations")) {
    const char *src = str_member(sp, "source");
    if (!src || strcmp(src, subject) != 0) continue;
    sc_strbuf sb = {0};
    sc_strbuf_printf(&sb, "specialized by %s from node %s (%s)", str_member(sp, "guard") ? str_member(sp, "guard") : "?",
                     str_member(sp, "node") ? str_member(sp, "node") : "?", str_member(sp, "path") ? str_member(sp, "path") : "?");
    char *r = dup_str(sc_strbuf_cstr(&sb));
    sc_strbuf_free(&sb);
    return r;
  }
  return NULL;
}

/* Why an export now fails, and what fixes it: the error's message, then its suggested fixes. */
static char *status_cause(const cJSON *current) {
  const cJSON *err = cJSON_GetObjectItemCaseSensitive(current, "error");
  const char *message = str_member(err, "message");
  if (!message) return NULL;
  sc_strbuf sb = {0};
  sc_strbuf_append(&sb, message);
  const cJSON *fixes = cJSON_GetObjectItemCaseSensitive(err, "suggested_fixes"), *fix;
  int n = 0;
  if (!strstr(message, "Suggested fixes:")) /* torch's message carries its own block */
    cJSON_ArrayForEach(fix, fixes) {
      if (cJSON_IsString(fix)) sc_strbuf_printf(&sb, "%s%s", n++ ? "\n  " : "\nSuggested fixes:\n  ", fix->valuestring);
    }
  char *r = dup_str(sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return r;
}

static char *find_cause(const cJSON *baseline, const cJSON *current, const fact *before, const fact *after) {
  const char *subject = after ? after->name : before->name;
  if (strcmp(subject, "status") == 0) return after ? status_cause(current) : NULL;
  char *cause = after ? specialization_cause(current, subject) : NULL;
  if (!cause && after && after->symbol)
    cause = guard_cause(current, baseline, after->symbol, outcome_for(after->text), "new guard", "");
  if (!cause && before && before->symbol)
    cause = guard_cause(baseline, current, before->symbol, outcome_for(before->text), "guard", " is gone");
  if (!cause && before && after && before->spec && after->spec && strcmp(before->spec, after->spec) != 0) {
    sc_strbuf sb = {0};
    sc_strbuf_printf(&sb, "the spec changed: %s -> %s", before->spec, after->spec);
    cause = dup_str(sc_strbuf_cstr(&sb));
    sc_strbuf_free(&sb);
  }
  return cause;
}

void sc_contract_compare(const cJSON *baseline, const cJSON *current, sc_contract_diff *out) {
  memset(out, 0, sizeof *out);
  facts b = {0}, c = {0};
  collect(baseline, &b);
  collect(current, &c);
  size_t cap = b.n + c.n;
  out->items = calloc(cap ? cap : 1, sizeof *out->items);
  /* the baseline's subjects in order, then the new ones */
  for (int pass = 0; pass < 2; pass++) {
    const facts *from = pass == 0 ? &b : &c;
    for (size_t i = 0; i < from->n; i++) {
      const fact *before = pass == 0 ? &from->items[i] : find(&b, from->items[i].name);
      const fact *after = pass == 0 ? find(&c, from->items[i].name) : &from->items[i];
      if (pass == 1 && before) continue; /* listed in the first pass */
      sc_contract_item *it = &out->items[out->n_items++];
      it->name = dup_str(from->items[i].name);
      it->before = before ? dup_str(before->text) : NULL;
      it->after = after ? dup_str(after->text) : NULL;
      it->changed = !before || !after || strcmp(before->text, after->text) != 0;
      if (it->changed) {
        out->n_changed++;
        it->cause = find_cause(baseline, current, before, after);
      }
    }
  }
  free_facts(&b);
  free_facts(&c);
}

char *sc_contract_describe(const sc_contract_item *it) {
  sc_strbuf sb = {0};
  if (!it->before) sc_strbuf_printf(&sb, "%s: new: %s", it->name, it->after);
  else if (!it->after) sc_strbuf_printf(&sb, "%s: gone (was: %s)", it->name, it->before);
  else if (strncmp(it->before, "range [", 7) == 0 && strncmp(it->after, "range [", 7) == 0)
    sc_strbuf_printf(&sb, "%s: range %s -> %s", it->name, it->before + 6, it->after + 6);
  else sc_strbuf_printf(&sb, "%s: %s -> %s", it->name, it->before, it->after);
  if (it->cause && !strchr(it->cause, '\n')) {
    sc_strbuf_printf(&sb, ", %s", it->cause);
  } else if (it->cause) { /* a message of several lines: below, indented */
    sc_strbuf_append(&sb, ":\n    ");
    for (const char *c = it->cause; *c; c++) sc_strbuf_append(&sb, *c == '\n' ? "\n    " : (char[2]){*c, 0});
  }
  char *r = dup_str(sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return r;
}

void sc_contract_diff_free(sc_contract_diff *d) {
  for (size_t i = 0; i < d->n_items; i++) {
    free(d->items[i].name);
    free(d->items[i].before);
    free(d->items[i].after);
    free(d->items[i].cause);
  }
  free(d->items);
  memset(d, 0, sizeof *d);
}
