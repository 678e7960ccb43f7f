/* shapec/runtime.h - the C ABI of a library that `shapec export` builds (model.so).
 *
 * Plain C, no dependency on shapec.  Tensors use DLPack's DLTensor layout, so a
 * DLManagedTensor's dl_tensor can be passed as is.  See docs/abi.md. */
#ifndef SHAPEC_RUNTIME_H
#define SHAPEC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHAPEC_ABI_VERSION 1

typedef struct shapec_device {
  int32_t device_type; /* DLPack kDLCPU = 1 */
  int32_t device_id;
} shapec_device;

typedef struct shapec_dtype {
  uint8_t code;        /* DLPack kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBool = 6 */
  uint8_t bits;
  uint16_t lanes;      /* 1 */
} shapec_dtype;

typedef struct shapec_tensor {
  void *data;
  shapec_device device;
  int32_t ndim;
  shapec_dtype dtype;
  int64_t *shape;
  int64_t *strides;    /* in elements; NULL means compact row-major.  Inputs may have any
                          strides (the CPU path copies a strided input once); outputs must
                          be compact */
  uint64_t byte_offset;
} shapec_tensor;

/* Return codes of the entry points. */
enum {
  SHAPEC_OK = 0,
  SHAPEC_ERR_SHAPE = 1,    /* an input does not fit the program: the message says which and why */
  SHAPEC_ERR_ARGUMENT = 2, /* a NULL pointer, a non-CPU device, a wrong output buffer */
  SHAPEC_ERR_MEMORY = 3,   /* the workspace could not be allocated */
  SHAPEC_ERR_CPU = 4,      /* this machine lacks an instruction set or OpenBLAS the library needs */
  SHAPEC_ERR_WEIGHTS = 5,  /* the weights file (--external-weights) is missing or belongs to another export */
  SHAPEC_ERR_CUDA = 6,     /* a CUDA library: no driver or device, or a driver call failed (the message says which) */
};

/* The functions a model library exports (declared here for dlsym users; model.h declares
 * them with comments giving each input's and output's dtype and symbolic shape). */
int shapec_model_abi_version(void);
int shapec_model_num_inputs(void);
int shapec_model_num_outputs(void);
const char *shapec_model_input_name(int i);
const char *shapec_model_output_name(int i);
int shapec_model_input_ndim(int i);
int shapec_model_output_ndim(int i);
/* dtype as (code << 8) | bits, e.g. float32 = (2 << 8) | 32; -1 out of range. */
int shapec_model_input_dtype(int i);
int shapec_model_output_dtype(int i);
/* The export's report (constraints.json) as a NUL-terminated JSON string. */
const char *shapec_model_report(void);
/* The instruction sets the library was built for, comma-separated ("avx,avx2,fma,..."); the
 * library refuses to run (SHAPEC_ERR_CPU) on a CPU without one of them. */
const char *shapec_model_cpu_features(void);
/* Checks the inputs' shapes against every guard and writes each output's shape into
 * out_shapes[i][0 .. output_ndim(i)).  Returns SHAPEC_OK or an error with a message in
 * err (truncated to errlen; err may be NULL).  Reads no tensor data, except in a model
 * whose output shapes depend on data (item(), nonzero()): there it runs the graph. */
int shapec_model_output_shapes(const shapec_tensor *inputs, int64_t *const *out_shapes, char *err, size_t errlen);
/* Checks the inputs, then computes the outputs into caller-allocated tensors whose shapes
 * must be those output_shapes gives.  Writes nothing on failure.  Thread-safe: several
 * threads may call it at once on one loaded library (the workspace is per call). */
int shapec_model_run(const shapec_tensor *inputs, const shapec_tensor *outputs, char *err, size_t errlen);
/* Threads a run may use, the caller's included, for the library's own loops and for
 * OpenBLAS.  Default: SHAPEC_NUM_THREADS if set, else every online CPU.  n <= 0 restores
 * the default.  Returns the count now in effect.  Affects runs that start afterwards. */
int shapec_model_set_num_threads(int n);
int shapec_model_get_num_threads(void);
/* The threads a loop starting now would use: the count above less those that would share
 * a core with another busy process (measured from /proc/stat at most five times a second;
 * SHAPEC_ADAPTIVE_THREADS=0 turns this off).  At least 1. */
int shapec_model_get_active_threads(void);
/* A library exported with --external-weights maps OUTDIR/model.weights from beside itself
 * on its first run; this names another file instead.  Call it before the first run
 * (afterwards it returns SHAPEC_ERR_ARGUMENT).  No effect on a library with embedded
 * weights. */
int shapec_model_set_weights_path(const char *path);
/* The weights the program reads (parameters, buffers it does not update, tensor
 * constants), as torch names and stores them: what a safetensors file for
 * shapec_model_load_weights must hold. */
typedef struct shapec_weight_info {
  const char *name;     /* the state_dict key: "encoder.layer.0.attention.self.query.weight" */
  const char *kind;     /* "parameter", "buffer" or "constant" */
  uint8_t code, bits;   /* DLPack dtype as torch stored it (bfloat16: 4, 16) */
  int32_t ndim;
  const int64_t *shape; /* ndim sizes, valid as long as the library is loaded */
} shapec_weight_info;
int shapec_model_num_weights(void);
/* SHAPEC_OK, or SHAPEC_ERR_ARGUMENT for i out of range or a NULL info. */
int shapec_model_weight(int i, shapec_weight_info *info);
/* Replaces the weights of a library exported with --external-weights by the tensors of a
 * safetensors file (model.state_dict() as safetensors saves it), without a new export:
 * each tensor the library takes must have its name, dtype and shape; every parameter must
 * be in the file; a buffer or constant it lacks keeps its exported value; other tensors of
 * the file are ignored.  Call it before the first run (afterwards SHAPEC_ERR_ARGUMENT: the
 * kernels have laid the weights out).  SHAPEC_ERR_WEIGHTS with a message naming the file
 * and the tensor when the file does not fit; SHAPEC_ERR_ARGUMENT for a library with
 * embedded weights.  A failed call changes nothing. */
int shapec_model_load_weights(const char *path, char *err, size_t errlen);
/* Frees the workspace blocks the library keeps for later runs (see docs/abi.md). */
void shapec_model_release_workspace(void);

/* ---- state (docs/abi.md, "State") ----
 * A program that updates buffers in place (a KV cache, a counter) keeps them from call to
 * call.  shapec_model_run works on the library's own copy; a handle is a copy of its own,
 * starting from the exported values, so that one library serves several independent
 * conversations.  A handle is used by one call at a time.  In a library whose program
 * updates no buffer, num_states is 0 and handles hold nothing. */
typedef struct shapec_model_state shapec_model_state;
/* How many buffers the program updates, and their names (the buffer's target in the
 * program, "static_cache.layers.0.keys"); NULL out of range. */
int shapec_model_num_states(void);
const char *shapec_model_state_name(int i);
/* A new handle holding the exported values; NULL when memory runs out. */
shapec_model_state *shapec_model_state_new(void);
/* Frees a handle (NULL: nothing happens). */
void shapec_model_state_free(shapec_model_state *state);
/* Every buffer back to its exported value; state NULL resets the library's own copy. */
int shapec_model_state_reset(shapec_model_state *state);
/* Buffer i of a handle (NULL: the library's own copy) as a tensor whose data is the
 * state's memory: read it, or write it between calls.  The shape and dtype are those
 * the library stores (float32 for a half-precision program's buffers). */
int shapec_model_state_tensor(shapec_model_state *state, int i, shapec_tensor *out);
/* shapec_model_run on a handle's state instead of the library's own. */
int shapec_model_run_with_state(shapec_model_state *state, const shapec_tensor *inputs, const shapec_tensor *outputs,
                                char *err, size_t errlen);

/* The value `shapec export --metadata KEY=VALUE` gave KEY (the last one given), or NULL
 * (also for a NULL key).  The same pairs are the report's "metadata". */
const char *shapec_model_metadata(const char *key);

/* ---- a cache passed in and out (docs/abi.md, "A cache that grows in place") ----
 * A decoder whose KV cache is its inputs and outputs (transformers' DynamicCache) returns
 * each present = cat([past, new], dim).  When the caller passes that output over the
 * memory of its past input, with the same strides (one buffer per cache with room to
 * grow: the past a view of its first rows, the present of the first rows and the new
 * ones), the library writes only the new rows.  This says which outputs may: the input
 * index of output `output`'s past (and the dim it grows along, in *dim unless dim is
 * NULL), or -1. */
int shapec_model_output_grows(int output, int *dim);

/* ---- targets (docs/cuda.md) ---- */
enum { SHAPEC_TARGET_CPU = 1, SHAPEC_TARGET_CUDA = 2 };
/* The tensors the library computes on: SHAPEC_TARGET_CPU, SHAPEC_TARGET_CUDA or both
 * (exported with --target cpu,cuda: shapec_model_run then picks by the first input's
 * device type, kDLCPU = 1 or kDLCUDA = 2). */
int shapec_model_targets(void);
/* Only in libraries with CUDA code.  shapec_model_run on CUDA tensors returns once the
 * results are in the outputs (it synchronizes); this one enqueues on `stream` (a
 * CUstream; NULL: the legacy default stream, then it synchronizes too) and may return
 * before the kernels finish: the outputs are ready when the stream reaches this point.
 * A fault in a kernel then surfaces at the stream's next synchronization.  Every tensor
 * must be on the first input's device; the driver's primary context of that device is
 * made current.  Without a GPU or driver: SHAPEC_ERR_CUDA, "no CUDA device: ...". */
int shapec_model_run_on_stream(const shapec_tensor *inputs, const shapec_tensor *outputs, void *stream, char *err,
                               size_t errlen);
/* The GPU the PTX was built for ("sm_80"); only in libraries with CUDA code. */
const char *shapec_model_cuda_arch(void);

#ifdef __cplusplus
}
#endif

#endif
