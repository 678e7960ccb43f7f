/* diag_format.h - diagnostics as text (the default), JSON or SARIF 2.1.0, on stderr
 * (`--diagnostics-format`): one document per command for CI annotations and scripts. */
#ifndef SC_DIAG_FORMAT_H
#define SC_DIAG_FORMAT_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/base/context.h"

typedef enum { SC_DIAGS_TEXT, SC_DIAGS_JSON, SC_DIAGS_SARIF } sc_diags_format;

/* text, json or sarif; false for anything else. */
bool sc_diags_format_parse(const char *name, sc_diags_format *out);
/* Writes every diagnostic of ctx in the format, their JSON paths located in their files first. */
void sc_diags_write(FILE *out, sc_ctx *ctx, sc_diags_format format);

/* The format of this process's diagnostics (text unless --diagnostics-format set it). */
void sc_set_diags_format(sc_diags_format format);
/* Whether stderr is for people (text); with JSON or SARIF the document is all of stderr. */
bool sc_diags_as_text(void);
/* Prints every diagnostic of ctx in this process's format; returns the exit class of
 * the first error (0 when none). */
int sc_print_diags(sc_ctx *ctx);
/* For commands that work through several contexts (check): text is printed at once; a
 * JSON or SARIF stream keeps copies, written as one document by sc_flush_diags. */
void sc_defer_diags(sc_ctx *ctx);
/* Writes what sc_defer_diags kept (JSON and SARIF: the document, even when empty). */
void sc_flush_diags(void);

#endif
