/* stream_stores.h - large elementwise outputs written past the caches.
 *
 * A store through the caches first reads the line it writes (a third of an elementwise
 * loop's memory traffic).  A streaming (non-temporal) store writes whole lines to memory
 * without reading them, but x86 streams only stores aligned to their size, and LLVM's loop
 * vectorizer refuses a loop whose scalar stores ask to stream.  So the elementwise lowering
 * builds a second variant of each row loop whose vectorizable part stores from a pointer
 * it declares line-aligned (CG_STREAM_ATTR marks the function), and after optimization,
 * when the vector stores carry their alignment, this pass makes those stores stream. */
#ifndef SC_STREAM_STORES_H
#define SC_STREAM_STORES_H

#include <llvm-c/Core.h>

/* Sets !nontemporal on every 64-byte vector store aligned to 64 bytes in the functions
 * marked CG_STREAM_ATTR; returns how many it marked. */
int sc_mark_streaming_stores(LLVMModuleRef m);

#endif
