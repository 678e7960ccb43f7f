/* diag_format.c - diagnostics as text, JSON or SARIF; see diag_format.h. */
#include "diag_format.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/frontend/json_locate.h"

bool sc_diags_format_parse(const char *name, sc_diags_format *out) {
  static const struct {
    const char *name;
    sc_diags_format format;
  } formats[] = {{"text", SC_DIAGS_TEXT}, {"json", SC_DIAGS_JSON}, {"sarif", SC_DIAGS_SARIF}};
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
    if (strcmp(name, formats[i].name) == 0) {
      *out = formats[i].format;
      return true;
    }
  return false;
}

static const char *severity_text(sc_severity s) { return s == SC_SEV_ERROR ? "error" : s == SC_SEV_WARNING ? "warning" : "note"; }

static void add_string(cJSON *o, const char *key, const char *value) {
  if (value) cJSON_AddStringToObject(o, key, value);
}

static char *code_text(sc_diag_code code) {
  static char buf[16];
  snprintf(buf, sizeof buf, "SC%04d", (int)code);
  return buf;
}

/* {"file", "json_path", "line", "column"} for the JSON form. */
static cJSON *place(const char *file, const char *path, int line, int col) {
  cJSON *o = cJSON_CreateObject();
  add_string(o, "file", file);
  add_string(o, "json_path", path);
  if (line > 0) {
    cJSON_AddNumberToObject(o, "line", line);
    cJSON_AddNumberToObject(o, "column", col);
  }
  return o;
}

static cJSON *json_document(const sc_ctx *ctx) {
  cJSON *doc = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(doc, "diagnostics");
  cJSON_AddStringToObject(doc, "tool", "shapec " SHAPEC_VERSION);
  for (size_t i = 0; i < ctx->diags.n_items; i++) {
    const sc_diag *d = &ctx->diags.items[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "code", code_text(d->code));
    cJSON_AddStringToObject(o, "name", sc_diag_code_slug(d->code));
    cJSON_AddStringToObject(o, "severity", severity_text(d->severity));
    cJSON_AddItemToObject(o, "location", place(d->file, d->path, d->line, d->column));
    cJSON_AddStringToObject(o, "message", d->message);
    add_string(o, "fix", d->hint);
    if (d->n_edit_paths) {
      cJSON *edits = cJSON_AddArrayToObject(o, "edit");
      for (size_t k = 0; k < d->n_edit_paths; k++)
        cJSON_AddItemToArray(edits, place(d->edit_file, d->edit_paths[k], d->edit_lines ? d->edit_lines[k] : 0,
                                          d->edit_cols ? d->edit_cols[k] : 0));
    }
    cJSON_AddItemToArray(arr, o);
  }
  return doc;
}

/* A path as a SARIF URI: file:///... for an absolute path, a relative reference otherwise
 * (resolved against the folder shapec ran in), every byte outside RFC 3986's unreserved
 * characters and '/' percent-encoded (a ':' in a relative path would read as a scheme). */
static char *file_uri(const char *path) {
  size_t n = strlen(path);
  char *out = malloc(3 * n + 8), *o = out;
  if (path[0] == '/') o += sprintf(o, "file://");
  for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
    if ((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || strchr("-._~/", *c))
      *o++ = (char)*c;
    else
      o += sprintf(o, "%%%02X", *c);
  }
  *o = '\0';
  return out;
}

/* "archive.pt2:model/models/model.json", a member of an archive: the archive is the file
 * a code-scanning tool can show, the member goes into the location's message.  NULL for a
 * plain file's name. */
static const char *archive_member(const char *file, char *archive, size_t n) {
  const char *colon = strrchr(file, ':');
  struct stat st;
  if (!colon || (size_t)(colon - file) >= n || stat(file, &st) == 0) return NULL;
  snprintf(archive, n, "%.*s", (int)(colon - file), file);
  return stat(archive, &st) == 0 && S_ISREG(st.st_mode) ? colon + 1 : NULL;
}

/* A SARIF location: the file, the region when known, the JSON path as a logical location. */
static cJSON *sarif_location(const char *file, const char *path, int line, int col, const char *message) {
  cJSON *loc = cJSON_CreateObject();
  char archive[4096];
  const char *member = file ? archive_member(file, archive, sizeof archive) : NULL;
  if (member) {
    file = archive;
    line = 0; /* a line of the member, not of the archive's bytes */
  }
  if (file) {
    cJSON *phys = cJSON_AddObjectToObject(loc, "physicalLocation");
    char *uri = file_uri(file);
    cJSON_AddStringToObject(cJSON_AddObjectToObject(phys, "artifactLocation"), "uri", uri);
    free(uri);
    if (line > 0) {
      cJSON *region = cJSON_AddObjectToObject(phys, "region");
      cJSON_AddNumberToObject(region, "startLine", line);
      cJSON_AddNumberToObject(region, "startColumn", col);
    }
  }
  if (path) {
    cJSON *logical = cJSON_CreateObject();
    cJSON_AddStringToObject(logical, "fullyQualifiedName", path);
    cJSON_AddStringToObject(logical, "kind", "member");
    cJSON_AddItemToArray(cJSON_AddArrayToObject(loc, "logicalLocations"), logical);
  }
  if (message || member) {
    char text[4400];
    snprintf(text, sizeof text, "%s%s%s%s", message ? message : "", message && member ? " " : "",
             member ? "in the archive's member " : "", member ? member : "");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(loc, "message"), "text", text);
  }
  return loc;
}

/* Characters (code points) in a UTF-8 text: SARIF's regions count characters. */
static long characters(const char *text, size_t n) {
  long count = 0;
  for (size_t i = 0; i < n; i++) count += ((unsigned char)text[i] & 0xC0) != 0x80;
  return count;
}

/* result.fixes: the spec file replaced, as a whole, by the text --fix-spec writes (one
 * change a code-scanning tool can offer to apply). */
static void add_fix(cJSON *res, const sc_diag *d) {
  FILE *f = fopen(d->edit_file, "rb");
  if (!f) return; /* the spec cannot be read now: no region to replace */
  char *old = NULL;
  size_t n = 0, cap = 0, got;
  char chunk[8192];
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
    if (n + got > cap) {
      cap = (n + got) * 2;
      char *grown = realloc(old, cap);
      if (!grown) break;
      old = grown;
    }
    memcpy(old + n, chunk, got);
    n += got;
  }
  fclose(f);
  cJSON *fix = cJSON_CreateObject();
  cJSON_AddStringToObject(cJSON_AddObjectToObject(fix, "description"), "text",
                          d->hint ? d->hint : "the spec with the suggested fixes applied");
  cJSON *change = cJSON_CreateObject();
  char *uri = file_uri(d->edit_file);
  cJSON_AddStringToObject(cJSON_AddObjectToObject(change, "artifactLocation"), "uri", uri);
  free(uri);
  cJSON *replacement = cJSON_CreateObject();
  cJSON *deleted = cJSON_AddObjectToObject(replacement, "deletedRegion");
  cJSON_AddNumberToObject(deleted, "charOffset", 0);
  cJSON_AddNumberToObject(deleted, "charLength", (double)characters(old ? old : "", old ? n : 0));
  cJSON_AddStringToObject(cJSON_AddObjectToObject(replacement, "insertedContent"), "text", d->edit_result);
  cJSON_AddItemToArray(cJSON_AddArrayToObject(change, "replacements"), replacement);
  cJSON_AddItemToArray(cJSON_AddArrayToObject(fix, "artifactChanges"), change);
  cJSON_AddItemToArray(cJSON_AddArrayToObject(res, "fixes"), fix);
  free(old);
}

static cJSON *sarif_document(const sc_ctx *ctx) {
  cJSON *doc = cJSON_CreateObject();
  cJSON_AddStringToObject(doc, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
  cJSON_AddStringToObject(doc, "version", "2.1.0");
  cJSON *run = cJSON_CreateObject();
  cJSON_AddItemToArray(cJSON_AddArrayToObject(doc, "runs"), run);
  cJSON *driver = cJSON_AddObjectToObject(cJSON_AddObjectToObject(run, "tool"), "driver");
  cJSON_AddStringToObject(driver, "name", "shapec");
  cJSON_AddStringToObject(driver, "version", SHAPEC_VERSION);
  /* no informationUri: it must be an absolute URI, and the documentation is
   * docs/diagnostics.md of the sources or install, which no URI names for every reader */
  cJSON *rules = cJSON_AddArrayToObject(driver, "rules"), *results = cJSON_AddArrayToObject(run, "results");
  for (size_t i = 0; i < ctx->diags.n_items; i++) {
    const sc_diag *d = &ctx->diags.items[i];
    bool known = false; /* one rule per code */
    for (size_t j = 0; j < i && !known; j++) known = ctx->diags.items[j].code == d->code;
    if (!known) {
      cJSON *rule = cJSON_CreateObject();
      cJSON_AddStringToObject(rule, "id", code_text(d->code));
      cJSON_AddStringToObject(rule, "name", sc_diag_code_slug(d->code));
      char help[160];
      snprintf(help, sizeof help, "docs/diagnostics.md, %s %s", code_text(d->code), sc_diag_code_slug(d->code));
      cJSON_AddStringToObject(cJSON_AddObjectToObject(rule, "help"), "text", help);
      cJSON_AddItemToArray(rules, rule);
    }
    cJSON *res = cJSON_CreateObject();
    cJSON_AddStringToObject(res, "ruleId", code_text(d->code));
    cJSON_AddStringToObject(res, "level", severity_text(d->severity));
    char *text = NULL;
    size_t need = strlen(d->message) + (d->hint ? strlen(d->hint) + 8 : 0) + 1;
    text = malloc(need);
    snprintf(text, need, "%s%s%s", d->message, d->hint ? "\nfix: " : "", d->hint ? d->hint : "");
    cJSON_AddStringToObject(cJSON_AddObjectToObject(res, "message"), "text", text);
    free(text);
    /* a violation found in the program is fixed in the user's spec: its first entry to
     * edit is the primary location (a line a code-scanning tool can show), the program's
     * node and the other entries related ones */
    bool in_spec = d->n_edit_paths && d->edit_file;
    cJSON *primary = in_spec ? sarif_location(d->edit_file, d->edit_paths[0], d->edit_lines ? d->edit_lines[0] : 0,
                                              d->edit_cols ? d->edit_cols[0] : 0, "the spec entry to edit")
                             : sarif_location(d->file, d->path, d->line, d->column, NULL);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(res, "locations"), primary);
    if (in_spec) {
      cJSON *related = cJSON_AddArrayToObject(res, "relatedLocations");
      int id = 0;
      cJSON *where = sarif_location(d->file, d->path, d->line, d->column, "where the program decided it");
      cJSON_AddNumberToObject(where, "id", id++);
      cJSON_AddItemToArray(related, where);
      for (size_t k = 1; k < d->n_edit_paths; k++) {
        cJSON *loc = sarif_location(d->edit_file, d->edit_paths[k], d->edit_lines ? d->edit_lines[k] : 0,
                                    d->edit_cols ? d->edit_cols[k] : 0, "another spec entry to edit");
        cJSON_AddNumberToObject(loc, "id", id++);
        cJSON_AddItemToArray(related, loc);
      }
    }
    if (in_spec && d->edit_result) add_fix(res, d);
    cJSON_AddItemToArray(results, res);
  }
  return doc;
}

void sc_diags_write(FILE *out, sc_ctx *ctx, sc_diags_format format) {
  sc_diags_locate(ctx);
  if (format == SC_DIAGS_TEXT) {
    for (size_t i = 0; i < ctx->diags.n_items; i++) sc_diag_print(out, &ctx->diags.items[i]);
    return;
  }
  cJSON *doc = format == SC_DIAGS_JSON ? json_document(ctx) : sarif_document(ctx);
  char *text = cJSON_Print(doc);
  if (text) fprintf(out, "%s\n", text);
  free(text);
  cJSON_Delete(doc);
}

static sc_diags_format process_format = SC_DIAGS_TEXT;

void sc_set_diags_format(sc_diags_format format) { process_format = format; }

bool sc_diags_as_text(void) { return process_format == SC_DIAGS_TEXT; }

int sc_print_diags(sc_ctx *ctx) {
  if (ctx->diags.n_items || process_format != SC_DIAGS_TEXT) sc_diags_write(stderr, ctx, process_format);
  return (int)sc_diags_exit_class(&ctx->diags);
}

static sc_ctx *deferred;

void sc_defer_diags(sc_ctx *ctx) {
  if (process_format == SC_DIAGS_TEXT) {
    for (size_t i = 0; i < ctx->diags.n_items; i++) sc_diag_print(stderr, &ctx->diags.items[i]);
    return;
  }
  if (!deferred) deferred = sc_ctx_new();
  sc_diags_copy(&deferred->diags, &ctx->diags);
}

void sc_flush_diags(void) {
  if (process_format == SC_DIAGS_TEXT) return;
  if (!deferred) deferred = sc_ctx_new();
  sc_diags_write(stderr, deferred, process_format);
  sc_ctx_free(deferred);
  deferred = NULL;
}
