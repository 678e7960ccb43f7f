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

int sc_print_diags(const sc_ctx *ctx) {
  for (size_t i = 0; i < ctx->diags.n_items; i++) sc_diag_print(stderr, &ctx->diags.items[i]);
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
