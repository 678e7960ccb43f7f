/* bench_analysis.c - times shapec's front end and shape analysis on a generated deep MLP:
 * LAYERS x (weight, bias, permute, addmm, relu) with a dynamic batch (10,000 graph nodes
 * at 2,000 layers, counting parameters as torch's FX graph does).
 *
 *   usage: bench_analysis [LAYERS] [WIDTH] [REPEATS]
 * Prints the median, min and max wall time of: JSON read + verification + spec +
 * analysis (everything `shapec export --no-codegen` does but the report write). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/base/strbuf.h"
#include "lib/frontend/model_reader.h"
#include "lib/frontend/spec_reader.h"
#include "passes/shape_analysis.h"
#include "passes/verify_graph.h"

static void meta(sc_strbuf *sb, const char *name, int rows, int cols, int *first) {
  sc_strbuf_printf(sb, "%s\"%s\": {\"dtype\": 7, \"sizes\": [{\"as_int\": %d}", *first ? "" : ", ", name, rows);
  if (cols > 0) sc_strbuf_printf(sb, ", {\"as_int\": %d}", cols);
  sc_strbuf_append(sb, "]}");
  *first = 0;
}

/* The serialized program of Sequential(*[Linear(w, w), ReLU()] * layers) on x [batch, w]. */
static char *generate(int layers, int width, int batch) {
  sc_strbuf sb = {0};
  sc_strbuf_append(&sb, "{\"schema_version\": {\"major\": 8, \"minor\": 13}, \"graph_module\": {\"graph\": {\"inputs\": [");
  for (int i = 0; i < layers; i++) sc_strbuf_printf(&sb, "{\"as_tensor\": {\"name\": \"w%d\"}}, {\"as_tensor\": {\"name\": \"b%d\"}}, ", i, i);
  sc_strbuf_printf(&sb, "{\"as_tensor\": {\"name\": \"x\"}}], \"outputs\": [{\"as_tensor\": {\"name\": \"r%d\"}}], \"nodes\": [", layers - 1);
  for (int i = 0; i < layers; i++) {
    char prev[32];
    snprintf(prev, sizeof prev, i ? "r%d" : "x", i - 1);
    sc_strbuf_printf(&sb,
                     "%s{\"target\": \"torch.ops.aten.permute.default\", \"inputs\": [{\"name\": \"self\", \"arg\": "
                     "{\"as_tensor\": {\"name\": \"w%d\"}}}, {\"name\": \"dims\", \"arg\": {\"as_ints\": [1, 0]}}], "
                     "\"outputs\": [{\"as_tensor\": {\"name\": \"t%d\"}}], \"metadata\": {}}, "
                     "{\"target\": \"torch.ops.aten.addmm.default\", \"inputs\": [{\"name\": \"self\", \"arg\": "
                     "{\"as_tensor\": {\"name\": \"b%d\"}}}, {\"name\": \"mat1\", \"arg\": {\"as_tensor\": {\"name\": "
                     "\"%s\"}}}, {\"name\": \"mat2\", \"arg\": {\"as_tensor\": {\"name\": \"t%d\"}}}], \"outputs\": "
                     "[{\"as_tensor\": {\"name\": \"m%d\"}}], \"metadata\": {}}, "
                     "{\"target\": \"torch.ops.aten.relu.default\", \"inputs\": [{\"name\": \"self\", \"arg\": "
                     "{\"as_tensor\": {\"name\": \"m%d\"}}}], \"outputs\": [{\"as_tensor\": {\"name\": \"r%d\"}}], "
                     "\"metadata\": {}}",
                     i ? ", " : "", i, i, i, prev, i, i, i, i);
  }
  sc_strbuf_append(&sb, "], \"tensor_values\": {");
  int first = 1;
  char name[32];
  meta(&sb, "x", batch, width, &first);
  for (int i = 0; i < layers; i++) {
    snprintf(name, sizeof name, "w%d", i), meta(&sb, name, width, width, &first);
    snprintf(name, sizeof name, "b%d", i), meta(&sb, name, width, 0, &first);
    snprintf(name, sizeof name, "t%d", i), meta(&sb, name, width, width, &first);
    snprintf(name, sizeof name, "m%d", i), meta(&sb, name, batch, width, &first);
    snprintf(name, sizeof name, "r%d", i), meta(&sb, name, batch, width, &first);
  }
  sc_strbuf_append(&sb, "}, \"sym_int_values\": {}, \"sym_bool_values\": {}}, \"signature\": {\"input_specs\": [");
  for (int i = 0; i < layers; i++)
    sc_strbuf_printf(&sb, "{\"parameter\": {\"arg\": {\"name\": \"w%d\"}, \"parameter_name\": \"%d.weight\"}}, "
                          "{\"parameter\": {\"arg\": {\"name\": \"b%d\"}, \"parameter_name\": \"%d.bias\"}}, ",
                     i, 2 * i, i, 2 * i);
  sc_strbuf_printf(&sb, "{\"user_input\": {\"arg\": {\"as_tensor\": {\"name\": \"x\"}}}}], \"output_specs\": "
                        "[{\"user_output\": {\"arg\": {\"as_tensor\": {\"name\": \"r%d\"}}}}]}}}",
                   layers - 1);
  char *out = strdup(sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return out;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  int layers = argc > 1 ? atoi(argv[1]) : 2000, width = argc > 2 ? atoi(argv[2]) : 16;
  int repeats = argc > 3 ? atoi(argv[3]) : 20;
  if (layers < 1 || width < 1 || repeats < 1) {
    fprintf(stderr, "usage: bench_analysis [LAYERS] [WIDTH] [REPEATS]\n");
    return 2;
  }
  char *model = generate(layers, width, 8);
  const char *spec = "{\"dynamic_shapes\": {\"x\": [\"AUTO\", null]}}";
  double *t = calloc((size_t)repeats, sizeof *t);
  int nodes = 0;
  for (int r = 0; r < repeats; r++) {
    double t0 = now_ms();
    sc_ctx *ctx = sc_ctx_new();
    sc_program *p = sc_model_read(ctx, "mlp.json", model, strlen(model));
    sc_dynspec *s = p && sc_verify_graph(ctx, p) ? sc_spec_read(ctx, p, "spec.json", spec, strlen(spec)) : NULL;
    sc_analysis a;
    bool ok = s && sc_analysis_run(ctx, p, s, &a);
    t[r] = now_ms() - t0;
    if (!ok) {
      for (size_t i = 0; i < ctx->diags.n_items; i++) sc_diag_print(stderr, &ctx->diags.items[i]);
      return 1;
    }
    nodes = (int)(p->graph->n_nodes + p->graph->n_inputs);
    const sc_value *out = sc_graph_find_value(p->graph, "x");
    if (r == 0) printf("# output batch dim: %s\n", sc_expr_to_string(ctx, out->shape[0]));
    sc_analysis_release(&a);
    sc_ctx_free(ctx);
  }
  qsort(t, (size_t)repeats, sizeof *t, cmp_double);
  printf("shapec analysis: %d layers, %d graph nodes (placeholders included), %zu bytes of JSON\n", layers, nodes,
         strlen(model));
  printf("shapec_ms median=%.2f min=%.2f max=%.2f (over %d runs)\n", t[repeats / 2], t[0], t[repeats - 1], repeats);
  free(t);
  free(model);
  return 0;
}
