/* cg_builder.c - IR helpers every file of the lowering uses: diagnostics, function
 * declarations and calls, constants, blocks, and the exits that return an error code or
 * a message from the entry point being built. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lower.h"

bool cg_error(cg *g, sc_diag_code code, const char *path, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* the lowering is shared: on the device path its "no CPU lowering" means the device's */
  char *cpu = g->cuda ? strstr(msg, "has no CPU lowering") : NULL;
  if (cpu && strlen(msg) + 1 < sizeof msg) {
    memmove(cpu + 11, cpu + 10, strlen(cpu + 10) + 1); /* "has no CUDA lowering": one more letter */
    memcpy(cpu + 7, "CUDA", 4);
  }
  sc_diags_add(&g->ctx->diags, code, SC_SEV_ERROR, g->p->file, path, "%s", msg);
  g->failed = true;
  return false;
}

LLVMValueRef cg_function(cg *g, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n, bool vararg) {
  LLVMValueRef f = LLVMGetNamedFunction(g->M, name);
  if (f) return f;
  return LLVMAddFunction(g->M, name, LLVMFunctionType(ret, params, n, vararg));
}

LLVMValueRef cg_call(cg *g, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n, LLVMValueRef *args,
                     unsigned nargs, bool vararg) {
  /* host code of the device path calls the device runtime's counterparts */
  if (g->cuda && !g->device) name = g->gpu->runtime_name(g, name);
  LLVMValueRef f = cg_function(g, name, ret, params, n, vararg);
  return LLVMBuildCall2(g->B, LLVMFunctionType(ret, params, n, vararg), f, args, nargs, "");
}

LLVMValueRef cg_i64(cg *g, int64_t v) { return LLVMConstInt(g->i64, (unsigned long long)v, 1); }

/* One global per distinct text: every size computation of a large model checks for
 * overflow with the same message, and 14,000 copies of it slowed each LLVM phase after. */
LLVMValueRef cg_cstr(cg *g, const char *s) {
  LLVMModuleRef m = LLVMGetGlobalParent(LLVMGetBasicBlockParent(LLVMGetInsertBlock(g->B)));
  if (m != g->cstrs_module) return LLVMBuildGlobalStringPtr(g->B, s, "str"); /* the device module's */
  LLVMValueRef known = sc_strmap_get(&g->cstrs, s);
  if (known) return known;
  LLVMValueRef str = LLVMBuildGlobalStringPtr(g->B, s, "str");
  sc_strmap_put(&g->cstrs, sc_arena_strdup(&g->ctx->arena, s), str);
  return str;
}

LLVMBasicBlockRef cg_block(cg *g, const char *name) { return LLVMAppendBasicBlockInContext(g->C, g->fn, name); }

void cg_fail_if(cg *g, LLVMValueRef cond, LLVMValueRef rc_value) {
  LLVMBasicBlockRef fail = cg_block(g, "fail"), ok = cg_block(g, "ok");
  LLVMBuildCondBr(g->B, cond, fail, ok);
  LLVMPositionBuilderAtEnd(g->B, fail);
  LLVMBuildStore(g->B, rc_value, g->rc_slot);
  LLVMBuildBr(g->B, g->exit_bb);
  LLVMPositionBuilderAtEnd(g->B, ok);
}

void cg_fail_kernel_if(cg *g, LLVMValueRef rc, const char *node) {
  LLVMBasicBlockRef fail = cg_block(g, "kernel_failed"), ok = cg_block(g, "ok");
  LLVMBuildCondBr(g->B, LLVMBuildICmp(g->B, LLVMIntNE, rc, LLVMConstInt(g->i32, 0, 0), "bad"), fail, ok);
  LLVMPositionBuilderAtEnd(g->B, fail);
  LLVMTypeRef params[4] = {g->ptr, g->i64, g->i32, g->ptr};
  LLVMValueRef args[4] = {g->err, g->errlen, rc, cg_cstr(g, node)};
  LLVMBuildStore(g->B, cg_call(g, "sc_rt_fail_kernel", g->i32, params, 4, args, 4, false), g->rc_slot);
  LLVMBuildBr(g->B, g->exit_bb);
  LLVMPositionBuilderAtEnd(g->B, ok);
}

void cg_fail_argument_if(cg *g, LLVMValueRef cond, const char *message) {
  LLVMBasicBlockRef fail = cg_block(g, "fail"), ok = cg_block(g, "ok");
  LLVMBuildCondBr(g->B, cond, fail, ok);
  LLVMPositionBuilderAtEnd(g->B, fail);
  LLVMTypeRef params[3] = {g->ptr, g->i64, g->ptr};
  LLVMValueRef args[3] = {g->err, g->errlen, cg_cstr(g, message)};
  LLVMBuildStore(g->B, cg_call(g, "sc_rt_fail_argument", g->i32, params, 3, args, 3, false), g->rc_slot);
  LLVMBuildBr(g->B, g->exit_bb);
  LLVMPositionBuilderAtEnd(g->B, ok);
}

/* The block that fails with fmt, which takes no arguments, in the current function: one
 * per message, however many checks branch to it (a 10,000-node graph's entry function had
 * 7,000 such blocks, most of them the size checks' one message, and code generation at
 * level none costs per block and instruction).  NULL where fmt has not failed yet. */
static LLVMBasicBlockRef shared_fail(cg *g, const char *fmt) {
  if (g->fails_exit != g->exit_bb) { /* another function */
    g->fails_exit = g->exit_bb;
    g->n_fail_blocks = 0;
  }
  for (int i = 0; i < g->n_fail_blocks; i++)
    if (strcmp(g->fail_formats[i], fmt) == 0) return g->fail_blocks[i];
  return NULL;
}

void cg_fail_msg_if(cg *g, LLVMValueRef cond, const char *fmt, LLVMValueRef *args, unsigned n) {
  LLVMBasicBlockRef shared = n == 0 ? shared_fail(g, fmt) : NULL, ok = cg_block(g, "ok");
  if (shared) {
    LLVMBuildCondBr(g->B, cond, shared, ok);
    LLVMPositionBuilderAtEnd(g->B, ok);
    return;
  }
  LLVMBasicBlockRef fail = cg_block(g, "fail");
  if (n == 0 && g->n_fail_blocks < (int)(sizeof g->fail_blocks / sizeof *g->fail_blocks)) {
    g->fail_formats[g->n_fail_blocks] = sc_arena_strdup(&g->ctx->arena, fmt); /* fmt may be the caller's buffer */
    g->fail_blocks[g->n_fail_blocks++] = fail;
  }
  LLVMBuildCondBr(g->B, cond, fail, ok);
  LLVMPositionBuilderAtEnd(g->B, fail);
  LLVMValueRef call_args[24] = {g->err, g->errlen, cg_cstr(g, fmt)};
  for (unsigned i = 0; i < n && i < 21; i++) call_args[3 + i] = args[i];
  LLVMTypeRef params[3] = {g->ptr, g->i64, g->ptr};
  LLVMValueRef rc = cg_call(g, "sc_rt_fail", g->i32, params, 3, call_args, 3 + n, true);
  LLVMBuildStore(g->B, rc, g->rc_slot);
  LLVMBuildBr(g->B, g->exit_bb);
  LLVMPositionBuilderAtEnd(g->B, ok);
}
