/* cg_conv_layout.c - tensors that pass from one convolution to the next in the kernel's layout.
 *
 * oneDNN's convolutions read and write activations in a blocked layout (channels in
 * groups of 16 on AVX-512).  A convolution between two NCHW tensors reorders its input in
 * and its output out: in mobilenet_v2 at batch 1 those reorders took 5 of 9.8 ms.  When
 * every reader of a convolution's output (after the batch norm, residual add and activation
 * it absorbed, cg_fold.c and cg_epilogue.c) is another convolution's input or residual, or
 * a max pool's input, the tensor never needs to be NCHW: the first convolution writes it in
 * its own layout, behind a header naming that layout (runtime_abi.h), and the next reads
 * it so.  A max pool whose output only convolutions read keeps the layout too, so resnet's
 * activations stay blocked from the stem to the last block.  The runtime decides the
 * layout per call and falls back to NCHW behind the same header, so the plan here is only
 * about who may see the buffer. */
#include <stdint.h>

#include "lower.h"
#include "runtime_abi.h"

bool cg_is_batched_conv2d(const sc_node *n) {
  if (!cg_is_conv2d_like(n) || n->n_outputs != 1 || !n->outputs[0].n_items || !n->outputs[0].items[0].value) return false;
  const sc_value *x = cg_tensor_input(n, "input"), *w = cg_tensor_input(n, "weight");
  return x && w && x->meta.rank == 4 && w->meta.rank == 4 && x->meta.dtype == SC_DTYPE_F32 &&
         w->meta.dtype == SC_DTYPE_F32;
}

/* A 2-D max pool over a batched float32 tensor whose indices nothing reads: oneDNN's pooling
 * reads and writes the kernel's layout (onednn.c), as between resnet's stem and first block. */
static bool is_layout_max_pool(cg *g, const sc_node *n) {
  if ((n->op->id != SC_OP_MAX_POOL2D && n->op->id != SC_OP_MAX_POOL2D_INDICES) || !n->n_outputs ||
      !n->outputs[0].n_items || !n->outputs[0].items[0].value)
    return false;
  for (size_t k = 1; k < n->n_outputs; k++)
    for (size_t j = 0; j < n->outputs[k].n_items; j++)
      if (n->outputs[k].items[j].value && cg_get(g, n->outputs[k].items[j].value)->uses) return false;
  const sc_value *x = cg_tensor_input(n, "self");
  return x && x->meta.rank == 4 && x->meta.dtype == SC_DTYPE_F32;
}

/* Whether node n reads v as a convolution's or layout max pool's source. */
static bool reads_as_source(cg *g, const sc_node *n, const sc_value *v) {
  if (cg_is_batched_conv2d(n)) return cg_tensor_input(n, "input") == v && cg_tensor_input(n, "weight") != v;
  return is_layout_max_pool(g, n) && cg_tensor_input(n, "self") == v;
}

/* Whether node n is an add a convolution absorbed with v as its residual (cg_epilogue.c). */
static bool adds_as_residual(cg *g, const sc_node *n, const sc_value *v) {
  const cg_value *into = g->folded[n - g->p->graph->nodes].into;
  if ((n->op->id != SC_OP_ADD_TENSOR && n->op->id != SC_OP_ADD_) || !into || into->v->def_node < 0) return false;
  const cg_value *r = g->folded[into->v->def_node].residual;
  return cg_is_batched_conv2d(&g->p->graph->nodes[into->v->def_node]) && r && r->v == v;
}

/* Counts the node inputs that read v, and those that are an eligible convolution's or max
 * pool's source, or a convolution's residual. */
static void count_readers(cg *g, const sc_value *v, int *all, int *conv_reads) {
  const sc_graph *gr = g->p->graph;
  *all = *conv_reads = 0;
  for (size_t i = 0; i < gr->n_nodes; i++) {
    const sc_node *n = &gr->nodes[i];
    for (size_t k = 0; k < n->n_inputs; k++)
      for (size_t j = 0; j < n->inputs[k].arg.n_items; j++) {
        if (n->inputs[k].arg.items[j].value != v) continue;
        (*all)++;
        if (reads_as_source(g, n, v) || adds_as_residual(g, n, v))
          (*conv_reads)++;
      }
  }
}

void cg_plan_conv_layouts(cg *g) {
  const sc_graph *gr = g->p->graph;
  if (g->has_cuda) return; /* the device path has its own kernels */
  for (size_t i = 0; i < gr->n_nodes; i++) {
    bool conv = cg_is_batched_conv2d(&gr->nodes[i]);
    if (!conv && !is_layout_max_pool(g, &gr->nodes[i])) continue;
    g->absorbed.conv_sites += conv;
    /* the chain's last value: the convolution's output, or the batch norm's / activation's
     * that share its buffer */
    cg_value *out = cg_get(g, gr->nodes[i].outputs[0].items[0].value), *end = out;
    for (size_t r = i + 1; r < gr->n_nodes; r++)
      if (g->folded[r].into == out) end = cg_get(g, gr->nodes[r].outputs[0].items[0].value);
    if (end != out && out->uses != 1) continue;
    int all, conv_reads;
    count_readers(g, end->v, &all, &conv_reads);
    /* uses counts graph outputs too: every use must be a convolution's or pool's source, or
     * a convolution's residual */
    if (conv_reads == 0 || conv_reads != all || end->uses != all) continue;
    g->folded[i].kernel_layout_out = true;
    g->absorbed.kernel_layout_outputs++;
    for (size_t r = i + 1; r < gr->n_nodes; r++) {
      if (reads_as_source(g, &gr->nodes[r], end->v)) g->folded[r].kernel_layout_in = true;
      if (g->folded[r].residual && g->folded[r].residual->v == end->v) g->folded[r].kernel_layout_residual = true;
    }
  }
}

LLVMValueRef cg_kernel_layout_bytes(cg *g, cg_value *cv) {
  /* the padded count is under 16x the elements: past 2^55 of them the size would not fit in
   * int64, so ask for more bytes than can exist and let the allocation fail cleanly */
  LLVMValueRef huge = LLVMBuildICmp(g->B, LLVMIntSGT, cv->numel, cg_i64(g, (int64_t)1 << 55), "huge");
  const int64_t block = SC_KERNEL_LAYOUT_CHANNELS;
  LLVMValueRef c = LLVMBuildMul(g->B, LLVMBuildSDiv(g->B, LLVMBuildAdd(g->B, cv->dims[1], cg_i64(g, block - 1), "c"),
                                                    cg_i64(g, block), "blocks"),
                                cg_i64(g, block), "padded");
  LLVMValueRef n = LLVMBuildMul(g->B, LLVMBuildMul(g->B, cv->dims[0], c, "nc"),
                                LLVMBuildMul(g->B, cv->dims[2], cv->dims[3], "hw"), "elems");
  LLVMValueRef bytes = LLVMBuildAdd(g->B, LLVMBuildMul(g->B, n, cg_i64(g, (int64_t)sizeof(float)), "bytes"),
                                    cg_i64(g, SC_KERNEL_LAYOUT_HEADER), "with_header");
  return LLVMBuildSelect(g->B, huge, cg_i64(g, INT64_MAX), bytes, "layout_bytes");
}
