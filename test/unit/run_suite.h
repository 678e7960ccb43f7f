/* run_suite.h - the one way every unit test runs its Check suite. */
#ifndef SC_TEST_RUN_SUITE_H
#define SC_TEST_RUN_SUITE_H

#include <check.h>

/* Runs a suite and returns the process exit status: 0 when every test passed. */
int tu_run(Suite *s);

#endif
