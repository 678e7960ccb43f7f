/* cg_module.c - what a model library's module holds besides code and weights (cg_weights.c):
 * constant strings behind getter functions, and the last touches before the module goes to
 * a target for optimization (the state of mutated buffers: cg_state.c). */
#include <stdlib.h>
#include <string.h>

#include "lower.h"

/* const char *name(void) { return "..."; }, the text shared with the code's own uses */
void cg_emit_string_getter(cg *g, const char *name, const char *text) {
  LLVMValueRef f = LLVMAddFunction(g->M, name, LLVMFunctionType(g->ptr, NULL, 0, 0));
  LLVMPositionBuilderAtEnd(g->B, LLVMAppendBasicBlockInContext(g->C, f, "entry"));
  LLVMBuildRet(g->B, cg_cstr(g, text));
}

void cg_emit_metadata_getter(cg *g, const char *const *pairs, size_t n) {
  LLVMTypeRef p[1] = {g->ptr};
  LLVMValueRef f = LLVMAddFunction(g->M, "shapec_model_metadata", LLVMFunctionType(g->ptr, p, 1, 0));
  LLVMPositionBuilderAtEnd(g->B, LLVMAppendBasicBlockInContext(g->C, f, "entry"));
  LLVMValueRef key = LLVMGetParam(f, 0);
  LLVMBasicBlockRef none = LLVMAppendBasicBlockInContext(g->C, f, "none");
  LLVMBasicBlockRef look = LLVMAppendBasicBlockInContext(g->C, f, "look");
  LLVMBuildCondBr(g->B, LLVMBuildIsNull(g->B, key, "nokey"), none, look);
  LLVMPositionBuilderAtEnd(g->B, look);
  LLVMTypeRef sp[2] = {g->ptr, g->ptr};
  LLVMTypeRef strcmp_t = LLVMFunctionType(g->i32, sp, 2, 0);
  LLVMValueRef strcmp_fn = LLVMGetNamedFunction(g->M, "strcmp");
  if (!strcmp_fn) strcmp_fn = LLVMAddFunction(g->M, "strcmp", strcmp_t);
  for (size_t i = 0; i < n; i++) { /* the last value given for a key wins: look from the end */
    const char *pair = pairs[n - 1 - i], *eq = strchr(pair, '=');
    if (!eq) continue;
    char *k = sc_arena_printf(&g->ctx->arena, "%.*s", (int)(eq - pair), pair);
    LLVMValueRef args[2] = {key, cg_cstr(g, k)};
    LLVMValueRef same = LLVMBuildICmp(g->B, LLVMIntEQ, LLVMBuildCall2(g->B, strcmp_t, strcmp_fn, args, 2, "cmp"),
                                      LLVMConstInt(g->i32, 0, 0), "same");
    LLVMBasicBlockRef hit = LLVMAppendBasicBlockInContext(g->C, f, "hit"), next = LLVMAppendBasicBlockInContext(g->C, f, "next");
    LLVMBuildCondBr(g->B, same, hit, next);
    LLVMPositionBuilderAtEnd(g->B, hit);
    LLVMBuildRet(g->B, cg_cstr(g, eq + 1));
    LLVMPositionBuilderAtEnd(g->B, next);
  }
  LLVMBuildBr(g->B, none);
  LLVMPositionBuilderAtEnd(g->B, none);
  LLVMBuildRet(g->B, LLVMConstNull(g->ptr));
}

int32_t cg_text(cg *g, const char *text) {
  if (!g->text_offsets.arena) sc_strmap_init(&g->text_offsets, &g->ctx->arena);
  void *known = sc_strmap_get(&g->text_offsets, text);
  if (known) return (int32_t)((intptr_t)known - 1);
  int32_t at = (int32_t)g->texts.len;
  sc_strbuf_append_n(&g->texts, text, strlen(text) + 1); /* with its NUL */
  sc_strmap_put(&g->text_offsets, sc_arena_strdup(&g->ctx->arena, text), (void *)(intptr_t)(at + 1));
  return at;
}

LLVMValueRef cg_texts(cg *g) {
  if (!g->texts_global) g->texts_global = LLVMAddGlobal(g->M, g->i8, "sc_texts_pending");
  return g->texts_global;
}

void cg_finish_texts(cg *g) {
  if (!g->texts_global) return;
  LLVMValueRef pool = LLVMConstStringInContext2(g->C, g->texts.len ? g->texts.data : "", g->texts.len, 1);
  LLVMValueRef gv = LLVMAddGlobal(g->M, LLVMTypeOf(pool), "sc_texts");
  LLVMSetInitializer(gv, pool);
  LLVMSetGlobalConstant(gv, 1);
  LLVMSetLinkage(gv, LLVMPrivateLinkage);
  LLVMReplaceAllUsesWith(g->texts_global, gv);
  LLVMDeleteGlobal(g->texts_global);
  g->texts_global = NULL;
  sc_strbuf_free(&g->texts);
}

LLVMValueRef cg_table(cg *g, const void *data, size_t bytes, const char *name) {
  LLVMValueRef init = LLVMConstStringInContext2(g->C, bytes ? data : "", bytes, 1);
  LLVMValueRef gv = LLVMAddGlobal(g->M, LLVMTypeOf(init), name);
  LLVMSetInitializer(gv, init);
  LLVMSetGlobalConstant(gv, 1);
  LLVMSetLinkage(gv, LLVMPrivateLinkage);
  LLVMSetAlignment(gv, 8);
  return gv;
}

/* Declared vector variants are only referenced from call-site attributes: list them in
 * llvm.compiler.used so that the optimizer keeps them until the vectorizer calls them. */
static void keep_vector_variants(cg *g) {
  if (!g->n_used) return;
  LLVMTypeRef at = LLVMArrayType2(g->ptr, (uint64_t)g->n_used);
  LLVMValueRef used = LLVMAddGlobal(g->M, at, "llvm.compiler.used");
  LLVMSetLinkage(used, LLVMAppendingLinkage);
  LLVMSetSection(used, "llvm.metadata");
  LLVMSetInitializer(used, LLVMConstArray2(g->ptr, g->used, (uint64_t)g->n_used));
}

/* The run function of a large model is one long straight line of kernel calls and size
 * arithmetic (its hot loops live in outlined functions).  LLVM's register allocator is
 * superlinear on it: 38 s for mobilenet_v2 at O3.  Past a size where optimizing it buys
 * nothing measurable, it is compiled without optimization instead.  resnet18's is 5,270
 * instructions: at O3 its code generation took 0.12 s more, for no measurable gain in a
 * 18 ms call. */
enum { RUN_OPT_LIMIT = 4000 };

static void bound_compile_time(cg *g) {
  /* the entry points of both paths (sc_cpu_run, sc_cuda_run, ...) and any other giant */
  for (LLVMValueRef fn = LLVMGetFirstFunction(g->M); fn; fn = LLVMGetNextFunction(fn)) {
    long count = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b && count <= RUN_OPT_LIMIT; b = LLVMGetNextBasicBlock(b))
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) count++;
    if (count <= RUN_OPT_LIMIT) continue;
    static const char *const attrs[] = {"optnone", "noinline"};
    for (int i = 0; i < 2; i++)
      LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                              LLVMCreateEnumAttribute(g->C, LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i])), 0));
  }
}

void cg_finish_module(cg *g) {
  keep_vector_variants(g);
  bound_compile_time(g);
}
