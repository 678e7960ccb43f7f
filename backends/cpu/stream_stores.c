/* stream_stores.c - see stream_stores.h. */
#include "backends/cpu/stream_stores.h"

#include <string.h>

#include "backends/llvm/lower.h"

/* A whole line in one store: on the Xeon that measured it, lines written in two 32-byte
 * streaming halves were slower than ordinary stores (docs/benchmarks.md). */
enum { LINE = 64 };

static bool is_line_store(LLVMValueRef inst, LLVMTargetDataRef dl) {
  if (LLVMGetInstructionOpcode(inst) != LLVMStore) return false;
  LLVMTypeRef t = LLVMTypeOf(LLVMGetOperand(inst, 0));
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind) return false;
  return LLVMStoreSizeOfType(dl, t) == LINE && LLVMGetAlignment(inst) >= LINE;
}

int sc_mark_streaming_stores(LLVMModuleRef m) {
  LLVMContextRef C = LLVMGetModuleContext(m);
  LLVMTargetDataRef dl = LLVMGetModuleDataLayout(m);
  unsigned kind = LLVMGetMDKindIDInContext(C, "nontemporal", 11);
  LLVMMetadataRef one = LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(C), 1, 0));
  LLVMValueRef node = LLVMMetadataAsValue(C, LLVMMDNodeInContext2(C, &one, 1));
  unsigned attr_len = (unsigned)strlen(CG_STREAM_ATTR);
  int marked = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
    if (!LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, CG_STREAM_ATTR, attr_len)) continue;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
        if (is_line_store(i, dl)) {
          LLVMSetMetadata(i, kind, node);
          marked++;
        }
  }
  return marked;
}
