/* cold_split.h - a model library's giant entry functions compiled apart from its loops.
 *
 * The run function of a large model (thousands of nodes) is one long straight line of
 * kernel calls; cg_finish_module marks it optnone.  LLVM's code generator still runs its
 * optimizing register allocator on it when the target machine is at the aggressive level,
 * which is superlinear (18 s for a 2,000-layer MLP).  So the module is split in two: the
 * hot part (loops, kernels' callers, getters, every global) is compiled at the aggressive
 * level, the cold part (the giant functions) at level none, and the linker joins the two
 * objects.  Functions and globals the two parts share become hidden external symbols. */
#ifndef SC_COLD_SPLIT_H
#define SC_COLD_SPLIT_H

#include <llvm-c/Core.h>

/* Moves m's optnone functions into a new module, which it returns (NULL when m has none);
 * m keeps everything else, and declares what moved. */
LLVMModuleRef sc_split_cold_functions(LLVMModuleRef m);

#endif
