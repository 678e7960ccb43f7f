/* options.h - one command's command line, parsed by glibc's getopt_long: long options
 * (abbreviated when unique, `--opt VALUE` or `--opt=VALUE`), short ones, `--` to end
 * them, and errors that teach: an unknown option names the closest known one, a value
 * that is missing or empty says so, and each error is followed by the command's usage. */
#ifndef SC_CMD_OPTIONS_H
#define SC_CMD_OPTIONS_H

#include <stdbool.h>

/* One option of a command.  Every option with a value needs a non-empty one. */
typedef struct sc_option {
  const char *long_name; /* without the dashes: "dynamic" */
  char short_name;       /* 'o', or 0 */
  bool has_value;
  int id;                /* what sc_options_next returns for it; > 1 */
} sc_option;

/* What sc_options_next returns besides an option's id. */
enum {
  SC_OPTIONS_END = 0,        /* every argument is read */
  SC_OPTIONS_POSITIONAL = 1, /* a plain argument, in *value */
  SC_OPTIONS_STOP = -1,      /* --help was printed or an error was: return sc_options_status() */
};

typedef struct sc_options {
  const char *command; /* "export", for messages */
  const char *usage;
  const sc_option *table;
  int n_table;
  int argc;
  char **argv; /* argv[0] is the command's name */
  int status;
  bool ended; /* getopt_long is done; the rest (after --) are positional */
  void *getopt_table;
  char *getopt_short;
} sc_options;

/* argv[0] is the command's name ("export"); -h and --help are added to the table. */
void sc_options_begin(sc_options *p, const char *command, const char *usage, const sc_option *table, int n_table,
                      int argc, char **argv);
/* The next option's id (its value in *value), a positional argument, the end or a stop. */
int sc_options_next(sc_options *p, const char **value);
/* The exit status after SC_OPTIONS_STOP: 0 after --help, 2 after a usage error. */
int sc_options_status(const sc_options *p);
void sc_options_end(sc_options *p);

/* Prints "shapec: COMMAND: <message>" and the usage; returns the usage exit status (2).
 * fmt has one %s for arg. */
int sc_options_error(const sc_options *p, const char *fmt, const char *arg);

/* --diagnostics-format VALUE: sets this process's format (text, json or sarif); returns -1,
 * or the usage error's status. */
int sc_options_diags_format(const sc_options *p, const char *value);

#endif
