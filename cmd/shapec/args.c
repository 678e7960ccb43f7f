/* args.c - command-line helpers shared by the shapec commands (args.h). */
#include "args.h"

#include <stdio.h>
#include <string.h>

int sc_usage_error(const char *fmt, const char *arg, const char *usage) {
  fprintf(stderr, "shapec: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n\n%s", usage);
  return SC_EXIT_USAGE;
}

static sc_diags_format diags_format = SC_DIAGS_TEXT;

void sc_set_diags_format(sc_diags_format format) { diags_format = format; }

bool sc_diags_as_text(void) { return diags_format == SC_DIAGS_TEXT; }

int sc_print_diags(sc_ctx *ctx) {
  if (ctx->diags.n_items || diags_format != SC_DIAGS_TEXT) sc_diags_write(stderr, ctx, diags_format);
  return (int)sc_diags_exit_class(&ctx->diags);
}

const char *sc_option_value(int argc, char **argv, int *i, const char *name, const char **err) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (a[n] == '=') return a + n + 1;
  if (*i + 1 >= argc) {
    *err = name;
    return NULL;
  }
  return argv[++*i];
}

bool sc_is_option(const char *a, const char *name) {
  size_t n = strlen(name);
  return strncmp(a, name, n) == 0 && (a[n] == '\0' || (a[n] == '=' && name[1] == '-'));
}
