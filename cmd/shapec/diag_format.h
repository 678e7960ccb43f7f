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

#endif
