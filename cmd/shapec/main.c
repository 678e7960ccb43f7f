/* main.c - the shapec command line: picks the command (each parses its own options, in
 * cli_<command>.c) and answers help and --version. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "lib/base/diag.h"

static const char *const usage_main =
    "usage: shapec <command> [options]\n"
    "       shapec help [COMMAND] | --help | --version (-V)\n"
    "\n"
    "Ahead-of-time compiler for torch.export programs with dynamic shapes.\n"
    "\n"
    "commands:\n"
    "  export MODEL [--dynamic SPEC] ...   analyse a serialized ExportedProgram (.json or\n"
    "                                      .pt2) against a dynamic_shapes spec, write the\n"
    "                                      report and build OUTDIR/model.so\n"
    "  run MODEL.so --input NAME=FILE.npy   run a built library on .npy inputs\n"
    "  check MODEL --baseline FILE ...     compare the range constraints with a committed\n"
    "                                      report (CI); JUnit output; --manifest for many\n"
    "  explain MODEL [--dynamic SPEC]      why each input dim has its range or value\n"
    "  inspect MODEL.so [--json]           what a built library expects: inputs, ranges,\n"
    "                                      guards, targets, how it was built\n"
    "  spec infer OBS... [--model MODEL]   one spec from the shapes many processes observed\n"
    "                                      (automatic dynamic across ranks)\n"
    "\n"
    "Run 'shapec help COMMAND' (or 'shapec COMMAND --help') for the options of a command.\n"
    "Options go before or after the arguments, as --opt VALUE or --opt=VALUE; a long\n"
    "option may be shortened while it stays unique (--dyn for --dynamic); -- ends them.\n"
    "\n"
    "exit status:\n"
    "  0  success\n"
    "  1  the model or spec is rejected (user error, constraint violation)\n"
    "  2  usage error (bad command line)\n"
    "  3  a file cannot be read or written\n"
    "  4  internal or backend failure\n";

static const struct command {
  const char *name;
  int (*main)(int argc, char **argv);
  const char *usage;
} commands[] = {
    {"export", sc_main_export, sc_usage_export},    {"run", sc_main_run, sc_usage_run},
    {"check", sc_main_check, sc_usage_check},       {"explain", sc_main_explain, sc_usage_explain},
    {"inspect", sc_main_inspect, sc_usage_inspect}, {"spec", sc_main_spec, sc_usage_spec},
};
enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

static const struct command *find_command(const char *name) {
  for (int i = 0; i < N_COMMANDS; i++)
    if (strcmp(name, commands[i].name) == 0) return &commands[i];
  return NULL;
}

/* "shapec: unknown command 'exprot'; did you mean 'export'?" (a command with the same
 * letters in another order, or one letter off, is close) */
static int unknown_command(const char *what, const char *name) {
  const char *close = NULL;
  size_t n = strlen(name);
  for (int i = 0; i < N_COMMANDS && !close; i++) {
    const char *c = commands[i].name;
    if (strlen(c) != n && strlen(c) != n + 1 && strlen(c) + 1 != n) continue;
    int letters[256] = {0}, differ = 0;
    for (const char *s = c; *s; s++) letters[(unsigned char)*s]++;
    for (const char *s = name; *s; s++) letters[(unsigned char)*s]--;
    for (int k = 0; k < 256; k++) differ += letters[k] < 0 ? -letters[k] : letters[k];
    if (differ <= 2) close = c;
  }
  if (close) fprintf(stderr, "shapec: %s '%s'; did you mean '%s'?\n\n%s", what, name, close, usage_main);
  else fprintf(stderr, "shapec: %s '%s'\n\n%s", what, name, usage_main);
  return SC_EXIT_USAGE;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "shapec: no command given\n\n%s", usage_main);
    return SC_EXIT_USAGE;
  }
  const char *name = argv[1];
  if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || (strcmp(name, "help") == 0 && argc == 2)) {
    fputs(usage_main, stdout);
    return 0;
  }
  if (strcmp(name, "help") == 0) { /* shapec help CMD: that command's own help */
    const struct command *c = find_command(argv[2]);
    if (!c) return unknown_command("help: unknown command", argv[2]);
    fputs(c->usage, stdout);
    return 0;
  }
  if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
    printf("shapec %s\n", SHAPEC_VERSION);
    return 0;
  }
  const struct command *c = find_command(name);
  if (!c) return unknown_command("unknown command", name);
  return c->main(argc - 1, argv + 1);
}
