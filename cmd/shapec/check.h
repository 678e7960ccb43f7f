/* check.h - `shapec check` and `shapec explain`, the commands for CI jobs and for people
 * who ask why a dim got its range. */
#ifndef SC_CMD_CHECK_H
#define SC_CMD_CHECK_H

#include <stdbool.h>

typedef struct sc_check_options {
  const char *model, *spec, *weights, *baseline; /* one model */
  const char *manifest;                          /* or every model of a manifest */
  const char *junit;                             /* write a JUnit XML report here */
  bool update;                                   /* rewrite the baselines instead */
  bool prefer_deferred_asserts;                  /* --prefer-deferred-runtime-asserts (a baseline
                                                    written with it also turns it on) */
} sc_check_options;

/* 0: no change; 1: the contract changed (or a model is rejected or a baseline invalid);
 * 3: a file cannot be read or written. */
int sc_cmd_check(const sc_check_options *o);

/* The report (constraints.json text, heap) of an analysis-only export; NULL when the
 * export stopped before its report, after printing why, with *status the exit class. */
char *sc_fresh_report(const char *model, const char *spec, const char *weights, bool prefer_deferred_asserts,
                      int *status);

/* Prints why each user input dim (or only `dim`: "x.0" or "x.size()[0]") has its range,
 * relation or value, from a report.  only_violations: just the dims a violated guard
 * involves.  Returns false when `dim` names no input dim. */
bool sc_explain_report(const char *report_json, const char *dim, bool only_violations);

#endif
