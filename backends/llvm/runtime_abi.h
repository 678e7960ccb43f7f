/* runtime_abi.h - the constants that generated code passes to the runtimes' kernels: shared
 * by the lowering (backends/llvm) and every runtime that implements those kernels
 * (backends/cpu/runtime, backends/cuda/runtime and device/).  Plain C, no LLVM. */
#ifndef SC_RUNTIME_ABI_H
#define SC_RUNTIME_ABI_H

/* sc_k_conv2d_act_f32's activation, applied to each output as it is finished */
enum { SC_ACT_NONE, SC_ACT_RELU, SC_ACT_RELU6 };

/* sc_k_reduce_f32's op */
enum { SC_REDUCE_SUM, SC_REDUCE_MEAN, SC_REDUCE_MAX, SC_REDUCE_MIN, SC_REDUCE_VAR };

#endif
