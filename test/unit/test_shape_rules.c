/* test_shape_rules.c - one case per shape rule: a one-node program whose inputs are all
 * AUTO (a trailing 's' makes a dim static), the output shapes the analysis must give, and
 * a guard it must record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/shape_analysis.h"
#include "passes/verify_graph.h"
#include "test_util.h"

typedef struct rule_case {
  const char *target;
  const char *inputs;   /* "x:4,3 y:3s" - name:samples, 's' marks a static dim; dtype int64 with '#' prefix */
  const char *args;     /* the node's inputs, JSON */
  const char *outputs;  /* "out:4,5" - sample sizes of the outputs */
  const char *expected; /* "out=[s0, s3]" per output, separated by ';' */
  const char *guard;    /* a guard or runtime assert that must be recorded, or NULL */
} rule_case;

#define T(n) "{\"as_tensor\": {\"name\": \"" n "\"}}"
#define A(name, arg) "{\"name\": \"" name "\", \"arg\": " arg "}"

static const rule_case cases[] = {
    {"torch.ops.aten.add.Tensor", "x:4,3 y:3", "[" A("self", T("x")) "," A("other", T("y")) "]", "out:4,3",
     "out=[s0, s1]", "Eq(s1, s2)"},
    {"torch.ops.aten.mul.Tensor", "x:4,3", "[" A("self", T("x")) "," A("other", "{\"as_float\": 2.0}") "]", "out:4,3",
     "out=[s0, s1]", NULL},
    {"torch.ops.aten.where.self", "c:4,1 x:3 y:4,3",
     "[" A("condition", T("c")) "," A("self", T("x")) "," A("other", T("y")) "]", "out:4,3", "out=[s0, s2]",
     "Eq(s0, s3)"},
    {"torch.ops.aten.mm.default", "x:4,3 y:3,5", "[" A("self", T("x")) "," A("mat2", T("y")) "]", "out:4,5",
     "out=[s0, s3]", "Eq(s1, s2)"},
    {"torch.ops.aten.bmm.default", "x:2,4,3 y:2,3,5", "[" A("self", T("x")) "," A("mat2", T("y")) "]", "out:2,4,5",
     "out=[s0, s1, s5]", "Eq(s2, s4)"},
    {"torch.ops.aten.addmm.default", "b:5 x:4,3 y:3,5",
     "[" A("self", T("b")) "," A("mat1", T("x")) "," A("mat2", T("y")) "]", "out:4,5", "out=[s1, s0]", "Eq(s4, s0)"},
    {"torch.ops.aten.linear.default", "x:4,3 w:5s,3s b:5s",
     "[" A("input", T("x")) "," A("weight", T("w")) "," A("bias", T("b")) "]", "out:4,5", "out=[s0, 5]", "Eq(s1, 3)"},
    {"torch.ops.aten.matmul.default", "x:2,4,3 y:3,5", "[" A("self", T("x")) "," A("other", T("y")) "]", "out:2,4,5",
     "out=[s0, s1, s4]", "Eq(s2, s3)"},
    {"torch.ops.aten.view.default", "x:4,6", "[" A("self", T("x")) "," A("size", "{\"as_ints\": [-1]}") "]", "out:24",
     "out=[s0*s1]", NULL},
    {"torch.ops.aten.view.default", "x:4,6", "[" A("self", T("x")) "," A("size", "{\"as_ints\": [2, -1]}") "]",
     "out:2,12", "out=[2, ((s0*s1)//2)]", "Eq(Mod(s0*s1, 2), 0)"},
    {"torch.ops.aten.reshape.default", "x:4,6", "[" A("self", T("x")) "," A("shape", "{\"as_ints\": [24]}") "]",
     "out:24", "out=[24]", "Eq(s0*s1, 24)"},
    {"torch.ops.aten.flatten.using_ints", "x:2,3,4", "[" A("self", T("x")) "," A("start_dim", "{\"as_int\": 1}") "]",
     "out:2,12", "out=[s0, s1*s2]", NULL},
    {"torch.ops.aten.permute.default", "x:2,3,4", "[" A("self", T("x")) "," A("dims", "{\"as_ints\": [2, 0, 1]}") "]",
     "out:4,2,3", "out=[s2, s0, s1]", NULL},
    {"torch.ops.aten.transpose.int", "x:2,3",
     "[" A("self", T("x")) "," A("dim0", "{\"as_int\": 0}") "," A("dim1", "{\"as_int\": -1}") "]", "out:3,2",
     "out=[s1, s0]", NULL},
    {"torch.ops.aten.t.default", "x:2,3", "[" A("self", T("x")) "]", "out:3,2", "out=[s1, s0]", NULL},
    {"torch.ops.aten.unsqueeze.default", "x:2,3", "[" A("self", T("x")) "," A("dim", "{\"as_int\": -1}") "]",
     "out:2,3,1", "out=[s0, s1, 1]", NULL},
    {"torch.ops.aten.squeeze.dim", "x:2,1,3", "[" A("self", T("x")) "," A("dim", "{\"as_int\": 1}") "]", "out:2,3",
     "out=[s0, s2]", NULL},
    {"torch.ops.aten.expand.default", "x:1,3", "[" A("self", T("x")) "," A("size", "{\"as_ints\": [4, -1]}") "]",
     "out:4,3", "out=[4, s1]", NULL},
    {"torch.ops.aten.slice.Tensor", "x:10,3",
     "[" A("self", T("x")) "," A("start", "{\"as_int\": 2}") "," A("end", "{\"as_int\": 100}") "]",
     "out:8,3", "out=[s0 - 2, s1]", "s0 < 100"} /* torch asks end > size: 100 > s0 */,
    {"torch.ops.aten.slice.Tensor", "x:10,3",
     "[" A("self", T("x")) "," A("dim", "{\"as_int\": 0}") "," A("start", "{\"as_int\": -4}") "," A("step", "{\"as_int\": 2}") "]",
     "out:2,3", "out=[2, s1]", "s0 >= 4"},
    {"torch.ops.aten.select.int", "x:4,3", "[" A("self", T("x")) "," A("dim", "{\"as_int\": 0}") "," A("index", "{\"as_int\": 3}") "]",
     "out:3", "out=[s1]", "s0 > 3"},
    {"torch.ops.aten.narrow.default", "x:10",
     "[" A("self", T("x")) "," A("dim", "{\"as_int\": 0}") "," A("start", "{\"as_int\": 2}") "," A("length", "{\"as_int\": 3}") "]",
     "out:3", "out=[3]", "s0 >= 5"},
    {"torch.ops.aten.cat.default", "x:2,3 y:4,3",
     "[" A("tensors", "{\"as_tensors\": [{\"name\": \"x\"}, {\"name\": \"y\"}]}") "]", "out:6,3", "out=[s0 + s2, s1]",
     "Eq(s1, s3)"},
    {"torch.ops.aten.stack.default", "x:2,3 y:2,3",
     "[" A("tensors", "{\"as_tensors\": [{\"name\": \"x\"}, {\"name\": \"y\"}]}") "," A("dim", "{\"as_int\": 1}") "]",
     "out:2,2,3", "out=[s0, 2, s1]", "Eq(s0, s2)"},
    {"torch.ops.aten.split.Tensor", "x:10,3", "[" A("self", T("x")) "," A("split_size", "{\"as_int\": 4}") "]",
     "a:4,3 b:4,3 c:2,3", "a=[4, s1];b=[4, s1];c=[s0 - 8, s1]", "s0 >= 8"},
    {"torch.ops.aten.split_with_sizes.default", "x:10",
     "[" A("self", T("x")) "," A("split_sizes", "{\"as_ints\": [3, 7]}") "]", "a:3 b:7", "a=[3];b=[7]", "Eq(s0, 10)"},
    {"torch.ops.aten.chunk.default", "x:10", "[" A("self", T("x")) "," A("chunks", "{\"as_int\": 2}") "]", "a:5 b:5",
     "a=[((s0 + 1)//2)];b=[s0 - ((s0 + 1)//2)]", "s0 - ((s0 + 1)//2) >= 0"},
    {"torch.ops.aten.unbind.int", "x:3,4", "[" A("self", T("x")) "]", "a:4 b:4 c:4", "a=[s1];b=[s1];c=[s1]",
     "Eq(s0, 3)"},
    {"torch.ops.aten.index_select.default", "x:5,3 #i:4",
     "[" A("self", T("x")) "," A("dim", "{\"as_int\": 0}") "," A("index", T("i")) "]", "out:4,3", "out=[s2, s1]", NULL},
    {"torch.ops.aten.embedding.default", "w:10s,4s #i:2,3", "[" A("weight", T("w")) "," A("indices", T("i")) "]",
     "out:2,3,4", "out=[s0, s1, 4]", NULL},
    {"torch.ops.aten.repeat.default", "x:2,3", "[" A("self", T("x")) "," A("repeats", "{\"as_ints\": [2, 2, 1]}") "]",
     "out:2,4,3", "out=[2, 2*s0, s1]", NULL},
    {"torch.ops.aten.sum.dim_IntList", "x:2,3,4",
     "[" A("self", T("x")) "," A("dim", "{\"as_ints\": [1]}") "," A("keepdim", "{\"as_bool\": true}") "]", "out:2,1,4",
     "out=[s0, 1, s2]", NULL},
    {"torch.ops.aten.mean.dim", "x:2,3,4", "[" A("self", T("x")) "," A("dim", "{\"as_ints\": [-1]}") "]", "out:2,3",
     "out=[s0, s1]", NULL},
    {"torch.ops.aten.sum.default", "x:2,3", "[" A("self", T("x")) "]", "out:", "out=[]", NULL},
    {"torch.ops.aten.amax.default", "x:2,3", "[" A("self", T("x")) "]", "out:", "out=[]", NULL},
    {"torch.ops.aten.argmax.default", "x:2,3", "[" A("self", T("x")) "," A("dim", "{\"as_int\": 0}") "]", "out:3",
     "out=[s1]", NULL},
    {"torch.ops.aten.max.dim", "x:2,3,4", "[" A("self", T("x")) "," A("dim", "{\"as_int\": 1}") "]", "v:2,4 i:2,4",
     "v=[s0, s2];i=[s0, s2]", NULL},
    {"torch.ops.aten.var.correction", "x:2,3,4", "[" A("self", T("x")) "," A("dim", "{\"as_ints\": [0]}") "]",
     "out:3,4", "out=[s1, s2]", NULL},
    {"torch.ops.aten._softmax.default", "x:2,3",
     "[" A("self", T("x")) "," A("dim", "{\"as_int\": -1}") "," A("half_to_float", "{\"as_bool\": false}") "]", "out:2,3",
     "out=[s0, s1]", NULL},
    {"torch.ops.aten.native_layer_norm.default", "x:2,5 w:5s b:5s",
     "[" A("input", T("x")) "," A("normalized_shape", "{\"as_ints\": [5]}") "," A("weight", T("w")) "," A("bias", T("b"))
     "," A("eps", "{\"as_float\": 1e-05}") "]",
     "o:2,5 m:2,1 r:2,1", "o=[s0, 5];m=[s0, 1];r=[s0, 1]", "Eq(s1, 5)"},
    {"torch.ops.aten._native_batch_norm_legit_no_training.default", "x:2,3,4,4 w:3s b:3s m:3s v:3s",
     "[" A("input", T("x")) "," A("weight", T("w")) "," A("bias", T("b")) "," A("running_mean", T("m")) ","
     A("running_var", T("v")) "," A("momentum", "{\"as_float\": 0.1}") "," A("eps", "{\"as_float\": 1e-05}") "]",
     "o:2,3,4,4 a:0 c:0", "o=[s0, 3, s2, s3];a=[0];c=[0]", "Eq(s1, 3)"},
    {"torch.ops.aten.scaled_dot_product_attention.default", "q:2,4,8 k:2,6,8 v:2,6,8",
     "[" A("query", T("q")) "," A("key", T("k")) "," A("value", T("v")) "]", "out:2,4,8", "out=[s0, s1, s8]",
     "Eq(s4, s7)"},
    {"torch.ops.aten.conv1d.default", "x:2,3,10 w:4s,3s,3s",
     "[" A("input", T("x")) "," A("weight", T("w")) "]", "out:2,4,8", "out=[s0, 4, s2 - 2]", "Eq(s1, 3)"},
    {"torch.ops.aten.avg_pool2d.default", "x:1,3,8,8", "[" A("self", T("x")) "," A("kernel_size", "{\"as_ints\": [2, 2]}") "]",
     "out:1,3,4,4", "out=[1, s1, (s2//2), (s3//2)]" /* torch spells ((s - 2)//2) + 1 so */, NULL},
    {"torch.ops.aten.adaptive_avg_pool2d.default", "x:2,3,8,8",
     "[" A("self", T("x")) "," A("output_size", "{\"as_ints\": [1, 1]}") "]", "out:2,3,1,1", "out=[s0, s1, 1, 1]", NULL},
    {"torch.ops.aten.arange.start_step", "",
     "[" A("start", "{\"as_int\": 0}") "," A("end", "{\"as_int\": 10}") "," A("step", "{\"as_int\": 3}") "]", "out:4",
     "out=[4]", NULL},
    {"torch.ops.aten.full.default", "", "[" A("size", "{\"as_ints\": [2, 3]}") "," A("fill_value", "{\"as_float\": 1.0}") "]",
     "out:2,3", "out=[2, 3]", NULL},
    {"torch.ops.aten.zeros_like.default", "x:2,3", "[" A("self", T("x")) "]", "out:2,3", "out=[s0, s1]", NULL},
    {"torch.ops.aten._to_copy.default", "x:2,3", "[" A("self", T("x")) "," A("dtype", "{\"as_scalar_type\": 5}") "]",
     "#out:2,3", "out=[s0, s1]", NULL},
    {"torch.ops.aten.nonzero.default", "x:4,4", "[" A("self", T("x")) "]", "#out:5,2", "out=[u0, 2]", NULL},
};

/* Appends tensor entries for "x:4,3 y:3s" to tensor_values and to the spec's leaves. */
static void add_tensors(cJSON *tv, const char *desc, cJSON *inputs, cJSON *specs, cJSON *spec_shapes, bool is_input) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", desc);
  for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
    bool i64 = tok[0] == '#';
    if (i64) tok++;
    char *colon = strchr(tok, ':');
    *colon = '\0';
    cJSON *meta = cJSON_CreateObject();
    cJSON_AddNumberToObject(meta, "dtype", i64 ? 5 : 7);
    cJSON *sizes = cJSON_AddArrayToObject(meta, "sizes");
    cJSON *leaves = cJSON_CreateArray();
    for (char *d = colon + 1; *d;) {
      long v = strtol(d, &d, 10);
      bool stat = *d == 's';
      if (stat) d++;
      if (*d == ',') d++;
      cJSON *si = cJSON_CreateObject();
      cJSON_AddNumberToObject(si, "as_int", (double)v);
      cJSON_AddItemToArray(sizes, si);
      cJSON_AddItemToArray(leaves, stat ? cJSON_CreateNull() : cJSON_CreateString("AUTO"));
    }
    cJSON_AddItemToObject(tv, tok, meta);
    if (is_input) {
      char arg[256];
      snprintf(arg, sizeof arg, "{\"as_tensor\": {\"name\": \"%s\"}}", tok);
      cJSON_AddItemToArray(inputs, cJSON_Parse(arg));
      snprintf(arg, sizeof arg, "{\"user_input\": {\"arg\": {\"as_tensor\": {\"name\": \"%s\"}}}}", tok);
      cJSON_AddItemToArray(specs, cJSON_Parse(arg));
      cJSON_AddItemToObject(spec_shapes, tok, leaves);
    } else {
      char arg[256];
      snprintf(arg, sizeof arg, "{\"as_tensor\": {\"name\": \"%s\"}}", tok);
      cJSON_AddItemToArray(inputs, cJSON_Parse(arg));
      cJSON_Delete(leaves);
    }
  }
}

START_TEST(test_rule) {
  const rule_case *c = &cases[_i];
  cJSON *root = cJSON_Parse("{\"schema_version\": {\"major\": 8, \"minor\": 13}, \"graph_module\": {\"graph\": "
                            "{\"inputs\": [], \"outputs\": [], \"nodes\": [], \"tensor_values\": {}, "
                            "\"sym_int_values\": {}, \"sym_bool_values\": {}}, \"signature\": "
                            "{\"input_specs\": [], \"output_specs\": []}}}");
  cJSON *gm = cJSON_GetObjectItem(root, "graph_module");
  cJSON *g = cJSON_GetObjectItem(gm, "graph"), *sig = cJSON_GetObjectItem(gm, "signature");
  cJSON *spec = cJSON_CreateObject(), *shapes = cJSON_AddObjectToObject(spec, "dynamic_shapes");
  add_tensors(cJSON_GetObjectItem(g, "tensor_values"), c->inputs, cJSON_GetObjectItem(g, "inputs"),
              cJSON_GetObjectItem(sig, "input_specs"), shapes, true);
  cJSON *outs = cJSON_CreateArray();
  add_tensors(cJSON_GetObjectItem(g, "tensor_values"), c->outputs, outs, NULL, NULL, false);
  cJSON *node = cJSON_CreateObject();
  cJSON_AddStringToObject(node, "target", c->target);
  cJSON_AddItemToObject(node, "inputs", cJSON_Parse(c->args));
  cJSON_AddItemToObject(node, "outputs", outs);
  cJSON_AddItemToObject(node, "metadata", cJSON_CreateObject());
  cJSON_AddItemToArray(cJSON_GetObjectItem(g, "nodes"), node);
  cJSON *first_out = cJSON_Duplicate(outs->child, 1);
  cJSON_AddItemToArray(cJSON_GetObjectItem(g, "outputs"), cJSON_Duplicate(first_out, 1));
  cJSON *ospec = cJSON_CreateObject();
  cJSON_AddItemToObject(cJSON_AddObjectToObject(ospec, "user_output"), "arg", first_out);
  cJSON_AddItemToArray(cJSON_GetObjectItem(sig, "output_specs"), ospec);

  sc_ctx *ctx = sc_ctx_new();
  sc_program *p = tu_read_model_tree(ctx, root);
  char *spec_text = cJSON_PrintUnformatted(spec);
  sc_dynspec *ds = p ? sc_spec_read(ctx, p, "spec.json", spec_text, strlen(spec_text)) : NULL;
  sc_analysis a;
  bool ok = ds && sc_analysis_run(ctx, p, ds, &a);
  for (size_t i = 0; i < ctx->diags.n_items; i++) sc_diag_print(stderr, &ctx->diags.items[i]);
  ck_assert_msg(ok, "%s: the analysis failed", c->target);
  /* each expected "name=[...]" */
  char want[512];
  snprintf(want, sizeof want, "%s", c->expected);
  for (char *tok = strtok(want, ";"); tok; tok = strtok(NULL, ";")) {
    char *eq = strchr(tok, '=');
    *eq = '\0';
    const sc_value *v = sc_graph_find_value(p->graph, tok);
    ck_assert_ptr_nonnull(v);
    ck_assert_ptr_nonnull(v->shape);
    sc_strbuf sb = {0};
    sc_strbuf_append(&sb, "[");
    for (int k = 0; k < v->meta.rank; k++) {
      if (k) sc_strbuf_append(&sb, ", ");
      sc_expr_print(&sb, v->shown ? v->shown[k] : v->shape[k]); /* as torch's program meta shows it */
    }
    sc_strbuf_append(&sb, "]");
    ck_assert_msg(strcmp(sc_strbuf_cstr(&sb), eq + 1) == 0, "%s: %s is %s, expected %s", c->target, tok,
                  sc_strbuf_cstr(&sb), eq + 1);
    sc_strbuf_free(&sb);
  }
  if (c->guard) {
    bool found = false;
    for (size_t i = 0; i < a.env.n_guards && !found; i++)
      found = strcmp(sc_expr_to_string(ctx, a.env.guards[i].expr), c->guard) == 0;
    if (!found)
      for (size_t i = 0; i < a.env.n_guards; i++)
        fprintf(stderr, "  guard: %s\n", sc_expr_to_string(ctx, a.env.guards[i].expr));
    ck_assert_msg(found, "%s: no guard %s", c->target, c->guard);
  }
  sc_analysis_release(&a);
  free(spec_text);
  cJSON_Delete(spec);
  cJSON_Delete(root);
  sc_ctx_free(ctx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("shape_rules");
  TCase *tc = tcase_create("core");
  tcase_add_loop_test(tc, test_rule, 0, sizeof cases / sizeof cases[0]);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
