/* diag.c - diagnostics store and printer; see diag.h. */
#include "diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void sc_diags_init(sc_diags *diags, sc_arena *arena) {
  memset(diags, 0, sizeof *diags);
  diags->arena = arena;
}

void sc_diags_release(sc_diags *diags) {
  free(diags->items);
  diags->items = NULL;
  diags->n_items = diags->cap = diags->n_errors = 0;
}

sc_diag *sc_diags_add(sc_diags *diags, sc_diag_code code, sc_severity sev, const char *file,
                      const char *path, const char *fmt, ...) {
  if (diags->n_items == diags->cap) {
    diags->cap = diags->cap ? diags->cap * 2 : 16;
    diags->items = sc_xrealloc(diags->items, diags->cap * sizeof *diags->items);
  }
  sc_diag *d = &diags->items[diags->n_items++];
  memset(d, 0, sizeof *d);
  d->code = code;
  d->severity = sev;
  d->file = sc_arena_strdup(diags->arena, file);
  d->path = (path && *path) ? sc_arena_strdup(diags->arena, path) : NULL;
  va_list ap;
  va_start(ap, fmt);
  d->message = sc_arena_vprintf(diags->arena, fmt, ap);
  va_end(ap);
  if (sev == SC_SEV_ERROR) diags->n_errors++;
  return d;
}

void sc_diags_copy(sc_diags *to, const sc_diags *from) {
  for (size_t i = 0; i < from->n_items; i++) {
    const sc_diag *d = &from->items[i];
    sc_diag *c = sc_diags_add(to, d->code, d->severity, d->file, d->path, "%s", d->message);
    c->line = d->line;
    c->column = d->column;
    if (d->hint) c->hint = sc_arena_strdup(to->arena, d->hint);
    for (size_t k = 0; k < from->items[i].n_edit_paths; k++) {
      sc_diag *cc = &to->items[to->n_items - 1];
      sc_diag_add_edit(to, cc, from->items[i].edit_file, from->items[i].edit_paths[k]);
    }
    if (d->edit_result) to->items[to->n_items - 1].edit_result = sc_arena_strdup(to->arena, d->edit_result);
  }
}

void sc_diag_add_edit(sc_diags *diags, sc_diag *d, const char *file, const char *path) {
  if (!file || !path || !*path) return;
  for (size_t i = 0; i < d->n_edit_paths; i++)
    if (strcmp(d->edit_paths[i], path) == 0) return;
  const char **grown = sc_arena_alloc(diags->arena, (d->n_edit_paths + 1) * sizeof *grown);
  if (d->n_edit_paths) memcpy(grown, d->edit_paths, d->n_edit_paths * sizeof *grown);
  grown[d->n_edit_paths++] = sc_arena_strdup(diags->arena, path);
  d->edit_paths = grown;
  d->edit_lines = d->edit_cols = NULL; /* located again with the new entry */
  d->edit_file = sc_arena_strdup(diags->arena, file);
}

void sc_diag_set_hint(sc_diags *diags, sc_diag *d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  d->hint = sc_arena_vprintf(diags->arena, fmt, ap);
  va_end(ap);
}

const char *sc_diag_code_slug(sc_diag_code code) {
  switch (code) {
#define SC_DIAG(name, num, slug, cls) \
  case SC_DIAG_##name:                \
    return slug;
#include "diag_codes.def"
#undef SC_DIAG
  }
  return NULL;
}

sc_exit_class sc_diag_code_exit_class(sc_diag_code code) {
  enum { USER = SC_EXIT_USER, IO = SC_EXIT_IO, INTERNAL = SC_EXIT_INTERNAL };
  switch (code) {
#define SC_DIAG(name, num, slug, cls) \
  case SC_DIAG_##name:                \
    return (sc_exit_class)cls;
#include "diag_codes.def"
#undef SC_DIAG
  }
  return SC_EXIT_INTERNAL;
}

sc_exit_class sc_diags_exit_class(const sc_diags *diags) {
  for (size_t i = 0; i < diags->n_items; i++)
    if (diags->items[i].severity == SC_SEV_ERROR) return sc_diag_code_exit_class(diags->items[i].code);
  return SC_EXIT_OK;
}

static const char *severity_name(sc_severity sev) {
  switch (sev) {
    case SC_SEV_ERROR: return "error";
    case SC_SEV_WARNING: return "warning";
    case SC_SEV_NOTE: return "note";
  }
  return "error";
}

void sc_diag_print(FILE *out, const sc_diag *d) {
  if (d->file) {
    fputs(d->file, out);
    if (d->line > 0) fprintf(out, ":%d:%d", d->line, d->column);
    fputs(": ", out);
  }
  fprintf(out, "%s[SC%04d]: %s\n", severity_name(d->severity), (int)d->code, d->message);
  if (d->path) fprintf(out, "  at: %s\n", d->path);
  for (size_t i = 0; i < d->n_edit_paths; i++) {
    fprintf(out, "  edit: %s", d->edit_file);
    if (d->edit_lines && d->edit_lines[i] > 0) fprintf(out, ":%d:%d", d->edit_lines[i], d->edit_cols[i]);
    fprintf(out, ": %s\n", d->edit_paths[i]);
  }
  if (d->hint) fprintf(out, "  fix: %s\n", d->hint);
}

const sc_diag *sc_diags_find(const sc_diags *diags, sc_diag_code code) {
  for (size_t i = 0; i < diags->n_items; i++)
    if (diags->items[i].code == code) return &diags->items[i];
  return NULL;
}
