/* test_spec_reader.c - dynamic_shapes specs against the tutorial model (w [6, 5], x [4],
 * y [8, 4], z [32]): valid forms, and every spec diagnostic with its code and path. */
#include <stdlib.h>
#include <string.h>

#include "lib/frontend/pt2_reader.h"
#include "test_util.h"

static sc_program *tutorial(sc_ctx *ctx) {
  cJSON *root = tu_example_model();
  sc_program *p = tu_read_model_tree(ctx, root);
  cJSON_Delete(root);
  ck_assert_ptr_nonnull(p);
  return p;
}

static sc_dynspec *read_spec(sc_ctx *ctx, sc_program *p, const char *text) {
  return sc_spec_read(ctx, p, "spec.json", text, strlen(text));
}

START_TEST(test_example_spec_all_auto) {
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p = tutorial(ctx);
  size_t len;
  char *text = tu_read_source("examples/tutorial/spec.json", &len);
  sc_dynspec *s = sc_spec_read(ctx, p, "spec.json", text, len);
  free(text);
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(s->n_inputs, 4);
  for (size_t i = 0; i < 4; i++)
    for (int d = 0; d < s->inputs[i].rank; d++) ck_assert_int_eq(s->inputs[i].dims[d].kind, SC_DIM_AUTO);
  ck_assert_int_eq(s->inputs[2].dims[0].sample, 8);
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_dict_form_named_and_derived) {
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p = tutorial(ctx);
  const char *text =
      "{\"dynamic_shapes\": {\"w\": {\"0\": \"batch\"}, \"x\": [\"dx\"], \"y\": [\"2*dx\", \"dx\"],"
      "                     \"z\": [{\"type\": \"DYNAMIC\", \"min\": 4, \"max\": 64}]},"
      " \"dims\": {\"batch\": {\"min\": 1, \"max\": 512}, \"dx\": {\"min\": 2, \"max\": null, \"derived\": [\"2*dx\"]}}}";
  sc_dynspec *s = read_spec(ctx, p, text);
  for (size_t i = 0; i < ctx->diags.n_items; i++) sc_diag_print(stderr, &ctx->diags.items[i]);
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(s->n_roots, 2);
  ck_assert_str_eq(s->roots[0].name, "batch");
  ck_assert_int_eq(s->roots[0].min, 1);
  ck_assert(s->roots[0].has_max && s->roots[0].max == 512);
  ck_assert(!s->roots[1].has_max);
  ck_assert_int_eq(s->roots[1].sample, 4);
  const sc_dim_spec *w0 = &s->inputs[0].dims[0], *w1 = &s->inputs[0].dims[1];
  ck_assert_int_eq(w0->kind, SC_DIM_NAMED);
  ck_assert_str_eq(w0->root->name, "batch");
  ck_assert_int_eq(w1->kind, SC_DIM_STATIC); /* not mentioned in the dict */
  const sc_dim_spec *y0 = &s->inputs[2].dims[0];
  ck_assert_int_eq(y0->coeff, 2);
  ck_assert_int_eq(y0->offset, 0);
  ck_assert_str_eq(y0->path, "dynamic_shapes.y[0]");
  const sc_dim_spec *z0 = &s->inputs[3].dims[0];
  ck_assert_int_eq(z0->kind, SC_DIM_DYNAMIC);
  ck_assert(z0->has_min && z0->min == 4 && z0->has_max && z0->max == 64);
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_positional_leaves) {
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p = tutorial(ctx);
  const char *text =
      "{\"dynamic_shapes\": [[\"AUTO\", 5], null, [\"_DimHint.STATIC\", \"DYNAMIC\"], [\"4*d - 0\"]],"
      " \"dims\": {\"d\": {\"min\": 2, \"max\": 100}}}";
  sc_dynspec *s = read_spec(ctx, p, text);
  for (size_t i = 0; i < ctx->diags.n_items; i++) sc_diag_print(stderr, &ctx->diags.items[i]);
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(s->inputs[0].dims[0].kind, SC_DIM_AUTO);
  ck_assert_int_eq(s->inputs[0].dims[1].kind, SC_DIM_STATIC);
  ck_assert_int_eq(s->inputs[0].dims[1].static_size, 5);
  ck_assert_int_eq(s->inputs[1].dims[0].kind, SC_DIM_STATIC);
  ck_assert_int_eq(s->inputs[2].dims[1].kind, SC_DIM_DYNAMIC);
  ck_assert_int_eq(s->inputs[3].dims[0].coeff, 4);
  ck_assert_int_eq(s->roots[0].sample, 8);
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_nested_pytree_spec) {
  /* forward((w, x), {"a": y, "b": z}): the spec nests like the inputs, which the
   * serialized program holds flat */
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p = tutorial(ctx);
  sc_dynspec *s = read_spec(ctx, p, "{\"dynamic_shapes\": [[[\"AUTO\", 5], [\"DYNAMIC\"]],"
                                    " {\"a\": [null, \"AUTO\"], \"b\": {\"0\": \"AUTO\"}}]}");
  for (size_t i = 0; i < ctx->diags.n_items; i++) sc_diag_print(stderr, &ctx->diags.items[i]);
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(s->inputs[0].dims[0].kind, SC_DIM_AUTO);
  ck_assert_int_eq(s->inputs[1].dims[0].kind, SC_DIM_DYNAMIC);
  ck_assert_int_eq(s->inputs[2].dims[0].kind, SC_DIM_STATIC);
  ck_assert_int_eq(s->inputs[2].dims[1].kind, SC_DIM_AUTO);
  ck_assert_str_eq(s->inputs[2].dims[1].path, "dynamic_shapes[1].a[1]");
  ck_assert_int_eq(s->inputs[3].dims[0].kind, SC_DIM_AUTO);
  sc_ctx_free(ctx);
  /* one leaf too many */
  ctx = sc_ctx_new();
  p = tutorial(ctx);
  ck_assert_ptr_null(read_spec(ctx, p, "{\"dynamic_shapes\": [[[null, null], [null]], [null, null], null, null]}"));
  tu_assert_diag(ctx, SC_DIAG_SPEC_INPUT_COUNT, "dynamic_shapes");
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_dim_min_defaults_to_zero) {
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p = tutorial(ctx);
  sc_dynspec *s = read_spec(ctx, p, "{\"dynamic_shapes\": {\"x\": [\"dx\"]}, \"dims\": {\"dx\": {}}}");
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(s->roots[0].min, 0);
  ck_assert(!s->roots[0].has_max);
  sc_ctx_free(ctx);
}
END_TEST

static const struct {
  const char *spec;
  sc_diag_code code;
  const char *path;
} spec_errors[] = {
    {"{\"dynamic_shapes\": {\"q\": [\"AUTO\"]}}", SC_DIAG_SPEC_UNKNOWN_INPUT, "dynamic_shapes.q"},
    {"{\"dynamic_shapes\": [[\"AUTO\"], null, null, null]}", SC_DIAG_SPEC_RANK, "dynamic_shapes[0]"},
    {"{\"dynamic_shapes\": {\"w\": {\"2\": \"AUTO\"}}}", SC_DIAG_SPEC_RANK, "dynamic_shapes.w.2"},
    {"{\"dynamic_shapes\": {\"x\": [\"dx\"]}, \"dims\": {}}", SC_DIAG_SPEC_UNKNOWN_DIM, "dynamic_shapes.x[0]"},
    {"{\"dynamic_shapes\": {\"x\": [\"dx*dx\"]}, \"dims\": {\"dx\": {}}}", SC_DIAG_SPEC_NONLINEAR, "dynamic_shapes.x[0]"},
    {"{\"dynamic_shapes\": {\"x\": [\"dx + dy\"]}, \"dims\": {\"dx\": {}, \"dy\": {}}}", SC_DIAG_SPEC_NONLINEAR,
     "dynamic_shapes.x[0]"},
    {"{\"dynamic_shapes\": {\"x\": [\"dx//2\"]}, \"dims\": {\"dx\": {}}}", SC_DIAG_SPEC_NONLINEAR, "dynamic_shapes.x[0]"},
    {"{\"dynamic_shapes\": null, \"dims\": {\"dx\": {\"derived\": [\"dx*dx\"]}}}", SC_DIAG_SPEC_NONLINEAR,
     "dims.dx.derived[0]"},
    {"{\"dynamic_shapes\": null, \"dims\": {\"dx\": {\"min\": 8, \"max\": 4}}}", SC_DIAG_SPEC_MIN_GT_MAX, "dims.dx"},
    {"{\"dynamic_shapes\": null, \"dims\": {\"dx\": {\"min\": 4, \"max\": 4}}}", SC_DIAG_SPEC_MIN_EQ_MAX, "dims.dx"},
    {"{\"dynamic_shapes\": {\"z\": [{\"type\": \"DYNAMIC\", \"min\": 64, \"max\": 4}]}}", SC_DIAG_SPEC_MIN_GT_MAX,
     "dynamic_shapes.z[0]"},
    {"{\"dynamic_shapes\": {\"w\": [7, 5]}}", SC_DIAG_SPEC_STATIC_MISMATCH, "dynamic_shapes.w[0]"},
    {"{\"dynamic_shapes\": {\"w\": [\"_DimHint.AUTOO\", 5]}}", SC_DIAG_SPEC_BAD_LEAF, "dynamic_shapes.w[0]"},
    {"{\"dynamic_shapes\": {\"w\": [true, 5]}}", SC_DIAG_SPEC_BAD_LEAF, "dynamic_shapes.w[0]"},
    {"{\"dynamic_shapes\": {\"w\": [{\"type\": \"SOMETIMES\"}, 5]}}", SC_DIAG_SPEC_BAD_LEAF, "dynamic_shapes.w[0].type"},
    {"{\"dynamic_shapes\": {\"w\": 3}}", SC_DIAG_SPEC_BAD_LEAF, "dynamic_shapes.w"},
    {"{\"dynamic_shapes\": [null, null, null]}", SC_DIAG_SPEC_INPUT_COUNT, "dynamic_shapes"},
    {"{\"dynamic_shapes\": [null, null, null, null, null]}", SC_DIAG_SPEC_INPUT_COUNT, "dynamic_shapes"},
    {"{\"dynamic_shapes\": null, \"dims\": {\"dx\": {\"min\": -1}}}", SC_DIAG_SPEC_NEGATIVE_BOUND, "dims.dx.min"},
    /* torch's loader refuses a null min (it writes "max": null for a Dim without one, which is read) */
    {"{\"dynamic_shapes\": null, \"dims\": {\"dx\": {\"min\": null, \"max\": 8, \"derived\": []}}}", SC_DIAG_WRONG_TYPE,
     "dims.dx.min"},
    {"{\"dynamic_shapes\": {\"w\": [\"dx\", 5], \"x\": [\"dx\"]}, \"dims\": {\"dx\": {}}}", SC_DIAG_SPEC_SAMPLE_CONFLICT,
     "dynamic_shapes.x[0]"},
    {"{\"dynamic_shapes\": {\"x\": [\"2*dx + 1\"]}, \"dims\": {\"dx\": {}}}", SC_DIAG_SPEC_SAMPLE_CONFLICT,
     "dynamic_shapes.x[0]"},
    {"{\"dynamic_shapes\": {\"x\": [\"dx\"]}, \"dims\": {\"dx\": {\"min\": 10, \"max\": 20}}}", SC_DIAG_SPEC_SAMPLE_RANGE,
     "dynamic_shapes.x[0]"},
    {"{\"dims\": {}}", SC_DIAG_MISSING_FIELD, "dynamic_shapes"},
    {"{\"dynamic_shapes\": 5}", SC_DIAG_WRONG_TYPE, "dynamic_shapes"},
    {"{\"dynamic_shapes\": null, \"dims\": {\"dx\": {\"max\": 1e40}}}", SC_DIAG_INT_RANGE, "dims.dx.max"},
    {"[1, 2", SC_DIAG_JSON_SYNTAX, NULL},
    {"{\"dynamic_shapes\": {\"w\": [\"AUTOMATIC\", 5]}}", SC_DIAG_SPEC_BAD_LEAF, "dynamic_shapes.w[0]"},
    {"{\"dynamic_shapes\": {\"y\": [{\"type\": \"AUTO\", \"min\": 10}, 4]}}", SC_DIAG_SPEC_SAMPLE_RANGE,
     "dynamic_shapes.y[0]"},
    {"{\"dynamic_shapes\": {\"y\": [{\"type\": \"_DimHint.DYNAMIC\", \"max\": 7}, 4]}}", SC_DIAG_SPEC_SAMPLE_RANGE,
     "dynamic_shapes.y[0]"},
};

START_TEST(test_spec_diagnostics) {
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p = tutorial(ctx);
  ck_assert_ptr_null(read_spec(ctx, p, spec_errors[_i].spec));
  tu_assert_diag(ctx, spec_errors[_i].code, spec_errors[_i].path);
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_spec_for_non_tensor_input) {
  sc_ctx *ctx = sc_ctx_new();
  cJSON *root = tu_example_model();
  tu_mutate(root, "graph_module.signature.input_specs[5]", "{\"user_input\": {\"arg\": {\"as_int\": 3}}}");
  sc_program *p = tu_read_model_tree(ctx, root);
  cJSON_Delete(root);
  ck_assert_ptr_nonnull(p);
  ck_assert_ptr_null(read_spec(ctx, p, "{\"dynamic_shapes\": [null, null, null, [\"AUTO\"]]}"));
  tu_assert_diag(ctx, SC_DIAG_SPEC_NOT_TENSOR, "dynamic_shapes[3]");
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_unknown_input_lists_the_inputs) {
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p = tutorial(ctx);
  read_spec(ctx, p, "{\"dynamic_shapes\": {\"q\": null}}");
  const sc_diag *d = sc_diags_find(&ctx->diags, SC_DIAG_SPEC_UNKNOWN_INPUT);
  ck_assert_ptr_nonnull(d);
  ck_assert_str_eq(d->file, "spec.json");
  ck_assert_ptr_nonnull(strstr(d->hint, "w, x, y, z"));
  sc_ctx_free(ctx);
}
END_TEST

/* torch's dumper writes one entry per forward argument, null for one that export turned
 * into a constant (here the int k of forward(x, k), from the real corpus) */
START_TEST(test_null_for_constant_argument) {
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p;
  sc_weights *w;
  char *path = tu_source_path("test/real/corpus/2.14/int_input/model.pt2");
  ck_assert(sc_pt2_read(ctx, path, &p, &w));
  const char *ok = "{\"dynamic_shapes\": [[\"_DimHint.AUTO\", \"_DimHint.AUTO\"], null], \"dims\": {}}";
  sc_dynspec *spec = sc_spec_read(ctx, p, "s.json", ok, strlen(ok));
  ck_assert_ptr_nonnull(spec);
  ck_assert_int_eq(spec->inputs[0].dims[0].kind, SC_DIM_AUTO);
  const char *bad = "{\"dynamic_shapes\": [[\"_DimHint.AUTO\", \"_DimHint.AUTO\"], 3], \"dims\": {}}";
  ck_assert_ptr_null(sc_spec_read(ctx, p, "s.json", bad, strlen(bad)));
  tu_assert_diag(ctx, SC_DIAG_SPEC_NOT_TENSOR, "dynamic_shapes[1]");
  free(path);
  sc_ctx_free(ctx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("spec_reader");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_example_spec_all_auto);
  tcase_add_test(tc, test_dict_form_named_and_derived);
  tcase_add_test(tc, test_positional_leaves);
  tcase_add_test(tc, test_dim_min_defaults_to_zero);
  tcase_add_test(tc, test_nested_pytree_spec);
  tcase_add_loop_test(tc, test_spec_diagnostics, 0, sizeof spec_errors / sizeof spec_errors[0]);
  tcase_add_test(tc, test_spec_for_non_tensor_input);
  tcase_add_test(tc, test_unknown_input_lists_the_inputs);
  tcase_add_test(tc, test_null_for_constant_argument);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
