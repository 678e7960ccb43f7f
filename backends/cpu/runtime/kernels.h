/* kernels.h - the runtime library linked into every model.so: support functions the
 * generated entry points call (messages, input checks, allocation, CPU features) and the
 * kernels of the ops that are not lowered to inline loops (matrix products through
 * OpenBLAS, convolution, pooling, normalization, reductions, data movement).
 *
 * All sizes are int64 element counts; every tensor is compact row-major. */
#ifndef SC_KERNELS_H
#define SC_KERNELS_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "backends/llvm/runtime_abi.h"
#include "shapec/runtime.h"

/* ---- support (support.c) ---- */
int sc_rt_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Checks a tensor the caller passed: device (1 for the CPU path, 2 for the CUDA path), rank,
 * dtype, shape, data; its strides must be the compact row-major ones unless strided_ok (an
 * input the library may copy: any strides whose reach fits in int64). */
int sc_rt_check_tensor(const shapec_tensor *t, const char *what, int32_t device_type, int32_t ndim, int32_t code, int32_t bits,
                       int32_t strided_ok, char *err, size_t errlen);
/* Whether t's strides are absent or the compact row-major ones (a dim of one element may
 * have any). */
bool sc_rt_is_compact(const shapec_tensor *t);
/* An input's elements in compact row-major order: *data is the caller's memory when it is
 * compact, else a copy made once for the call (*owned, which the call frees). */
int sc_rt_input_data(const shapec_tensor *t, int64_t esize, void **data, void **owned, char *err, size_t errlen);
/* The same checks over a program's many inputs, from the tables of runtime_abi.h (the entry
 * of a program with many inputs calls these instead of code per input).  check_inputs: each
 * call input as sc_rt_check_tensor checks it, named "input 'NAME'"; the first refusal's code. */
int sc_rt_check_inputs(const shapec_tensor *inputs, const sc_rt_input_check *checks, int64_t n, const char *texts,
                       int32_t device_type, char *err, size_t errlen);
/* Each input dim in the table's order: a static size, a symbol's first size (stored in syms,
 * its range checked) or a later one that must equal it; refused in the entry's words. */
int sc_rt_check_dims(const shapec_tensor *inputs, const sc_rt_dim_check *checks, int64_t n, int64_t *syms,
                     const char *texts, char *err, size_t errlen);
/* data[k]: where input binds[k]'s elements are, compact (sc_rt_input_data); the copies of
 * strided ones in owned[0..], one slot per input that may be copied, for the exit to free.
 * kept (NULL, or one flag per bind): an input read where it is, strided, by this call (the
 * past of a cache grown in place, sc_rt_cache_in_place). */
int sc_rt_bind_inputs(const shapec_tensor *inputs, const sc_rt_input_bind *binds, int64_t n, const int32_t *kept,
                      void **data, void **owned, char *err, size_t errlen);
/* 1 when output `out` is input `in` grown along dim in the same memory (the same first
 * element and strides, the new elements after the old along dim) and its elements are apart
 * from every other input and output of the call: the old elements are already in place;
 * 0 when not; minus the error code (refusal as the message) when not and the output is
 * strided, which only such an output may be. */
int32_t sc_rt_cache_in_place(const shapec_tensor *inputs, int64_t n_in, const shapec_tensor *outputs, int64_t n_out,
                             int64_t in, int64_t out, int64_t dim, const char *refusal, char *err, size_t errlen);
/* 1 when [p, p + bytes) shares no byte with any bound input's elements (data[k], as many
 * bytes as its shape holds), else 0. */
int32_t sc_rt_apart_from_inputs(const void *p, int64_t bytes, const shapec_tensor *inputs, const sc_rt_input_bind *binds,
                                void *const *data, int64_t n);
/* sc_rt_free of every slot that is not NULL. */
void sc_rt_free_slots(void *const *slots, int64_t n);
/* A stream passed with CPU tensors: SHAPEC_ERR_ARGUMENT and the message. */
int sc_rt_refuse_stream(char *err, size_t errlen);
int sc_rt_fail_argument(char *err, size_t errlen, const char *message);
int sc_rt_fail_memory(char *err, size_t errlen, int64_t bytes);
/* A kernel's failure (its return code rc, not SHAPEC_OK) in words naming the node it ran:
 * a kernel has no message buffer, so the caller's would otherwise stay empty. */
int sc_rt_fail_kernel(char *err, size_t errlen, int32_t rc, const char *node);
/* Every tensor on the first one's device_id (the CUDA path runs on one device). */
int sc_rt_check_same_device(const shapec_tensor *inputs, int32_t n_in, const shapec_tensor *outputs, int32_t n_out,
                            char *err, size_t errlen);
void *sc_rt_alloc(int64_t bytes);
void sc_rt_free(void *p);
/* ---- the planned workspace (workspace.c; regions assigned by backends/llvm/cg_workspace.c) ---- */
typedef struct sc_rt_ws sc_rt_ws;
/* A workspace of at least `regions` regions for one call; NULL when memory runs out. */
sc_rt_ws *sc_rt_ws_acquire(int64_t regions);
/* Region `region`, grown to hold `bytes` if it is smaller; NULL when memory runs out. */
void *sc_rt_ws_take(sc_rt_ws *ws, int64_t region, int64_t bytes);
/* The call is over: the workspace is kept for later calls (NULL is ignored). */
void sc_rt_ws_release(sc_rt_ws *ws);
/* Frees the workspaces no call holds (shapec_model_release_workspace). */
void sc_rt_ws_free_kept(void);
int64_t sc_rt_floordiv(int64_t a, int64_t b);
int64_t sc_rt_mod(int64_t a, int64_t b);

/* ---- the CPU's instruction sets (cpu_features.c) ---- */
/* Whether this CPU (and the OS) supports the instruction set named by the n bytes at name
 * ("avx2"); -1 for a name the runtime does not check. */
int sc_rt_cpu_has(const char *name, size_t n);
/* Every feature of the comma-separated list ("avx2,fma") supported, else SHAPEC_ERR_CPU
 * and a message naming the missing one. */
int sc_rt_cpu_supported(const char *features, char *err, size_t errlen);
/* Whether this CPU has AVX2 and FMA (kernels with a libmvec fast path ask). */
int sc_rt_has_avx2(void);
/* the library was built for AVX-512 (sc_rt_cpu_supported has checked this CPU has it) */
int sc_rt_has_avx512(void);
/* the library was built for a CPU with AVX2 and FMA, and this CPU has them (with no library
 * yet: this CPU's answer); where a kernel must compute as the library's own loops do */
int sc_rt_library_has_avx2(void);

/* ---- products of at most 4 rows (skinny.c) ---- */
/* C = alpha * A @ op(B) + beta * C, B streamed once, when m <= 4, A is not transposed, and
 * the CPU has AVX2; false (nothing done) otherwise.  lda, ldb, ldc as BLAS's. */
bool sc_rt_skinny_product(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, int32_t trans_a, const float *b,
                          int64_t ldb, int32_t trans_b, float *c, int64_t ldc, float alpha, float beta);

/* ---- thread count (threads.c): read by the pool and OpenBLAS ---- */
enum { SC_RT_MAX_THREADS = 256 };
/* The library's thread count: what buffers per thread are sized for. */
int sc_rt_num_threads(void);
/* The threads a loop starting now uses: the count less those that would share a core with
 * another busy process (at least 1). */
int sc_rt_team_threads(void);
/* Cores of the calling thread's affinity mask that other processes keep busy, and how
 * many CPUs that mask holds (core_load.c); -1 while unknown. */
int sc_rt_cores_held_elsewhere(int *allowed);

/* ---- thread pool (pool.c) ---- */
/* A loop body over iterations [begin, end) with its captured values in ctx. */
typedef void (*sc_rt_loop_fn)(void *ctx, int64_t begin, int64_t end);
/* Runs fn over [0, n) on the pool in chunks of at least min_chunk iterations; returns
 * when every iteration is done.  Runs on the calling thread alone when the pool is busy. */
void sc_rt_parallel_for(sc_rt_loop_fn fn, void *ctx, int64_t n, int64_t min_chunk);
/* Around work that another library's threads do (oneDNN's OpenMP): the pool's idle workers
 * stop spinning and sleep, leaving the cores to them. */
void sc_rt_pool_yield_begin(void);
void sc_rt_pool_yield_end(void);
/* libgomp's GOMP_parallel(fn, data, threads, flags): runs fn(data) on a team of `threads`
 * (the caller one of them) and returns when all are done. */
typedef void (*sc_rt_openmp_parallel)(void (*fn)(void *), void *data, unsigned threads, unsigned flags);
/* Once oneDNN computes on OpenMP's team, the pool's loops run on that same team, not on
 * the pool's own workers: one team of threads takes the cores, not two in turn. */
void sc_rt_pool_join_openmp(sc_rt_openmp_parallel parallel);
/* Whether this process was forked from one that had started the library's threads or
 * OpenMP's team: the pool then runs on fresh workers of its own, and oneDNN on one thread. */
bool sc_rt_pool_in_forked_child(void);
/* Loads oneDNN (once; onednn.c) unless SHAPEC_ONEDNN=0: a library whose layers may use it
 * calls this before its first loop. */
void sc_rt_onednn_load(void);
/* The same for a library whose products may run in OpenBLAS, where the process's OpenBLAS
 * runs slower kernels than this CPU's: oneDNN then computes their parts. */
void sc_rt_onednn_load_for_products(void);

/* ---- OpenBLAS (gemm.c) ---- */
/* Loads OpenBLAS on first use; NULL when it is there, else why it is not. */
const char *sc_rt_blas_error(void);
/* Whether the process's OpenBLAS runs slower kernels than this CPU's (loaded before the
 * library chose its core type, by numpy for one). */
bool sc_rt_blas_slow(void);
/* A single-threaded product for gemm.c to use instead of the process's OpenBLAS where that
 * is slow: oneDNN's, registered by onednn.c when it loads oneDNN; false: not computed. */
typedef bool (*sc_rt_part_sgemm_fn)(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                                    const float *a, int64_t lda, const float *b, int64_t ldb, float beta, float *c,
                                    int64_t ldc);
void sc_rt_blas_set_backup(sc_rt_part_sgemm_fn fn);
/* The same as a return code: SHAPEC_OK, or SHAPEC_ERR_CPU with the message. */
int sc_rt_blas_ready(char *err, size_t errlen);

/* ---- weights side file (weights.c) ---- */
/* The weights blob of a library exported with --external-weights, mapped on first use;
 * NULL with a message when the file is missing or from another export. */
const void *sc_rt_external_weights(uint64_t id, uint64_t size, char *err, size_t errlen);
/* The blob runs will use instead (malloc'ed; the library owns it from here); refused with
 * a message once a run has used the weights. */
int sc_rt_weights_replace(const unsigned char *blob, char *err, size_t errlen);
/* The side file's own blob (mapped once), for the pieces a replacement does not give. */
const unsigned char *sc_rt_weights_own(uint64_t id, uint64_t size, char *err, size_t errlen);
/* The weights list the code generator wrote (cg_weights.c, cg_emit_weights_manifest). */
const char *sc_model_weights_manifest(void);

/* ---- data movement (copy.c) ---- */
void sc_k_strided_copy(const void *src, void *dst, int32_t ndim, const int64_t *shape, const int64_t *src_strides,
                       int64_t esize);
/* reflect / replicate / circular padding (pad_modes.c): out [out_shape] element i of each
 * dim from x's element i - before[d], mirrored, clamped or wrapped (SC_PAD_*). */
void sc_k_pad_mode(const void *x, void *out, int32_t ndim, const int64_t *in_shape, const int64_t *out_shape,
                   const int64_t *before, int64_t esize, int32_t mode);
/* linspace into float32 (or float64 where is_f64) dst (copy.c) */
void sc_k_linspace(void *dst, int64_t steps, double start, double end, int32_t is_f64);
/* triu / tril of [batch, rows, cols] (copy.c) */
void sc_k_triangle(const void *x, void *out, int64_t batch, int64_t rows, int64_t cols, int64_t diagonal, int32_t upper,
                   int64_t esize);
/* upsample_nearest2d by any factor (upsample.c) */
void sc_k_upsample_nearest2d(const void *x, void *y, int64_t nc, int64_t h, int64_t w, int64_t oh, int64_t ow,
                             double scale_h, double scale_w, int64_t esize);
void sc_k_copy_into(const void *src, void *dst, int32_t ndim, const int64_t *shape, const int64_t *dst_strides,
                    int64_t esize);
void sc_k_fill(void *dst, int64_t n, const void *value, int64_t esize);
/* start + step * i for i < n, as the element type kind (SC_ARANGE_*): in double for
 * floating types, in int64 (truncated start and step) for integers. */
void sc_k_arange(void *dst, int64_t n, double start, double step, int32_t kind);
/* diff (n = 1) along the middle dim of [outer, len, inner] pieces of prepend, x, append */
void sc_k_diff(const void *pre, const void *x, const void *app, void *out, int64_t outer, int64_t lp, int64_t lx,
               int64_t la, int64_t inner, int32_t kind);
/* roll of a compact tensor, each dim's shift in [0, size) */
void sc_k_roll(const void *src, void *dst, int32_t ndim, const int64_t *shape, const int64_t *shift, int64_t esize);
/* n random floats: uniform in [0, 1), or standard normal when normal is set */
void sc_k_rand_f32(float *dst, int64_t n, int32_t normal);
/* ---- Fourier transforms (fft.c): complex64 as float pairs ---- */
/* x transformed in place along dims (each < rank) of shape; inverse: the conjugate
 * transform; normalization 0 none, 1 1/sqrt(count), 2 1/count (count: the signal's points);
 * SHAPEC_ERR_MEMORY when a line's buffer cannot be had */
int sc_k_fft_c2c(float *x, int32_t rank, const int64_t *shape, int32_t n_dims, const int32_t *dims, int32_t inverse,
                 int32_t normalization, int64_t count);
/* float32 (or float64 where is_f64) x as complex out, imaginary 0 */
void sc_k_real_to_complex(const void *x, int32_t is_f64, float *out, int64_t n);
/* part 0 the real, 1 the imaginary part, 2 the magnitude of each of n complex elements */
void sc_k_complex_part(const float *x, float *out, int64_t n, int32_t part);
/* complex64 arithmetic (complex_arith.c): out[...] = a op b over shape, each operand read
 * through its strides (in its elements; 0 broadcasts) as complex pairs or real floats;
 * SC_CX_POLAR takes two real operands.  The unary ops read n compact elements; SC_CX_ANGLE
 * writes real floats. */
void sc_k_complex_binary(int32_t op, int32_t rank, const int64_t *shape, const float *a, const int64_t *a_st,
                         int32_t a_complex, const float *b, const int64_t *b_st, int32_t b_complex, float *out);
void sc_k_complex_unary(int32_t op, int64_t n, const float *x, int32_t x_complex, float *out);
/* the first keep positions along dim d */
void sc_k_complex_narrow(const float *x, float *out, int32_t rank, const int64_t *shape, int32_t d, int64_t keep);
/* the Hermitian completion to `full` positions along dim d */
void sc_k_complex_hermitian(const float *x, float *out, int32_t rank, const int64_t *shape, int32_t d, int64_t full);
/* randperm: a permutation of 0 .. n-1 from the same generator, kind SC_KIND_* (copy.c) */
void sc_k_randperm(void *dst, int64_t n, int32_t kind);
/* eye: ones on the diagonal of a [rows, cols] matrix, zeros elsewhere; kind SC_KIND_* (copy.c) */
void sc_k_eye(void *dst, int64_t rows, int64_t cols, int32_t kind);
/* int32 indices widened to the int64 the index kernels read (copy.c) */
void sc_k_widen_i32(const int32_t *src, int64_t *dst, int64_t n);
/* fill_diagonal_: value at every element whose indices are all equal (dst compact, kind
 * SC_KIND_*); wrap continues a tall matrix's diagonal below its square, as torch (copy.c) */
void sc_k_fill_diagonal(void *dst, int32_t rank, const int64_t *shape, double value, int32_t kind, int32_t wrap);
void sc_k_weight_norm_f32(const float *v, const float *g, float *out, int64_t outer, int64_t n, int64_t inner);
/* glu: out [outer, half, inner] = x's first half along the middle dim times the sigmoid of
 * its second half (x [outer, 2 * half, inner]), kind SC_KIND_F32 or F64 (nn.c) */
void sc_k_glu(const void *x, void *out, int32_t kind, int64_t outer, int64_t half, int64_t inner);
/* index_select and embedding: src [outer, n_src, inner] (rank ndim, the rows along dim) ->
 * dst [outer, n_index, inner], rows picked by index.  gather: dst (the index's shape) = src
 * at the index along dim, where every other size of the index is at most the source's
 * (ndim >= 1: a 0-d tensor passes as [1]).  Both check every index (and gather the sizes)
 * before touching memory: on a bad one they write nothing and return SHAPEC_ERR_SHAPE with
 * torch's words (runtime_abi.h) and `node`. */
/* x[i0, i1, ...] with integer index tensors (index_tensor.c): n_index tensors picking along
 * src dims index_dim[k], read at index_strides[k * b_rank + d] over their broadcast shape
 * b_shape, which sits at output dim b_at; 4- or 8-byte indices.  Every index is checked
 * first (torch's words, then node); SHAPEC_ERR_SHAPE for one out of range. */
int sc_k_index_tensor(const void *src, int32_t src_rank, const int64_t *src_shape, const int64_t *src_strides,
                      int32_t n_index, const void *const *index_data, const int32_t *index_bytes,
                      const int32_t *index_dim, const int64_t *index_strides, int32_t b_rank, const int64_t *b_shape,
                      int32_t b_at, void *out, int64_t esize, const char *node, char *err, size_t errlen);
/* x[mask] = values (index_put with one boolean mask over dst's leading dims, n_mask
 * positions of `inner` elements each): values of one element, one row, or a row per true
 * position; written or added (accumulate_elem) (index_tensor.c) */
int sc_k_index_put_mask(void *dst, const uint8_t *mask, int64_t n_mask, int64_t inner, const void *values,
                        int64_t n_values, int32_t accumulate_elem, int64_t esize, const char *node, char *err,
                        size_t errlen);
/* index_put: values written (or added, accumulate_elem an SC_ACC_* code; 0 writes) into dst,
 * which holds self, at the positions that sc_k_index_tensor would read; values are read
 * through values_strides over the indexed shape (0 where they broadcast) (index_tensor.c) */
int sc_k_index_put(void *dst, int32_t dst_rank, const int64_t *dst_shape, const int64_t *dst_strides, int32_t n_index,
                   const void *const *index_data, const int32_t *index_bytes, const int32_t *index_dim,
                   const int64_t *index_strides, int32_t b_rank, const int64_t *b_shape, int32_t b_at,
                   const void *values, const int64_t *values_strides, int32_t accumulate_elem, int64_t esize,
                   const char *node, char *err, size_t errlen);
/* index / index_put with a boolean mask among integer indices (x[:, mask], x[mask, i] = v):
 * the mask (mask_place: rank k, first dim, entry) stands for the k columns of its nonzero(),
 * inserted at that entry among the n_index integer ones; B's last dim becomes the true
 * count.  mode -1 reads src into out; 0 writes values, an SC_ACC_* code adds them, read
 * through values_strides and checked against values_shape (right-aligned, 1 padded) over
 * the indexed shape, in torch's words (index_tensor.c) */
int sc_k_index_masked(int32_t mode, void *src, int32_t src_rank, const int64_t *src_shape, const int64_t *src_strides,
                      int32_t n_index, const void *const *index_data, const int32_t *index_bytes,
                      const int32_t *index_dim, const int64_t *index_strides, int32_t b_rank, const int64_t *b_shape,
                      int32_t b_at, void *out_or_values, const uint8_t *mask, const int64_t *mask_strides,
                      const int32_t *mask_place, const int64_t *values_strides, const int64_t *values_shape,
                      int64_t esize, const char *node, char *err, size_t errlen);
/* bucketize / searchsorted (searchsorted.c): for each of rows x k values (kind val_kind), its
 * place among the m boundaries of its row (seq_rows 1: one row for all; sorter, when given,
 * orders each row), compared as SC_SEARCH_AS_*; int64 or int32 positions. */
int sc_k_search_sorted(const void *seq, int32_t seq_kind, const int64_t *sorter, int64_t seq_rows, int64_t m,
                       const void *values, int32_t val_kind, int64_t rows, int64_t k, int32_t compare, int32_t right,
                       void *out, int32_t out_int32, const char *node, char *err, size_t errlen);
int sc_k_index_select(const void *src, const int64_t *index, void *dst, int64_t outer, int64_t n_src, int64_t n_index,
                      int64_t inner, int64_t esize, int32_t ndim, int32_t dim, const char *node, char *err,
                      size_t errlen);
/* index_copy: rows of src written into dst (which holds self) at index (copy.c) */
/* index_add: dst (a copy of self) += alpha * src's slices at index's positions along dim
 * ([outer, n_dst, inner] and [outer, n_index, inner]), in index order; kind SC_KIND_*;
 * an index outside [0, n_dst) fails before anything is added, in torch's words */
int sc_k_index_add(void *dst, const int64_t *index, const void *src, int64_t outer, int64_t n_dst, int64_t n_index,
                   int64_t inner, int32_t kind, double alpha, const char *node, char *err, size_t errlen);
/* embedding_bag (embedding_bag.c): the bags' sums, means or maxima of table rows
 * [rows, width] (kind SC_KIND_F32/F64), indices and offsets of kind I32 or I64; torch's
 * checks on offsets and indices fail the call before anything is read */
int sc_k_embedding_bag(const void *table, int32_t kind, int64_t rows, int64_t width, const void *indices,
                       int32_t index_kind, int64_t n_indices, const void *offsets, int32_t offset_kind,
                       int64_t n_offsets, int32_t include_last_offset, int32_t mode, const void *sample_weights,
                       int64_t padding_idx, void *out, const char *node, char *err, size_t errlen);
int sc_k_index_copy(void *dst, const int64_t *index, const void *src, int64_t outer, int64_t n_dst, int64_t n_index,
                    int64_t inner, int64_t esize, int32_t dim, const char *node, char *err, size_t errlen);
int sc_k_gather(const void *src, const int64_t *index, void *dst, int32_t ndim, int32_t dim, const int64_t *src_shape,
                const int64_t *index_shape, int64_t esize, const char *node, char *err, size_t errlen);
void sc_k_repeat(const void *src, void *dst, int32_t ndim, const int64_t *src_shape, const int64_t *out_shape,
                 int64_t esize);
/* sort (k = n) and topk along the middle dim of [outer, n, inner] (sort.c): values (of
 * x's kind, SC_KIND_*; NULL to skip) and int64 indices, [outer, k, inner]; scratch holds
 * 2n int64.  k outside [0, n] fails with torch's words. */
int sc_k_sort(const void *x, void *values, int64_t *indices, int64_t *scratch, int64_t outer, int64_t n, int64_t inner,
              int64_t k, int32_t kind, int32_t descending, const char *node, char *err, size_t errlen);
/* scatter's checks, before anything is written (scatter.c): index no larger than src (where
 * has_src) nor than out apart from dim, every index inside dim; torch's words. */
int sc_k_scatter_check(const int64_t *index, int32_t ndim, int32_t dim, const int64_t *out_shape,
                       const int64_t *index_shape, const int64_t *src_shape, int32_t has_src, const char *node, char *err,
                       size_t errlen);
/* scatter / scatter_add / scatter_reduce into out, which already holds self (scatter.c):
 * src's elements (or the one element at value where src is NULL) combined by op
 * (SC_SCATTER_*) at index's positions along dim; is_bool makes sum an or, prod an and. */
int sc_k_scatter(void *out, const int64_t *index, const void *src, const void *value, int32_t ndim, int32_t dim,
                 const int64_t *out_shape, const int64_t *index_shape, const int64_t *src_shape, int32_t kind,
                 int32_t is_bool, int32_t op, int32_t include_self, const char *node, char *err, size_t errlen);

/* nonzero: how many elements are nonzero, then their coordinates as int64 rows of ndim. */
void sc_k_any(const void *src, uint8_t *dst, int64_t outer, int64_t len, int64_t inner, int64_t esize, int32_t is_float);
/* all: every element of each [len] run nonzero, as sc_k_any reads them (copy.c) */
void sc_k_all(const void *src, uint8_t *dst, int64_t outer, int64_t len, int64_t inner, int64_t esize, int32_t is_float);
int64_t sc_k_count_nonzero(const void *x, int64_t n, int64_t esize, int32_t is_float);
void sc_k_nonzero(const void *x, int32_t ndim, const int64_t *shape, int64_t esize, int32_t is_float, int64_t *out);

/* masked_select over the broadcast shape (ndim <= 16; a stride of 0 broadcasts): the
 * count of selected elements, then the elements in row-major order. */
int64_t sc_k_count_masked(const uint8_t *mask, const int64_t *m_st, int32_t ndim, const int64_t *shape);
int sc_k_masked_scatter(const void *x, const int64_t *x_st, const uint8_t *mask, const int64_t *m_st, int32_t ndim,
                        const int64_t *shape, int64_t esize, const void *source, int64_t source_numel, void *out,
                        const char *node, char *err, size_t errlen);
/* cdist of float32 [batch, rows1, m] and [batch, rows2, m] into [batch, rows1, rows2], and
 * pdist of [n, m] into the n (n - 1) / 2 pairs i < j (distance.c); any p >= 0, inf too. */
void sc_k_cdist_f32(const float *x1, const float *x2, float *out, int64_t batch, int64_t rows1, int64_t rows2, int64_t m,
                    double p);
void sc_k_pdist_f32(const float *x, float *out, int64_t n, int64_t m, double p);
void sc_k_masked_select(const void *x, const int64_t *x_st, const uint8_t *mask, const int64_t *m_st, int32_t ndim,
                        const int64_t *shape, int64_t esize, void *out);

/* ---- 3-D convolution and pooling (conv3d.c, pool3d.c), float32 NCDHW ---- */
/* dims: n, c, d, h, w, oc, kd, kh, kw, od, oh, ow; geom: stride[3], padding[3], dilation[3]. */
int sc_k_conv3d_f32(const float *x, const float *wt, const float *bias, float *y, const int64_t *dims, const int64_t *geom,
                    int64_t groups);
/* the same dims and geometry for the transposed convolution, weight [c, oc/groups, kd, kh, kw] */
int sc_k_conv_transpose3d_f32(const float *x, const float *wt, const float *bias, float *y, const int64_t *dims,
                              const int64_t *geom, int64_t groups);
/* over nc planes of in[3] into out[3]; indices (NULL: none) flat within each input plane */
void sc_k_max_pool3d_f32(const float *x, float *y, int64_t *indices, int64_t nc, const int64_t *in, const int64_t *out,
                         const int64_t *k, const int64_t *st, const int64_t *pad, const int64_t *dil);
void sc_k_avg_pool3d_f32(const float *x, float *y, int64_t nc, const int64_t *in, const int64_t *out, const int64_t *k,
                         const int64_t *st, const int64_t *pad, int32_t count_include_pad, int64_t divisor_override);
void sc_k_adaptive_avg_pool3d_f32(const float *x, float *y, int64_t nc, const int64_t *in, const int64_t *out);

/* grid_sampler_2d of float32 input [n, c, h, w] at grid [n, gh, gw, 2] into [n, c, gh, gw]
 * (grid_sample.c): SC_GRID_BILINEAR or _NEAREST, padding SC_GRID_ZEROS, _BORDER, _REFLECTION. */
void sc_k_grid_sample2d_f32(const float *input, const float *grid, float *out, int64_t n, int64_t c, int64_t h, int64_t w,
                            int64_t gh, int64_t gw, int32_t mode, int32_t padding, int32_t align_corners);

/* einsum of float32 a (and b; nb = 0: one operand) into out, each dim named by its label
 * number (ir/einsum_equation.h), as one batched product (einsum.c). */
int sc_k_einsum_f32(const float *a, int32_t na, const int32_t *a_labels, const int64_t *a_shape, const float *b, int32_t nb,
                    const int32_t *b_labels, const int64_t *b_shape, float *out, int32_t no, const int32_t *o_labels,
                    const int64_t *o_shape);

/* ---- a mixture of experts (grouped_mm.c) ---- */
/* out [rows, n] = for each expert e, input's rows [offs[e-1], offs[e]) @ weight[e] [k, n];
 * rows past offs[experts-1] zero.  Offsets that go back or past rows fail with a message. */
int sc_k_grouped_mm_f32(const float *input, const float *weight, const int32_t *offs, float *out, int64_t rows,
                        int64_t experts, int64_t k, int64_t n, const char *node, char *err, size_t errlen);
/* histc of float32 x into bins counts over [lo, hi] (the data's range where lo == hi). */
void sc_k_histc_f32(const float *x, int64_t n, float *out, int64_t bins, double lo, double hi);

/* ---- matrix products (gemm.c) ---- */
/* Whether sc_k_bmm_f32 computes an m x n x k product itself, without OpenBLAS (at most
 * 2,048 multiply-adds); such a product with B upright copies nothing. */
bool sc_k_tiny_product(int64_t m, int64_t n, int64_t k);
/* y [m, n] = act(x [m, k] @ w [k, n] (upright) + bias) + residual [m, n] (bias, residual
 * NULL: none) when the product is tiny, the CPU has AVX2 and act is SC_ACT_NONE, _RELU or
 * _RELU6, the bias starting each row's sums and the rest applied before the one store;
 * false (nothing written) otherwise. */
bool sc_k_tiny_linear_f32(const float *x, const float *w, const float *bias, const float *residual, int32_t act,
                          float *y, int64_t m, int64_t n, int64_t k);
int sc_k_bmm_f32(int64_t batch, int64_t m, int64_t n, int64_t k, const float *a, int64_t a_batch_stride, int32_t trans_a,
                 const float *b, int64_t b_batch_stride, int32_t trans_b, float *c, float alpha, float beta);
/* C[o, i] = alpha * op(A[o, i]) @ op(B[o, i]) + beta * C[o, i] for shape {batch0, batch1, m,
 * n, k}, each operand given by its strides {outer batch, inner batch, leading dim} in
 * elements (a stride of 0 broadcasts): views such as attention's heads, read in place. */
int sc_k_bmm_strided_f32(const int64_t *shape, const float *a, const int64_t *a_strides, int32_t trans_a, const float *b,
                         const int64_t *b_strides, int32_t trans_b, float *c, const int64_t *c_strides, float alpha,
                         float beta);
/* The same with beta 0 through oneDNN's matmul, one primitive per shape and strides kept in
 * the site (onednn.c); sc_k_bmm_strided_f32 without oneDNN or for small products. */
int sc_k_bmm_strided_site_f32(void **site, const int64_t *shape, const float *a, const int64_t *a_strides, int32_t trans_a,
                              const float *b, const int64_t *b_strides, int32_t trans_b, float *c,
                              const int64_t *c_strides, float alpha);
/* A convolution's product: large ones split across the library's pool (gemm.c). */
int sc_k_conv_gemm_f32(int64_t m, int64_t n, int64_t k, const float *a, int32_t trans_a, const float *b,
                       int32_t trans_b, float *c, float alpha, float beta);

/* y [m, n] = act(x [m, k] w^T (w [n, k]) + bias) + residual [m, n] (when not NULL), through
 * oneDNN's inner product with the weights packed once per site when constant (onednn.c),
 * else OpenBLAS.  upright: w is stored [k, n] (addmm's x @ w, GPT-2's Conv1D).  y overlaps
 * neither x nor the residual. */
int sc_k_linear_site_f32(void **site, int32_t weights_constant, const float *x, const float *w, const float *bias,
                         float *y, int64_t m, int64_t n, int64_t k, int32_t act, const float *residual, int32_t upright);
/* The same for x and w holding bfloat16 numbers: bfloat16 products where the CPU has them. */
int sc_k_linear_site_bf16(void **site, int32_t weights_constant, const float *x, const float *w, const float *bias,
                          float *y, int64_t m, int64_t n, int64_t k, int32_t act, const float *residual, int32_t upright);
/* y's count float32 elements rounded in place to bfloat16 (bf16 != 0) or float16 numbers. */
void sc_k_round_to_half_f32(float *y, int64_t count, int32_t bf16);
/* y = act(y) over n elements (SC_ACT_*, runtime_abi.h): a linear layer's epilogue where
 * oneDNN did not compute the layer. */
void sc_k_activation_f32(float *y, int64_t n, int32_t act);
/* A linear layer's epilogue in one pass over its product y [rows, cols]:
 * y = act(y + bias) + residual, bias [cols] broadcast over the rows, residual [rows, cols]
 * (either NULL: none), act SC_ACT_*. */
void sc_k_linear_epilogue_f32(float *y, const float *bias, const float *residual, int64_t rows, int64_t cols,
                              int32_t act);

/* ---- neural-network ops (nn.c) ---- */
int sc_k_conv2d_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c, int64_t h,
                    int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                    int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow);
/* The same with an activation (SC_ACT_*, runtime_abi.h) fused into the last pass over each output. */
int sc_k_conv2d_act_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c, int64_t h,
                        int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                        int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow, int32_t act);
/* The same without the direct kernel for small convolutions (conv_direct.c): depthwise loops,
 * or im2col and a GEMM. */
int sc_k_conv2d_im2col_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c, int64_t h,
                           int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                           int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow, int32_t act);
/* ---- convolutions too small for im2col and a GEMM (conv_direct.c) ---- */
/* Whether sc_conv_direct_f32 takes this convolution: an image's padded input small, few
 * multiply-adds, at most 16 kernel columns, not a 1x1 without stride or padding; act is
 * not GELU. */
bool sc_conv_direct_fits(int64_t c, int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                         int64_t ph, int64_t pw, int64_t dh, int64_t groups, int64_t oh, int64_t ow, int32_t act);
void sc_conv_direct_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c, int64_t h,
                        int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                        int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow, int32_t act);
/* Convolutions whose output plane is at most 16 pixels and input plane at most 64 floats,
 * on an AVX-512 library: each tap one permute of the plane in registers (conv_gather.c),
 * with conv_direct.c's bits; asked for before the kernels below. */
bool sc_conv_gather_fits(int64_t c, int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                         int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow,
                         int32_t act);
void sc_conv_gather_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c, int64_t h,
                        int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                        int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow, int32_t act);
/* Of those, the ones whose padded rows are at most 8 floats wide, with stride 1, on an
 * AVX-512 library: two output rows per 16-lane register (conv_pair_rows.c), which
 * sc_k_conv2d_act_f32 and sc_k_conv2d_site_f32 ask for before anything else. */
bool sc_conv_pair_rows_fits(int64_t c, int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh,
                            int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups, int64_t oh,
                            int64_t ow, int32_t act);
void sc_conv_pair_rows_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c,
                           int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t ph, int64_t pw, int64_t dh,
                           int64_t dw, int64_t groups, int64_t oh, int64_t ow, int32_t act);
/* The same convolution's global average pool: y[b o + oc] = the mean of output plane
 * (b, oc), summed from the registers (no output plane is written). */
void sc_conv_pair_rows_mean_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c,
                                int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t ph, int64_t pw,
                                int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow, int32_t act);
/* The same through oneDNN when it is there and the problem is large (onednn.c): *site keeps
 * the plans made for the shapes seen and, when weights_constant, the weights laid out for
 * them; the built-in kernel above otherwise.  residual: NULL, or a tensor of the output's
 * shape added before the activation.  layout: SC_CONV_IN/OUT/RESIDUAL_KERNEL_LAYOUT, x, y
 * and residual are then buffers with a header (runtime_abi.h).  SC_CONV_MEAN_HW in layout: y
 * is [n, o], the output planes' means. */
int sc_k_conv2d_site_f32(void **site, int32_t weights_constant, const float *x, const float *w, const float *bias,
                         float *y, int64_t n, int64_t c, int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw,
                         int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups, int64_t oh,
                         int64_t ow, int32_t act, const float *residual, int32_t layout);
/* max_pool2d (no indices) over `planes` planes of h x w vectors of `block` channels:
 * oneDNN's nChw8c / nChw16c layouts (block 8, 16) and NHWC (block the channels), written in
 * the same layout. */
void sc_k_max_pool2d_blocked_f32(const float *x, float *y, int64_t planes, int64_t block, int64_t h, int64_t w,
                                 int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh,
                                 int64_t dw, int64_t oh, int64_t ow);
/* max_pool2d over a batched NCHW tensor (no indices) whose input may come, and output may
 * go, in the convolution library's layout (layout: SC_CONV_IN/OUT_KERNEL_LAYOUT, x and y
 * then with a header): oneDNN's pooling for such a source, the kernel below otherwise. */
int sc_k_max_pool2d_site_f32(void **site, const float *x, float *y, int64_t n, int64_t c, int64_t h, int64_t wd,
                             int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw,
                             int64_t oh, int64_t ow, int32_t layout);
int sc_k_conv_transpose2d_f32(const float *x, const float *w, const float *bias, float *y, int64_t n, int64_t c,
                              int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph,
                              int64_t pw, int64_t dh, int64_t dw, int64_t groups, int64_t oh, int64_t ow);
void sc_k_max_pool2d_f32(const float *x, float *y, int64_t *indices, int64_t nc, int64_t h, int64_t w, int64_t kh,
                         int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t oh,
                         int64_t ow);
void sc_k_avg_pool2d_f32(const float *x, float *y, int64_t nc, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t sh,
                         int64_t sw, int64_t ph, int64_t pw, int64_t oh, int64_t ow, int32_t count_include_pad,
                         int64_t divisor_override);
void sc_k_adaptive_avg_pool2d_f32(const float *x, float *y, int64_t nc, int64_t h, int64_t w, int64_t oh, int64_t ow);
/* upsample_bilinear2d over nc planes (upsample.c); scale_h, scale_w: the program's scale
 * factors, or 0 where it gave an output size. */
int sc_k_upsample_bilinear2d_f32(const float *x, float *y, int64_t nc, int64_t h, int64_t w, int64_t oh, int64_t ow,
                                 int32_t align_corners, double scale_h, double scale_w);
/* bicubic (A = -0.75) over 4 x 4 neighbours clamped to the plane, source positions as the
 * bilinear ones but never clamped at 0, each row's 4 taps summed, then the 4 rows (ATen's
 * order); same arguments and result as the bilinear kernel. */
int sc_k_upsample_bicubic2d_f32(const float *x, float *y, int64_t nc, int64_t h, int64_t w, int64_t oh, int64_t ow,
                                int32_t align_corners, double scale_h, double scale_w);
void sc_k_batch_norm_f32(const float *x, float *y, const float *weight, const float *bias, const float *mean,
                         const float *var, int64_t n, int64_t c, int64_t inner, double eps);
void sc_k_batch_stats_norm_f32(const float *x, float *y, const float *weight, const float *bias, float *mean_out,
                               float *rstd_out, int64_t n, int64_t c, int64_t inner, double eps);
/* rms_norm over rows of `cols`: x * rsqrt(mean(x^2) + eps), times weight[cols] where given */
void sc_k_rms_norm_f32(const float *x, float *y, const float *weight, int64_t rows, int64_t cols, double eps);
void sc_k_layer_norm_f32(const float *x, float *y, const float *weight, const float *bias, float *mean_out,
                         float *rstd_out, int64_t outer, int64_t inner, double eps);
void sc_k_softmax_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner, int32_t log);

/* ---- attention (attention.c) ---- */
/* out = softmax(q k^T * scale + mask) v over outer x inner batch items.  dims: outer, inner,
 * l (queries), s (keys), e (q's and k's width), ev (v's width).  strides, in elements: q's
 * (outer, inner, row, col), k's (outer, inner, key, col), v's (outer, inner, key), out's
 * (outer, inner, row), mask's (outer, inner, row, col; 0 broadcasts); v's and out's rows
 * are contiguous.  flags: SC_ATTENTION_* (runtime_abi.h); with a group above
 * SC_ATTENTION_GROUP_SHIFT, inner item i reads k's and v's inner item i / group.  scratch: at least
 * sc_k_attention_scratch_bytes(dims) bytes, any alignment. */
int64_t sc_k_attention_scratch_bytes(const int64_t *dims);
/* A bool mask [n] as an additive float one: 0 where true, -inf where false. */
void sc_k_mask_to_additive_f32(const uint8_t *mask, float *out, int64_t n);
void sc_k_attention_f32(const float *q, const float *k, const float *v, const float *mask, float *out,
                        const int64_t *dims, const int64_t *strides, double scale, int32_t flags, void *scratch,
                        int64_t scratch_bytes);
/* The same for a tiny call, on the calling thread without scratch: 1, or 0 (nothing done)
 * where the call is not tiny or its layout not the one this takes. */
int sc_k_attention_tiny_f32(const float *q, const float *k, const float *v, const float *mask, float *out,
                            const int64_t *dims, const int64_t *strides, double scale, int32_t flags);

/* ---- reductions (reduce.c) ---- */
/* linalg_vector_norm in three steps: y[i] = |x[i]|^ord (x^2 for 2, |x| for 1 and +-inf,
 * x != 0 for 0), then sc_k_reduce_f32 (a sum, or max / min for +-inf), then y^(1 / ord)
 * (sqrt for 2) over the n results. */
void sc_k_vector_norm_map_f32(const float *x, float *y, int64_t n, double ord);
/* cumsum over the middle dim of [outer, n, inner]: float32 summed in double (as ATen's CPU
 * kernel accumulates), or integers and bools (kind as for sc_k_sum_i64) into int64. */
void sc_k_cumsum_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner);
/* y[i] = x[i] as float32 (the nearest float), for sums of integers asked for in float32. */
void sc_k_i64_to_f32(const int64_t *x, float *y, int64_t n);
void sc_k_cumsum_i64(const void *x, int64_t *y, int32_t kind, int64_t outer, int64_t n, int64_t inner);
/* cumsum for any pair of element kinds (SC_KIND_*): each element cast to the output's
 * kind, then summed (floats in double, integers in int64 stored in their width). */
void sc_k_cumsum_cast(const void *x, int32_t in_kind, void *y, int32_t out_kind, int64_t outer, int64_t n, int64_t inner);
/* prod over the middle dim of [outer, n, inner]: float32 in float32, or integers and bools
 * (kind as for sc_k_sum_i64) into int64. */
void sc_k_logsumexp_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner);
void sc_k_prod_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner);
void sc_k_prod_i64(const void *x, int64_t *y, int32_t kind, int64_t outer, int64_t n, int64_t inner);
void sc_k_vector_norm_finish_f32(float *y, int64_t n, double ord);
/* y[i] = sqrt(y[i]): std from var */
void sc_k_sqrt_f32(float *y, int64_t n);
/* ---- running products and extremes (cumulative.c) ---- */
void sc_k_cumprod_f32(const float *x, float *y, int64_t outer, int64_t n, int64_t inner);
void sc_k_cumprod_i64(const void *x, int64_t *y, int32_t kind, int64_t outer, int64_t n, int64_t inner);
void sc_k_cum_extreme(const void *x, void *values, int64_t *indices, int32_t kind, int32_t is_min, int64_t outer,
                      int64_t n, int64_t inner);
/* ---- Kronecker and outer products (kron.c) ---- */
void sc_k_kron(const void *a, const void *b, void *out, int32_t kind, int32_t rank, const int64_t *a_shape,
               const int64_t *b_shape);
/* ---- col2im (fold.c) ---- */
/* x [planes * kh * kw, bh * bw] (planes = n * c) summed into y [planes, h, w]: column
 * (c, i, j) of block (by, bx) lands on (by * sh - ph + i * dh, bx * sw - pw + j * dw) where
 * that is inside, in ATen's order. */
void sc_k_col2im_f32(const float *x, float *y, int64_t planes, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t dh,
                     int64_t dw, int64_t ph, int64_t pw, int64_t sh, int64_t sw, int64_t bh, int64_t bw);
/* im2col: x [planes, h, w] into y [planes * kh * kw, bh * bw], 0 where a block reaches into
 * the padding (the same arguments) */
void sc_k_im2col_f32(const float *x, float *y, int64_t planes, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t dh,
                     int64_t dw, int64_t ph, int64_t pw, int64_t sh, int64_t sw, int64_t bh, int64_t bw);
/* ---- special functions (special_functions.c) ---- */
double sc_erfinv(double y);
float sc_erfinvf(float y);
double sc_digamma(double x);
float sc_digammaf(float x);
void sc_k_reduce_f32(const float *x, float *y, int32_t ndim, const int64_t *shape, const int32_t *reduce, int32_t op,
                     double correction);
/* The sum of integers or bools over the reduced dims, in int64 (torch's sum of a bool or
 * integer tensor); kind: 0 bool or uint8, 1 int8, 2 int16, 3 int32, 4 int64. */
void sc_k_sum_i64(const void *x, int64_t *y, int32_t kind, int32_t ndim, const int64_t *shape, const int32_t *reduce);
void sc_k_arg_reduce_int(const void *x, void *values, int64_t *indices, int64_t outer, int64_t n, int64_t inner,
                         int32_t kind, int32_t is_min);
void sc_k_arg_reduce_f32(const float *x, float *values, int64_t *indices, int64_t outer, int64_t n, int64_t inner,
                         int32_t is_min);

/* state handles (state.c): the calls cg_state.c's functions make */
void *const *sc_rt_state_buffers(const sc_rt_state_table *t);
int sc_rt_state_enter(const sc_rt_state_table *t, struct shapec_model_state *s, void *const **prev, char *err,
                      size_t errlen);
void sc_rt_state_leave(void *const *prev);
int32_t sc_rt_state_count(const sc_rt_state_table *t);
const char *sc_rt_state_name(const sc_rt_state_table *t, int32_t i);
struct shapec_model_state *sc_rt_state_new(const sc_rt_state_table *t);
void sc_rt_state_free(const sc_rt_state_table *t, struct shapec_model_state *s);
int sc_rt_state_reset(const sc_rt_state_table *t, struct shapec_model_state *s);
int sc_rt_state_tensor(const sc_rt_state_table *t, struct shapec_model_state *s, int32_t i, shapec_tensor *out);

#endif
