/* cg_workspace.c - the planned workspace of a CPU call.
 *
 * Every buffer a call computes into lives in a region of a workspace that the library keeps
 * between calls (backends/cpu/runtime/workspace.c).  Which region is decided here, at export,
 * from lifetimes: while the function is emitted each buffer records the node that takes it
 * and the node after which it is dead (cg_lifetime.c decides that), and once the function is
 * complete the buffers are assigned regions so that two buffers whose lives overlap never
 * share one.  Sizes depend on the input shapes, so a region's size is settled at run time: it
 * grows to the largest buffer asked of it and then stays, and calls at shapes seen before
 * allocate nothing.  The assignment prefers the free region whose size at the example shapes
 * fits best, so that growing is rare.
 *
 * The region numbers are constants in the emitted calls: each call is emitted with a
 * placeholder and patched once the plan exists. */
#include <limits.h>
#include <stdlib.h>

#include "lower.h"

/* The buffer's bytes at the example shapes (the file's hints), or -1 when they do not say. */
static int64_t bytes_at_hints(cg *g, const cg_value *owner, LLVMValueRef bytes) {
  if (LLVMIsAConstantInt(bytes)) return LLVMConstIntGetSExtValue(bytes);
  if (!owner->v) return -1; /* a lowering's scratch buffer */
  int64_t n = (int64_t)sc_dtype_size(owner->v->meta.dtype);
  for (int d = 0; d < owner->v->meta.rank; d++) {
    int64_t size;
    if (!sc_env_hint((sc_shape_env *)&g->a->env, owner->v->shape[d], &size) || size < 0) return -1;
    if (size && n > INT64_MAX / size) return -1;
    n *= size;
  }
  return n;
}

void cg_workspace_open(cg *g) {
  g->ws.n_buffers = 0;
  LLVMTypeRef params[1] = {g->i64};
  LLVMValueRef args[1] = {cg_i64(g, 0)}; /* the region count, patched by cg_workspace_close */
  g->ws.handle = cg_call(g, "sc_rt_ws_acquire", g->ptr, params, 1, args, 1, false);
  LLVMBasicBlockRef fail = cg_block(g, "nows"), ok = cg_block(g, "ws");
  LLVMBuildCondBr(g->B, LLVMBuildIsNull(g->B, g->ws.handle, "null"), fail, ok);
  LLVMPositionBuilderAtEnd(g->B, fail);
  LLVMTypeRef fp[3] = {g->ptr, g->i64, g->i64};
  LLVMValueRef fa[3] = {g->err, g->errlen, cg_i64(g, 0)};
  LLVMBuildStore(g->B, cg_call(g, "sc_rt_fail_memory", g->i32, fp, 3, fa, 3, false), g->rc_slot);
  LLVMBuildBr(g->B, g->exit_bb);
  LLVMPositionBuilderAtEnd(g->B, ok);
}

LLVMValueRef cg_workspace_take(cg *g, cg_value *owner, LLVMValueRef bytes) {
  LLVMTypeRef params[3] = {g->ptr, g->i64, g->i64};
  LLVMValueRef args[3] = {g->ws.handle, cg_i64(g, 0), bytes}; /* region: patched by the plan */
  LLVMValueRef p = cg_call(g, "sc_rt_ws_take", g->ptr, params, 3, args, 3, false);
  cg_ws_buffer b = {.take = p, .start = g->node, .end = INT_MAX, .bytes = bytes_at_hints(g, owner, bytes)};
  g->ws.buffers = sc_xrealloc(g->ws.buffers, (size_t)(g->ws.n_buffers + 1) * sizeof *g->ws.buffers);
  g->ws.buffers[g->ws.n_buffers] = b;
  owner->slot = g->ws.n_buffers++;
  return p;
}

void cg_workspace_end(cg *g, cg_value *owner, int node) { g->ws.buffers[owner->slot].end = node; }

typedef struct region {
  int64_t bytes; /* the largest of its buffers at the example shapes; -1 when unknown */
  int busy_until; /* the node after which its last buffer is dead */
} region;

/* The free region for a buffer of `bytes`: the smallest that holds it, else the largest. */
static int pick_region(const region *r, int n, int start, int64_t bytes) {
  int fit = -1, largest = -1;
  for (int i = 0; i < n; i++) {
    if (r[i].busy_until >= start) continue;
    if (r[i].bytes >= bytes && (fit < 0 || r[i].bytes < r[fit].bytes)) fit = i;
    if (largest < 0 || r[i].bytes > r[largest].bytes) largest = i;
  }
  return fit >= 0 ? fit : largest;
}

/* The most bytes alive at once at the example shapes, -1 when some are unknown: each buffer
 * adds its bytes at its first node and takes them back after its last. */
static int64_t live_peak(const cg_ws_buffer *b, int n, int n_nodes) {
  int64_t *delta = sc_xcalloc((size_t)n_nodes + 2, sizeof *delta), live = 0, peak = 0;
  for (int i = 0; i < n && peak >= 0; i++) {
    if (b[i].bytes < 0) peak = -1;
    int start = b[i].start < 0 ? 0 : b[i].start > n_nodes ? n_nodes : b[i].start;
    delta[start] += b[i].bytes;
    if (b[i].end < n_nodes) delta[b[i].end + 1] -= b[i].bytes;
  }
  for (int k = 0; k <= n_nodes && peak >= 0; k++) {
    live += delta[k];
    if (live > peak) peak = live;
  }
  free(delta);
  return peak;
}

void cg_workspace_close(cg *g) {
  LLVMTypeRef fp[1] = {g->ptr};
  LLVMValueRef fa[1] = {g->ws.handle};
  cg_call(g, "sc_rt_ws_release", g->voidt, fp, 1, fa, 1, false);
  int n = g->ws.n_buffers, n_regions = 0;
  region *regions = sc_xcalloc((size_t)n + 1, sizeof *regions);
  for (int i = 0; i < n; i++) {
    cg_ws_buffer *b = &g->ws.buffers[i];
    int r = pick_region(regions, n_regions, b->start, b->bytes);
    if (r < 0) {
      r = n_regions++;
      regions[r].bytes = b->bytes;
    } else if (regions[r].bytes >= 0) {
      regions[r].bytes = b->bytes < 0 ? -1 : b->bytes > regions[r].bytes ? b->bytes : regions[r].bytes;
    }
    regions[r].busy_until = b->end;
    LLVMSetOperand(b->take, 1, cg_i64(g, r));
  }
  LLVMSetOperand(g->ws.handle, 0, cg_i64(g, n_regions));
  /* what `export -v` reports: the run's plan (the last function emitted with one) */
  int64_t total = 0;
  for (int r = 0; r < n_regions && total >= 0; r++) total = regions[r].bytes < 0 ? -1 : total + regions[r].bytes;
  g->ws.planned = (cg_ws_plan){.buffers = n, .regions = n_regions, .bytes = total, .live_peak = live_peak(g->ws.buffers, n, (int)g->p->graph->n_nodes)};
  free(regions);
  free(g->ws.buffers);
  g->ws.buffers = NULL;
  g->ws.n_buffers = 0;
}
