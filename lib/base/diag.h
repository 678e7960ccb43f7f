/* diag.h - diagnostics: a stable numbered code, a severity, a location and a message.
 *
 * Library code records diagnostics in the context and keeps going where it can; only
 * cmd/ prints them and chooses the exit code.  A failing function always leaves at
 * least one error recorded. */
#ifndef SC_DIAG_H
#define SC_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "arena.h"

typedef enum sc_diag_code {
#define SC_DIAG(name, num, slug, cls) SC_DIAG_##name = num,
#include "diag_codes.def"
#undef SC_DIAG
} sc_diag_code;

typedef enum sc_severity { SC_SEV_ERROR, SC_SEV_WARNING, SC_SEV_NOTE } sc_severity;

/* What an error means for the process exit status (see docs/cli.md). */
typedef enum sc_exit_class {
  SC_EXIT_OK = 0,
  SC_EXIT_USER = 1,
  SC_EXIT_USAGE = 2,
  SC_EXIT_IO = 3,
  SC_EXIT_INTERNAL = 4,
} sc_exit_class;

typedef struct sc_diag {
  sc_diag_code code;
  sc_severity severity;
  const char *file;  /* may be NULL */
  const char *path;  /* JSON path such as graph_module.graph.nodes[3].inputs[1].arg; may be NULL */
  int line, column;  /* 1-based; 0 when unknown */
  const char *message;
  const char *hint;  /* what to do about it; may be NULL */
  /* the spec entries to edit (a constraint violation found in the program): JSON paths in
   * edit_file, such as dynamic_shapes.w[1] or dims.dx */
  const char *edit_file;
  const char **edit_paths;
  int *edit_lines, *edit_cols; /* 1-based, 0 unknown; NULL until located (lib/frontend/json_locate.h) */
  size_t n_edit_paths;
  const char *edit_result; /* the whole of edit_file with the fixes applied (what --fix-spec
                              writes), or NULL: SARIF's `fixes` */
} sc_diag;

typedef struct sc_diags {
  sc_arena *arena;
  sc_diag *items;
  size_t n_items, cap;
  size_t n_errors;
} sc_diags;

void sc_diags_init(sc_diags *diags, sc_arena *arena);
void sc_diags_release(sc_diags *diags);
/* Records a diagnostic; strings are copied into the arena.  Returns it so a caller can
 * add a hint or a line and column; the pointer is valid until the next add. */
sc_diag *sc_diags_add(sc_diags *diags, sc_diag_code code, sc_severity sev, const char *file,
                      const char *path, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Appends copies of every diagnostic of `from` (into to's arena): a scratch context's
 * findings kept after it is freed. */
void sc_diags_copy(sc_diags *to, const sc_diags *from);
/* Adds a spec entry to edit (once each). */
void sc_diag_add_edit(sc_diags *diags, sc_diag *d, const char *file, const char *path);
void sc_diag_set_hint(sc_diags *diags, sc_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "SC0307"-style spelling and the short name of a code; NULL for an unknown code. */
const char *sc_diag_code_slug(sc_diag_code code);
sc_exit_class sc_diag_code_exit_class(sc_diag_code code);
/* The exit class of the first error, or SC_EXIT_OK. */
sc_exit_class sc_diags_exit_class(const sc_diags *diags);
/* Prints file:line:col: error[SC0307]: message, then the path and hint. */
void sc_diag_print(FILE *out, const sc_diag *d);
/* Returns the first diagnostic with this code, or NULL (used by tests). */
const sc_diag *sc_diags_find(const sc_diags *diags, sc_diag_code code);

#endif
