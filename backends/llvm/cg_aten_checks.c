/* cg_aten_checks.c - the checks ATen's convolution and pooling kernels make on an input
 * before they compute, made by the library at run time in torch's words.
 *
 * torch.export traced these ops at sizes of 2 or more; when the program's ranges leave a
 * size of 0 or 1 unchecked (a Dim with min=0, a derived size), torch's module runs the
 * kernel and the kernel refuses: an empty image, a padded input smaller than the kernel,
 * a pool whose output would be empty.  The library refuses the same inputs with the same
 * message rather than compute an empty or negative extent.  Measured on torch 2.14.1
 * (conv1d/2d, conv_transpose1d, avg/max_pool1d/2d, adaptive pools, batched and not):
 * adaptive average pools accept every empty dim; the others refuse as below. */
#include <stdio.h>
#include <string.h>

#include "backends/llvm/lower.h"

/* "[a, b, c]" of `count` runtime sizes, for a printf-style message (%lld each). */
static void shape_format(char *out, size_t size, int count) {
  strncat(out, "[", size - strlen(out) - 1);
  for (int d = 0; d < count; d++) strncat(out, d ? ", %lld" : "%lld", size - strlen(out) - 1);
  strncat(out, "]", size - strlen(out) - 1);
}

static LLVMValueRef any_zero(cg *g, LLVMValueRef *dims, int from, int to) {
  LLVMValueRef any = LLVMConstInt(g->i1, 0, 0);
  for (int d = from; d < to; d++)
    any = LLVMBuildOr(g->B, any, LLVMBuildICmp(g->B, LLVMIntEQ, dims[d], cg_i64(g, 0), "zero"), "any_zero");
  return any;
}

/* x's dims as ATen's kernel sees them: a batch of 1 in front of an unbatched input, and a
 * height of 1 before a 1-D op's width; returns the rank. */
static int kernel_view(cg *g, cg_value *x, bool add_batch, bool add_height, LLVMValueRef *view) {
  int r = x->v->meta.rank, k = 0;
  if (add_batch) view[k++] = cg_i64(g, 1);
  for (int d = 0; d < r; d++) {
    if (add_height && d == r - 1) view[k++] = cg_i64(g, 1);
    view[k++] = x->dims[d];
  }
  return k;
}

void cg_check_conv_input(cg *g, cg_value *x, cg_value *w, int sp, bool batched, const int64_t *pad, const int64_t *dil) {
  int r = x->v->meta.rank;
  /* "Calculated padded input size per channel": input + 2 * padding against the dilated kernel */
  LLVMValueRef small = LLVMConstInt(g->i1, 0, 0), args[4];
  for (int i = 0; i < sp; i++) {
    LLVMValueRef padded = LLVMBuildAdd(g->B, x->dims[r - sp + i], cg_i64(g, 2 * pad[i]), "padded");
    LLVMValueRef k = LLVMBuildSub(g->B, w->dims[2 + i], cg_i64(g, 1), "k");
    LLVMValueRef dilated = LLVMBuildAdd(g->B, LLVMBuildMul(g->B, k, cg_i64(g, dil[i]), "dk"), cg_i64(g, 1), "dilated");
    small = LLVMBuildOr(g->B, small, LLVMBuildICmp(g->B, LLVMIntSLT, padded, dilated, "small"), "small");
    args[i] = padded;
    args[sp + i] = dilated;
  }
  const char *fmt = sp == 1 ? "Calculated padded input size per channel: (%lld). Kernel size: (%lld). Kernel size can't "
                              "be greater than actual input size"
                            : "Calculated padded input size per channel: (%lld x %lld). Kernel size: (%lld x %lld). "
                              "Kernel size can't be greater than actual input size";
  cg_fail_msg_if(g, small, fmt, args, (unsigned)(2 * sp));
  /* then an empty image, unless the batch or the channels are empty too */
  LLVMValueRef view[CG_MAX_RANK + 2];
  int vr = kernel_view(g, x, !batched, sp == 1, view);
  LLVMValueRef items = LLVMBuildMul(g->B, view[0], view[1], "items");
  LLVMValueRef bad = LLVMBuildAnd(g->B, any_zero(g, view, 2, vr),
                                  LLVMBuildICmp(g->B, LLVMIntNE, items, cg_i64(g, 0), "some"), "empty_image");
  char msg[200] = "Only zero batch or zero channel inputs are supported, but got input shape: ";
  shape_format(msg, sizeof msg, vr);
  cg_fail_msg_if(g, bad, msg, view, (unsigned)vr);
}

void cg_check_pool_input(cg *g, cg_value *x, cg_value *out, bool one_d, bool max_pool) {
  int r = x->v->meta.rank;
  char msg[240];
  if (one_d && max_pool) { /* max_pool1d keeps its own rank and words */
    snprintf(msg, sizeof msg, "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, "
             "but got:");
    shape_format(msg, sizeof msg, r);
    cg_fail_msg_if(g, any_zero(g, x->dims, r == 3 ? 1 : 0, r), msg, x->dims, (unsigned)r);
    LLVMValueRef ow = out->dims[r - 1];
    cg_fail_msg_if(g, LLVMBuildICmp(g->B, LLVMIntSLT, ow, cg_i64(g, 1), "small"),
                   "max_pool1d() Invalid computed output size: %lld", &ow, 1);
    return;
  }
  /* the 2-D kernels (a 1-D average pool is one over [.., c, 1, w]): a batch may be empty,
   * nothing else */
  LLVMValueRef view[CG_MAX_RANK + 2];
  int vr = kernel_view(g, x, false, one_d, view);
  snprintf(msg, sizeof msg, "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:");
  shape_format(msg, sizeof msg, vr);
  cg_fail_msg_if(g, any_zero(g, view, vr == 4 ? 1 : 0, vr), msg, view, (unsigned)vr);
  LLVMValueRef oh = one_d ? cg_i64(g, 1) : out->dims[r - 2], ow = out->dims[r - 1];
  LLVMValueRef small = LLVMBuildOr(g->B, LLVMBuildICmp(g->B, LLVMIntSLT, oh, cg_i64(g, 1), "small_h"),
                                   LLVMBuildICmp(g->B, LLVMIntSLT, ow, cg_i64(g, 1), "small_w"), "small");
  LLVMValueRef args[6] = {view[vr - 3], view[vr - 2], view[vr - 1], view[vr - 3], oh, ow};
  cg_fail_msg_if(g, small, "Given input size: (%lldx%lldx%lld). Calculated output size: (%lldx%lldx%lld). Output size is "
                 "too small", args, 6);
}
