/* options.c - a command's command line through getopt_long (options.h). */
#include "options.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag_format.h"
#include "lib/base/diag.h"

enum { LONG_BASE = 256, HELP_ID = LONG_BASE - 1 };

void sc_options_begin(sc_options *p, const char *command, const char *usage, const sc_option *table, int n_table,
                      int argc, char **argv) {
  *p = (sc_options){.command = command, .usage = usage, .table = table, .n_table = n_table, .argc = argc, .argv = argv};
  struct option *longs = calloc((size_t)n_table + 2, sizeof *longs);
  char *shorts = calloc((size_t)n_table * 2 + 8, 1);
  size_t ns = 0;
  /* '-': plain arguments come back in order (as 1); ':': a missing value is ':', silently */
  shorts[ns++] = '-';
  shorts[ns++] = ':';
  shorts[ns++] = 'h';
  for (int i = 0; i < n_table; i++) {
    longs[i] = (struct option){table[i].long_name, table[i].has_value ? required_argument : no_argument, NULL,
                               LONG_BASE + i};
    if (table[i].short_name) {
      shorts[ns++] = table[i].short_name;
      if (table[i].has_value) shorts[ns++] = ':';
    }
  }
  longs[n_table] = (struct option){"help", no_argument, NULL, HELP_ID};
  p->getopt_table = longs;
  p->getopt_short = shorts;
  optind = 0; /* glibc: start afresh */
  opterr = 0; /* the messages are ours */
}

void sc_options_end(sc_options *p) {
  free(p->getopt_table);
  free(p->getopt_short);
  p->getopt_table = NULL;
  p->getopt_short = NULL;
}

int sc_options_status(const sc_options *p) { return p->status; }

/* After a usage error: the command's synopsis (its usage up to the first blank line), not
 * its whole help, and where the rest is. */
static void print_synopsis(const sc_options *p) {
  const char *end = strstr(p->usage, "\n\n");
  int len = end ? (int)(end - p->usage) : (int)strlen(p->usage);
  fprintf(stderr, "\n\n%.*s\nRun 'shapec help %s' for its options.\n", len, p->usage, p->command);
}

int sc_options_error(const sc_options *p, const char *fmt, const char *arg) {
  fprintf(stderr, "shapec: %s: ", p->command);
  fprintf(stderr, fmt, arg);
  print_synopsis(p);
  ((sc_options *)p)->status = SC_EXIT_USAGE;
  return SC_EXIT_USAGE;
}

static int stop(sc_options *p, const char *fmt, const char *arg) {
  sc_options_error(p, fmt, arg);
  return SC_OPTIONS_STOP;
}

/* Levenshtein distance, for "did you mean". */
static size_t edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 64 || lb > 64) return 64;
  size_t row[65];
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

/* "unknown option '--dynamc'", with the closest known long option when one is close. */
static int unknown_long(sc_options *p, const char *arg) {
  char name[128];
  const char *eq = strchr(arg, '=');
  size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
  if (n >= sizeof name) n = sizeof name - 1;
  memcpy(name, arg, n);
  name[n] = '\0';
  const char *bare = name + 2;
  /* several options start this way: getopt_long found it ambiguous */
  char matches[512] = "";
  int n_matches = 0;
  for (int i = 0; i < p->n_table; i++)
    if (strncmp(p->table[i].long_name, bare, strlen(bare)) == 0 && strlen(matches) + 64 < sizeof matches) {
      snprintf(matches + strlen(matches), sizeof matches - strlen(matches), "%s--%s", n_matches++ ? ", " : "",
               p->table[i].long_name);
    }
  if (n_matches > 1) {
    fprintf(stderr, "shapec: %s: option '%s' is ambiguous: it could be %s", p->command, name, matches);
    print_synopsis(p);
    p->status = SC_EXIT_USAGE;
    return SC_OPTIONS_STOP;
  }
  const char *best = NULL;
  size_t best_d = 3 + strlen(bare) / 4;
  for (int i = 0; i < p->n_table; i++) {
    size_t d = edit_distance(bare, p->table[i].long_name);
    if (d < best_d) best_d = d, best = p->table[i].long_name;
  }
  if (best)
    fprintf(stderr, "shapec: %s: unknown option '%s'; did you mean '--%s'?", p->command, name, best);
  else
    fprintf(stderr, "shapec: %s: unknown option '%s'", p->command, name);
  print_synopsis(p);
  p->status = SC_EXIT_USAGE;
  return SC_OPTIONS_STOP;
}

static const sc_option *by_getopt_value(const sc_options *p, int c) {
  if (c >= LONG_BASE && c < LONG_BASE + p->n_table) return &p->table[c - LONG_BASE];
  for (int i = 0; i < p->n_table; i++)
    if (p->table[i].short_name && p->table[i].short_name == c) return &p->table[i];
  return NULL;
}

/* How an option was written, for messages: "--dynamic" or "-o". */
static const char *spelled(const sc_option *o, char *buf, size_t size, bool as_short) {
  if (as_short) snprintf(buf, size, "-%c", o->short_name);
  else snprintf(buf, size, "--%s", o->long_name);
  return buf;
}

int sc_options_next(sc_options *p, const char **value) {
  *value = NULL;
  if (p->status) return SC_OPTIONS_STOP;
  if (p->ended) {
    if (optind >= p->argc) return SC_OPTIONS_END;
    *value = p->argv[optind++];
    return SC_OPTIONS_POSITIONAL;
  }
  int c = getopt_long(p->argc, p->argv, p->getopt_short, p->getopt_table, NULL);
  char buf[160];
  if (c == -1) { /* after `--`, or the end */
    p->ended = true;
    return sc_options_next(p, value);
  }
  if (c == 1) {
    *value = optarg;
    return SC_OPTIONS_POSITIONAL;
  }
  if (c == 'h' || c == HELP_ID) {
    fputs(p->usage, stdout);
    p->status = 0;
    p->ended = true;
    optind = p->argc;
    return SC_OPTIONS_STOP;
  }
  const char *written = p->argv[optind - 1];
  if (c == ':') {
    const sc_option *o = by_getopt_value(p, optopt);
    bool as_short = o && optopt < LONG_BASE;
    return stop(p, "option %s needs a value", o ? spelled(o, buf, sizeof buf, as_short) : written);
  }
  if (c == '?') {
    const sc_option *o = optopt ? by_getopt_value(p, optopt) : NULL;
    if (o) return stop(p, "option %s takes no value", spelled(o, buf, sizeof buf, false));
    if (optopt == 0 && strncmp(written, "--", 2) == 0) return unknown_long(p, written);
    snprintf(buf, sizeof buf, "-%c", optopt ? optopt : '?');
    return stop(p, "unknown option '%s'", buf);
  }
  const sc_option *o = by_getopt_value(p, c);
  if (!o) return stop(p, "unknown option '%s'", written);
  if (o->has_value) {
    bool as_short = c < LONG_BASE;
    if (!optarg[0]) return stop(p, "option %s needs a non-empty value", spelled(o, buf, sizeof buf, as_short));
    /* `--dynamic --quiet`: the next option was taken as the value */
    if (strncmp(optarg, "--", 2) == 0 && optarg[2] && written == optarg) {
      fprintf(stderr, "shapec: %s: option %s needs a value, not the option '%s'", p->command,
              spelled(o, buf, sizeof buf, as_short), optarg);
      print_synopsis(p);
      p->status = SC_EXIT_USAGE;
      return SC_OPTIONS_STOP;
    }
    *value = optarg;
  }
  return o->id;
}

int sc_options_diags_format(const sc_options *p, const char *value) {
  sc_diags_format format;
  if (!sc_diags_format_parse(value, &format))
    return sc_options_error(p, "--diagnostics-format %s: give text, json or sarif", value);
  sc_set_diags_format(format);
  return -1;
}
