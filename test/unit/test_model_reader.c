/* test_model_reader.c - the serialized-program reader on valid programs, and every
 * model diagnostic with its code and JSON path. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/graph.h"
#include "lib/frontend/json_reader.h"
#include "passes/verify_graph.h"
#include "test_util.h"

START_TEST(test_reads_tutorial_model) {
  sc_ctx *ctx = sc_ctx_new();
  cJSON *root = tu_example_model();
  sc_program *p = tu_read_model_tree(ctx, root);
  cJSON_Delete(root);
  ck_assert_ptr_nonnull(p);
  ck_assert_int_eq(ctx->diags.n_errors, 0);
  ck_assert(sc_verify_graph(ctx, p));
  ck_assert_int_eq(p->schema_major, 8);
  ck_assert_int_eq(p->schema_minor, 13);
  ck_assert_int_eq(p->graph->n_inputs, 6);
  ck_assert_int_eq(p->graph->n_nodes, 5);
  ck_assert_int_eq(p->graph->n_outputs, 2);
  ck_assert_int_eq(sc_program_n_user_inputs(p), 4);
  ck_assert_int_eq(p->input_specs[0].kind, SC_INPUT_PARAMETER);
  ck_assert_str_eq(p->input_specs[0].target, "l.weight");
  ck_assert_int_eq(p->graph->nodes[1].op->id, SC_OP_PERMUTE);
  ck_assert_int_eq(p->graph->nodes[2].op->id, SC_OP_ADDMM);
  ck_assert_int_eq(p->graph->nodes[3].op->id, SC_OP_FLATTEN);
  ck_assert_int_eq(p->graph->nodes[1].inputs[1].arg.kind, SC_ARG_INTS);
  ck_assert_int_eq(p->graph->nodes[1].inputs[1].arg.items[0].i, 1);
  const sc_value *y = sc_graph_find_value(p->graph, "y");
  ck_assert_int_eq(y->meta.rank, 2);
  ck_assert_int_eq(y->meta.dtype, SC_DTYPE_F32);
  ck_assert_int_eq(y->meta.size_hints[0], 8);
  ck_assert_int_eq(y->def_node, -1);
  ck_assert_int_eq(p->n_forward_arg_names, 4);
  ck_assert_str_eq(p->forward_arg_names[3], "z");

  sc_strbuf sb = {0};
  sc_program_print(&sb, p);
  const char *text = sc_strbuf_cstr(&sb);
  ck_assert_ptr_nonnull(strstr(text, "def forward(self, p_l_weight: \"f32[3, 5]\", p_l_bias: \"f32[3]\", w: \"f32[6, 5]\""));
  ck_assert_ptr_nonnull(strstr(text, "addmm: \"f32[6, 3]\" = torch.ops.aten.addmm.default(p_l_bias, w, permute)\n"));
  ck_assert_ptr_nonnull(strstr(text, "permute: \"f32[5, 3]\" = torch.ops.aten.permute.default(p_l_weight, [1, 0])\n"));
  ck_assert_ptr_nonnull(strstr(text, "return (addmm, add_1)\n"));
  ck_assert_ptr_nonnull(strstr(text, "p_l_weight: PARAMETER target='l.weight'\n"));
  sc_strbuf_free(&sb);
  sc_ctx_free(ctx);
}
END_TEST

/* The runtime-assert example of the seeds: x [s0, s1], y [s2], view(x, [-1]) + y with the
 * guard Eq(s0*s1 - s2, 0) as an _assert_scalar node. */
static const char *dynamic_program =
    "{\"schema_version\": {\"major\": 8, \"minor\": 3},"
    " \"range_constraints\": {\"s0\": {\"min_val\": 2, \"max_val\": null},"
    "                         \"s1\": {\"min_val\": 2, \"max_val\": Infinity},"
    "                         \"s2\": {\"min_val\": 4, \"max_val\": 1024}},"
    " \"graph_module\": {"
    "  \"graph\": {"
    "   \"inputs\": [{\"as_tensor\": {\"name\": \"x\"}}, {\"as_tensor\": {\"name\": \"y\"}}],"
    "   \"outputs\": [{\"as_tensor\": {\"name\": \"add_1\"}}],"
    "   \"tensor_values\": {"
    "    \"x\": {\"dtype\": 7, \"sizes\": [{\"as_expr\": {\"expr_str\": \"s0\", \"hint\": {\"as_int\": 3}}},"
    "                                  {\"as_expr\": {\"expr_str\": \"Symbol('s1', integer=True, positive=True)\","
    "                                                 \"hint\": {\"as_int\": 4}}}],"
    "           \"requires_grad\": false, \"device\": {\"type\": \"cpu\", \"index\": null},"
    "           \"strides\": [{\"as_expr\": {\"expr_str\": \"s1\", \"hint\": null}}, {\"as_int\": 1}],"
    "           \"storage_offset\": {\"as_int\": 0}, \"layout\": 7},"
    "    \"y\": {\"dtype\": 7, \"sizes\": [{\"as_expr\": {\"expr_str\": \"s2\", \"hint\": {\"as_int\": 12}}}]},"
    "    \"view\": {\"dtype\": 7, \"sizes\": [{\"as_expr\": {\"expr_str\": \"s0*s1\"}}]},"
    "    \"add_1\": {\"dtype\": 7, \"sizes\": [{\"as_expr\": {\"expr_str\": \"s0*s1\"}}]}},"
    "   \"sym_int_values\": {"
    "    \"sym_size_int\": {\"as_expr\": {\"expr_str\": \"s2\", \"hint\": {\"as_int\": 12}}},"
    "    \"sym_size_int_1\": {\"as_expr\": {\"expr_str\": \"s0\"}},"
    "    \"sym_size_int_2\": {\"as_expr\": {\"expr_str\": \"s1\"}},"
    "    \"mul\": {\"as_expr\": {\"expr_str\": \"s0*s1\"}},"
    "    \"sub\": {\"as_expr\": {\"expr_str\": \"s0*s1 - s2\"}}},"
    "   \"sym_bool_values\": {\"eq\": {\"as_expr\": {\"expr_str\": \"Eq(s0*s1 - s2, 0)\"}}},"
    "   \"nodes\": ["
    "    {\"target\": \"torch.ops.aten.sym_size.int\", \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"y\"}}},"
    "      {\"name\": \"dim\", \"arg\": {\"as_int\": 0}}], \"outputs\": [{\"as_sym_int\": {\"as_name\": \"sym_size_int\"}}], \"metadata\": {}},"
    "    {\"target\": \"torch.ops.aten.sym_size.int\", \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}},"
    "      {\"name\": \"dim\", \"arg\": {\"as_int\": 0}}], \"outputs\": [{\"as_sym_int\": {\"as_name\": \"sym_size_int_1\"}}], \"metadata\": {}},"
    "    {\"target\": \"torch.ops.aten.sym_size.int\", \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}},"
    "      {\"name\": \"dim\", \"arg\": {\"as_int\": 1}}], \"outputs\": [{\"as_sym_int\": {\"as_name\": \"sym_size_int_2\"}}], \"metadata\": {}},"
    "    {\"target\": \"_operator.mul\", \"inputs\": [{\"name\": \"a\", \"arg\": {\"as_sym_int\": {\"as_name\": \"sym_size_int_1\"}}},"
    "      {\"name\": \"b\", \"arg\": {\"as_sym_int\": {\"as_name\": \"sym_size_int_2\"}}}],"
    "      \"outputs\": [{\"as_sym_int\": {\"as_name\": \"mul\"}}], \"metadata\": {}},"
    "    {\"target\": \"_operator.sub\", \"inputs\": [{\"name\": \"a\", \"arg\": {\"as_sym_int\": {\"as_name\": \"mul\"}}},"
    "      {\"name\": \"b\", \"arg\": {\"as_sym_int\": {\"as_name\": \"sym_size_int\"}}}],"
    "      \"outputs\": [{\"as_sym_int\": {\"as_name\": \"sub\"}}], \"metadata\": {}},"
    "    {\"target\": \"_operator.eq\", \"inputs\": [{\"name\": \"a\", \"arg\": {\"as_sym_int\": {\"as_name\": \"sub\"}}},"
    "      {\"name\": \"b\", \"arg\": {\"as_int\": 0}}], \"outputs\": [{\"as_sym_bool\": {\"as_name\": \"eq\"}}], \"metadata\": {}},"
    "    {\"target\": \"torch.ops.aten._assert_scalar.default\", \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_sym_bool\": {\"as_name\": \"eq\"}}},"
    "      {\"name\": \"assert_msg\", \"arg\": {\"as_string\": \"Runtime assertion failed for expression Eq(s0*s1 - s2, 0) on node 'eq'\"}}],"
    "      \"outputs\": [{\"as_none\": true}], \"metadata\": {}},"
    "    {\"target\": \"torch.ops.aten.view.default\", \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}},"
    "      {\"name\": \"size\", \"arg\": {\"as_sym_ints\": [{\"as_int\": -1}]}}], \"outputs\": [{\"as_tensor\": {\"name\": \"view\"}}], \"metadata\": {}},"
    "    {\"target\": \"torch.ops.aten.add.Tensor\", \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"view\"}}},"
    "      {\"name\": \"other\", \"arg\": {\"as_tensor\": {\"name\": \"y\"}}}, {\"name\": \"alpha\", \"arg\": {\"as_int\": 1}, \"kind\": 2}],"
    "      \"outputs\": [{\"as_tensor\": {\"name\": \"add_1\"}}], \"metadata\": {}}]},"
    "  \"signature\": {\"input_specs\": [{\"user_input\": {\"arg\": {\"as_tensor\": {\"name\": \"x\"}}}},"
    "                                    {\"user_input\": {\"arg\": {\"as_tensor\": {\"name\": \"y\"}}}}],"
    "                 \"output_specs\": [{\"user_output\": {\"arg\": {\"as_tensor\": {\"name\": \"add_1\"}}}}]},"
    "  \"module_call_graph\": []}}";

START_TEST(test_reads_dynamic_program) {
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p = sc_model_read(ctx, "dyn.json", dynamic_program, strlen(dynamic_program));
  for (size_t i = 0; i < ctx->diags.n_items; i++) sc_diag_print(stderr, &ctx->diags.items[i]);
  ck_assert_ptr_nonnull(p);
  ck_assert(sc_verify_graph(ctx, p));
  const sc_value *x = sc_graph_find_value(p->graph, "x");
  ck_assert_str_eq(sc_expr_to_string(ctx, x->meta.sizes[1]), "s1");
  ck_assert_int_eq(x->meta.size_hints[1], 4);
  const sc_value *eq = sc_graph_find_value(p->graph, "eq");
  ck_assert_int_eq(eq->kind, SC_VALUE_SYM_BOOL);
  ck_assert_str_eq(sc_expr_to_string(ctx, eq->expr), "Eq(s0*s1 - s2, 0)");
  ck_assert_int_eq(p->graph->nodes[6].op->id, SC_OP_ASSERT_SCALAR);
  ck_assert_int_eq(p->graph->nodes[7].inputs[1].arg.kind, SC_ARG_SYM_INTS);
  ck_assert_int_eq(p->graph->nodes[7].inputs[1].arg.items[0].i, -1);
  ck_assert_int_eq(p->n_ranges, 3);
  ck_assert(p->ranges[0].has_min && !p->ranges[0].has_max);
  ck_assert(!p->ranges[1].has_max); /* Python's Infinity means unbounded */
  ck_assert(p->ranges[2].has_max && p->ranges[2].max == 1024);
  sc_strbuf sb = {0};
  sc_program_print(&sb, p);
  const char *text = sc_strbuf_cstr(&sb);
  ck_assert_ptr_nonnull(strstr(text, "add_1: \"f32[s0*s1]\" = torch.ops.aten.add.Tensor(view, y, alpha = 1)\n"));
  ck_assert_ptr_nonnull(strstr(text, "eq: \"Sym(Eq(s0*s1 - s2, 0))\" = _operator.eq(sub, 0)\n"));
  ck_assert_ptr_nonnull(strstr(text, "Range constraints: {s0: VR[2, int_oo], s1: VR[2, int_oo], s2: VR[4, 1024]}"));
  sc_strbuf_free(&sb);
  sc_ctx_free(ctx);
}
END_TEST

/* One node carrying every member of the Argument union. */
START_TEST(test_every_argument_kind) {
  sc_ctx *ctx = sc_ctx_new();
  cJSON *root = tu_example_model();
  tu_mutate(root, "graph_module.graph.sym_int_values.n", "{\"as_expr\": {\"expr_str\": \"s0\", \"hint\": {\"as_int\": 2}}}");
  tu_mutate(root, "graph_module.graph.sym_bool_values.b", "{\"as_bool\": true}");
  tu_mutate(root, "graph_module.graph.sym_float_values", "{\"f\": {\"as_float\": 0.5}}");
  tu_mutate(root, "graph_module.graph.custom_obj_values", "{\"obj\": {\"name\": \"obj\", \"class_fqn\": \"my.Cls\"}}");
  const char *args =
      "[{\"name\": \"a0\", \"arg\": {\"as_none\": true}},"
      " {\"name\": \"a1\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}},"
      " {\"name\": \"a2\", \"arg\": {\"as_tensors\": [{\"name\": \"x\"}, {\"name\": \"y\"}]}},"
      " {\"name\": \"a3\", \"arg\": {\"as_int\": -3}},"
      " {\"name\": \"a4\", \"arg\": {\"as_ints\": [1, 2]}},"
      " {\"name\": \"a5\", \"arg\": {\"as_float\": 1.5}},"
      " {\"name\": \"a6\", \"arg\": {\"as_floats\": [0.25, \"-Infinity\", \"NaN\"]}},"
      " {\"name\": \"a7\", \"arg\": {\"as_string\": \"tanh\"}},"
      " {\"name\": \"a8\", \"arg\": {\"as_strings\": [\"a\", \"b\"]}},"
      " {\"name\": \"a9\", \"arg\": {\"as_sym_int\": {\"as_name\": \"n\"}}},"
      " {\"name\": \"a10\", \"arg\": {\"as_sym_ints\": [{\"as_name\": \"n\"}, {\"as_int\": 4}]}},"
      " {\"name\": \"a11\", \"arg\": {\"as_scalar_type\": 5}},"
      " {\"name\": \"a12\", \"arg\": {\"as_memory_format\": 1}},"
      " {\"name\": \"a13\", \"arg\": {\"as_layout\": 7}},"
      " {\"name\": \"a14\", \"arg\": {\"as_device\": {\"type\": \"cuda\", \"index\": 0}}},"
      " {\"name\": \"a15\", \"arg\": {\"as_bool\": false}},"
      " {\"name\": \"a16\", \"arg\": {\"as_bools\": [true, false]}},"
      " {\"name\": \"a17\", \"arg\": {\"as_sym_bool\": {\"as_name\": \"b\"}}},"
      " {\"name\": \"a18\", \"arg\": {\"as_sym_bools\": [{\"as_name\": \"b\"}, {\"as_bool\": true}]}},"
      " {\"name\": \"a19\", \"arg\": {\"as_graph\": {\"name\": \"true_graph_0\", \"graph\": {"
      "     \"inputs\": [{\"as_tensor\": {\"name\": \"arg0\"}}], \"outputs\": [{\"as_tensor\": {\"name\": \"neg\"}}],"
      "     \"nodes\": [{\"target\": \"torch.ops.aten.neg.default\","
      "                 \"inputs\": [{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"arg0\"}}}],"
      "                 \"outputs\": [{\"as_tensor\": {\"name\": \"neg\"}}], \"metadata\": {}}],"
      "     \"tensor_values\": {\"arg0\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 4}]},"
      "                         \"neg\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 4}]}},"
      "     \"sym_int_values\": {}, \"sym_bool_values\": {}}}}},"
      " {\"name\": \"a20\", \"arg\": {\"as_optional_tensors\": [{\"as_tensor\": {\"name\": \"x\"}}, {\"as_none\": true}]}},"
      " {\"name\": \"a21\", \"arg\": {\"as_custom_obj\": {\"name\": \"obj\", \"class_fqn\": \"my.Cls\"}}},"
      " {\"name\": \"a22\", \"arg\": {\"as_operator\": \"torch.ops.aten.add.Tensor\"}},"
      " {\"name\": \"a23\", \"arg\": {\"as_sym_float\": {\"as_name\": \"f\"}}},"
      " {\"name\": \"a24\", \"arg\": {\"as_sym_floats\": [{\"as_name\": \"f\"}, {\"as_float\": 2.0}]}},"
      " {\"name\": \"a25\", \"arg\": {\"as_optional_tensor\": {\"as_none\": true}}},"
      " {\"name\": \"a26\", \"arg\": {\"as_complex\": {\"real\": 1.0, \"imag\": -2.0}}},"
      " {\"name\": \"a27\", \"arg\": {\"as_nested_tensors\": [[{\"name\": \"x\"}], [{\"name\": \"y\"}, {\"name\": \"z\"}]]}},"
      " {\"name\": \"a28\", \"arg\": {\"as_int_lists\": [[1, 2], [3]]}},"
      " {\"name\": \"a29\", \"arg\": {\"as_string_to_argument\": {\"k\": {\"as_int\": 7}, \"t\": {\"as_tensor\": {\"name\": \"y\"}}}}},"
      " {\"name\": \"a30\", \"arg\": {\"as_float_lists\": [[0.5, 2], [], [-1.25]]}}]";
  tu_mutate(root, "graph_module.graph.nodes[0].inputs", args);
  tu_mutate(root, "graph_module.graph.nodes[0].target", "\"torch.ops.aten.clone.default\"");
  sc_program *p = tu_read_model_tree(ctx, root);
  cJSON_Delete(root);
  for (size_t i = 0; i < ctx->diags.n_items; i++) sc_diag_print(stderr, &ctx->diags.items[i]);
  ck_assert_ptr_nonnull(p);
  const sc_node *n = &p->graph->nodes[0];
  ck_assert_int_eq(n->n_inputs, 31);
  static const sc_arg_kind want[31] = {
      SC_ARG_NONE,        SC_ARG_TENSOR,      SC_ARG_TENSORS,        SC_ARG_INT,         SC_ARG_INTS,
      SC_ARG_FLOAT,       SC_ARG_FLOATS,      SC_ARG_STRING,         SC_ARG_STRINGS,     SC_ARG_SYM_INT,
      SC_ARG_SYM_INTS,    SC_ARG_SCALAR_TYPE, SC_ARG_MEMORY_FORMAT,  SC_ARG_LAYOUT,      SC_ARG_DEVICE,
      SC_ARG_BOOL,        SC_ARG_BOOLS,       SC_ARG_SYM_BOOL,       SC_ARG_SYM_BOOLS,   SC_ARG_GRAPH,
      SC_ARG_OPTIONAL_TENSORS, SC_ARG_CUSTOM_OBJ, SC_ARG_OPERATOR,   SC_ARG_SYM_FLOAT,   SC_ARG_SYM_FLOATS,
      SC_ARG_OPTIONAL_TENSOR, SC_ARG_COMPLEX,  SC_ARG_NESTED_TENSORS, SC_ARG_INT_LISTS,  SC_ARG_STRING_TO_ARGUMENT,
      SC_ARG_FLOAT_LISTS};
  for (int i = 0; i < 31; i++) ck_assert_msg(n->inputs[i].arg.kind == want[i], "argument %d has kind %d", i, n->inputs[i].arg.kind);
  ck_assert_int_eq(n->inputs[3].arg.items[0].i, -3);
  ck_assert_str_eq(n->inputs[9].arg.items[0].value->name, "n");
  ck_assert_int_eq(n->inputs[10].arg.items[1].i, 4);
  ck_assert_str_eq(n->inputs[14].arg.device_type, "cuda");
  ck_assert_int_eq(n->inputs[19].arg.graph->n_nodes, 1);
  ck_assert(n->inputs[20].arg.items[1].is_none);
  ck_assert_double_eq(n->inputs[26].arg.im, -2.0);
  ck_assert_int_eq(n->inputs[27].arg.lists[1].n_items, 2);
  ck_assert_str_eq(n->inputs[29].arg.keys[1], "t");
  ck_assert_int_eq(n->inputs[30].arg.n_items, 3); /* schema 8.20's as_float_lists */
  ck_assert_double_eq(n->inputs[30].arg.lists[0].items[1].f, 2.0);
  ck_assert_int_eq(n->inputs[30].arg.lists[1].n_items, 0);
  sc_strbuf sb = {0};
  sc_program_print(&sb, p);
  ck_assert_ptr_nonnull(strstr(sc_strbuf_cstr(&sb), "[0.25, -inf, nan], 'tanh', ['a', 'b'], n, [n, 4], torch.int64"));
  ck_assert_ptr_nonnull(strstr(sc_strbuf_cstr(&sb), "device(type='cuda', index=0)"));
  ck_assert_ptr_nonnull(strstr(sc_strbuf_cstr(&sb), "(1.0-2.0j), [[x], [y, z]], [[1, 2], [3]], {'k': 7, 't': y}, [[0.5, 2.0], [], [-1.25]])"));
  sc_strbuf_free(&sb);
  sc_ctx_free(ctx);
}
END_TEST

/* Each model diagnostic: a mutation of the tutorial model, the code and the path. */
static const struct {
  const char *path;
  const char *value; /* JSON text, or NULL to delete */
  sc_diag_code code;
  const char *diag_path;
} model_errors[] = {
    {"graph_module.graph.nodes", NULL, SC_DIAG_MISSING_FIELD, "graph_module.graph.nodes"},
    {"graph_module.graph.nodes[0].target", "5", SC_DIAG_WRONG_TYPE, "graph_module.graph.nodes[0].target"},
    {"graph_module.graph.tensor_values.w.sizes[0]", "{\"as_int\": 1e30}", SC_DIAG_INT_RANGE,
     "graph_module.graph.tensor_values.w.sizes[0].as_int"},
    {"graph_module.graph.tensor_values.w.sizes[0]", "{\"as_int\": 6.5}", SC_DIAG_WRONG_TYPE,
     "graph_module.graph.tensor_values.w.sizes[0].as_int"},
    {"schema_version.major", "9", SC_DIAG_SCHEMA_VERSION, "schema_version.major"},
    {"graph_module.graph.nodes[0].inputs[0].arg", "{\"as_tensr\": {\"name\": \"x\"}}", SC_DIAG_BAD_UNION,
     "graph_module.graph.nodes[0].inputs[0].arg"},
    {"graph_module.graph.nodes[0].inputs[0].arg", "{}", SC_DIAG_BAD_UNION, "graph_module.graph.nodes[0].inputs[0].arg"},
    {"graph_module.graph.tensor_values.w.dtype", "99", SC_DIAG_BAD_ENUM, "graph_module.graph.tensor_values.w.dtype"},
    {"graph_module.graph.nodes[1].target", "\"torch.ops.aten.permutee.default\"", SC_DIAG_UNKNOWN_OPERATOR,
     "graph_module.graph.nodes[1].target"},
    {"graph_module.graph.nodes[1].inputs[1].arg", "{\"as_sym_ints\": [{\"as_name\": \"nope\"}]}",
     SC_DIAG_UNDEFINED_VALUE, "graph_module.graph.nodes[1].inputs[1].arg.as_sym_ints[0].as_name"},
    {"graph_module.graph.nodes[0].inputs[0].arg", "{\"as_tensor\": {\"name\": \"flatten\"}}", SC_DIAG_USE_BEFORE_DEF,
     "graph_module.graph.nodes[0].inputs[0].arg"},
    {"graph_module.graph.nodes[1].name", "\"add\"", SC_DIAG_DUPLICATE_NAME, "graph_module.graph.nodes[1]"},
    {"graph_module.graph.nodes[1].outputs[0]", "{\"as_tensor\": {\"name\": \"add\"}}", SC_DIAG_DUPLICATE_NAME,
     "graph_module.graph.nodes[1].outputs[0]"},
    {"graph_module.signature.output_specs[0]", "{\"loss_output\": {\"arg\": {\"name\": \"addmm\"}}}",
     SC_DIAG_UNSUPPORTED_SPEC, "graph_module.signature.output_specs[0].loss_output"},
    {"graph_module.signature.input_specs[2]", "{\"token\": {\"arg\": {\"name\": \"w\"}}}", SC_DIAG_UNSUPPORTED_SPEC,
     "graph_module.signature.input_specs[2].token"},
    {"graph_module.graph.tensor_values.w.sizes[0]", "{\"as_expr\": {\"expr_str\": \"s0 +\", \"hint\": {\"as_int\": 6}}}",
     SC_DIAG_BAD_EXPR, "graph_module.graph.tensor_values.w.sizes[0].as_expr.expr_str"},
    {"graph_module.graph.tensor_values.w.sizes[0]", "{\"as_expr\": {\"expr_str\": \"Eq(s0, 6)\"}}", SC_DIAG_BAD_EXPR,
     "graph_module.graph.tensor_values.w.sizes[0].as_expr.expr_str"},
    {"graph_module.signature.input_specs[5]", NULL, SC_DIAG_SIGNATURE_MISMATCH, "graph_module.signature.input_specs"},
    {"graph_module.signature.input_specs[2].user_input.arg.as_tensor.name", "\"x\"", SC_DIAG_SIGNATURE_MISMATCH,
     "graph_module.signature.input_specs[2].user_input"},
    {"graph_module.signature.output_specs[1]", NULL, SC_DIAG_SIGNATURE_MISMATCH, "graph_module.signature.output_specs"},
    {"graph_module.graph.nodes[0].inputs[0].arg", "{\"as_tensor\": {\"name\": \"nothere\"}}", SC_DIAG_MISSING_META,
     "graph_module.graph.nodes[0].inputs[0].arg.as_tensor.name"},
    /* complex128 (complex64 is read: the Fourier transforms compute with it inside a program) */
    {"graph_module.graph.tensor_values.w.dtype", "11", SC_DIAG_UNSUPPORTED_DTYPE,
     "graph_module.graph.tensor_values.w.dtype"},
    /* torch 2.8+'s float8_e8m0fnu, uint32, uint64: known, refused by name */
    {"graph_module.graph.tensor_values.w.dtype", "33", SC_DIAG_UNSUPPORTED_DTYPE, "graph_module.graph.tensor_values.w.dtype"},
    {"graph_module.graph.tensor_values.w.dtype", "34", SC_DIAG_UNSUPPORTED_DTYPE, "graph_module.graph.tensor_values.w.dtype"},
    {"graph_module.graph.tensor_values.w.dtype", "35", SC_DIAG_UNSUPPORTED_DTYPE, "graph_module.graph.tensor_values.w.dtype"},
    {"graph_module.graph.tensor_values.w.dtype", "36", SC_DIAG_BAD_ENUM, "graph_module.graph.tensor_values.w.dtype"},
    {"graph_module.graph.nodes[0].inputs[0].arg", "{\"as_sym_int\": {\"as_name\": \"w\"}}", SC_DIAG_VALUE_KIND,
     "graph_module.graph.nodes[0].inputs[0].arg.as_sym_int.as_name"},
    {"graph_module.graph.sym_int_values", "{\"w\": {\"as_int\": 3}}", SC_DIAG_DUPLICATE_NAME,
     "graph_module.graph.sym_int_values.w"},
    {"graph_module.graph.tensor_values.w.layout", "2", SC_DIAG_BAD_ENUM, "graph_module.graph.tensor_values.w.layout"},
    {"graph_module.graph.tensor_values.w.strides", "[{\"as_int\": 1}]", SC_DIAG_WRONG_TYPE,
     "graph_module.graph.tensor_values.w.strides"},
    {"graph_module.graph.tensor_values.w.sizes[0]", "{\"as_int\": -1}", SC_DIAG_NEGATIVE_SIZE,
     "graph_module.graph.tensor_values.w.sizes[0]"},
    {"graph_module.graph.tensor_values.w.sizes[0]", "{\"as_expr\": {\"expr_str\": \"s0\", \"hint\": {\"as_int\": -6}}}",
     SC_DIAG_NEGATIVE_SIZE, "graph_module.graph.tensor_values.w.sizes[0]"},
};

START_TEST(test_model_diagnostics) {
  sc_ctx *ctx = sc_ctx_new();
  cJSON *root = tu_example_model();
  tu_mutate(root, model_errors[_i].path, model_errors[_i].value);
  sc_program *p = tu_read_model_tree(ctx, root);
  cJSON_Delete(root);
  if (p) sc_verify_graph(ctx, p);
  tu_assert_diag(ctx, model_errors[_i].code, model_errors[_i].diag_path);
  ck_assert_int_eq(sc_diags_exit_class(&ctx->diags), SC_EXIT_USER);
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_ghost_value_is_undefined) {
  /* declared in tensor_values but produced by nothing */
  sc_ctx *ctx = sc_ctx_new();
  cJSON *root = tu_example_model();
  tu_mutate(root, "graph_module.graph.tensor_values.ghost", "{\"dtype\": 7, \"sizes\": [{\"as_int\": 4}]}");
  tu_mutate(root, "graph_module.graph.nodes[0].inputs[0].arg", "{\"as_tensor\": {\"name\": \"ghost\"}}");
  sc_program *p = tu_read_model_tree(ctx, root);
  cJSON_Delete(root);
  ck_assert_ptr_nonnull(p);
  ck_assert(!sc_verify_graph(ctx, p));
  tu_assert_diag(ctx, SC_DIAG_UNDEFINED_VALUE, "graph_module.graph.nodes[0].inputs[0].arg");
  sc_ctx_free(ctx);
}
END_TEST

/* The SC0307 diagnostic for the example model with node 2's target replaced by `target`
 * (a JSON string); ctx keeps it. */
static const sc_diag *unknown_operator(sc_ctx *ctx, const char *target) {
  cJSON *root = tu_example_model();
  tu_mutate(root, "graph_module.graph.nodes[2].target", target);
  tu_read_model_tree(ctx, root);
  cJSON_Delete(root);
  const sc_diag *d = sc_diags_find(&ctx->diags, SC_DIAG_UNKNOWN_OPERATOR);
  ck_assert_ptr_nonnull(d);
  ck_assert_ptr_nonnull(d->hint);
  return d;
}

START_TEST(test_unknown_operator_suggests_closest) {
  sc_ctx *ctx = sc_ctx_new();
  const sc_diag *d = unknown_operator(ctx, "\"torch.ops.aten.addm.default\"");
  ck_assert_ptr_nonnull(strstr(d->message, "torch.ops.aten.addm.default"));
  ck_assert_ptr_nonnull(strstr(d->hint, "closest known operators: torch.ops.aten.addmm.default"));
  sc_ctx_free(ctx);
}
END_TEST

/* An operator torch's run_decompositions() rewrites: the hint says to decompose (an
 * operator it keeps gets the closest names and the files to extend, above). */
START_TEST(test_unknown_decomposable_operator_says_decompose) {
  sc_ctx *ctx = sc_ctx_new();
  const sc_diag *d = unknown_operator(ctx, "\"torch.ops.aten.huber_loss.default\"");
  ck_assert_ptr_nonnull(strstr(d->hint, "ep.run_decompositions()"));
  ck_assert_ptr_null(strstr(d->hint, "closest known operators"));
  sc_ctx_free(ctx);
}
END_TEST

/* An in-place variant of a known elementwise operator (or of index_put, index_copy) is read
 * as that operator, marked in place; other trailing underscores are not. */
START_TEST(test_inplace_variants) {
  const sc_op_info *op = sc_op_lookup_inplace("torch.ops.aten.silu_.default");
  ck_assert_ptr_nonnull(op);
  ck_assert_int_eq(op->id, SC_OP_SILU);
  op = sc_op_lookup_inplace("torch.ops.aten.sub_.Tensor");
  ck_assert_ptr_nonnull(op);
  ck_assert_int_eq(op->id, SC_OP_SUB_TENSOR);
  ck_assert_str_eq(sc_op_self_name(sc_op_lookup_inplace("torch.ops.aten.dropout_.default")), "input");
  ck_assert_str_eq(sc_op_self_name(op), "self");
  op = sc_op_lookup_inplace("torch.ops.aten.scatter_add_.default"); /* a buffer updated by scatter_add_ */
  ck_assert_ptr_nonnull(op);
  ck_assert_int_eq(op->id, SC_OP_SCATTER_ADD);
  ck_assert_ptr_null(sc_op_lookup_inplace("torch.ops.aten.silu.default"));   /* not in place */
  ck_assert_ptr_null(sc_op_lookup_inplace("torch.ops.aten.silu_.int"));      /* no such overload */
  ck_assert_ptr_null(sc_op_lookup_inplace("torch.ops.aten.__and__.Tensor")); /* a dunder */
  ck_assert_ptr_null(sc_op_lookup_inplace("torch.ops.aten.squeeze_.dim"));     /* a view: not an update */
  /* the indexing ops whose result is self updated: a KV cache's writes */
  ck_assert_int_eq(sc_op_lookup_inplace("torch.ops.aten.index_put_.default")->id, SC_OP_INDEX_PUT);
  ck_assert_int_eq(sc_op_lookup_inplace("torch.ops.aten.index_copy_.default")->id, SC_OP_INDEX_COPY);
  ck_assert_ptr_null(sc_op_lookup_inplace("torch.ops.aten._.default"));
  ck_assert_ptr_null(sc_op_lookup_inplace("torch.ops.prims.silu_.default"));

  sc_ctx *ctx = sc_ctx_new();
  cJSON *root = tu_example_model();
  cJSON *nodes = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "graph_module"), "graph"), "nodes");
  ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, 0), "target")), "torch.ops.aten.add.Tensor");
  ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(nodes, 4), "target")), "torch.ops.aten.add.Tensor");
  cJSON_ReplaceItemInObject(cJSON_GetArrayItem(nodes, 0), "target", cJSON_CreateString("torch.ops.aten.add_.Tensor"));
  cJSON_ReplaceItemInObject(cJSON_GetArrayItem(nodes, 4), "target", cJSON_CreateString("torch.ops.aten.sub_.Tensor"));
  sc_program *p = tu_read_model_tree(ctx, root);
  cJSON_Delete(root);
  ck_assert_ptr_nonnull(p);
  ck_assert_int_eq(ctx->diags.n_errors, 0);
  ck_assert_int_eq(p->graph->nodes[0].op->id, SC_OP_ADD_); /* a listed one stays itself */
  ck_assert(!p->graph->nodes[0].inplace);
  ck_assert_int_eq(p->graph->nodes[4].op->id, SC_OP_SUB_TENSOR);
  ck_assert(p->graph->nodes[4].inplace);
  ck_assert_str_eq(p->graph->nodes[4].target, "torch.ops.aten.sub_.Tensor"); /* as the file names it */
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_exact_large_integers) {
  /* integers past 2^53 are read exactly, not through a double */
  sc_ctx *ctx = sc_ctx_new();
  const char *text = "{\"schema_version\": {\"major\": 8, \"minor\": 1}, \"range_constraints\": {"
                     "\"s0\": {\"min_val\": 9007199254740993, \"max_val\": 9223372036854775807},"
                     "\"s1\": {\"min_val\": -9223372036854775808, \"max_val\": null}},"
                     "\"graph_module\": {\"graph\": {\"inputs\": [], \"outputs\": [], \"nodes\": [],"
                     " \"tensor_values\": {}, \"sym_int_values\": {}, \"sym_bool_values\": {}},"
                     " \"signature\": {\"input_specs\": [], \"output_specs\": []}}}";
  sc_program *p = sc_model_read(ctx, "m.json", text, strlen(text));
  ck_assert_ptr_nonnull(p);
  ck_assert_int_eq(p->ranges[0].min, 9007199254740993LL);
  ck_assert_int_eq(p->ranges[0].max, INT64_MAX);
  ck_assert_int_eq(p->ranges[1].min, INT64_MIN);
  sc_ctx_free(ctx);
  ctx = sc_ctx_new();
  const char *past = "{\"schema_version\": {\"major\": 8, \"minor\": 9223372036854775808}}";
  ck_assert_ptr_null(sc_model_read(ctx, "m.json", past, strlen(past)));
  tu_assert_diag(ctx, SC_DIAG_INT_RANGE, "schema_version.minor");
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_numbers_as_python_writes_them) {
  /* fractions of 16 and more digits (Python's repr of 1/sqrt(8)), exponents, long integers
   * and NaN side by side: each read as the number it is */
  sc_ctx *ctx = sc_ctx_new();
  const char *text = "[0.3535533905932738, 0.5946035575013605, 1.0000000000000002e-05, -2.5E+300, 1e-07, "
                     "12345678901234567, -0.0, 7]";
  cJSON *root = sc_json_parse(ctx, "n.json", text, strlen(text));
  ck_assert_ptr_nonnull(root);
  const double want[] = {0.3535533905932738, 0.5946035575013605, 1.0000000000000002e-05, -2.5e300, 1e-07};
  int i = 0;
  for (const cJSON *e = root->child; i < 5; e = e->next, i++) {
    ck_assert(cJSON_IsNumber(e));
    ck_assert(e->valuedouble == want[i]);
  }
  ck_assert_ptr_nonnull(sc_json_exact_int(cJSON_GetArrayItem(root, 5)));
  ck_assert(cJSON_IsNumber(cJSON_GetArrayItem(root, 7)));
  cJSON_Delete(root);
  ck_assert_int_eq(ctx->diags.n_items, 0);
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_any_schema_minor) {
  sc_ctx *ctx = sc_ctx_new();
  cJSON *root = tu_example_model();
  tu_mutate(root, "schema_version.minor", "99");
  ck_assert_ptr_nonnull(tu_read_model_tree(ctx, root));
  cJSON_Delete(root);
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_errors_keep_going) {
  /* two independent problems are both reported */
  sc_ctx *ctx = sc_ctx_new();
  cJSON *root = tu_example_model();
  tu_mutate(root, "graph_module.graph.nodes[1].target", "\"torch.ops.aten.nope.default\"");
  tu_mutate(root, "graph_module.graph.tensor_values.z.dtype", "99");
  ck_assert_ptr_null(tu_read_model_tree(ctx, root));
  cJSON_Delete(root);
  tu_assert_diag(ctx, SC_DIAG_UNKNOWN_OPERATOR, NULL);
  tu_assert_diag(ctx, SC_DIAG_BAD_ENUM, "graph_module.graph.tensor_values.z.dtype");
  sc_ctx_free(ctx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("model_reader");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_reads_tutorial_model);
  tcase_add_test(tc, test_reads_dynamic_program);
  tcase_add_test(tc, test_every_argument_kind);
  tcase_add_loop_test(tc, test_model_diagnostics, 0, sizeof model_errors / sizeof model_errors[0]);
  tcase_add_test(tc, test_ghost_value_is_undefined);
  tcase_add_test(tc, test_unknown_operator_suggests_closest);
  tcase_add_test(tc, test_unknown_decomposable_operator_says_decompose);
  tcase_add_test(tc, test_any_schema_minor);
  tcase_add_test(tc, test_exact_large_integers);
  tcase_add_test(tc, test_inplace_variants);
  tcase_add_test(tc, test_numbers_as_python_writes_them);
  tcase_add_test(tc, test_errors_keep_going);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
