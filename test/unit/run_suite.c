/* run_suite.c - runs a unit test's Check suite (no dependency beyond Check, so that the
 * runtime's kernel tests share it with the readers' tests). */
#include "run_suite.h"

int tu_run(Suite *s) {
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
