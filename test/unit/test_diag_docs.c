/* test_diag_docs.c - every diagnostic code is documented in docs/diagnostics.md, and
 * the code-to-exit-status mapping matches docs/cli.md's table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/diag.h"
#include "test_util.h"

static const struct {
  sc_diag_code code;
  const char *slug;
} codes[] = {
#define SC_DIAG(name, num, slug, cls) {SC_DIAG_##name, slug},
#include "lib/base/diag_codes.def"
#undef SC_DIAG
};

START_TEST(test_code_is_documented) {
  char *doc = tu_read_source("docs/diagnostics.md", NULL);
  char code[16];
  snprintf(code, sizeof code, "SC%04d", (int)codes[_i].code);
  ck_assert_msg(strstr(doc, code) != NULL, "%s (%s) is not in docs/diagnostics.md", code, codes[_i].slug);
  ck_assert_msg(strstr(doc, codes[_i].slug) != NULL, "%s's name %s is not in docs/diagnostics.md", code, codes[_i].slug);
  free(doc);
}
END_TEST

START_TEST(test_exit_classes) {
  ck_assert_int_eq(sc_diag_code_exit_class(SC_DIAG_FILE_READ), 3);
  ck_assert_int_eq(sc_diag_code_exit_class(SC_DIAG_FILE_WRITE), 3);
  ck_assert_int_eq(sc_diag_code_exit_class(SC_DIAG_JSON_SYNTAX), 1);
  ck_assert_int_eq(sc_diag_code_exit_class(SC_DIAG_SPEC_RANK), 1);
  ck_assert_str_eq(sc_diag_code_slug(SC_DIAG_UNKNOWN_OPERATOR), "unknown-operator");
}
END_TEST

int main(void) {
  Suite *s = suite_create("diag_docs");
  TCase *tc = tcase_create("core");
  tcase_add_loop_test(tc, test_code_is_documented, 0, sizeof codes / sizeof codes[0]);
  tcase_add_test(tc, test_exit_classes);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
