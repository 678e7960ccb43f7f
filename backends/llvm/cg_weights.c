/* cg_weights.c - the weights a library embeds, as pieces of one blob.
 *
 * A piece is a tensor's bytes where they already are (the reader's buffer, or a folded
 * convolution's weights computed at export), and a hidden symbol the code refers to.
 * The blob never passes through LLVM: after lowering, the pieces nothing refers to
 * (a convolution's weights once folded, a folded batch norm's statistics) are dropped,
 * the rest are laid out 64-byte aligned, and the CPU target writes them straight into an
 * object of their own (backends/cpu/weights_object.c), which the link places in the
 * library.  The bytes are copied once on their way from the model file to the library.
 *
 * The device path uploads the blob as a whole and addresses it by offset, so a library
 * with a device path keeps every weight at the offset it was given here.
 *
 * With --external-weights the blob is the side file OUTDIR/model.weights instead: a
 * header (magic, an id that is a hash of the blob, its size), then the blob. */
#include <stdlib.h>
#include <string.h>

#include "lib/base/fileio.h"
#include "lower.h"

enum { WEIGHTS_HEADER = 64 }; /* the runtime reads this layout (sc_rt_external_weights) */

static size_t aligned(size_t n) { return (n + 63) / 64 * 64; }

static bool is_weight(const sc_input_spec *s) {
  return s->kind == SC_INPUT_PARAMETER || s->kind == SC_INPUT_BUFFER || s->kind == SC_INPUT_TENSOR_CONSTANT;
}

LLVMValueRef cg_weights_add(cg *g, const void *data, size_t nbytes, void *owned) {
  if (g->n_pieces == g->cap_pieces) {
    g->cap_pieces = g->cap_pieces ? 2 * g->cap_pieces : 64;
    g->pieces = sc_xrealloc(g->pieces, g->cap_pieces * sizeof *g->pieces);
  }
  cg_blob_piece *p = &g->pieces[g->n_pieces];
  const char *name = sc_arena_printf(&g->ctx->arena, "shapec_weight_%zu", g->n_pieces);
  /* a declaration: the weights object defines it, next to the code in the same library */
  LLVMValueRef sym = LLVMAddGlobal(g->M, LLVMArrayType2(g->i8, nbytes), name);
  LLVMSetGlobalConstant(sym, 1);
  LLVMSetAlignment(sym, 64);
  LLVMSetVisibility(sym, LLVMHiddenVisibility);
  *p = (cg_blob_piece){.data = data, .nbytes = nbytes, .owned = owned, .symbol = sym, .name = name, .offset = g->weights_total};
  g->weights_total += aligned(nbytes);
  g->n_pieces++;
  return sym;
}

/* The side file of --external-weights, written now: the code checks its id and size. */
static void write_external_weights(cg *g) {
  size_t total = 0;
  for (size_t i = 0; i < g->p->n_input_specs; i++) {
    const sc_weight *w = g->weight_offsets[i] == (size_t)-1 ? NULL : sc_weights_find(g->w, g->p->input_specs[i].target);
    if (w) total = g->weight_offsets[i] + aligned(w->nbytes);
  }
  unsigned char *buf = sc_xcalloc(1, WEIGHTS_HEADER + (total ? total : 1)), *blob = buf + WEIGHTS_HEADER;
  for (size_t i = 0; i < g->p->n_input_specs; i++) {
    if (g->weight_offsets[i] == (size_t)-1) continue;
    const sc_weight *w = sc_weights_find(g->w, g->p->input_specs[i].target);
    memcpy(blob + g->weight_offsets[i], w->data, w->nbytes);
  }
  uint64_t id = 0xcbf29ce484222325ull; /* FNV-1a */
  for (size_t i = 0; i < total; i++) id = (id ^ blob[i]) * 0x100000001b3ull;
  g->weights_id = id;
  g->weights_size = total;
  g->weights_total = total;
  memcpy(buf, "SHAPECW1", 8);
  for (int k = 0; k < 8; k++) {
    buf[8 + k] = (unsigned char)(id >> (8 * k));
    buf[16 + k] = (unsigned char)((uint64_t)total >> (8 * k));
  }
  if (!sc_file_write_atomic(g->ctx, g->external_path, buf, WEIGHTS_HEADER + total)) g->failed = true;
  free(buf);
}

void cg_emit_weights(cg *g) {
  size_t n = g->p->n_input_specs ? g->p->n_input_specs : 1;
  g->weight_offsets = sc_arena_alloc(&g->ctx->arena, n * sizeof(size_t));
  g->weight_symbols = sc_arena_alloc(&g->ctx->arena, n * sizeof(LLVMValueRef));
  size_t at = 0;
  for (size_t i = 0; i < g->p->n_input_specs; i++) {
    const sc_input_spec *s = &g->p->input_specs[i];
    const sc_weight *w = is_weight(s) ? sc_weights_find(g->w, s->target) : NULL;
    g->weight_offsets[i] = (size_t)-1;
    g->weight_symbols[i] = NULL;
    if (!w) continue;
    if (g->external_path) {
      g->weight_offsets[i] = at;
      at += aligned(w->nbytes);
      continue;
    }
    g->weight_offsets[i] = g->weights_total;
    g->weight_symbols[i] = cg_weights_add(g, w->data, w->nbytes, NULL);
  }
  if (g->external_path) {
    write_external_weights(g);
    return;
  }
  /* the blob's start, which the device path uploads from */
  g->weights = LLVMAddGlobal(g->M, LLVMArrayType2(g->i8, 0), "shapec_weights");
  LLVMSetGlobalConstant(g->weights, 1);
  LLVMSetAlignment(g->weights, 64);
  LLVMSetVisibility(g->weights, LLVMHiddenVisibility);
}

void cg_weights_layout(cg *g) {
  /* a library with a device path keeps every piece where it was given out */
  bool prune = !g->external_path && !g->has_cuda;
  size_t at = 0;
  for (size_t i = 0; i < g->n_pieces; i++) {
    cg_blob_piece *p = &g->pieces[i];
    p->kept = !prune || LLVMGetFirstUse(p->symbol);
    if (!p->kept) LLVMDeleteGlobal(p->symbol);
    p->symbol = NULL;
    if (!p->kept || !prune) continue;
    p->offset = at;
    at += aligned(p->nbytes);
  }
  if (prune) g->weights_total = at;
}

void cg_weights_free(cg *g) {
  for (size_t i = 0; i < g->n_pieces; i++) free(g->pieces[i].owned);
  free(g->pieces);
  g->pieces = NULL;
  g->n_pieces = g->cap_pieces = 0;
}
