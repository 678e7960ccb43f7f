/* lower.h - the shared LLVM lowering: an analysed program becomes the LLVM module of a
 * model library (entry points, guard checks, fused loops, kernel calls, buffer
 * lifetimes).  Its files (backends/llvm/cg_*.c) know no target: what differs between a
 * CPU and a GPU comes from the cg_target hooks that backends/cpu/ and backends/cuda/
 * define, and backends/library.c puts the pieces together.
 *
 * A library has a host path (code for CPU tensors) and, with a device target, a device
 * path: host code that drives the device through the device runtime (the sc_cu_*
 * functions of backends/cuda/runtime/ops.h, which mirror the CPU runtime's sc_k_*), with
 * its fused loops generated as kernels into a second module (DM). */
#ifndef SC_LOWER_H
#define SC_LOWER_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include <stdbool.h>

#include "ir/weights.h"
#include "passes/shape_analysis.h"
#include "shapec/runtime.h"

#define CG_MAX_RANK 16

typedef struct cg cg;
typedef struct cg_blob_piece cg_blob_piece;

/* What a target supplies to the lowering: the places where code for a CPU and code for a
 * GPU differ.  backends/cpu/cpu_lowering.c defines the host's, backends/cuda/cuda_lowering.c
 * the device's. */
typedef struct cg_target {
  const char *name;
  /* libm's `name` (exp, tanh, ...; the float variant when x is f32) applied to x */
  LLVMValueRef (*math_call)(cg *g, const char *name, LLVMValueRef x);
  /* the same for a function of two arguments of one type (atan2) */
  LLVMValueRef (*math_call2)(cg *g, const char *name, LLVMValueRef x, LLVMValueRef y);
  /* a call for the LLVM math intrinsic `intrinsic` (llvm.exp, ...) where the target cannot
   * lower it; NULL keeps the intrinsic */
  LLVMValueRef (*intrinsic_call)(cg *g, const char *intrinsic, LLVMValueRef *args, unsigned n);
  /* device targets only ---------------------------------------------------------- */
  /* the runtime function that host code driving the device calls instead of `name`
   * (sc_k_X, sc_rt_alloc, sc_rt_free); `name` itself where nothing differs */
  const char *(*runtime_name)(cg *g, const char *name);
  /* declares the kernel `name`, taking n i64 arguments, in the device module */
  LLVMValueRef (*kernel_declare)(cg *g, const char *name, int n);
  /* in the kernel's body: its argument i as a value of `type` (an i64, a narrower
   * integer, or a pointer to the tensor's elements) */
  LLVMValueRef (*kernel_arg)(cg *g, LLVMValueRef kernel, int i, LLVMTypeRef type);
  /* in the kernel's body: the first element this thread computes and the stride to
   * its next (a grid-stride loop) */
  void (*kernel_threads)(cg *g, LLVMValueRef *first, LLVMValueRef *step);
} cg_target;

/* A tensor value at run time. */
/* One read of a value: input `input`, item `item` of node `node` (cg_readers.c). */
typedef struct cg_read {
  int node, input, item;
} cg_read;

typedef struct cg_value {
  const sc_value *v;
  LLVMValueRef data;                 /* ptr to its elements */
  LLVMValueRef dims[CG_MAX_RANK];    /* i64 */
  LLVMValueRef numel;                /* i64 */
  bool ready;                        /* data and dims are set */
  bool inlined;                      /* computed inside its consumer's loop (fusion) */
  int uses;                          /* node inputs and graph outputs that read it */
  bool users_elementwise;            /* every reader so far is an elementwise node */
  bool transposed;                   /* an unmaterialized swap of its input's last two dims (cg_transpose.c) */
  /* an unmaterialized permutation that matrix products read through strides (cg_transpose.c):
   * dim d of this value is dim view_perm[d] of view_base, a compact tensor; data is view_base's */
  struct cg_value *view_base;
  int view_perm[CG_MAX_RANK];
  bool written_by_producer;          /* a permutation's output that the product before it filled */
  bool held_swapped;                 /* its buffer holds its first two dims swapped (cg_batch_first.c) */
  /* a slice, select, narrow, expand or permutation that fused loops read where its input is
   * (cg_strided_views.c): data points into the input, view_strides are per dim, in elements */
  bool strided;
  LLVMValueRef view_strides[CG_MAX_RANK];
  bool writes_into_base;             /* a product that writes its result into view_base, permuted */
  /* a step of a chain of views that attention reads in place (cg_view_chains.c): no copy
   * (elided), an alias of chain_base; at the chain's end, the elements are chain_base's
   * from chain_offset on, through chain_strides (symbolic, in elements) */
  bool chain_elided;
  struct cg_value *chain_base;
  /* a linear layer's output in its input's row order (cg_transpose.c): the rows of a
   * permutation of the leading dims, read in place, so dim d of this value is dim
   * rows_perm[d] of the compact tensor its buffer holds; only chains of views to attention
   * read it (cg_view_chains.c) */
  bool rows_permuted;
  int rows_perm[CG_MAX_RANK];
  /* its readers: g->reads[first_reader ..] (cg_readers.c) */
  int first_reader, n_readers;
  bool readers_placed;
  const sc_expr *chain_offset;
  const sc_expr *chain_strides[CG_MAX_RANK];
  /* lifetime (cg_lifetime.c) */
  int last_use;                      /* position of the last node that reads it; INT_MAX for graph outputs */
  struct cg_value *owner;            /* the value whose buffer holds its elements; NULL for inputs and weights */
  int slot;                          /* the owner's buffer: its index in g->ws.buffers, or on the
                                        device path its slot in g->buffers */
  int free_after;                    /* the owner's buffer is dead after this node */
  bool freed;
  /* a graph output computed in the caller's tensor (cg_entry.c, place_outputs) */
  LLVMValueRef out_dst;              /* the caller's elements for it, or NULL */
  LLVMValueRef out_direct;           /* i1: they overlap no input, so the node writes there */
  bool placed;                       /* its buffer was taken from out_dst when out_direct */
  bool state;                        /* a buffer the program mutates: its elements are the model
                                        state's, which a node may update in place (index_copy) */
  /* a cache grown in the caller's buffer (cg_cache_append.c): append is 1 + the site whose
   * present this value is, past_of 1 + the site whose past it is (the input, or a cat of
   * it alone); grown_strides: this call's strides of the present, in elements */
  int append, past_of;
  LLVMValueRef grown_strides[CG_MAX_RANK];
  /* grouped-query attention's shared heads read in place (cg_grouped_kv.c): a step of
   * repeat_kv that emits nothing (grouped_skip), and at its end the [1, kvh, S, d] tensor
   * attention reads instead, each of its heads serving `group` query heads */
  bool grouped_skip;
  struct cg_value *grouped_from;
  int64_t group;
} cg_value;

/* A cat that appends to a cache input, present = cat([past, new], dim), where the present
 * is a graph output that only attention reads (cg_cache_append.c). */
typedef struct cg_append {
  int node;                          /* the cat */
  int dim;
  size_t input, output;              /* the past's index among the call's inputs, the present's among the outputs */
  const sc_value *past, *present;
  LLVMValueRef in_place;             /* i1, this call's (cg_cache_in_place); NULL: not in place */
} cg_append;

/* A buffer of the planned workspace (cg_workspace.c): the call that takes it, and its life. */
typedef struct cg_ws_buffer {
  LLVMValueRef take;  /* sc_rt_ws_take(ws, region, bytes): the region is set by the plan */
  int start, end;     /* the node that takes it; the node after which it is dead (INT_MAX: the exit) */
  int64_t bytes;      /* at the example shapes; -1 when they do not give it */
} cg_ws_buffer;

/* What a plan came to, for `export -v`; bytes at the example shapes, -1 when unknown. */
typedef struct cg_ws_plan {
  int buffers, regions;
  int64_t bytes, live_peak;
} cg_ws_plan;

struct cg {
  sc_ctx *ctx;
  const sc_program *p;
  const sc_analysis *a;
  const sc_weights *w;
  LLVMContextRef C;
  LLVMModuleRef M;
  LLVMBuilderRef B;
  LLVMTargetMachineRef tm;           /* the host's (backends/cpu/cpu_target.c) */
  LLVMTargetMachineRef tm_cold;      /* the same at code-generation level none, for giant functions */
  const char *library_name;          /* --name: SONAME NAME.so, symbols shapec_NAME_* (link) */
  const char *cpu_features;          /* "avx,avx2,fma": checked by the library at run time */
  const char *cpu_name;              /* LLVM's name of the CPU the code is tuned for ("znver4", "x86-64") */
  const cg_target *host;             /* backends/cpu: code for CPU tensors, and the host side of the device path */
  const cg_target *gpu;              /* backends/cuda, or NULL: a library without a device path */
  LLVMTypeRef i1, i8, i16, i32, i64, f32, f64, ptr, voidt, tensor_t;
  /* the function being built */
  LLVMValueRef fn, err, errlen, syms, rc_slot, buffers;
  LLVMBasicBlockRef exit_bb;
  /* failures whose message takes no arguments share one block per message in the function
   * that exit_bb ends (cg_fail_msg_if) */
  LLVMBasicBlockRef fails_exit, fail_blocks[8];
  const char *fail_formats[8];
  int n_fail_blocks;
  int n_buffers, cap_buffers;
  LLVMValueRef buffers_zeroing;      /* the memset that starts g->buffers' slots NULL */
  int n_loops;                       /* outlined parallel loops so far */
  sc_strmap loop_bodies;             /* an outlined loop's printed body -> its function */
  sc_strmap cstrs;                   /* text -> its constant string global in cstrs_module (cg_cstr) */
  LLVMModuleRef cstrs_module;
  int node;                          /* the node being emitted */
  bool *input_bound;                 /* symbols the input shapes give (prepare) */
  bool *sym_bound;                   /* symbols with a value at this point of the run */
  bool *assert_done;                 /* per guard: checked already */
  cg_value **owners;                 /* values that own a workspace buffer */
  int n_owners;
  LLVMValueRef used[32];             /* vector variants kept alive through llvm.compiler.used */
  int n_used;
  /* weights (cg_weights.c) */
  LLVMValueRef weights;              /* the blob's start (embedded weights): until laid out, a
                                        stand-in that only a library with a device path refers to */
  LLVMValueRef *weight_pointers;     /* per input spec index: its embedded weight in the blob, or NULL */
  LLVMValueRef device_weights;       /* the device path's copy of the blob, on the device (per call) */
  const bool *weight_dropped;        /* per input spec index: a weight only folded nodes read, not in
                                        the blob (cg_weights_drop); NULL: none */
  struct cg_blob_piece {
    const void *data;
    size_t nbytes, offset;           /* offset in the blob: final once laid out (cg_weights_layout) */
    void *owned;                     /* data computed at export (folded weights), freed with the module */
    LLVMValueRef at;                 /* the code's pointer to it: the blob's start + offset */
    bool kept;                       /* laid out: something refers to it */
  } *pieces;
  size_t n_pieces, cap_pieces;
  const char *external_path;         /* --external-weights: the side file; NULL when embedded */
  uint64_t weights_id, weights_size; /* what the side file must hold */
  size_t *weight_offsets;            /* per input spec index; (size_t)-1 when none */
  LLVMValueRef state_table;          /* the sc_rt_state_table global (cg_state.c) */
  LLVMValueRef state_buffers;        /* in a run: the state's data pointers, one per state buffer */
  int *state_slot;                   /* per input spec index: its row in the table, or -1 */
  LLVMValueRef *state;               /* per input spec index: the writable copy of a buffer the
                                        program mutates (NULL for every other input) */
  /* the device path (its module and images belong to backends/cuda/cuda_target.c) */
  bool cuda;                         /* the path being emitted drives the device: runtime calls go
                                        through gpu->runtime_name, buffers live on the device */
  bool device;                       /* emitting a kernel into DM: math goes through gpu's hooks */
  bool emulate;                      /* --cuda-emulate: device code for the host (backends/cuda/emulate) */
  LLVMValueRef *emu_kernels;         /* --cuda-emulate: the fused kernels, for the emulator's table */
  int n_emu_kernels;
  LLVMModuleRef DM;                  /* the device module (NVPTX) */
  LLVMTargetMachineRef dtm;
  const char *cuda_arch;
  LLVMValueRef ptx;                  /* the host global holding the model's device code (PTX) */
  LLVMValueRef ptx_kernels;          /* ... and that of shapec's device kernels */
  LLVMValueRef stream;               /* the CUDA path's stream argument */
  int n_kernels;                     /* generated device kernels so far */
  uint64_t weights_total;            /* bytes of the weights blob */
  bool has_cpu, has_cuda;            /* the library's targets */
  /* tensor values by name */
  sc_strmap values;
  /* per node (cg_fold.c): a convolution's folded weights, or the convolution whose output
   * a folded batch norm's output is */
  struct cg_folded {
    LLVMValueRef weight, bias;
    int act;               /* a convolution's fused activation (SC_ACT_*, runtime_abi.h) */
    double scale;          /* a strided product's alpha, 0 for 1 (cg_epilogue.c) */
    struct cg_value *residual; /* a linear layer's or convolution's residual, added to its output (cg_epilogue.c) */
    struct cg_value *into;
    bool kernel_layout_in;  /* a convolution whose input another one wrote in the kernel's layout (cg_conv_layout.c) */
    bool kernel_layout_out; /* a convolution that writes its output so, for convolutions only */
    bool kernel_layout_residual; /* a convolution whose residual another one wrote so */
    int attention_scores;  /* softmax(scores) @ v: 1 + the node of the scores' product (cg_attention.c) */
    bool in_attention;     /* the scores' product, its scale or softmax: computed by that kernel */
    int layer_norm;        /* a linear layer's: 1 + the layer norm node it applies to each row (cg_tiny_linear.c) */
    struct cg_value *mean_hw; /* a convolution's: the global average pool's output it computes (cg_conv_pool.c) */
    bool pooled_by_conv;   /* that pool: nothing left to compute */
    sc_dtype round_to;     /* a convolution's: the half precision it rounds its output to (cg_conv_round.c) */
  } *folded;
  /* what the products absorbed, for `export -v` (cg_transpose.c, cg_epilogue.c) */
  struct {
    int views, permuted_results, scales, residuals;
    int conv_sites, conv_residuals, kernel_layout_outputs; /* cg_epilogue.c, cg_conv_layout.c */
    int conv_pools;                                        /* cg_conv_pool.c */
    int conv_roundings;                                    /* cg_conv_round.c */
    int attentions;                                        /* cg_attention.c */
    int strided_views;                                     /* cg_strided_views.c */
    int view_chains;                                       /* cg_view_chains.c */
    int batch_first;                                       /* cg_batch_first.c */
    int grouped_kv;                                        /* cg_grouped_kv.c */
  } absorbed;
  /* the cats that may append to a cache in the caller's buffer (cg_cache_append.c) */
  cg_append *appends;
  int n_appends;
  /* every value's readers, indexed on the first question (cg_readers.c) */
  cg_read *reads;
  bool readers_indexed;
  /* the CPU path's planned workspace (cg_workspace.c) */
  struct {
    LLVMValueRef handle;             /* the call's workspace: sc_rt_ws_acquire's result */
    cg_ws_buffer *buffers;           /* the function's buffers, in the order they are taken */
    int n_buffers;
    cg_ws_plan planned;              /* the last plan made */
  } ws;

  /* small linear layers' own code (cg_tiny_linear.c): one function per kind, and per node its
   * upright weights in the blob (a node lowered by two entry points adds them once) */
  struct cg_tiny_fn *tiny_fns;
  int n_tiny_fns;
  LLVMValueRef *tiny_pieces;

  /* the call's inputs in order (cg_call_inputs), and whether there are so many that the
   * entry checks and binds them through tables, not code per input (cg_entry.c) */
  sc_call_input *call_inputs;
  size_t n_call_inputs;
  bool many_inputs;
  struct cg_prepare_state *prepare;  /* emit_prepare's input sizes, which guards_code reads (cg_raw_size) */
  /* with many inputs, the CPU run's tensor user inputs: bound by one call into in_data */
  LLVMValueRef in_data, in_binds, inputs;
  int n_in_binds;
  LLVMValueRef loop_ctx, loop_ctx_fn; /* with many inputs: the context all loops of loop_ctx_fn share */
  int loop_ctx_n;
  /* the text pool (cg_text) */
  sc_strbuf texts;
  sc_strmap text_offsets;
  LLVMValueRef texts_global;
  /* symbols by name (cg_symbol_index), filled on the first question */
  sc_strmap symbol_index;
  bool symbol_index_built;

  bool failed;
  int onednn_sites;                  /* calls emitted to kernels that may run oneDNN */
  int gelu_table_calls;              /* GELUs emitted as cg_gelu_table.c's calls */
  int loops_built;                   /* loops cg_loop_range has built: is a loop innermost? */
  int blas_products;                 /* calls emitted to kernels that may run OpenBLAS */
};

/* ---- cg_builder.c: IR helpers ---- */
bool cg_error(cg *g, sc_diag_code code, const char *path, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
LLVMValueRef cg_function(cg *g, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n, bool vararg);
LLVMValueRef cg_call(cg *g, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n, LLVMValueRef *args,
                     unsigned nargs, bool vararg);
LLVMValueRef cg_i64(cg *g, int64_t v);
LLVMValueRef cg_cstr(cg *g, const char *s);
/* Branches to the exit with the return code rc_value when cond is true. */
void cg_fail_if(cg *g, LLVMValueRef cond, LLVMValueRef rc_value);
/* Exits with a kernel's return code rc when it is not SHAPEC_OK, the message naming the
 * node (`aten.convolution.default (node conv2d)`). */
void cg_fail_kernel_if(cg *g, LLVMValueRef rc, const char *node);
/* When cond holds: writes the message (printf-style, runtime i64 args) and exits with 1. */
/* Refuses a misuse of the ABI (a NULL pointer): SHAPEC_ERR_ARGUMENT with the message. */
void cg_fail_argument_if(cg *g, LLVMValueRef cond, const char *message);
void cg_fail_msg_if(cg *g, LLVMValueRef cond, const char *fmt, LLVMValueRef *args, unsigned n);
/* A new block in the current function. */
LLVMBasicBlockRef cg_block(cg *g, const char *name);

/* ---- cg_aten_checks.c: ATen's own checks of a kernel's input, in torch's words ---- */
/* A (non-transposed) 1-D or 2-D convolution's input x against its weight w: the padded
 * input at least the dilated kernel, then no empty image unless the batch or the channels
 * are empty.  batched: x has its batch dim. */
void cg_check_conv_input(cg *g, cg_value *x, cg_value *w, int sp, bool batched, const int64_t *pad, const int64_t *dil);
/* A 1-D or 2-D max or average pool's input (empty dims beside the batch) and output (at
 * least one element per spatial dim). */
void cg_check_pool_input(cg *g, cg_value *x, cg_value *out, bool one_d, bool max_pool);

/* ---- cg_expr.c ---- */
/* The symbol's index in the analysis' environment, -1 when there is none. */
int cg_symbol_index(cg *g, const char *name);
LLVMValueRef cg_load_sym(cg *g, int index);
/* i64 value of an integer expression, or i1 of a relation; overflow exits with an error. */
LLVMValueRef cg_expr(cg *g, const sc_expr *e);

/* ---- cg_entry.c ---- */
/* From this many call inputs on, the entry checks and binds the inputs through tables that
 * the runtime walks (116 instructions of entry code an input kept the export of 100,000
 * inputs compiling for more than 15 minutes); below it, each input has its own inline
 * code, which a tiny model's call needs for its speed. */
enum { CG_MANY_INPUTS = 64 };
/* The call inputs in order (sc_program_call_input's), in one pass over the input specs;
 * *out is the caller's to free.  Asking sc_program_call_input for each k is quadratic. */
size_t cg_call_inputs(const sc_program *p, sc_call_input **out);
/* In prepare, while guards_code is checked: the input size that `name` (x.size()[1]) is on
 * this call (the first input dim of that source); NULL for any other name. */
LLVMValueRef cg_raw_size(cg *g, const char *name);
bool cg_emit_entry_points(cg *g);
cg_value *cg_get(cg *g, const sc_value *v);
/* A fresh buffer for node output v, its dims set (cg_ops.c). */
cg_value *cg_produce(cg *g, const sc_value *v);
/* A workspace buffer of `bytes` holding owner's elements, freed after its last reader. */
LLVMValueRef cg_alloc_buffer(cg *g, cg_value *owner, LLVMValueRef bytes);
/* Sets dims and numel of a value from its analysed shape. */
void cg_set_dims(cg *g, cg_value *cv);
LLVMValueRef cg_elem_size(cg *g, sc_dtype dt);
/* Whether the library computes on a CPU with AVX-512F (512-bit loops, streaming stores). */
bool cg_has_avx512(const cg *g);
/* ---- cg_gelu_table.c: the exact GELU's erf on AVX-512 ---- */
/* Whether GELU takes gelu_table.h's pieces (libraries for AVX-512 CPUs, host code). */
bool cg_gelu_table_wanted(const cg *g);
/* 0.5 erf(a / sqrt 2) of a = |x| >= 0 (float32), as a call that the vectorizer widens and
 * cg_gelu_table_inline later inlines. */
LLVMValueRef cg_gelu_half_erf_table(cg *g, LLVMValueRef a);
/* After O3: inlines the vector variants the vectorizer called (false, with the error, if LLVM fails). */
bool cg_gelu_table_inline(cg *g, LLVMTargetMachineRef tm);
/* Marks outlined loops whose line-aligned vector stores stream past the caches; the CPU
 * target sets the stores' !nontemporal after optimization (cpu_target.c). */
#define CG_STREAM_ATTR "shapec-stream-stores"

/* Stores a data-dependent value (item(), a nonzero count) as its unbacked symbol, checks
 * its range and the runtime asserts that were waiting for it. */
void cg_bind_unbacked(cg *g, const sc_node *n, const sc_expr *sym, LLVMValueRef value, const char *what);

/* ---- cg_fold.c ---- */
/* g->folded, empty: what each node absorbs (after cg_plan_fusion, which counts the uses
 * and decides what is inlined). */
void cg_plan_folds_begin(cg *g);
/* Folds each batch norm that only reads a convolution's output (or its rounding, taken by
 * the convolution) into the convolution's weights. */
void cg_plan_batch_norm_folding(cg *g);
/* A ReLU / ReLU6 after a convolution (and its folded batch norm and residual add), or a
 * ReLU / GELU after a linear layer, into the kernel (after cg_plan_conv_residuals). */
void cg_plan_activation_epilogues(cg *g);
/* Whether v is a parameter, buffer or constant that the program never writes: the same
 * values on every call (a kernel may keep a copy laid out for itself). */
bool cg_is_constant_weight(cg *g, const sc_value *v);
/* The float32 constant behind a graph input (a parameter or a buffer the program never
 * writes) of `want` elements, as floats known at export; NULL for anything else. */
const float *cg_constant_floats(cg *g, const sc_value *v, int64_t want);
/* A convolution node (not a transposed one) and its tensor argument `name`, or NULL. */
bool cg_is_conv2d_like(const sc_node *n);
/* An int (or bool) argument's value; def when it is absent, None or a symbol's. */
int64_t cg_int_arg(const sc_node *n, const char *name, int64_t def);
const sc_value *cg_tensor_input(const sc_node *n, const char *name);
/* n's argument `name`, or NULL. */
const sc_arg *cg_node_arg(const sc_node *n, const char *name);
/* A float32 2-D convolution over a batched NCHW input with one output: what the CPU path
 * runs through oneDNN with epilogues and blocked layouts (cg_conv_layout.c). */
bool cg_is_batched_conv2d(const sc_node *n);

/* ---- cg_conv_round.c ---- */
/* The rounding copy after a convolution in a half-precision program, into the
 * convolution (before cg_plan_batch_norm_folding, and again after it for the copy after a
 * folded batch norm). */
void cg_plan_conv_rounding(cg *g);

/* ---- cg_conv_layout.c ---- */
/* Marks the convolutions whose output only other convolutions read: the runtime passes
 * that tensor between them in its convolution library's own layout (after
 * cg_plan_batch_norm_folding). */
void cg_plan_conv_layouts(cg *g);
/* Global average pools that alone read a convolution's output (through a batch norm and an
 * activation folded into it): the convolution computes the means (cg_conv_pool.c; after
 * cg_plan_conv_layouts). */
void cg_plan_conv_pools(cg *g);
/* The bytes of such a tensor: its header and its elements with the channels padded. */
LLVMValueRef cg_kernel_layout_bytes(cg *g, cg_value *cv);
/* ---- cg_elementwise.c ---- */
bool cg_is_elementwise(const sc_node *n);
void cg_plan_fusion(cg *g);
bool cg_emit_elementwise(cg *g, const sc_node *n);
LLVMTypeRef cg_llvm_type(cg *g, sc_dtype dt);
/* cg_half.c: an element's type in memory (i8 for bool, i16 for float16/bfloat16; else
 * cg_llvm_type, the type computed with: float32 for the half dtypes), a load of one
 * element as the computed type, a computed value as memory holds it, and a float32
 * rounded to a half dtype's precision (x itself for any other dtype). */
LLVMTypeRef cg_mem_type(cg *g, sc_dtype dt);
LLVMValueRef cg_load_elem(cg *g, sc_dtype dt, LLVMValueRef ptr);
LLVMValueRef cg_to_memory(cg *g, sc_dtype dt, LLVMValueRef v);
LLVMValueRef cg_round_to(cg *g, sc_dtype dt, LLVMValueRef x);
/* A loop over [0, n): calls body with the induction variable; returns after the loop. */
void cg_loop(cg *g, LLVMValueRef n, void (*body)(cg *, LLVMValueRef, void *), void *arg);
/* The same over [begin, end). */
void cg_loop_range(cg *g, LLVMValueRef begin, LLVMValueRef end, void (*body)(cg *, LLVMValueRef, void *), void *arg);
/* An array of n elements in the current function's entry frame (allocated once, however
 * often the code that fills it runs). */
LLVMValueRef cg_entry_array(cg *g, LLVMTypeRef elem, int n, const char *name);

/* ---- cg_batch_first.c ---- */
/* nn.MultiheadAttention(batch_first=True)'s out-projection over batch-first rows: the
 * attention writes them so, and the transpose back is the projection's buffer (after
 * cg_plan_batch_norm_folding, before the epilogue plans). */
void cg_plan_batch_first_attention(cg *g);

/* ---- cg_tiny_linear.c ---- */
/* y = act(x w^T + bias) (+ residual) for a linear layer with constant weights of at most
 * 64 x 64 as code of its own for its sizes, rows m; false (nothing emitted) where it does
 * not apply: the caller then calls the runtime. */
bool cg_emit_tiny_linear(cg *g, const sc_node *node, cg_value *x, cg_value *w, cg_value *bias, cg_value *out,
                         cg_value *residual, int act, LLVMValueRef m);
void cg_tiny_linear_free(cg *g);
/* A layer norm over the rows of such a layer's output (after its folded ReLU and residual
 * add) into the layer's code: the norm's output becomes the layer's buffer (after
 * cg_plan_product_epilogues). */
void cg_plan_tiny_linear_norms(cg *g);

/* ---- cg_lifetime.c ---- */
/* Sets each value's last_use (after cg_plan_fusion). */
void cg_plan_lifetimes(cg *g);
/* reader[i]: the node that reads node i's result inside its own loop when that result is
 * inlined (cg_plan_fusion), else -1; reader holds one int per node */
void cg_inlined_readers(cg *g, int *reader);
/* alias reads the elements of `of` (a view): of's buffer lives as long as alias is read. */
void cg_note_alias(cg *g, cg_value *alias, cg_value *of);
/* Ends the buffers whose last reader is node `node` or earlier (frees them on the device). */
void cg_release_dead(cg *g, int node);

/* ---- cg_workspace.c ---- */
/* At the function's start: takes a workspace for the call (the CPU path). */
void cg_workspace_open(cg *g);
/* A region of it for owner's buffer of `bytes`; NULL when memory runs out. */
LLVMValueRef cg_workspace_take(cg *g, cg_value *owner, LLVMValueRef bytes);
/* owner's buffer is dead after node `node`: a later buffer may have its region. */
void cg_workspace_end(cg *g, cg_value *owner, int node);
/* At the exit: gives the workspace back, then assigns every buffer a region by lifetime. */
void cg_workspace_close(cg *g);

/* ---- cg_transpose.c ---- */
/* Marks the transposes that matrix products read in place (after cg_plan_fusion). */
void cg_plan_transposes(cg *g);

/* ---- cg_epilogue.c ---- */
/* conv(x) + r, r + conv(x), r a tensor of the output's shape that exists before the
 * convolution runs: the convolution's residual (after cg_plan_batch_norm_folding, before
 * cg_plan_activation_epilogues, so that a ReLU after the add joins the kernel too). */
void cg_plan_conv_residuals(cg *g);
/* Scales after strided products and residual adds after linear layers, absorbed by the
 * product (after cg_plan_batch_norm_folding, which allocates g->folded). */
void cg_plan_product_epilogues(cg *g);
/* bmm, or matmul of two rank-3 or rank-4 operands with the same batch dims: the products the
 * CPU path computes through strides (sc_k_bmm_strided_f32). */
bool cg_is_strided_product(const sc_node *n);
/* The permutation a t, transpose or permute node applies: out dim d is input dim perm[d]. */
void cg_permutation_of(const sc_node *n, int rank, int *perm);

/* ---- cg_readers.c ---- */
/* The reads of v, in node order (*count of them); *count is -1 when memory ran out. */
const cg_read *cg_readers(cg *g, const sc_value *v, int *count);

/* ---- cg_view_chains.c ---- */
/* Marks the chains of views (view, select, transpose, contiguous, ...) that end at an
 * operand of scaled_dot_product_attention as a strided view of a compact tensor: the kernel
 * reads them in place and the steps no other node reads emit no copy (after
 * cg_plan_lifetimes: the chain's base lives until the attention). */
void cg_plan_view_chains(cg *g);
/* Whether cg_plan_view_chains will read every use of v in place, through chains of views
 * to attention operands only, when v's buffer holds it with its dims permuted by perm
 * (dim d is the buffer's dim perm[d]). */
bool cg_chains_take_permuted_rows(cg *g, const sc_value *v, const int *perm);

/* ---- cg_attention.c ---- */
/* softmax(q @ k^T * c) @ v, the intermediates read by nothing else: one kernel at the second
 * product (after cg_plan_transposes, whose views it reads through, and before
 * cg_plan_lifetimes). */
void cg_plan_attention(cg *g);

/* ---- cg_strided_views.c ---- */
/* Marks the views (slice, select, narrow, expand, permutations) whose every reader is a
 * fused elementwise loop: those loops read them through strides, and no copy is made
 * (after cg_plan_attention and the other plans that fold nodes into kernels, before
 * cg_plan_lifetimes).  CPU-only libraries. */
void cg_plan_strided_views(cg *g);

/* ---- cg_grouped_kv.c ---- */
/* Marks repeat_kv's reshape(expand(unsqueeze(x, 2))) before attention's key and value to
 * be read from x in place (after cg_plan_lifetimes: x lives until the
 * attention).  CPU-only libraries. */
void cg_plan_grouped_kv(cg *g);
/* A step of such a chain: an alias of x, which nothing reads through it. */
bool cg_lower_grouped_step(cg *g, const sc_node *n);

/* ---- cg_cache_append.c ---- */
/* Finds the cats present = cat([past, new], dim) of a cache passed in and out (a past that
 * is a user input read by nothing else, a present that is a graph output read only as
 * attention's key or value) and marks them (after cg_plan_lifetimes).  CPU path only. */
void cg_plan_cache_appends(cg *g);
/* This call's decision, site by site: in place when the caller passed the present over the
 * past's memory and strides (sc_rt_cache_in_place); a strided present otherwise is refused.
 * After the outputs' checks, before the inputs are bound. */
void cg_cache_in_place(cg *g, LLVMValueRef inputs, LLVMValueRef outputs);
/* i1: whether this call keeps input v where it is (the past of a cache grown in place), or
 * NULL when v is no such past. */
LLVMValueRef cg_cache_input_kept(cg *g, const sc_value *v);
/* Whether output i may be strided (a present that may grow in place). */
bool cg_cache_output_strided_ok(cg *g, size_t output);
/* shapec_model_output_grows, from the plan. */
void cg_emit_cache_api(cg *g);
/* Whether n is cat([empty..., x]) of a graph input x that nothing updates: an alias of x
 * (transformers' cache writes return a cache that did not grow that way; the output's
 * copy is then skipped when the caller passes the input's memory). */
bool cg_cat_of_input_alone(cg *g, const sc_node *n);
/* Lowers a cat that cg_plan_cache_appends marked or cg_cat_of_input_alone takes: an input
 * alone as an alias of it, or the present (the new elements only, when in place). */
bool cg_lower_cache_cat(cg *g, const sc_node *n);

/* ---- cg_ops.c ---- */
bool cg_emit_node(cg *g, const sc_node *n, int index);

/* ---- cg_complex.c ---- */
/* Whether a node reads or writes a complex tensor; such nodes are lowered (or refused) by
 * cg_emit_complex alone. */
bool cg_touches_complex(const sc_node *n);
bool cg_emit_complex(cg *g, const sc_node *n);
/* A view of a complex64 tensor (slice, unsqueeze, reshape...): the general view lowering
 * moves its 8-byte elements; asserts and sizes of one read no data. */
bool cg_complex_moves_only(const sc_node *n);
/* Ops lowered by cg_emit_complex whatever their operands (angle and conj of a real tensor
 * too, polar and view_as_complex of real ones). */
bool cg_complex_always(const sc_node *n);
/* False, with the error, where a program input, weight or output is complex. */
bool cg_complex_boundary_ok(cg *g);

/* ---- cg_weights.c: the embedded weights ---- */
/* One piece per weight of the program (g->weight_symbols), or with external_path set the
 * side file (header + blob), written now. */
void cg_emit_weights(cg *g);
/* const char *sc_model_weights_manifest(void): the weights a caller may replace at load
 * (after cg_emit_state, which knows the buffers the program updates). */
void cg_emit_weights_manifest(cg *g);
/* A piece of the blob computed at export (owned is freed with the module, may be NULL):
 * the pointer the code reads it through. */
LLVMValueRef cg_weights_add(cg *g, const void *data, size_t nbytes, void *owned);
/* A library with a device path, before any code refers to the blob: lays the program's
 * weights out again without those marked in `dropped` (per input spec index), which only
 * nodes folded at export read.  (The CPU-only layout drops them by itself, after lowering.) */
void cg_weights_drop(cg *g, const bool *dropped);
/* On the device path: where the piece that `piece` points to is in the device's copy. */
LLVMValueRef cg_weights_on_device(cg *g, LLVMValueRef piece);
/* After lowering: drops the pieces nothing refers to and gives the rest their offsets
 * (a library with a device path keeps them all where they are, and only sizes the blob).  False with SC0801 when
 * they are more than a library can embed. */
bool cg_weights_layout(cg *g);
void cg_weights_free(cg *g);

/* ---- cg_module.c: what a library holds besides its code ---- */
/* ---- cg_state.c: the model's state, the buffers a program updates ---- */
/* A writable global, initialized with its weights, for each buffer the program mutates
 * (buffer_mutation outputs): the library's own state, which shapec_model_run updates; the
 * table of them that state handles copy (runtime_abi.h), and the state API's functions. */
void cg_emit_state(cg *g);
/* In a run: the data of input spec i's state in the state the call runs with (the
 * handle's of shapec_model_run_with_state, else the library's own). */
LLVMValueRef cg_state_data(cg *g, size_t i);
/* After the entry points: shapec_model_num_states, state_name, state_new, state_free,
 * state_reset, state_tensor and run_with_state (docs/abi.md, "State"). */
void cg_emit_state_api(cg *g);
/* DLPack's code and bits of a dtype (255, 0 for none) */
void cg_dl_dtype(sc_dtype dt, int *code, int *bits);
/* const char *name(void) { return "text"; } */
/* const char *shapec_model_metadata(const char *key): the value export --metadata KEY=VALUE
 * gave (the last one for a key), or NULL. */
void cg_emit_metadata_getter(cg *g, const char *const *pairs, size_t n);
void cg_emit_string_getter(cg *g, const char *name, const char *text);
/* The library's pool of texts that tables name by offset (runtime_abi.h): text's offset in
 * it, one copy per distinct text.  cg_texts: a pointer to the pool, a stand-in until
 * cg_finish_texts writes the pool (once every text is in, before the module is verified). */
int32_t cg_text(cg *g, const char *text);
LLVMValueRef cg_texts(cg *g);
void cg_finish_texts(cg *g);
/* A constant table of `bytes` bytes, 8-byte aligned (an array of one of runtime_abi.h's
 * structs, written as the compiler lays it out: the library runs on the same ABI). */
LLVMValueRef cg_table(cg *g, const void *data, size_t bytes, const char *name);
/* Before optimization: keeps declared vector variants alive and compiles giant straight-line
 * functions without optimization (their cost is superlinear in LLVM's register allocator). */
void cg_finish_module(cg *g);

#endif
