/* cold_split.c - the giant functions of a module in a module of their own; see
 * cold_split.h. */
#include "cold_split.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static unsigned attribute_kind(const char *name) { return LLVMGetEnumAttributeKindForName(name, strlen(name)); }

static bool is_cold(LLVMValueRef fn) {
  return !LLVMIsDeclaration(fn) && LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, attribute_kind("optnone"));
}

static bool is_llvm_special(LLVMValueRef v) {
  size_t len;
  const char *name = LLVMGetValueName2(v, &len);
  return len >= 5 && strncmp(name, "llvm.", 5) == 0;
}

/* A symbol the other part may reference: named, external, hidden from the library's users. */
static void share(LLVMValueRef v, int *n_unnamed) {
  size_t len;
  LLVMGetValueName2(v, &len);
  if (len == 0) {
    char name[32];
    snprintf(name, sizeof name, "sc_shared_%d", (*n_unnamed)++);
    LLVMSetValueName2(v, name, strlen(name));
  }
  LLVMLinkage l = LLVMGetLinkage(v);
  if (l == LLVMInternalLinkage || l == LLVMPrivateLinkage) {
    LLVMSetLinkage(v, LLVMExternalLinkage);
    LLVMSetVisibility(v, LLVMHiddenVisibility);
  }
  LLVMSetUnnamedAddress(v, LLVMNoUnnamedAddr);
}

/* Turns a definition into a declaration.  Nothing may still use a value when it is
 * deleted (its users would later unlink themselves from freed memory): the instructions'
 * results are replaced by poison first, then the branches go, then the blocks. */
static void drop_body(LLVMValueRef fn) {
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
      if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind) LLVMReplaceAllUsesWith(i, LLVMGetPoison(LLVMTypeOf(i)));
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b)) {
    LLVMValueRef end = LLVMGetBasicBlockTerminator(b);
    if (end) LLVMInstructionEraseFromParent(end);
  }
  LLVMBasicBlockRef b;
  while ((b = LLVMGetFirstBasicBlock(fn))) LLVMDeleteBasicBlock(b);
  LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, attribute_kind("optnone"));
  LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, attribute_kind("noinline"));
}

LLVMModuleRef sc_split_cold_functions(LLVMModuleRef m) {
  bool any = false;
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn && !any; fn = LLVMGetNextFunction(fn)) any = is_cold(fn);
  if (!any) return NULL;
  int n_unnamed = 0;
  for (LLVMValueRef gv = LLVMGetFirstGlobal(m); gv; gv = LLVMGetNextGlobal(gv))
    if (!is_llvm_special(gv)) share(gv, &n_unnamed);
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
    if (!LLVMIsDeclaration(fn) && !is_llvm_special(fn)) share(fn, &n_unnamed);
  LLVMModuleRef cold = LLVMCloneModule(m);
  /* the hot part declares the cold functions */
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
    if (is_cold(fn)) drop_body(fn);
  /* the cold part keeps only them, and declares every global (the hot part defines them) */
  for (LLVMValueRef fn = LLVMGetFirstFunction(cold); fn; fn = LLVMGetNextFunction(fn))
    if (!LLVMIsDeclaration(fn) && !is_cold(fn)) drop_body(fn);
  for (LLVMValueRef gv = LLVMGetFirstGlobal(cold), next; gv; gv = next) {
    next = LLVMGetNextGlobal(gv);
    if (is_llvm_special(gv)) LLVMDeleteGlobal(gv); /* llvm.compiler.used and the like stay in the hot part */
    else LLVMSetInitializer(gv, NULL);
  }
  return cold;
}
