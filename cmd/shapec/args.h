/* args.h - command-line helpers shared by the shapec commands. */
#ifndef SC_CMD_ARGS_H
#define SC_CMD_ARGS_H

#include <stdbool.h>

#include "diag_format.h"
#include "lib/base/context.h"

/* Prints "shapec: <message>" and the usage; returns the usage exit status (2). */
int sc_usage_error(const char *fmt, const char *arg, const char *usage);
/* Prints every diagnostic in the format --diagnostics-format chose (text unless set);
 * returns the exit class of the first error (0 when none). */
int sc_print_diags(sc_ctx *ctx);
void sc_set_diags_format(sc_diags_format format);
/* Whether stderr is for people (text); with JSON or SARIF the document is all of stderr. */
bool sc_diags_as_text(void);
/* The value of `--opt VALUE` or `--opt=VALUE`; sets *err to name when it is missing. */
const char *sc_option_value(int argc, char **argv, int *i, const char *name, const char **err);
/* Whether a is the option name, alone or as name=VALUE. */
bool sc_is_option(const char *a, const char *name);

#endif
