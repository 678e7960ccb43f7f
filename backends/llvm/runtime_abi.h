/* runtime_abi.h - the constants that generated code passes to the runtimes' kernels: shared
 * by the lowering (backends/llvm) and every runtime that implements those kernels
 * (backends/cpu/runtime, backends/cuda/runtime and device/).  Plain C, no LLVM. */
#ifndef SC_RUNTIME_ABI_H
#define SC_RUNTIME_ABI_H

#include <stdint.h>

/* sc_k_arange's element types */
enum { SC_ARANGE_I64, SC_ARANGE_F32, SC_ARANGE_F64, SC_ARANGE_I32, SC_ARANGE_I16, SC_ARANGE_I8, SC_ARANGE_U8 };
/* The activation after a convolution or linear layer, applied to each output as it is
 * finished.  GELU (exact, erf) after linear layers only; SiLU and hardswish after
 * convolutions only (EfficientNet's and MobileNetV3's blocks), where oneDNN computes them
 * as post-ops and the built-in kernels in a pass over the output (sc_k_activation_f32). */
enum { SC_ACT_NONE, SC_ACT_RELU, SC_ACT_RELU6, SC_ACT_GELU, SC_ACT_SILU, SC_ACT_HARDSWISH };
/* the ones the built-in convolution kernels apply in registers */
#define SC_ACT_IN_CONV_KERNELS(act) ((act) == SC_ACT_NONE || (act) == SC_ACT_RELU || (act) == SC_ACT_RELU6)

/* sc_k_conv2d_site_f32's layout flags.  A tensor passed between two convolutions in the
 * kernel library's layout is a buffer of SC_KERNEL_LAYOUT_HEADER bytes, then the elements:
 * the header's first pointer is the layout's description, or NULL for compact NCHW.  The
 * buffer holds the channels rounded up to SC_KERNEL_LAYOUT_CHANNELS. */
enum { SC_CONV_IN_KERNEL_LAYOUT = 1, SC_CONV_OUT_KERNEL_LAYOUT = 2, SC_CONV_RESIDUAL_KERNEL_LAYOUT = 4 };
/* ... and its global average pool: y is [n, o], each output plane's mean (the adaptive
 * average pool to 1x1 that alone read the convolution's output, cg_conv_pool.c) */
enum { SC_CONV_MEAN_HW = 8 };
/* The convolution's input and weights hold bfloat16 numbers (passes/half_precision.h):
 * oneDNN's bfloat16 kernel computes it where the CPU has bfloat16 dot products. */
enum { SC_CONV_BF16 = 16 };
/* Its output is rounded to bfloat16 / float16 (the rounding copy after it, taken by the
 * convolution, cg_conv_round.c): a bfloat16 kernel writes bfloat16 elements in its own
 * layout, any other kernel rounds its float32 output in place. */
enum { SC_CONV_ROUND_BF16 = 32, SC_CONV_ROUND_F16 = 64 };
enum { SC_KERNEL_LAYOUT_HEADER = 64, SC_KERNEL_LAYOUT_CHANNELS = 16 };

/* sc_cu_bmm_half's operands: float32 buffers that hold float16 or bfloat16 numbers
 * (passes/half_precision.h), multiplied by cuBLAS in that dtype with float32 accumulation;
 * also sc_d_to_half's target dtype. */
enum { SC_HALF_F16 = 1, SC_HALF_BF16 = 2 };

/* The CUDA row kernels (layer norm, the softmax of contiguous rows): how many threads
 * share one row, a warp whose lanes read the row's elements side by side and combine their
 * partial results with shuffles.  The launchers (backends/cuda/runtime/ops.c) launch this
 * many threads a row; the kernels (backends/cuda/device/nn.c) split each row among them. */
enum { SC_ROW_THREADS = 32 };

/* sc_cu_sdpa_f32's flags (the device's attention): keys after the query's own position
 * masked out; the mask is bool (bytes, false: masked) rather than an additive float32 one */
enum { SC_SDPA_CAUSAL = 1, SC_SDPA_BOOL_MASK = 2 };
/* sc_k_attention_f32's flags: keys after a query's own position masked out (is_causal);
 * above SC_ATTENTION_GROUP_SHIFT, how many consecutive inner items (query heads) share one
 * key and value head (grouped-query attention; 0 or 1: none) */
enum { SC_ATTENTION_CAUSAL = 1, SC_ATTENTION_GROUP_SHIFT = 8 };

/* The buffers a program updates (buffer mutations, and lifted constants it writes to): the
 * model's state, which lives from call to call (cg_state.c writes this table into the
 * library; backends/cpu/runtime/state.c keeps the handles).  defaults[i] is the library's
 * own copy, shapec_model_run's; init[i] the exported value, NULL where it is all zeros. */
typedef struct sc_rt_state_table {
  int32_t n;
  const char *const *names;     /* the buffer's target, as the program's signature names it */
  const int64_t *nbytes;
  const void *const *init;
  void *const *defaults;
  const int32_t *dtypes;        /* (code << 8) | bits of the elements as the library stores them */
  const int32_t *ranks;
  const int64_t *const *shapes;
} sc_rt_state_table;

/* grid_sampler_2d's interpolation and padding modes, torch's numbering */
enum { SC_GRID_BILINEAR = 0, SC_GRID_NEAREST = 1, SC_GRID_BICUBIC = 2 };
enum { SC_GRID_ZEROS = 0, SC_GRID_BORDER = 1, SC_GRID_REFLECTION = 2 };
/* sc_k_pad_mode's modes */
enum { SC_PAD_REFLECT = 1, SC_PAD_REPLICATE, SC_PAD_CIRCULAR };
/* The element kinds of sc_k_sort and sc_k_scatter (the value's dtype) */
enum { SC_KIND_U8, SC_KIND_I8, SC_KIND_I16, SC_KIND_I32, SC_KIND_I64, SC_KIND_F32, SC_KIND_F64 };
/* The type bucketize and searchsorted compare in (searchsorted.c). */
enum { SC_SEARCH_AS_I64 = 0, SC_SEARCH_AS_F32 = 1, SC_SEARCH_AS_F64 = 2 };
/* Complex arithmetic's operations (complex_arith.c): binary, then unary. */
enum { SC_CX_ADD, SC_CX_SUB, SC_CX_MUL, SC_CX_DIV, SC_CX_POLAR };
enum { SC_CX_NEG, SC_CX_CONJ, SC_CX_RECIPROCAL, SC_CX_EXP, SC_CX_ANGLE };
/* sc_k_scatter's reductions: scatter (set), scatter_add (sum), scatter_reduce's names */
enum { SC_SCATTER_SET, SC_SCATTER_SUM, SC_SCATTER_PROD, SC_SCATTER_MEAN, SC_SCATTER_AMAX, SC_SCATTER_AMIN };
/* scatter's size checks in torch's words (with a src, and with a value) */
#define SC_SCATTER_SIZE_SRC_MSG "Expected index %s to be no larger than self %s apart from dimension %d and to be " \
                                "no larger size than src %s"
#define SC_SCATTER_SIZE_MSG "Expected index %s to be no larger than self %s apart from dimension %d"
#define SC_TOPK_RANGE_MSG "selected index k out of range"

/* sc_k_index_put's accumulate codes: the element type it adds in (0: no accumulation) */
enum { SC_ACC_F32 = 1, SC_ACC_F64, SC_ACC_I64, SC_ACC_I32, SC_ACC_BOOL };

/* Torch's words for a bad index (sc_k_gather, sc_k_index_select and their CUDA launchers;
 * no op wraps a negative index), each message then naming the node.  gather: an index
 * outside its dimension, and an index larger than its source apart from dim (sizes printed
 * as torch prints them, "[4, 7]").  index_select (and embedding, torch's index_select on
 * dim 0 of its weight) words it as the CPU kernel torch runs: a source of rank 2 or more
 * with no elements says SELECT_EMPTY when its dim has size 0, else SELECT_DATA_BOUNDS, as
 * does dim 1 of any source of rank 2 or more; everything else SELECT_SELF. */
#define SC_INDEX_GATHER_MSG "index %lld is out of bounds for dimension %d with size %lld"
#define SC_GATHER_SIZE_MSG "Size does not match at dimension %d expected index %s to be no larger than self %s apart " \
                           "from dimension %d"
#define SC_INDEX_SELECT_SELF_MSG "index out of range in self"
#define SC_INDEX_SELECT_DATA_BOUNDS_MSG "INDICES element is out of DATA bounds, id=%lld axis_dim=%lld"
/* index_copy's, for an index outside dim (negative ones included: torch does not wrap them) */
#define SC_INDEX_COPY_MSG "index_copy_(): index %lld is out of bounds for dimension %d with size %lld"
#define SC_INDEX_SELECT_EMPTY_MSG "index_select(): self indexing axis dim should be positive"

/* A program with many inputs (cg_entry.c, from CG_MANY_INPUTS call inputs on) checks and
 * binds them through tables the compiler writes as constant bytes and the runtime walks
 * (backends/cpu/runtime/support.c), instead of code per input.  A text is an offset into the
 * library's pool of NUL-terminated texts. */
/* sc_rt_check_inputs: per call input, what check_tensor checks */
typedef struct sc_rt_input_check {
  int32_t name;        /* the input's name (the message says "input 'NAME'") */
  int32_t ndim, code, bits;
  int32_t strided_ok;  /* any strides (copied compact by the run), else compact ones only */
} sc_rt_input_check;
/* sc_rt_check_dims: per input dim, in the order the entry checks them */
enum {
  SC_DIM_CHECK_STATIC, /* must be `value` */
  SC_DIM_CHECK_BIND,   /* gives symbol `symbol` its value, within [value, hi] where the flags say */
  SC_DIM_CHECK_EQUAL,  /* must equal symbol `symbol`, bound before */
};
enum { SC_DIM_CHECK_HAS_LO = 1, SC_DIM_CHECK_HAS_HI = 2 };
typedef struct sc_rt_dim_check {
  int32_t kind, input, axis, symbol;
  int64_t value, hi;
  int32_t flags;
  int32_t source;      /* x.size()[0] */
  int32_t want;        /* STATIC, EQUAL: what the size must be, in the inputs' terms ("4", "x.size()[0]") */
  int32_t name;        /* BIND, EQUAL: the symbol's name */
  int32_t bound_from;  /* EQUAL: where each of its symbols comes from ("s0 = x.size()[0]") */
  int32_t unused;
} sc_rt_dim_check;
/* sc_rt_bind_inputs: per tensor user input of the CPU path, where its elements are */
typedef struct sc_rt_input_bind {
  int32_t input;       /* its index in the call's inputs */
  int32_t esize;       /* bytes per element */
  int32_t copy_ok;     /* a strided one is copied compact (not an input the program writes back to) */
} sc_rt_input_bind;

/* sc_k_reduce_f32's op */
enum { SC_REDUCE_SUM, SC_REDUCE_MEAN, SC_REDUCE_MAX, SC_REDUCE_MIN, SC_REDUCE_VAR };

#endif
