/* cg_weights.c - the weights a library embeds, as pieces of one blob.
 *
 * A piece is a tensor's bytes where they already are (the reader's buffer, or a folded
 * convolution's weights computed at export).  The blob never passes through LLVM: the
 * code reads a piece through a constant pointer, the blob's start plus the piece's offset,
 * and the CPU target writes the bytes straight into an object of their own
 * (backends/cpu/weights_object.c), whose one symbol, shapec_weights, the link resolves.
 * The bytes are copied once on their way from the model file to the library.
 *
 * Which pieces the library needs is known only after lowering: a convolution's weights
 * once folded, or a folded batch norm's statistics, are read by nothing.  So the code is
 * first built on a stand-in for the blob's start; cg_weights_layout then drops the pieces
 * nothing reads, gives the rest their final offsets, and points the code at the real blob.
 * (One stand-in global, not a global per piece: every loop body printed for
 * deduplication, cg_elementwise.c, walks the module's globals.)
 *
 * The device path uploads the blob as a whole and addresses it by offset, so a library
 * with a device path keeps every piece where it was given out (a folded batch norm's
 * statistics included), and refers to the real blob from the start; only its size grows
 * with the pieces folding adds.
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

/* base + offset (not inbounds: the stand-in has no size) */
static LLVMValueRef pointer_into(cg *g, LLVMValueRef base, size_t offset) {
  LLVMValueRef idx[1] = {LLVMConstInt(g->i64, offset, 0)};
  return LLVMConstGEP2(g->i8, base, idx, 1);
}

static LLVMValueRef declare_blob(cg *g, const char *name, size_t size) {
  LLVMValueRef b = LLVMAddGlobal(g->M, LLVMArrayType2(g->i8, size), name);
  LLVMSetGlobalConstant(b, 1);
  LLVMSetAlignment(b, 64);
  LLVMSetVisibility(b, LLVMHiddenVisibility); /* defined in the same library: addressed directly */
  return b;
}

LLVMValueRef cg_weights_add(cg *g, const void *data, size_t nbytes, void *owned) {
  if (g->n_pieces == g->cap_pieces) {
    g->cap_pieces = g->cap_pieces ? 2 * g->cap_pieces : 64;
    g->pieces = sc_xrealloc(g->pieces, g->cap_pieces * sizeof *g->pieces);
  }
  cg_blob_piece *p = &g->pieces[g->n_pieces++];
  *p = (cg_blob_piece){.data = data, .nbytes = nbytes, .owned = owned, .offset = g->weights_total, .kept = true,
                       .at = pointer_into(g, g->weights, g->weights_total)};
  g->weights_total += aligned(nbytes);
  return p->at;
}

LLVMValueRef cg_weights_on_device(cg *g, LLVMValueRef piece) {
  LLVMValueRef at = LLVMBuildSub(g->B, LLVMBuildPtrToInt(g->B, piece, g->i64, "piece"),
                                 LLVMBuildPtrToInt(g->B, g->weights, g->i64, "blob"), "at");
  LLVMValueRef idx[1] = {at};
  return LLVMBuildGEP2(g->B, g->i8, g->device_weights, idx, 1, "dw");
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
  g->weight_pointers = sc_arena_alloc(&g->ctx->arena, n * sizeof(LLVMValueRef));
  size_t at = 0;
  for (size_t i = 0; i < g->p->n_input_specs; i++) {
    const sc_input_spec *s = &g->p->input_specs[i];
    const sc_weight *w = is_weight(s) ? sc_weights_find(g->w, s->target) : NULL;
    g->weight_offsets[i] = w ? at : (size_t)-1;
    g->weight_pointers[i] = NULL;
    if (w) at += aligned(w->nbytes);
  }
  if (g->external_path) {
    write_external_weights(g);
    return;
  }
  /* with a device path, the real blob from the start (pieces folded at export follow the
   * program's weights; cg_weights_layout sizes it) */
  g->weights = g->has_cuda ? declare_blob(g, "shapec_weights", at) : declare_blob(g, "shapec_weights_stand_in", 0);
  /* stand-in offsets start past 0: a pointer at offset 0 would be the stand-in itself,
   * which every other pointer uses */
  g->weights_total = g->has_cuda ? 0 : 64;
  for (size_t i = 0; i < g->p->n_input_specs; i++)
    if (g->weight_offsets[i] != (size_t)-1) {
      const sc_weight *w = sc_weights_find(g->w, g->p->input_specs[i].target);
      g->weight_pointers[i] = cg_weights_add(g, w->data, w->nbytes, NULL);
    }
}

void cg_weights_drop(cg *g, const bool *dropped) {
  g->n_pieces = 0;
  g->weights_total = 0;
  for (size_t i = 0; i < g->p->n_input_specs; i++) {
    if (g->weight_offsets[i] == (size_t)-1) continue;
    if (dropped[i]) {
      g->weight_offsets[i] = (size_t)-1;
      g->weight_pointers[i] = NULL;
      continue;
    }
    const sc_weight *w = sc_weights_find(g->w, g->p->input_specs[i].target);
    g->weight_offsets[i] = g->weights_total;
    g->weight_pointers[i] = cg_weights_add(g, w->data, w->nbytes, NULL);
  }
  g->weight_dropped = dropped;
}

/* x86-64 code reaches the blob PC-relative (the small code model): the blob and the code
 * must lie within 2 GiB of each other, or the link fails with a relocation overflow. */
static const size_t MAX_EMBEDDED = ((size_t)2 << 30) - ((size_t)128 << 20); /* 2 GiB less room for the code */

static bool fits(cg *g) {
  if (g->weights_total <= MAX_EMBEDDED) return true;
  return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, NULL, "the weights this library would embed take %.2f GiB; a library "
                  "embeds at most %.3f GiB (its code addresses them within 2 GiB): export with --external-weights, "
                  "which keeps them in OUTDIR/model.weights beside model.so", (double)g->weights_total / 1073741824.0,
                  (double)MAX_EMBEDDED / 1073741824.0);
}

bool cg_weights_layout(cg *g) {
  if (g->external_path) return true;
  if (g->has_cuda) { /* every offset is final; the blob takes the pieces added since */
    LLVMValueRef blob = declare_blob(g, "shapec_weights.sized", g->weights_total);
    LLVMReplaceAllUsesWith(g->weights, blob);
    LLVMDeleteGlobal(g->weights);
    LLVMSetValueName2(blob, "shapec_weights", strlen("shapec_weights"));
    g->weights = blob;
    return fits(g);
  }
  size_t at = 0;
  for (size_t i = 0; i < g->n_pieces; i++) {
    cg_blob_piece *p = &g->pieces[i];
    p->kept = LLVMGetFirstUse(p->at) != NULL;
    if (!p->kept) continue;
    p->offset = at;
    at += aligned(p->nbytes);
  }
  /* the real blob is a new global, so a new pointer never equals a stand-in one */
  LLVMValueRef blob = declare_blob(g, "shapec_weights", at);
  for (size_t i = 0; i < g->n_pieces; i++)
    if (g->pieces[i].kept) LLVMReplaceAllUsesWith(g->pieces[i].at, pointer_into(g, blob, g->pieces[i].offset));
  /* what still refers to the stand-in are the pointers to dropped pieces, used by nothing */
  LLVMReplaceAllUsesWith(g->weights, blob);
  LLVMDeleteGlobal(g->weights);
  g->weights = blob;
  g->weights_total = at;
  return fits(g);
}

void cg_weights_free(cg *g) {
  for (size_t i = 0; i < g->n_pieces; i++) free(g->pieces[i].owned);
  free(g->pieces);
  g->pieces = NULL;
  g->n_pieces = g->cap_pieces = 0;
}

/* The weights a caller may replace at load (shapec_model_load_weights, runtime weights.c):
 * a text the runtime reads once.  First line "external SIZE ID" (the side file's blob) or
 * "embedded"; then per parameter, buffer and tensor constant the program reads from the
 * blob (not a buffer it updates: that one is the state's, cg_state.c), tab-separated:
 * kind (p/b/c), name, torch's dtype, the dtype the blob holds it in (a half-precision
 * weight is widened, passes/half_precision.h), byte offset in the blob, bytes, and the
 * dims joined by commas.  A name with a tab or a newline leaves the list empty. */
void cg_emit_weights_manifest(cg *g) {
  sc_strbuf t = {0};
  if (g->external_path)
    sc_strbuf_printf(&t, "external %llu %llu\n", (unsigned long long)g->weights_size, (unsigned long long)g->weights_id);
  else
    sc_strbuf_printf(&t, "embedded\n");
  bool listable = true;
  for (size_t i = 0; i < g->p->n_input_specs && listable; i++) {
    const sc_input_spec *s = &g->p->input_specs[i];
    const sc_weight *w = is_weight(s) ? sc_weights_find(g->w, s->target) : NULL;
    const sc_value *v = sc_input_spec_value(s);
    if (!w || !v || (g->state && g->state[i])) continue;
    if (strpbrk(s->target, "\t\n")) listable = false;
    sc_dtype torch_dtype = v->meta.rounds_to ? v->meta.rounds_to : w->dtype;
    long long offset = g->external_path && g->weight_offsets[i] != (size_t)-1 ? (long long)g->weight_offsets[i] : -1;
    sc_strbuf_printf(&t, "%c\t%s\t%d\t%d\t%lld\t%llu\t", s->kind == SC_INPUT_PARAMETER ? 'p' : s->kind == SC_INPUT_BUFFER ? 'b' : 'c',
                     s->target, (int)torch_dtype, (int)w->dtype, offset, (unsigned long long)w->nbytes);
    for (int d = 0; d < w->rank; d++) sc_strbuf_printf(&t, "%s%lld", d ? "," : "", (long long)w->shape[d]);
    sc_strbuf_printf(&t, "\n");
  }
  cg_emit_string_getter(g, "sc_model_weights_manifest", listable ? (t.data ? t.data : "") : "");
  LLVMSetVisibility(LLVMGetNamedFunction(g->M, "sc_model_weights_manifest"), LLVMHiddenVisibility);
  sc_strbuf_free(&t);
}
