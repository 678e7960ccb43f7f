/* row_threads.h - how many threads share one row in the row kernels (layer norm, the
 * softmax of contiguous rows): a warp, whose lanes read the row's elements side by side
 * (coalesced) and combine their partial results with shuffles.  The host launchers
 * (backends/cuda/runtime/ops.c) launch SC_ROW_THREADS threads a row; the kernels
 * (backends/cuda/device/nn.c) split each row among them. */
#ifndef SC_ROW_THREADS_H
#define SC_ROW_THREADS_H

#define SC_ROW_THREADS 32

#endif
