/* test_input_paths.c - the names torch gives flat inputs (lib/frontend/input_paths.c),
 * from in_spec texts as torch 2.14 writes them: positional tensors, a dict, a list, keyword
 * arguments, and specs this does not read (a namedtuple, malformed text). */
#include <string.h>

#include "lib/frontend/input_paths.h"
#include "test_util.h"

static const char *leaf = "{\"type\": null, \"context\": null, \"children_spec\": []}";

static char *spec(const char *args_children, const char *kwargs) {
  static char buf[4096];
  snprintf(buf, sizeof buf,
           "[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [{\"type\": \"builtins.tuple\", "
           "\"context\": \"null\", \"children_spec\": [%s]}, %s]}]",
           args_children, kwargs);
  return buf;
}

static void expect_names(const char *text, const char *const *args, size_t n_args, const char *const *want, size_t n) {
  sc_ctx *ctx = sc_ctx_new();
  const char **names = NULL;
  size_t got = sc_input_paths(ctx, text, args, n_args, &names);
  ck_assert_uint_eq(got, n);
  for (size_t i = 0; i < n; i++) ck_assert_str_eq(names[i], want[i]);
  sc_ctx_free(ctx);
}

START_TEST(test_containers) {
  char children[2048];
  /* forward(x, d) with d = {"y": t}: torch's message names d['y'] (test/diff p1010) */
  snprintf(children, sizeof children, "%s, {\"type\": \"builtins.dict\", \"context\": \"[\\\"y\\\"]\", \"children_spec\": [%s]}",
           leaf, leaf);
  const char *const args[] = {"x", "d"};
  const char *const want[] = {"x", "d['y']"};
  expect_names(spec(children, "{\"type\": \"builtins.dict\", \"context\": \"[]\", \"children_spec\": []}"), args, 2, want, 2);
  /* forward(xs) with xs a list of two tensors, and a keyword argument k */
  snprintf(children, sizeof children, "{\"type\": \"builtins.list\", \"context\": \"null\", \"children_spec\": [%s, %s]}",
           leaf, leaf);
  char kw[512];
  snprintf(kw, sizeof kw, "{\"type\": \"builtins.dict\", \"context\": \"[\\\"k\\\"]\", \"children_spec\": [%s]}", leaf);
  const char *const args2[] = {"xs"};
  const char *const want2[] = {"xs[0]", "xs[1]", "k"};
  expect_names(spec(children, kw), args2, 1, want2, 3);
}
END_TEST

START_TEST(test_unread_specs) {
  sc_ctx *ctx = sc_ctx_new();
  const char **names = NULL;
  const char *const args[] = {"p"};
  char children[1024];
  snprintf(children, sizeof children, "{\"type\": \"collections.namedtuple\", \"context\": \"P\", \"children_spec\": [%s]}",
           leaf);
  ck_assert_uint_eq(sc_input_paths(ctx, spec(children, "{\"type\": \"builtins.dict\", \"context\": \"[]\", "
                                                       "\"children_spec\": []}"), args, 1, &names), 0);
  ck_assert_uint_eq(sc_input_paths(ctx, "[1, {\"type\": ", args, 1, &names), 0);
  ck_assert_uint_eq(sc_input_paths(ctx, NULL, args, 1, &names), 0);
  sc_ctx_free(ctx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("input_paths");
  TCase *tc = tcase_create("input_paths");
  tcase_add_test(tc, test_containers);
  tcase_add_test(tc, test_unread_specs);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
