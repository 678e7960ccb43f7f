/* json_reader.c - cJSON with locations; see json_reader.h. */
#include "json_reader.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void line_col(const char *text, size_t pos, int *line, int *col) {
  int l = 1, c = 1;
  for (size_t i = 0; i < pos; i++) {
    if (text[i] == '\n') {
      l++;
      c = 1;
    } else {
      c++;
    }
  }
  *line = l;
  *col = c;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Length of the bare token at text[i] that must be rewritten before cJSON sees it, or 0:
 * Python's NaN / Infinity / -Infinity, and integer literals too long for a double to hold
 * exactly (more than 15 digits), which cJSON would round. */
static size_t rewrite_token(const char *text, size_t len, size_t i) {
  char c = text[i];
  if (c == 'N' && len - i >= 3 && memcmp(text + i, "NaN", 3) == 0) return 3;
  if (c == 'I' && len - i >= 8 && memcmp(text + i, "Infinity", 8) == 0) return 8;
  if (c == '-' && len - i >= 9 && memcmp(text + i, "-Infinity", 9) == 0) return 9;
  if (c == '-' || (c >= '0' && c <= '9')) {
    size_t j = i + (c == '-'), digits = 0;
    while (j < len && text[j] >= '0' && text[j] <= '9') j++, digits++;
    bool integer = j == len || (text[j] != '.' && text[j] != 'e' && text[j] != 'E');
    if (integer && digits > 15) return j - i;
  }
  return 0;
}

/* Length of the number token at text[i] (sign, digits, fraction, exponent), or 0 when
 * none starts there: the scanners step over it whole, so that the digits after a
 * fraction's point are never taken for a long integer of their own. */
static size_t number_token(const char *text, size_t len, size_t i) {
  if (text[i] != '-' && !(text[i] >= '0' && text[i] <= '9')) return 0;
  size_t j = i + 1;
  while (j < len && ((text[j] >= '0' && text[j] <= '9') || text[j] == '.' || text[j] == 'e' || text[j] == 'E' ||
                     ((text[j] == '+' || text[j] == '-') && (text[j - 1] == 'e' || text[j - 1] == 'E'))))
    j++;
  return j - i;
}

/* Scans outside strings for nesting depth and for tokens to rewrite.  Returns the offset
 * where the depth limit is first passed, or len when it never is; *unclosed tells whether
 * the text ends inside a string, array or object (a truncated file). */
static size_t scan(const char *text, size_t len, size_t *n_rewrites, bool *unclosed) {
  int depth = 0;
  bool in_string = false;
  *unclosed = false;
  *n_rewrites = 0;
  for (size_t i = 0; i < len; i++) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') i++;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > SC_JSON_MAX_DEPTH) return i;
    } else if (c == ']' || c == '}') {
      depth--;
    } else {
      size_t t = rewrite_token(text, len, i), num = t ? 0 : number_token(text, len, i);
      if (t) {
        (*n_rewrites)++;
        i += t - 1;
      } else if (num) {
        i += num - 1;
      }
    }
  }
  *unclosed = in_string || depth > 0;
  return len;
}

/* Where rewrite_tokens inserted characters: after out_end, the output is `added` longer. */
typedef struct rewrite_mark {
  size_t out_end, added;
} rewrite_mark;

/* Copies text with each token to rewrite turned into a string: "NaN", "Infinity",
 * "-Infinity", and "\u0001<digits>" for a long integer (see sc_json_exact_int). */
static char *rewrite_tokens(const char *text, size_t len, size_t n, size_t *out_len, rewrite_mark *marks) {
  char *out = sc_xmalloc(len + 8 * n + 1);
  size_t o = 0, k = 0, added = 0;
  bool in_string = false;
  for (size_t i = 0; i < len; i++) {
    char c = text[i];
    if (in_string) {
      out[o++] = c;
      if (c == '\\' && i + 1 < len) out[o++] = text[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    size_t tok = in_string ? 0 : rewrite_token(text, len, i);
    if (tok) {
      out[o++] = '"';
      if (c == '-' || (c >= '0' && c <= '9')) {
        memcpy(out + o, "\\u0001", 6);
        o += 6;
      }
      memcpy(out + o, text + i, tok);
      o += tok;
      out[o++] = '"';
      i += tok - 1;
      added += (c == '-' || (c >= '0' && c <= '9')) ? 8 : 2;
      if (k < n) marks[k++] = (rewrite_mark){o, added};
    } else {
      size_t num = in_string ? 0 : number_token(text, len, i);
      if (num > 1) { /* a number that stays: copied whole */
        memcpy(out + o, text + i, num);
        o += num;
        i += num - 1;
        continue;
      }
      out[o++] = c;
    }
  }
  out[o] = '\0';
  *out_len = o;
  return out;
}

/* cJSON's allocations go through sc_xmalloc: running out of memory while parsing is the
 * fatal out-of-memory error (exit 4), not a JSON syntax error at some position. */
static void *cjson_malloc(size_t size) { return sc_xmalloc(size); }

static void use_checked_allocation(void) {
  static bool done;
  if (done) return;
  cJSON_Hooks hooks = {cjson_malloc, free};
  cJSON_InitHooks(&hooks);
  done = true;
}

/* The document position of a piece's offset: the last segment starting at or before it. */
static size_t to_doc(const sc_json_origin *o, size_t pos) {
  size_t k = 0;
  while (k + 1 < o->n_segments && o->segments[k + 1].at <= pos) k++;
  return o->segments[k].doc_at + (pos - o->segments[k].at);
}

cJSON *sc_json_parse(sc_ctx *ctx, const char *file, const char *text, size_t len) {
  sc_json_segment whole = {0, 0};
  sc_json_origin origin = {.doc = text, .doc_len = len, .segments = &whole, .n_segments = 1};
  return sc_json_parse_in(ctx, file, text, len, &origin);
}

cJSON *sc_json_parse_in(sc_ctx *ctx, const char *file, const char *text, size_t len, const sc_json_origin *origin) {
  use_checked_allocation();
  const char *doc = origin->doc;
  size_t doc_len = origin->doc_len;
  size_t first = 0;
  while (first < len && is_space(text[first])) first++;
  if (first == len) {
    sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_FILE_EMPTY, SC_SEV_ERROR, file, NULL,
                              "the file is empty; expected a JSON document");
    sc_diag_set_hint(&ctx->diags, d, "check that the file was written completely");
    return NULL;
  }
  size_t n_rewrites;
  bool unclosed;
  size_t deep_at = scan(text, len, &n_rewrites, &unclosed);
  if (deep_at < len) {
    sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_JSON_TOO_DEEP, SC_SEV_ERROR, file, NULL,
                              "JSON nesting deeper than %d levels", SC_JSON_MAX_DEPTH);
    line_col(doc, to_doc(origin, deep_at), &d->line, &d->column);
    sc_diag_set_hint(&ctx->diags, d, "this is not a program torch.export wrote; check the file");
    return NULL;
  }
  char *copy = NULL;
  rewrite_mark *marks = NULL;
  const char *src = text;
  size_t src_len = len;
  if (n_rewrites) {
    marks = sc_xcalloc(n_rewrites, sizeof *marks);
    src = copy = rewrite_tokens(text, len, n_rewrites, &src_len, marks);
  }
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(src, src_len, &end, false);
  size_t pos = 0;
  bool trailing = false;
  if (root) {
    pos = (size_t)(end - src);
    while (pos < src_len && (is_space(src[pos]) || src[pos] == '\0')) pos++;
    if (pos < src_len) {
      trailing = true;
      cJSON_Delete(root);
      root = NULL;
    }
  } else {
    pos = end ? (size_t)(end - src) : 0;
    if (pos > src_len) pos = src_len;
  }
  if (!root) {
    /* map the position back to the piece as written, then to the document */
    size_t orig = pos;
    for (size_t k = 0; k < n_rewrites && marks[k].out_end <= pos; k++) orig = pos - marks[k].added;
    if (orig > len) orig = len;
    orig = to_doc(origin, orig);
    if (orig > doc_len) orig = doc_len;
    size_t last = doc_len;
    while (last > 0 && is_space(doc[last - 1])) last--;
    /* an unclosed document whose error sits in its last line is a truncated file */
    bool truncated = !trailing && unclosed && orig <= last && !memchr(doc + orig, '\n', last - orig);
    char snippet[24];
    size_t k = 0; /* the rest of the line, at most 16 characters */
    for (size_t i = orig; i < doc_len && k < 16 && doc[i] != '\n' && doc[i] != '\r'; i++)
      snippet[k++] = (doc[i] >= 0x20 && doc[i] < 0x7f) ? doc[i] : '?';
    snippet[k] = '\0';
    /* a comma before a closing bracket: JSON has no trailing commas (Python's json.dumps
     * writes none, a hand-edited spec often has one) */
    bool trailing_comma = false;
    size_t before = orig, at_close = orig;
    for (size_t back = 0; back <= 1 && back <= orig && !trailing && !truncated && !trailing_comma; back++) {
      /* cJSON stops at the bracket, or just past it */
      before = at_close = orig - back;
      while (at_close < doc_len && is_space(doc[at_close])) at_close++;
      while (before > 0 && is_space(doc[before - 1])) before--;
      trailing_comma = at_close < doc_len && (doc[at_close] == '}' || doc[at_close] == ']') && before > 0 &&
                       doc[before - 1] == ',';
    }
    char close[2] = {trailing_comma ? doc[at_close] : '\0', '\0'};
    sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_JSON_SYNTAX, SC_SEV_ERROR, file, NULL,
                              trailing         ? "JSON syntax error: unexpected text after the document, near '%s'"
                              : truncated      ? "JSON syntax error: the document ends too early (truncated file?)%.0s"
                              : trailing_comma ? "JSON syntax error: a comma before '%s' (JSON allows no trailing comma: "
                                                 "remove it)"
                                               : "JSON syntax error near '%s'",
                              trailing_comma ? close : snippet);
    line_col(doc, truncated ? last : trailing_comma ? before - 1 : orig, &d->line, &d->column);
  }
  free(marks);
  free(copy);
  return root;
}

void sc_jr_init(sc_jr *jr, sc_ctx *ctx, const char *file, const char *root_path) {
  jr->ctx = ctx;
  jr->file = file;
  jr->path_len = 0;
  jr->path[0] = '\0';
  if (root_path) {
    snprintf(jr->path, sizeof jr->path, "%s", root_path);
    jr->path_len = strlen(jr->path);
  }
}

/* Appends raw text to the path; a path that would overflow ends in "...". Hot: every
 * member read goes through here, so no printf. */
static size_t jr_append(sc_jr *jr, const char *text, size_t n) {
  size_t saved = jr->path_len;
  if (jr->path_len + n + 1 > sizeof jr->path) {
    jr->path_len = sizeof jr->path - 1;
    memcpy(jr->path + sizeof jr->path - 4, "...", 4);
    return saved;
  }
  memcpy(jr->path + jr->path_len, text, n);
  jr->path_len += n;
  jr->path[jr->path_len] = '\0';
  return saved;
}

size_t sc_jr_push_key(sc_jr *jr, const char *key) {
  size_t saved = jr->path_len;
  if (jr->path_len) jr_append(jr, ".", 1);
  jr_append(jr, key, strlen(key));
  return saved;
}

size_t sc_jr_push_index(sc_jr *jr, size_t i) {
  char buf[24];
  size_t n = sizeof buf;
  buf[--n] = ']';
  do {
    buf[--n] = (char)('0' + i % 10);
    i /= 10;
  } while (i);
  buf[--n] = '[';
  return jr_append(jr, buf + n, sizeof buf - n);
}

void sc_jr_pop(sc_jr *jr, size_t saved) {
  jr->path_len = saved;
  jr->path[saved] = '\0';
}

static sc_diag *jr_vrecord(sc_jr *jr, sc_diag_code code, sc_severity sev, const char *fmt, va_list ap) {
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  return sc_diags_add(&jr->ctx->diags, code, sev, jr->file, jr->path, "%s", msg);
}

sc_diag *sc_jr_error(sc_jr *jr, sc_diag_code code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sc_diag *d = jr_vrecord(jr, code, SC_SEV_ERROR, fmt, ap);
  va_end(ap);
  return d;
}

sc_diag *sc_jr_warn(sc_jr *jr, sc_diag_code code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sc_diag *d = jr_vrecord(jr, code, SC_SEV_WARNING, fmt, ap);
  va_end(ap);
  return d;
}

const char *sc_json_exact_int(const cJSON *item) {
  return cJSON_IsString(item) && item->valuestring[0] == '\x01' ? item->valuestring + 1 : NULL;
}

bool sc_json_is_number(const cJSON *item) { return cJSON_IsNumber(item) || sc_json_exact_int(item); }

const char *sc_json_type_name(const cJSON *item) {
  if (!item) return "nothing";
  if (sc_json_exact_int(item)) return "a number";
  if (cJSON_IsObject(item)) return "an object";
  if (cJSON_IsArray(item)) return "an array";
  if (cJSON_IsString(item)) return "a string";
  if (cJSON_IsNumber(item)) return "a number";
  if (cJSON_IsBool(item)) return "a boolean";
  if (cJSON_IsNull(item)) return "null";
  return "an invalid value";
}

bool sc_jr_as_int(sc_jr *jr, const cJSON *item, int64_t *out) {
  const char *exact = sc_json_exact_int(item);
  if (exact) {
    errno = 0;
    char *end;
    long long v = strtoll(exact, &end, 10);
    if (errno == ERANGE) {
      sc_jr_error(jr, SC_DIAG_INT_RANGE, "integer %s does not fit in 64 bits", exact);
      return false;
    }
    *out = v;
    return true;
  }
  if (!cJSON_IsNumber(item)) {
    sc_jr_error(jr, SC_DIAG_WRONG_TYPE, "expected an integer, found %s", sc_json_type_name(item));
    return false;
  }
  double d = item->valuedouble;
  /* 2^63 is exactly representable; anything at or above it does not fit */
  if (!isfinite(d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0) {
    sc_jr_error(jr, SC_DIAG_INT_RANGE, "integer %g does not fit in 64 bits", d);
    return false;
  }
  if (d != floor(d)) {
    sc_jr_error(jr, SC_DIAG_WRONG_TYPE, "expected an integer, found %g", d);
    return false;
  }
  *out = (int64_t)d;
  return true;
}

bool sc_jr_as_float(sc_jr *jr, const cJSON *item, double *out) {
  if (sc_json_exact_int(item)) {
    *out = strtod(sc_json_exact_int(item), NULL);
    return true;
  }
  if (cJSON_IsNumber(item)) {
    *out = item->valuedouble;
    return true;
  }
  if (cJSON_IsString(item)) {
    const char *s = item->valuestring;
    if (strcmp(s, "NaN") == 0 || strcmp(s, "nan") == 0) return *out = NAN, true;
    if (strcmp(s, "Infinity") == 0 || strcmp(s, "inf") == 0) return *out = INFINITY, true;
    if (strcmp(s, "-Infinity") == 0 || strcmp(s, "-inf") == 0) return *out = -INFINITY, true;
  }
  sc_jr_error(jr, SC_DIAG_WRONG_TYPE, "expected a number, found %s", sc_json_type_name(item));
  return false;
}

bool sc_jr_as_bool(sc_jr *jr, const cJSON *item, bool *out) {
  if (!cJSON_IsBool(item)) {
    sc_jr_error(jr, SC_DIAG_WRONG_TYPE, "expected true or false, found %s", sc_json_type_name(item));
    return false;
  }
  *out = cJSON_IsTrue(item);
  return true;
}

bool sc_jr_as_string(sc_jr *jr, const cJSON *item, const char **out) {
  if (!cJSON_IsString(item)) {
    sc_jr_error(jr, SC_DIAG_WRONG_TYPE, "expected a string, found %s", sc_json_type_name(item));
    return false;
  }
  *out = sc_ctx_intern(jr->ctx, item->valuestring);
  return true;
}

bool sc_jr_expect_object(sc_jr *jr, const cJSON *item) {
  if (cJSON_IsObject(item)) return true;
  sc_jr_error(jr, SC_DIAG_WRONG_TYPE, "expected an object, found %s", sc_json_type_name(item));
  return false;
}

bool sc_jr_expect_array(sc_jr *jr, const cJSON *item) {
  if (cJSON_IsArray(item)) return true;
  sc_jr_error(jr, SC_DIAG_WRONG_TYPE, "expected an array, found %s", sc_json_type_name(item));
  return false;
}

const cJSON *sc_jr_field(sc_jr *jr, const cJSON *obj, const char *key, bool required) {
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!item && required) {
    size_t saved = sc_jr_push_key(jr, key);
    sc_jr_error(jr, SC_DIAG_MISSING_FIELD, "missing required field '%s'", key);
    sc_jr_pop(jr, saved);
  }
  return item;
}

static const cJSON *typed_field(sc_jr *jr, const cJSON *obj, const char *key, bool required, bool want_object) {
  const cJSON *item = sc_jr_field(jr, obj, key, required);
  if (!item) return NULL;
  if (!required && cJSON_IsNull(item)) return NULL;
  size_t saved = sc_jr_push_key(jr, key);
  bool ok = want_object ? sc_jr_expect_object(jr, item) : sc_jr_expect_array(jr, item);
  sc_jr_pop(jr, saved);
  return ok ? item : NULL;
}

const cJSON *sc_jr_object_field(sc_jr *jr, const cJSON *obj, const char *key, bool required) {
  return typed_field(jr, obj, key, required, true);
}

const cJSON *sc_jr_array_field(sc_jr *jr, const cJSON *obj, const char *key, bool required) {
  return typed_field(jr, obj, key, required, false);
}

bool sc_jr_int_field(sc_jr *jr, const cJSON *obj, const char *key, bool required, int64_t *out) {
  const cJSON *item = sc_jr_field(jr, obj, key, required);
  if (!item) return !required;
  size_t saved = sc_jr_push_key(jr, key);
  bool ok = sc_jr_as_int(jr, item, out);
  sc_jr_pop(jr, saved);
  return ok;
}

bool sc_jr_string_field(sc_jr *jr, const cJSON *obj, const char *key, bool required, const char **out) {
  const cJSON *item = sc_jr_field(jr, obj, key, required);
  if (!item) return !required;
  if (!required && cJSON_IsNull(item)) return true;
  size_t saved = sc_jr_push_key(jr, key);
  bool ok = sc_jr_as_string(jr, item, out);
  sc_jr_pop(jr, saved);
  return ok;
}

bool sc_jr_bool_field(sc_jr *jr, const cJSON *obj, const char *key, bool required, bool *out) {
  const cJSON *item = sc_jr_field(jr, obj, key, required);
  if (!item) return !required;
  if (!required && cJSON_IsNull(item)) return true;
  size_t saved = sc_jr_push_key(jr, key);
  bool ok = sc_jr_as_bool(jr, item, out);
  sc_jr_pop(jr, saved);
  return ok;
}
