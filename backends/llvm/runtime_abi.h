/* runtime_abi.h - the constants that generated code passes to the runtimes' kernels: shared
 * by the lowering (backends/llvm) and every runtime that implements those kernels
 * (backends/cpu/runtime, backends/cuda/runtime and device/).  Plain C, no LLVM. */
#ifndef SC_RUNTIME_ABI_H
#define SC_RUNTIME_ABI_H

/* sc_k_conv2d_act_f32's activation, applied to each output as it is finished */
enum { SC_ACT_NONE, SC_ACT_RELU, SC_ACT_RELU6, SC_ACT_GELU /* exact (erf), linear layers only */ };

/* sc_k_conv2d_site_f32's layout flags.  A tensor passed between two convolutions in the
 * kernel library's layout is a buffer of SC_KERNEL_LAYOUT_HEADER bytes, then the elements:
 * the header's first pointer is the layout's description, or NULL for compact NCHW.  The
 * buffer holds the channels rounded up to SC_KERNEL_LAYOUT_CHANNELS. */
enum { SC_CONV_IN_KERNEL_LAYOUT = 1, SC_CONV_OUT_KERNEL_LAYOUT = 2, SC_CONV_RESIDUAL_KERNEL_LAYOUT = 4 };
/* ... and its global average pool: y is [n, o], each output plane's mean (the adaptive
 * average pool to 1x1 that alone read the convolution's output, cg_conv_pool.c) */
enum { SC_CONV_MEAN_HW = 8 };
enum { SC_KERNEL_LAYOUT_HEADER = 64, SC_KERNEL_LAYOUT_CHANNELS = 16 };

/* The CUDA row kernels (layer norm, the softmax of contiguous rows): how many threads
 * share one row, a warp whose lanes read the row's elements side by side and combine their
 * partial results with shuffles.  The launchers (backends/cuda/runtime/ops.c) launch this
 * many threads a row; the kernels (backends/cuda/device/nn.c) split each row among them. */
enum { SC_ROW_THREADS = 32 };

/* sc_k_attention_f32's flags: keys after a query's own position masked out (is_causal) */
enum { SC_ATTENTION_CAUSAL = 1 };

/* sc_k_reduce_f32's op */
enum { SC_REDUCE_SUM, SC_REDUCE_MEAN, SC_REDUCE_MAX, SC_REDUCE_MIN, SC_REDUCE_VAR };

#endif
