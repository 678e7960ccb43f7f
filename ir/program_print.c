/* program_print.c - prints a program in the spirit of torch's print(ep): the forward
 * function with a typed line per node, the graph signature and the range constraints. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "graph.h"

void sc_tensor_meta_print(sc_strbuf *sb, const sc_tensor_meta *m) {
  sc_strbuf_printf(sb, "%s[", sc_dtype_short(m->dtype));
  for (int i = 0; i < m->rank; i++) {
    if (i) sc_strbuf_append(sb, ", ");
    sc_expr_print(sb, m->sizes[i]);
  }
  sc_strbuf_append(sb, "]");
}

static void print_value_type(sc_strbuf *sb, const sc_value *v) {
  switch (v->kind) {
    case SC_VALUE_TENSOR:
      sc_strbuf_append(sb, "\"");
      if (v->shape) {
        sc_tensor_meta m = v->meta;
        m.sizes = v->shape; /* the analysed shape when there is one */
        sc_tensor_meta_print(sb, &m);
      } else {
        sc_tensor_meta_print(sb, &v->meta);
      }
      sc_strbuf_append(sb, "\"");
      return;
    case SC_VALUE_SYM_INT:
    case SC_VALUE_SYM_BOOL:
      sc_strbuf_append(sb, "\"Sym(");
      if (v->sym || v->expr) sc_expr_print(sb, v->sym ? v->sym : v->expr);
      sc_strbuf_append(sb, ")\"");
      return;
    case SC_VALUE_SYM_FLOAT: sc_strbuf_append(sb, "\"SymFloat\""); return;
    case SC_VALUE_CUSTOM_OBJ: sc_strbuf_printf(sb, "\"%s\"", v->class_fqn ? v->class_fqn : "object"); return;
    case SC_VALUE_TOKEN: sc_strbuf_append(sb, "\"token\""); return;
  }
}

static void print_float(sc_strbuf *sb, double f) {
  if (isnan(f)) {
    sc_strbuf_append(sb, "nan");
  } else if (isinf(f)) {
    sc_strbuf_append(sb, f < 0 ? "-inf" : "inf");
  } else {
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", f);
    /* shortest spelling that reads back the same, as Python's repr does */
    for (int prec = 1; prec <= 17; prec++) {
      snprintf(buf, sizeof buf, "%.*g", prec, f);
      double back;
      if (sscanf(buf, "%lf", &back) == 1 && back == f) break;
    }
    sc_strbuf_append(sb, buf);
    if (!strpbrk(buf, ".en")) sc_strbuf_append(sb, ".0");
  }
}

static const char *scalar_type_name(int64_t code) {
  return sc_dtype_is_known((int)code) ? sc_dtype_name((sc_dtype)code) : "unknown";
}

static void print_item(sc_strbuf *sb, sc_arg_kind kind, const sc_arg_item *it) {
  if (it->value) {
    sc_strbuf_append(sb, it->value->name);
    return;
  }
  if (it->is_none) {
    sc_strbuf_append(sb, "None");
    return;
  }
  switch (kind) {
    case SC_ARG_INT:
    case SC_ARG_INTS:
    case SC_ARG_SYM_INT:
    case SC_ARG_SYM_INTS:
    case SC_ARG_INT_LISTS: sc_strbuf_printf(sb, "%" PRId64, it->i); return;
    case SC_ARG_FLOAT:
    case SC_ARG_FLOATS:
    case SC_ARG_SYM_FLOAT:
    case SC_ARG_SYM_FLOATS: print_float(sb, it->f); return;
    case SC_ARG_BOOL:
    case SC_ARG_BOOLS:
    case SC_ARG_SYM_BOOL:
    case SC_ARG_SYM_BOOLS: sc_strbuf_append(sb, it->b ? "True" : "False"); return;
    case SC_ARG_STRING:
    case SC_ARG_STRINGS:
      sc_strbuf_append(sb, "'");
      sc_strbuf_append(sb, it->s ? it->s : "");
      sc_strbuf_append(sb, "'");
      return;
    case SC_ARG_OPERATOR: sc_strbuf_append(sb, it->s ? it->s : "?"); return;
    case SC_ARG_SCALAR_TYPE: sc_strbuf_printf(sb, "torch.%s", scalar_type_name(it->i)); return;
    case SC_ARG_MEMORY_FORMAT: {
      static const char *names[] = {"unknown_format", "contiguous_format", "channels_last", "channels_last_3d",
                                    "preserve_format"};
      sc_strbuf_printf(sb, "torch.%s", (it->i >= 0 && it->i < 5) ? names[it->i] : "unknown_format");
      return;
    }
    case SC_ARG_LAYOUT: sc_strbuf_append(sb, it->i == 7 ? "torch.strided" : "torch.layout_other"); return;
    default: sc_strbuf_append(sb, "None"); return;
  }
}

static bool is_list_kind(sc_arg_kind k) {
  switch (k) {
    case SC_ARG_TENSORS:
    case SC_ARG_INTS:
    case SC_ARG_FLOATS:
    case SC_ARG_STRINGS:
    case SC_ARG_SYM_INTS:
    case SC_ARG_BOOLS:
    case SC_ARG_SYM_BOOLS:
    case SC_ARG_OPTIONAL_TENSORS:
    case SC_ARG_SYM_FLOATS: return true;
    default: return false;
  }
}

static void print_arg(sc_strbuf *sb, const sc_arg *a) {
  switch (a->kind) {
    case SC_ARG_GRAPH: sc_strbuf_append(sb, a->items && a->items[0].s ? a->items[0].s : "subgraph"); return;
    case SC_ARG_COMPLEX:
      sc_strbuf_append(sb, "(");
      print_float(sb, a->re);
      sc_strbuf_append(sb, a->im < 0 ? "-" : "+");
      print_float(sb, fabs(a->im));
      sc_strbuf_append(sb, "j)");
      return;
    case SC_ARG_DEVICE:
      if (a->device_index >= 0) sc_strbuf_printf(sb, "device(type='%s', index=%d)", a->device_type, a->device_index);
      else sc_strbuf_printf(sb, "device(type='%s')", a->device_type);
      return;
    case SC_ARG_NESTED_TENSORS:
    case SC_ARG_INT_LISTS:
    case SC_ARG_FLOAT_LISTS:
      sc_strbuf_append(sb, "[");
      for (size_t i = 0; i < a->n_items; i++) {
        if (i) sc_strbuf_append(sb, ", ");
        print_arg(sb, &a->lists[i]);
      }
      sc_strbuf_append(sb, "]");
      return;
    case SC_ARG_STRING_TO_ARGUMENT:
      sc_strbuf_append(sb, "{");
      for (size_t i = 0; i < a->n_items; i++) {
        if (i) sc_strbuf_append(sb, ", ");
        sc_strbuf_printf(sb, "'%s': ", a->keys[i]);
        print_arg(sb, &a->lists[i]);
      }
      sc_strbuf_append(sb, "}");
      return;
    default: break;
  }
  if (is_list_kind(a->kind)) {
    sc_strbuf_append(sb, "[");
    for (size_t i = 0; i < a->n_items; i++) {
      if (i) sc_strbuf_append(sb, ", ");
      print_item(sb, a->kind, &a->items[i]);
    }
    sc_strbuf_append(sb, "]");
    return;
  }
  if (a->kind == SC_ARG_NONE || !a->n_items) {
    sc_strbuf_append(sb, "None");
    return;
  }
  print_item(sb, a->kind, &a->items[0]);
}

/* The values an output argument defines, in order. */
static void print_outputs(sc_strbuf *sb, const sc_node *n, bool *any) {
  for (size_t i = 0; i < n->n_outputs; i++) {
    const sc_arg *o = &n->outputs[i];
    for (size_t j = 0; j < o->n_items; j++) {
      const sc_value *v = o->items[j].value;
      if (!v) continue;
      if (*any) sc_strbuf_append(sb, ", ");
      sc_strbuf_printf(sb, "%s: ", v->name);
      print_value_type(sb, v);
      *any = true;
    }
  }
}

static void print_graph(sc_strbuf *sb, const sc_graph *g, const char *indent) {
  for (size_t i = 0; i < g->n_nodes; i++) {
    const sc_node *n = &g->nodes[i];
    sc_strbuf_append(sb, indent);
    bool any = false;
    print_outputs(sb, n, &any);
    if (any) sc_strbuf_append(sb, " = ");
    sc_strbuf_printf(sb, "%s(", n->target);
    for (size_t k = 0; k < n->n_inputs; k++) {
      if (k) sc_strbuf_append(sb, ", ");
      if (n->inputs[k].pass == SC_ARG_PASS_KEYWORD) sc_strbuf_printf(sb, "%s = ", n->inputs[k].name);
      print_arg(sb, &n->inputs[k].arg);
    }
    sc_strbuf_append(sb, ")\n");
  }
  sc_strbuf_printf(sb, "%sreturn (", indent);
  for (size_t i = 0; i < g->n_outputs; i++) {
    if (i) sc_strbuf_append(sb, ", ");
    print_arg(sb, &g->outputs[i]);
  }
  sc_strbuf_append(sb, g->n_outputs == 1 ? ",)\n" : ")\n");
}

void sc_program_print(sc_strbuf *sb, const sc_program *p) {
  const sc_graph *g = p->graph;
  sc_strbuf_append(sb, "ExportedProgram:\n    class GraphModule(torch.nn.Module):\n        def forward(self");
  for (size_t i = 0; i < g->n_inputs; i++) {
    const sc_arg *a = &g->inputs[i];
    const sc_value *v = a->n_items ? a->items[0].value : NULL;
    sc_strbuf_append(sb, ", ");
    if (v) {
      sc_strbuf_printf(sb, "%s: ", v->name);
      print_value_type(sb, v);
    } else {
      print_arg(sb, a);
    }
  }
  sc_strbuf_append(sb, "):\n");
  print_graph(sb, g, "            ");

  sc_strbuf_append(sb, "\nGraph signature:\n    # inputs\n");
  for (size_t i = 0; i < p->n_input_specs; i++) {
    const sc_input_spec *s = &p->input_specs[i];
    const sc_value *v = sc_input_spec_value(s);
    sc_strbuf_printf(sb, "    %s: %s", v ? v->name : (s->target ? s->target : "?"), sc_input_kind_name(s->kind));
    if (s->target && s->kind != SC_INPUT_USER) sc_strbuf_printf(sb, " target='%s'", s->target);
    if (s->kind == SC_INPUT_BUFFER) sc_strbuf_printf(sb, " persistent=%s", s->persistent ? "True" : "False");
    if (s->kind == SC_INPUT_CONSTANT) {
      sc_strbuf_append(sb, " value=");
      print_arg(sb, &s->constant);
    }
    sc_strbuf_append(sb, "\n");
  }
  sc_strbuf_append(sb, "\n    # outputs\n");
  for (size_t i = 0; i < p->n_output_specs; i++) {
    sc_strbuf_append(sb, "    ");
    print_arg(sb, &p->output_specs[i].arg);
    sc_strbuf_append(sb, ": USER_OUTPUT\n");
  }
  for (size_t i = 0; i < p->n_mutations; i++) {
    const sc_mutation *m = &p->mutations[i];
    sc_strbuf_append(sb, "    ");
    print_arg(sb, &m->arg);
    sc_strbuf_printf(sb, ": %s target='%s'\n", m->kind == SC_MUTATE_BUFFER ? "BUFFER_MUTATION" : "USER_INPUT_MUTATION",
                     m->target);
  }
  sc_strbuf_append(sb, "\nRange constraints: {");
  for (size_t i = 0; i < p->n_ranges; i++) {
    const sc_range *r = &p->ranges[i];
    if (i) sc_strbuf_append(sb, ", ");
    sc_strbuf_printf(sb, "%s: VR[", r->symbol);
    if (r->has_min) sc_strbuf_printf(sb, "%" PRId64, r->min);
    else sc_strbuf_append(sb, "-int_oo");
    sc_strbuf_append(sb, ", ");
    if (r->has_max) sc_strbuf_printf(sb, "%" PRId64, r->max);
    else sc_strbuf_append(sb, "int_oo");
    sc_strbuf_append(sb, "]");
  }
  sc_strbuf_append(sb, "}\n");
}
