/* onednn.c - 2-D convolutions through oneDNN, the engine PyTorch itself uses on the CPU.
 *
 * Measured on resnet18's twenty convolutions at batch 1 on one core (Intel Xeon VM,
 * AVX-512): im2col + OpenBLAS 28.1 ms, oneDNN's brgconv kernels 16.8 ms including the
 * reorders of activations in and out of its blocked layout.  Its kernels want the weights
 * in a blocked layout that depends on the CPU's instruction sets and on the problem, so
 * constant weights are laid out once, on the first call of each shape class, and kept
 * (never repacked per call, as OpenBLAS does); a weight the program computes or takes as
 * an input is laid out per call.
 *
 * Each convolution of the program has a site: the plans made for the input shapes it
 * has seen (a primitive and its reorders), kept for the life of the process.  A site
 * holds at most SITE_PLANS of them; a shape beyond that gets a plan made and destroyed
 * within its call, so no plan is ever freed while another call may run it.
 *
 * libdnnl.so.2 is loaded on first use, like OpenBLAS.  Without it, for small problems (the
 * fixed cost of the reorders and memory objects is a few microseconds), or when oneDNN
 * declines a problem, the built-in kernel (nn.c) runs.  SHAPEC_ONEDNN=0 turns this path
 * off, SHAPEC_ONEDNN=always takes it for every size (tests use it), and
 * SHAPEC_ONEDNN_WINOGRAD=0 keeps 3x3 convolutions on the direct kernels. */
#include <dlfcn.h>
#include <stdlib.h>
#include <oneapi/dnnl/dnnl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

/* ---- the part of oneDNN's C API this file calls, resolved by dlsym ---- */
#define DNNL_FUNCTIONS(X)                                                                                             \
  X(dnnl_engine_create)                                                                                               \
  X(dnnl_stream_create)                                                                                               \
  X(dnnl_stream_wait)                                                                                                 \
  X(dnnl_memory_desc_init_by_tag)                                                                                     \
  X(dnnl_memory_desc_init_by_strides)                                                                                 \
  X(dnnl_matmul_desc_init)                                                                                            \
  X(dnnl_primitive_attr_set_output_scales)                                                                            \
  X(dnnl_memory_desc_get_size)                                                                                        \
  X(dnnl_memory_desc_equal)                                                                                           \
  X(dnnl_memory_create)                                                                                               \
  X(dnnl_memory_destroy)                                                                                              \
  X(dnnl_dilated_convolution_forward_desc_init)                                                                       \
  X(dnnl_pooling_v2_forward_desc_init)                                                                                \
  X(dnnl_inner_product_forward_desc_init)                                                                             \
  X(dnnl_primitive_attr_create)                                                                                       \
  X(dnnl_primitive_attr_destroy)                                                                                      \
  X(dnnl_primitive_attr_set_scratchpad_mode)                                                                          \
  X(dnnl_primitive_attr_set_post_ops)                                                                                 \
  X(dnnl_post_ops_create)                                                                                             \
  X(dnnl_post_ops_destroy)                                                                                            \
  X(dnnl_post_ops_append_eltwise)                                                                                     \
  X(dnnl_post_ops_append_sum)                                                                                         \
  X(dnnl_primitive_desc_create)                                                                                       \
  X(dnnl_primitive_desc_destroy)                                                                                      \
  X(dnnl_primitive_desc_query_md)                                                                                     \
  X(dnnl_primitive_desc_query)                                                                                        \
  X(dnnl_reorder_primitive_desc_create)                                                                               \
  X(dnnl_primitive_create)                                                                                            \
  X(dnnl_primitive_destroy)                                                                                           \
  X(dnnl_primitive_execute)                                                                                            \
  X(dnnl_sgemm)

static struct {
#define DECLARE(name) __typeof__(name) *name;
  DNNL_FUNCTIONS(DECLARE)
#undef DECLARE
  void (*omp_set_num_threads)(int);
  int (*omp_get_max_threads)(void);
  dnnl_engine_t engine;
  int mode;      /* 0 off, 1 large problems, 2 always */
  bool winograd; /* SHAPEC_ONEDNN_WINOGRAD=0 turns it off */
} dnnl;

static pthread_once_t once = PTHREAD_ONCE_INIT;

enum { MIN_MACS = 1 << 16 }; /* below this the built-in kernel is as fast (fixed costs) */

/* C = alpha op(A) op(B) + beta C, row-major, by oneDNN's sgemm on the calling thread alone:
 * one part of a product that the library's pool splits (gemm.c), where the process's
 * OpenBLAS runs slower kernels than this CPU's (sc_rt_blas_slow).  A part's result does not
 * depend on the thread count, as with OpenBLAS. */
static bool part_sgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                       int64_t lda, const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
  int callers = dnnl.omp_set_num_threads ? dnnl.omp_get_max_threads() : 1;
  if (callers != 1) dnnl.omp_set_num_threads(1);
  bool ok = dnnl.dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) ==
            dnnl_success;
  if (callers != 1) dnnl.omp_set_num_threads(callers);
  return ok;
}

static void load(void) {
  const char *env = getenv("SHAPEC_ONEDNN");
  if (env && strcmp(env, "0") == 0) return;
  /* libdnnl brings libgomp, whose idle workers spin for a long while after each parallel
   * region (GOMP_SPINCOUNT 300,000 by default) and take the core from the library's own
   * pool in the elementwise loops between layers: the encoder block at batch 8 on two
   * threads took 11.1 ms so, 7.9 ms with 10,000.  And when another process is busy on one
   * of the cores, a thread spinning there waits out the other's time slice before the next
   * region can start: with a busy loop on CPU 1 (bench/contention.py, Zen 5) resnet18 at
   * batch 1 on two threads took 32 ms at 10,000 (13 ms on one thread), 17 ms at 1,000,
   * which costs nothing measurable on idle cores (resnet18 at batch 8: 49.6 and 49.0 ms,
   * the encoder 8.0 and 8.1 ms).  Only when the user set neither variable and no libgomp
   * is loaded yet (it reads them once, when loaded). */
  if (!getenv("GOMP_SPINCOUNT") && !getenv("OMP_WAIT_POLICY") && !dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD))
    setenv("GOMP_SPINCOUNT", "1000", 0);
  void *h = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!h) return;
#define RESOLVE(name)                                                                                                 \
  if (!(dnnl.name = (__typeof__(name) *)dlsym(h, #name))) return;
  DNNL_FUNCTIONS(RESOLVE)
#undef RESOLVE
  /* libdnnl runs its loops on OpenMP (libgomp, loaded with it) */
  dnnl.omp_set_num_threads = (void (*)(int))dlsym(h, "omp_set_num_threads");
  dnnl.omp_get_max_threads = (int (*)(void))dlsym(h, "omp_get_max_threads");
  if (!dnnl.omp_set_num_threads || !dnnl.omp_get_max_threads) dnnl.omp_set_num_threads = NULL;
  if (dnnl.dnnl_engine_create(&dnnl.engine, dnnl_cpu, 0) != dnnl_success) return;
  dnnl.mode = env && strcmp(env, "always") == 0 ? 2 : 1;
  /* from now on the pool's loops run on OpenMP's team too */
  sc_rt_openmp_parallel parallel = (sc_rt_openmp_parallel)dlsym(h, "GOMP_parallel");
  if (parallel && dnnl.omp_set_num_threads) sc_rt_pool_join_openmp(parallel);
  const char *wino = getenv("SHAPEC_ONEDNN_WINOGRAD");
  dnnl.winograd = !(wino && strcmp(wino, "0") == 0);
  sc_rt_blas_set_backup(part_sgemm);
}

void sc_rt_onednn_load(void) { pthread_once(&once, load); }

void sc_rt_onednn_load_for_products(void) {
  if (sc_rt_blas_slow()) pthread_once(&once, load);
}

/* OpenMP's team for a oneDNN primitive: the library's team now (threads.c: less a core
 * another process holds), but one thread in a child forked after the parent computed:
 * libgomp's workers did not survive the fork, and a team of more than one would wait for
 * them forever.  Plans are kept per team size. */
static int openmp_threads(void) { return sc_rt_pool_in_forked_child() ? 1 : sc_rt_team_threads(); }

/* ---- plans: what one input shape of one convolution needs ---- */
typedef struct conv_shape {
  int64_t n, c, h, w, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow, act;
  int64_t threads; /* oneDNN divides the work when it makes a primitive, for the thread count then */
  intptr_t src_layout; /* the layout the source came in (a plan's dst_md), 0 for NCHW */
  int64_t dst_layout;  /* 1: the output may go in the kernel's layout */
  int64_t has_bias;
  int64_t has_residual; /* the output plus a tensor of its shape (a sum post-op) */
  intptr_t residual_layout; /* the layout the residual came in (a plan's dst_md), 0 for NCHW / row-major */
  int64_t bf16; /* a linear layer whose operands hold bfloat16 numbers: computed in bfloat16 (sc_k_linear_site_bf16) */
  int64_t dst_bf16; /* a bfloat16 convolution whose output is rounded to bfloat16: the kernel writes bfloat16 */
  int64_t upright;  /* a linear layer whose weights are stored [k, n] (addmm's): laid out from that */
} conv_shape; /* no padding bytes: compared with memcmp */

typedef struct plan {
  conv_shape key;
  dnnl_primitive_t conv, src_in, dst_out, weights_in; /* reorders: NULL when the layout is already compact */
  dnnl_primitive_t residual_in; /* the residual into the output's layout, NULL when it is already */
  dnnl_memory_desc_t src_user, dst_user, weights_user, bias_md, residual_user;
  dnnl_memory_desc_t src_md, dst_md, weights_md, scratch_md;
  size_t src_bytes, dst_bytes, weights_bytes, scratch_bytes;
  bool dst_in_kernel_layout; /* the output is written in dst_md for the next convolution */
  bool sums_residual;        /* the output starts as its residual (a sum post-op) */
  bool epilogue_after;       /* a linear layer's bias, activation and residual follow the product (run_plan) */
  float *weights;            /* constant weights in weights_md, laid out once (NULL: per call) */
  const float *weights_from; /* the constant they were laid out from */
} plan;

enum { SITE_PLANS = 8 };

/* A linear layer's constant weights [n, k] copied upright ([k, n]) for the built-in tiny
 * product (gemm.c), which would otherwise copy them so on every call: 40% of the tiny
 * attention's in-projection. */
typedef struct upright_weights {
  const float *from;
  int64_t n, k;
  float data[];
} upright_weights;

typedef struct site {
  pthread_mutex_t lock;
  int n_plans;
  plan plans[SITE_PLANS];
  _Atomic(upright_weights *) upright; /* made once, then only read */
} site;

static void destroy_plan(plan *p) {
  if (p->conv) dnnl.dnnl_primitive_destroy(p->conv);
  if (p->src_in) dnnl.dnnl_primitive_destroy(p->src_in);
  if (p->dst_out) dnnl.dnnl_primitive_destroy(p->dst_out);
  if (p->weights_in) dnnl.dnnl_primitive_destroy(p->weights_in);
  if (p->residual_in) dnnl.dnnl_primitive_destroy(p->residual_in);
  memset(p, 0, sizeof *p);
}

/* A reorder from one layout to another, or NULL (and success) when they are the same. */
static bool make_reorder(const dnnl_memory_desc_t *from, const dnnl_memory_desc_t *to, dnnl_primitive_t *out) {
  *out = NULL;
  if (dnnl.dnnl_memory_desc_equal(from, to)) return true;
  dnnl_primitive_desc_t pd;
  if (dnnl.dnnl_reorder_primitive_desc_create(&pd, from, dnnl.engine, to, dnnl.engine, NULL) != dnnl_success) return false;
  bool ok = dnnl.dnnl_primitive_create(out, pd) == dnnl_success;
  dnnl.dnnl_primitive_desc_destroy(pd);
  return ok;
}

/* The convolution's primitive descriptor for a source in src's layout (format "any": the
 * kernel's choice), or NULL. */
static bool reference_kernel(const_dnnl_primitive_desc_t pd);

static dnnl_primitive_desc_t conv_desc(const conv_shape *k, dnnl_alg_kind_t alg, const dnnl_memory_desc_t *src,
                                       const dnnl_memory_desc_t *bias) {
  int64_t g = k->groups;
  dnnl_dims_t dst = {k->n, k->o, k->oh, k->ow}, weights = {g, k->o / g, k->c / g, k->kh, k->kw};
  /* oneDNN counts dilation from 0; the right padding is the one that gives torch's output size */
  dnnl_dims_t strides = {k->sh, k->sw}, dilates = {k->dh - 1, k->dw - 1}, pad_l = {k->ph, k->pw};
  dnnl_dims_t pad_r = {(k->oh - 1) * k->sh + (k->kh - 1) * k->dh + 1 - k->h - k->ph,
                       (k->ow - 1) * k->sw + (k->kw - 1) * k->dw + 1 - k->w - k->pw};
  dnnl_memory_desc_t dst_any, weights_any;
  dnnl_convolution_desc_t cd;
  if (dnnl.dnnl_memory_desc_init_by_tag(&dst_any, 4, dst, k->dst_bf16 ? dnnl_bf16 : dnnl_f32, dnnl_format_tag_any) !=
          dnnl_success ||
      dnnl.dnnl_memory_desc_init_by_tag(&weights_any, 5, weights, k->bf16 ? dnnl_bf16 : dnnl_f32,
                                        dnnl_format_tag_any) != dnnl_success ||
      dnnl.dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference, alg, src,
                                                     &weights_any, bias, &dst_any, strides, dilates, pad_l,
                                                     pad_r) != dnnl_success)
    return NULL;
  dnnl_primitive_attr_t attr;
  if (dnnl.dnnl_primitive_attr_create(&attr) != dnnl_success) return NULL;
  dnnl_post_ops_t post = NULL;
  bool ok = dnnl.dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user) == dnnl_success;
  /* relu(conv(x) + residual): the residual is what the output holds when the kernel starts */
  if (ok && (k->has_residual || k->act != SC_ACT_NONE)) {
    ok = dnnl.dnnl_post_ops_create(&post) == dnnl_success;
    if (ok && k->has_residual) ok = dnnl.dnnl_post_ops_append_sum(post, 1.0f) == dnnl_success;
    if (ok && k->act != SC_ACT_NONE) {
      /* swish(x) = x sigmoid(alpha x); hardswish(x) = x relu6(x + 3) / 6, as torch's */
      dnnl_alg_kind_t kind = k->act == SC_ACT_RELU    ? dnnl_eltwise_relu
                             : k->act == SC_ACT_RELU6 ? dnnl_eltwise_clip_v2
                             : k->act == SC_ACT_SILU  ? dnnl_eltwise_swish
                                                      : dnnl_eltwise_hardswish;
      float alpha = k->act == SC_ACT_SILU ? 1.0f : 0.0f, beta = k->act == SC_ACT_RELU6 ? 6.0f : 0.0f;
      ok = dnnl.dnnl_post_ops_append_eltwise(post, 1.0f, kind, alpha, beta) == dnnl_success;
    }
    ok = ok && dnnl.dnnl_primitive_attr_set_post_ops(attr, post) == dnnl_success;
  }
  dnnl_primitive_desc_t pd = NULL;
  if (ok && dnnl.dnnl_primitive_desc_create(&pd, &cd, attr, dnnl.engine, NULL) != dnnl_success) pd = NULL;
  if (post) dnnl.dnnl_post_ops_destroy(post);
  dnnl.dnnl_primitive_attr_destroy(attr);
  return pd;
}

static bool finish_plan(plan *p, dnnl_primitive_desc_t pd, size_t dst_capacity);
static int kernel_rank(const_dnnl_primitive_desc_t pd);

/* A plan for shape k whose source is in src_given's layout (NULL: NCHW) and whose output
 * goes in the kernel's layout when that fits dst_capacity bytes (0: NCHW). */
static bool make_plan(plan *p, const conv_shape *k, const dnnl_memory_desc_t *src_given, size_t dst_capacity) {
  memset(p, 0, sizeof *p);
  p->key = *k;
  int64_t g = k->groups;
  dnnl_dims_t src = {k->n, k->c, k->h, k->w}, dst = {k->n, k->o, k->oh, k->ow}, bias = {k->o};
  dnnl_dims_t weights = {g, k->o / g, k->c / g, k->kh, k->kw};
  dnnl_memory_desc_t src_any;
  bool ok = dnnl.dnnl_memory_desc_init_by_tag(&p->src_user, 4, src, dnnl_f32, dnnl_nchw) == dnnl_success &&
            dnnl.dnnl_memory_desc_init_by_tag(&p->dst_user, 4, dst, dnnl_f32, dnnl_nchw) == dnnl_success &&
            dnnl.dnnl_memory_desc_init_by_tag(&p->weights_user, 5, weights, dnnl_f32, dnnl_goihw) == dnnl_success &&
            dnnl.dnnl_memory_desc_init_by_tag(&p->bias_md, 1, bias, dnnl_f32, dnnl_x) == dnnl_success &&
            dnnl.dnnl_memory_desc_init_by_tag(&src_any, 4, src, k->bf16 ? dnnl_bf16 : dnnl_f32,
                                              dnnl_format_tag_any) == dnnl_success;
  if (!ok) return false;
  if (src_given) p->src_user = *src_given;
  if (k->bf16) { /* bfloat16 operands: the float32 source (in any layout) converted, exactly, by the source reorder */
    dnnl_primitive_desc_t pd = conv_desc(k, dnnl_convolution_direct, &src_any, k->has_bias ? &p->bias_md : NULL);
    if (pd && reference_kernel(pd)) { /* no bfloat16 kernel here: the float32 ones are faster */
      dnnl.dnnl_primitive_desc_destroy(pd);
      pd = NULL;
    }
    return pd && finish_plan(p, pd, dst_capacity);
  }
  const dnnl_memory_desc_t *bias_md = k->has_bias ? &p->bias_md : NULL;
  dnnl_primitive_desc_t pd = NULL;
  /* Winograd's F(2x2, 3x3) for the 3x3 stride-1 convolutions that have one (AVX-512): 2.25x
   * fewer multiplications, as accurate as the direct kernel against a double-precision
   * reference (measured 3e-7 to 3e-6 of the output's scale for both); resnet18's
   * convolutions at batch 8 took 139 ms direct, 83 ms with it, on one core. */
  bool winograd = dnnl.winograd && k->kh == 3 && k->kw == 3 && k->sh == 1 && k->sw == 1 && k->dh == 1 && k->dw == 1 &&
                  k->groups == 1 && k->oh * k->ow >= 100;
  if (winograd && src_given) pd = conv_desc(k, dnnl_convolution_winograd, src_given, bias_md);
  if (winograd && !pd) pd = conv_desc(k, dnnl_convolution_winograd, &src_any, bias_md);
  /* read the source where it is when the kernel can, else let it choose and reorder */
  if (!pd && src_given) {
    pd = conv_desc(k, dnnl_convolution_direct, src_given, bias_md);
    dnnl_primitive_desc_t chosen = pd ? conv_desc(k, dnnl_convolution_direct, &src_any, bias_md) : NULL;
    if (chosen && kernel_rank(chosen) > kernel_rank(pd)) { /* a better kernel reads another layout */
      dnnl.dnnl_primitive_desc_destroy(pd);
      pd = chosen;
    } else if (chosen) {
      dnnl.dnnl_primitive_desc_destroy(chosen);
    }
  }
  if (!pd) pd = conv_desc(k, dnnl_convolution_direct, &src_any, bias_md);
  if (!pd) return false;
  return finish_plan(p, pd, dst_capacity);
}

/* A primitive descriptor's memory descriptor `what`, all zeros (0 bytes) when it has none. */
static dnnl_memory_desc_t query_md(const_dnnl_primitive_desc_t pd, dnnl_query_t what) {
  const dnnl_memory_desc_t *md = dnnl.dnnl_primitive_desc_query_md(pd, what, 0);
  dnnl_memory_desc_t none;
  memset(&none, 0, sizeof none);
  return md ? *md : none;
}

/* The implementation oneDNN chose, as its verbose log names it ("brgconv:avx512_core"). */
static const char *kernel_name(const_dnnl_primitive_desc_t pd) {
  const char *impl = NULL;
  return dnnl.dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success && impl ? impl : "";
}

/* Whether oneDNN chose its reference implementation ("ref:any"), which it falls back to
 * where no optimized kernel takes the layouts: a plain loop nest.  For a product that is
 * far slower than the runtime's own path (a [64, 128, 64] by [64, 64, 128] product took
 * 1.8 s in it against 2 ms in OpenBLAS), so no such product plan is made. */
static bool reference_kernel(const_dnnl_primitive_desc_t pd) { return strncmp(kernel_name(pd), "ref", 3) == 0; }

/* How fast a kind of convolution kernel is, by the instructions it uses: the reference loop
 * nest 0, oneDNN's GEMM-based one 1, SSE 2, AVX and AVX2 3, AVX-512 4.  A convolution is
 * offered its source in the layout the previous one wrote, and some layouts only have
 * slower kernels: groups of 8 channels in NHWC only the reference one on AVX-512
 * (regnet_y_400mf took 17x PyTorch's time), and the 8-channel blocks a grouped AVX2 kernel
 * writes only AVX2 kernels for the 1x1 convolutions after it (resnext50: 145 ms of them
 * at batch 2).  Where oneDNN's own choice of layout has a faster kind, the plan takes it and
 * reorders the source. */
static int kernel_rank(const_dnnl_primitive_desc_t pd) {
  const char *impl = kernel_name(pd);
  if (strncmp(impl, "ref", 3) == 0) return 0;
  if (strstr(impl, "avx512")) return 4;
  if (strstr(impl, "avx")) return 3;
  if (strstr(impl, "sse")) return 2;
  if (strstr(impl, "gemm")) return 1;
  return 3;
}

/* The memory descriptors, primitive and reorders of a plan whose user layouts are set,
 * from its primitive descriptor (destroyed here). */
static bool finish_plan(plan *p, dnnl_primitive_desc_t pd, size_t dst_capacity) {
  bool ok;
  p->src_md = query_md(pd, dnnl_query_src_md);
  p->dst_md = query_md(pd, dnnl_query_dst_md);
  p->weights_md = query_md(pd, dnnl_query_weights_md); /* a pooling's: empty, 0 bytes */
  p->scratch_md = query_md(pd, dnnl_query_scratchpad_md);
  p->src_bytes = dnnl.dnnl_memory_desc_get_size(&p->src_md);
  p->dst_bytes = dnnl.dnnl_memory_desc_get_size(&p->dst_md);
  p->weights_bytes = dnnl.dnnl_memory_desc_get_size(&p->weights_md);
  p->scratch_bytes = dnnl.dnnl_memory_desc_get_size(&p->scratch_md);
  /* the residual comes in the layout its producer wrote, or as the output would be without
   * the kernel's layout (NCHW, a linear layer's rows) */
  p->residual_user = p->key.residual_layout ? *(const dnnl_memory_desc_t *)p->key.residual_layout : p->dst_user;
  p->sums_residual = p->key.has_residual && !p->epilogue_after;
  if (dst_capacity && p->dst_bytes <= dst_capacity) {
    p->dst_user = p->dst_md; /* the next convolution reads it as it is */
    p->dst_in_kernel_layout = true;
  }
  ok = dnnl.dnnl_primitive_create(&p->conv, pd) == dnnl_success;
  dnnl.dnnl_primitive_desc_destroy(pd);
  ok = ok && make_reorder(&p->src_user, &p->src_md, &p->src_in) && make_reorder(&p->dst_md, &p->dst_user, &p->dst_out) &&
       make_reorder(&p->weights_user, &p->weights_md, &p->weights_in) &&
       (!p->sums_residual || make_reorder(&p->residual_user, &p->dst_md, &p->residual_in));
  if (!ok) destroy_plan(p);
  return ok;
}

/* ---- running a plan ---- */
typedef struct call_memory {
  dnnl_memory_t m[12]; /* at most 9 in run_plan */
  int n;
} call_memory;

static dnnl_memory_t wrap(call_memory *cm, const dnnl_memory_desc_t *md, const void *data) {
  dnnl_memory_t m = NULL;
  if (dnnl.dnnl_memory_create(&m, md, dnnl.engine, (void *)data) != dnnl_success) return NULL;
  cm->m[cm->n++] = m;
  return m;
}

/* One stream per calling thread: a oneDNN stream is not to be shared between threads. */
static __thread dnnl_stream_t thread_stream;

static bool execute(dnnl_primitive_t prim, int nargs, const dnnl_exec_arg_t *args) {
  sc_rt_pool_yield_begin(); /* OpenMP's team computes now: the pool's workers sleep */
  bool ok = dnnl.dnnl_primitive_execute(prim, thread_stream, nargs, args) == dnnl_success;
  sc_rt_pool_yield_end();
  return ok;
}

static bool reorder(dnnl_primitive_t prim, dnnl_memory_t from, dnnl_memory_t to) {
  dnnl_exec_arg_t a[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
  return execute(prim, 2, a);
}

/* Lays the constant weights out once for the plan, sharing another plan's copy when the
 * layout is the same.  Called with the site's lock held. */
static bool lay_out_weights(site *s, plan *p, const float *w) {
  if (!p->weights_in) return true; /* the convolution reads the weights as they are */
  for (int i = 0; i < s->n_plans; i++) {
    plan *q = &s->plans[i];
    if (q != p && q->weights && q->weights_from == w && dnnl.dnnl_memory_desc_equal(&q->weights_md, &p->weights_md)) {
      p->weights = q->weights;
      p->weights_from = w;
      return true;
    }
  }
  float *laid = aligned_alloc(64, (p->weights_bytes + 63) / 64 * 64);
  if (!laid) return false;
  call_memory cm = {.n = 0};
  dnnl_memory_t from = wrap(&cm, &p->weights_user, w), to = wrap(&cm, &p->weights_md, laid);
  bool ok = from && to && reorder(p->weights_in, from, to) && dnnl.dnnl_stream_wait(thread_stream) == dnnl_success;
  for (int i = 0; i < cm.n; i++) dnnl.dnnl_memory_destroy(cm.m[i]);
  if (!ok) {
    free(laid);
    return false;
  }
  p->weights = laid;
  p->weights_from = w;
  return true;
}

enum { RAN, NOT_RAN, OUT_OF_MEMORY }; /* NOT_RAN: the built-in kernel runs instead */

/* Runs p; laid: the constant weights already in p's layout, or NULL to lay w out for this call. */
static int run_plan(const plan *p, const float *laid, const float *x, const float *w, const float *bias,
                    const float *residual, float *y) {
  const float *after_bias = bias, *after_residual = residual;
  if (p->epilogue_after) bias = residual = NULL; /* the product alone, then the runtime's pass */
  call_memory cm = {.n = 0};
  float *src_buf = NULL, *dst_buf = NULL, *w_buf = NULL, *scratch = NULL;
  int rc = OUT_OF_MEMORY;
  if ((p->src_in && !(src_buf = sc_rt_alloc((int64_t)p->src_bytes))) ||
      (p->dst_out && !(dst_buf = sc_rt_alloc((int64_t)p->dst_bytes))) ||
      (p->weights_in && !laid && !(w_buf = sc_rt_alloc((int64_t)p->weights_bytes))) ||
      (p->scratch_bytes && !(scratch = sc_rt_alloc((int64_t)p->scratch_bytes))))
    goto done;
  rc = NOT_RAN; /* until everything below succeeds */
  dnnl_memory_t src = wrap(&cm, &p->src_md, src_buf ? src_buf : x);
  dnnl_memory_t dst = wrap(&cm, &p->dst_md, dst_buf ? dst_buf : y);
  dnnl_memory_t weights = p->weights_bytes ? wrap(&cm, &p->weights_md, laid ? laid : w_buf ? w_buf : w) : NULL;
  dnnl_memory_t b = bias ? wrap(&cm, &p->bias_md, bias) : NULL;
  dnnl_memory_t sp = p->scratch_bytes ? wrap(&cm, &p->scratch_md, scratch) : NULL;
  if (!src || !dst || (p->weights_bytes && !weights) || (bias && !b) || (p->scratch_bytes && !sp)) goto done;
  if (p->src_in) {
    dnnl_memory_t user = wrap(&cm, &p->src_user, x);
    if (!user || !reorder(p->src_in, user, src)) goto done;
  }
  if (w_buf) {
    dnnl_memory_t user = wrap(&cm, &p->weights_user, w);
    if (!user || !reorder(p->weights_in, user, weights)) goto done;
  }
  dnnl_exec_arg_t args[5];
  int nargs = 0;
  args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_SRC, src};
  if (weights) args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_WEIGHTS, weights}; /* none for a pooling */
  args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_DST, dst};
  if (b) args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, b};
  if (sp) args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, sp};
  /* the sum post-op adds what the output holds: the residual, in the output's layout */
  if (p->sums_residual && p->residual_in) {
    dnnl_memory_t user = wrap(&cm, &p->residual_user, residual);
    if (!user || !reorder(p->residual_in, user, dst)) goto done;
  } else if (p->sums_residual && (dst_buf ? dst_buf : y) != residual) {
    memcpy(dst_buf ? dst_buf : y, residual, p->dst_bytes);
  }
  if (!execute(p->conv, nargs, args)) goto done;
  if (p->dst_out) {
    dnnl_memory_t user = wrap(&cm, &p->dst_user, y);
    if (!user || !reorder(p->dst_out, dst, user)) goto done;
  }
  if (dnnl.dnnl_stream_wait(thread_stream) != dnnl_success) goto done;
  rc = RAN;
  if (p->epilogue_after) sc_k_linear_epilogue_f32(y, after_bias, after_residual, p->key.n, p->key.o, (int32_t)p->key.act);
done:
  for (int i = 0; i < cm.n; i++) dnnl.dnnl_memory_destroy(cm.m[i]);
  sc_rt_free(src_buf);
  sc_rt_free(dst_buf);
  sc_rt_free(w_buf);
  sc_rt_free(scratch);
  return rc;
}

static site *site_of(void **slot) {
  site *s = atomic_load((_Atomic(site *) *)slot);
  if (s) return s;
  site *fresh = calloc(1, sizeof *fresh);
  if (!fresh) return NULL;
  pthread_mutex_init(&fresh->lock, NULL);
  site *expected = NULL;
  if (atomic_compare_exchange_strong((_Atomic(site *) *)slot, &expected, fresh)) return fresh;
  pthread_mutex_destroy(&fresh->lock);
  free(fresh);
  return expected;
}

static bool same_shape(const conv_shape *a, const conv_shape *b) { return memcmp(a, b, sizeof *a) == 0; }

/* Whether this CPU has bfloat16 dot products (AVX512-BF16, AMX), where oneDNN's bfloat16
 * kernels run from operands half the size; looked up once. */
static bool bf16_dot_products(void) {
  static int has = -1;
  if (has < 0) has = sc_rt_cpu_has("avx512_bf16", 11) == 1 || sc_rt_cpu_has("amx_bf16", 8) == 1;
  return has == 1;
}

typedef bool (*plan_maker)(plan *p, const conv_shape *key);

/* A convolution's plan: the source layout and whether the output may go in the kernel's
 * layout come with the key. */
static bool make_conv_plan(plan *p, const conv_shape *k) {
  int64_t block = SC_KERNEL_LAYOUT_CHANNELS;
  size_t capacity = k->dst_layout ? (size_t)(k->n * ((k->o + block - 1) / block * block) * k->oh * k->ow) * sizeof(float) : 0;
  return make_plan(p, k, (const dnnl_memory_desc_t *)k->src_layout, capacity);
}

/* Finds or makes the site's plan for key and runs it: RAN, NOT_RAN or OUT_OF_MEMORY.
 * *ran: the site's plan that ran (NULL for one made for this call alone, whose output is
 * never left in the kernel's layout). */
/* The site's plan for key, made now when the site has room: NULL when it has none or the
 * plan cannot be made. */
static const plan *site_plan(site *s, const conv_shape *key, int32_t weights_constant, const float *w, plan_maker make) {
  const plan *found = NULL;
  pthread_mutex_lock(&s->lock);
  for (int i = 0; i < s->n_plans && !found; i++)
    if (same_shape(&s->plans[i].key, key)) found = &s->plans[i];
  if (!found && s->n_plans < SITE_PLANS) {
    plan *p = &s->plans[s->n_plans];
    if (make(p, key)) {
      if (weights_constant && !lay_out_weights(s, p, w)) destroy_plan(p);
      else {
        s->n_plans++;
        found = p;
      }
    }
  }
  pthread_mutex_unlock(&s->lock);
  return found;
}

static int run_site(site *s, const conv_shape *key, int32_t weights_constant, const float *x, const float *w,
                    const float *bias, const float *residual, float *y, plan_maker make, const plan **ran) {
  const plan *found = site_plan(s, key, weights_constant, w, make);
  int rc = NOT_RAN;
  if (found) {
    /* constant weights laid out from another pointer are laid out again per call */
    const float *laid = found->weights && found->weights_from == w ? found->weights : NULL;
    rc = run_plan(found, laid, x, w, bias, residual, y);
    if (ran) *ran = found;
    return rc;
  }
  plan single; /* the site has no room left: a plan for this call alone */
  conv_shape alone = *key;
  alone.dst_layout = 0;
  if (make(&single, &alone)) {
    rc = run_plan(&single, NULL, x, w, bias, residual, y);
    destroy_plan(&single);
  }
  if (ran) *ran = NULL;
  return rc;
}

/* A copy in NCHW of a source that came in the kernel's layout md, for the built-in
 * kernel: *out (freed by the caller), or false. */
static bool to_nchw(const dnnl_memory_desc_t *md, const float *data, int64_t n, int64_t c, int64_t h, int64_t w,
                    float **out) {
  dnnl_dims_t dims = {n, c, h, w};
  dnnl_memory_desc_t plain;
  dnnl_primitive_t prim = NULL;
  *out = NULL;
  if (dnnl.dnnl_memory_desc_init_by_tag(&plain, 4, dims, dnnl_f32, dnnl_nchw) != dnnl_success ||
      !make_reorder(md, &plain, &prim) || !prim)
    return false;
  call_memory cm = {.n = 0};
  bool ok = false;
  if ((*out = sc_rt_alloc(n * c * h * w * (int64_t)sizeof(float)))) {
    dnnl_memory_t from = wrap(&cm, md, data), to = wrap(&cm, &plain, *out);
    ok = from && to && reorder(prim, from, to) && dnnl.dnnl_stream_wait(thread_stream) == dnnl_success;
  }
  for (int i = 0; i < cm.n; i++) dnnl.dnnl_memory_destroy(cm.m[i]);
  dnnl.dnnl_primitive_destroy(prim);
  return ok;
}

/* Tensors passed between convolutions (and max pools) come in a buffer with a header
 * naming their layout, then the elements (runtime_abi.h).  The layout a source came in
 * (NULL: NCHW); *data moves past the header. */
static const dnnl_memory_desc_t *source_layout(const float **data) {
  const dnnl_memory_desc_t *md = *(const dnnl_memory_desc_t *const *)*data;
  *data = (const float *)((const char *)*data + SC_KERNEL_LAYOUT_HEADER);
  return md;
}

/* An output's header, set to NCHW until a plan writes its own layout; *data moves past it. */
static const dnnl_memory_desc_t **output_header(float **data) {
  const dnnl_memory_desc_t **header = (const dnnl_memory_desc_t **)*data;
  *header = NULL;
  *data = (float *)((char *)*data + SC_KERNEL_LAYOUT_HEADER);
  return header;
}

/* The built-in kernel's residual: y = act(y + residual), the residual in NCHW. */
static void add_residual(float *y, const float *residual, int64_t count, int32_t act) {
  for (int64_t e = 0; e < count; e++) y[e] += residual[e];
  if (act != SC_ACT_NONE) sc_k_activation_f32(y, count, act);
}

int sc_k_conv2d_site_f32(void **slot, int32_t weights_constant, const float *x, const float *w, const float *bias,
                         float *y, int64_t n, int64_t c, int64_t h, int64_t wd, int64_t o, int64_t kh, int64_t kw,
                         int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw, int64_t groups, int64_t oh,
                         int64_t ow, int32_t act, const float *residual, int32_t layout) {
  bool bf16 = (layout & SC_CONV_BF16) && bf16_dot_products();
  int32_t round = layout & (SC_CONV_ROUND_BF16 | SC_CONV_ROUND_F16);
  layout &= ~(SC_CONV_BF16 | SC_CONV_ROUND_BF16 | SC_CONV_ROUND_F16);
  /* an empty output (an empty batch): nothing to compute, and no scratch sized for one
   * image, which a wide image would make gigabytes; its header still says NCHW */
  if (n == 0 || o == 0 || (!(layout & SC_CONV_MEAN_HW) && (oh == 0 || ow == 0))) {
    if (!(layout & SC_CONV_MEAN_HW) && (layout & SC_CONV_OUT_KERNEL_LAYOUT)) output_header(&y);
    return SHAPEC_OK;
  }
  pthread_once(&once, load);
  /* an activation the built-in kernels do not apply in registers: a pass over their output */
  int32_t act_after = SC_ACT_IN_CONV_KERNELS(act) ? SC_ACT_NONE : act, act_inner = act_after ? SC_ACT_NONE : act;
  if (layout & SC_CONV_MEAN_HW) { /* y is [n, o]: the output planes' means */
    layout &= ~SC_CONV_MEAN_HW;
    if (!layout && !residual && !round && dnnl.mode != 2 && !act_after &&
        sc_conv_pair_rows_fits(c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow, act)) {
      sc_conv_pair_rows_mean_f32(x, w, bias, y, n, c, h, wd, o, kh, kw, ph, pw, dh, dw, groups, oh, ow, act);
      return SHAPEC_OK;
    }
    /* any other convolution: its output in a block of its own, then the pool's own kernel */
    int64_t planes = n * o, plane = oh * ow;
    float *full = planes && plane ? sc_rt_alloc(planes * plane * (int64_t)sizeof(float)) : NULL;
    if (planes && plane && !full) return SHAPEC_ERR_MEMORY;
    int rc = sc_k_conv2d_site_f32(slot, weights_constant, x, w, bias, full, n, c, h, wd, o, kh, kw, sh, sw, ph, pw, dh,
                                  dw, groups, oh, ow, act, residual, layout | round | (bf16 ? SC_CONV_BF16 : 0));
    if (rc == SHAPEC_OK) sc_k_adaptive_avg_pool2d_f32(full, y, planes, oh, ow, 1, 1);
    sc_rt_free(full);
    return rc;
  }
  /* the smallest convolutions go straight to their kernel: the checks below were a tenth of
   * a tiny CNN's call.  Their source is in NCHW; an output that could have taken the
   * kernel's layout (a max pool or convolution reads it) is written in NCHW, as the
   * built-in kernels below write it, its header saying so. */
  bool nchw_in = !(layout & (SC_CONV_IN_KERNEL_LAYOUT | SC_CONV_RESIDUAL_KERNEL_LAYOUT)) && !residual && dnnl.mode != 2;
  if (nchw_in && sc_conv_gather_fits(c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow, act_inner)) {
    if (layout & SC_CONV_OUT_KERNEL_LAYOUT) output_header(&y);
    sc_conv_gather_f32(x, w, bias, y, n, c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow, act_inner);
    if (act_after) sc_k_activation_f32(y, n * o * oh * ow, act_after);
    if (round) sc_k_round_to_half_f32(y, n * o * oh * ow, round & SC_CONV_ROUND_BF16);
    return SHAPEC_OK;
  }
  if (nchw_in && sc_conv_pair_rows_fits(c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow, act_inner)) {
    if (layout & SC_CONV_OUT_KERNEL_LAYOUT) output_header(&y);
    sc_conv_pair_rows_f32(x, w, bias, y, n, c, h, wd, o, kh, kw, ph, pw, dh, dw, groups, oh, ow, act_inner);
    if (act_after) sc_k_activation_f32(y, n * o * oh * ow, act_after);
    if (round) sc_k_round_to_half_f32(y, n * o * oh * ow, round & SC_CONV_ROUND_BF16);
    return SHAPEC_OK;
  }
  const dnnl_memory_desc_t *src_layout = layout & SC_CONV_IN_KERNEL_LAYOUT ? source_layout(&x) : NULL;
  const dnnl_memory_desc_t **dst_header = NULL;
  size_t dst_capacity = 0;
  if (layout & SC_CONV_OUT_KERNEL_LAYOUT) {
    dst_header = output_header(&y);
    int64_t block = SC_KERNEL_LAYOUT_CHANNELS;
    dst_capacity = (size_t)(n * ((o + block - 1) / block * block) * oh * ow) * sizeof(float);
  }
  const dnnl_memory_desc_t *residual_layout =
      residual && (layout & SC_CONV_RESIDUAL_KERNEL_LAYOUT) ? source_layout(&residual) : NULL;
  int64_t macs = n * o * oh * ow * (c / (groups > 0 ? groups : 1)) * kh * kw;
  /* a source in the kernel's layout came from oneDNN, which must read it (or put it back in NCHW);
   * a convolution the direct kernel takes is faster there, unless every one must go to oneDNN */
  bool direct = dnnl.mode != 2 && sc_conv_direct_fits(c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, groups, oh, ow,
                                                      residual ? SC_ACT_NONE : act_inner);
  bool use = src_layout || residual_layout || (dnnl.mode == 2 ? macs > 0 : dnnl.mode == 1 && macs >= MIN_MACS && !direct);
  if (use && !thread_stream && dnnl.dnnl_stream_create(&thread_stream, dnnl.engine, dnnl_stream_default_flags) != dnnl_success)
    use = false;
  site *s = use ? site_of(slot) : NULL;
  int rc = NOT_RAN;
  /* OpenMP's thread count belongs to the calling thread, which may run other OpenMP code
   * (PyTorch sets it): the library's count for this call, then the caller's back */
  int threads = openmp_threads(), callers = s && dnnl.omp_set_num_threads ? dnnl.omp_get_max_threads() : threads;
  if (callers != threads) dnnl.omp_set_num_threads(threads);
  if (s) {
    conv_shape key = (conv_shape){n, c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow, act, threads,
                                  (intptr_t)src_layout, dst_capacity > 0, bias != NULL, residual != NULL,
                                  (intptr_t)residual_layout, bf16, bf16 && (round & SC_CONV_ROUND_BF16), 0};
    const plan *ran = NULL;
    rc = run_site(s, &key, weights_constant, x, w, bias, residual, y, make_conv_plan, &ran);
    if (rc == RAN && dst_header && ran && ran->dst_in_kernel_layout) *dst_header = &ran->dst_md;
    /* a kernel that wrote float32 (in its layout or NCHW): rounded here; one that wrote
     * bfloat16 rounded as it wrote */
    if (rc == RAN && round && !key.dst_bf16)
      sc_k_round_to_half_f32(y, ran && ran->dst_in_kernel_layout ? (int64_t)(ran->dst_bytes / sizeof(float)) : n * o * oh * ow,
                             round & SC_CONV_ROUND_BF16);
  }
  float *plain = NULL, *plain_residual = NULL;
  if (rc == NOT_RAN && src_layout) { /* the built-in kernel reads NCHW */
    if (!to_nchw(src_layout, x, n, c, h, wd, &plain)) rc = OUT_OF_MEMORY;
    x = plain;
  }
  if (rc == NOT_RAN && residual_layout) {
    if (!to_nchw(residual_layout, residual, n, o, oh, ow, &plain_residual)) rc = OUT_OF_MEMORY;
    residual = plain_residual;
  }
  if (callers != threads) dnnl.omp_set_num_threads(callers);
  if (rc == NOT_RAN && direct) { /* the fit test above, not again (it was 4% of a tiny CNN's call) */
    sc_conv_direct_f32(x, w, bias, y, n, c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow,
                       residual ? SC_ACT_NONE : act_inner);
    rc = SHAPEC_OK;
    if (residual) add_residual(y, residual, n * o * oh * ow, act);
    else if (act_after) sc_k_activation_f32(y, n * o * oh * ow, act_after);
    if (round) sc_k_round_to_half_f32(y, n * o * oh * ow, round & SC_CONV_ROUND_BF16);
  } else if (rc == NOT_RAN) {
    rc = sc_k_conv2d_act_f32(x, w, bias, y, n, c, h, wd, o, kh, kw, sh, sw, ph, pw, dh, dw, groups, oh, ow,
                             residual ? SC_ACT_NONE : act_inner);
    if (rc == SHAPEC_OK && residual) add_residual(y, residual, n * o * oh * ow, act);
    else if (rc == SHAPEC_OK && act_after) sc_k_activation_f32(y, n * o * oh * ow, act_after);
    if (rc == SHAPEC_OK && round) sc_k_round_to_half_f32(y, n * o * oh * ow, round & SC_CONV_ROUND_BF16);
  } else {
    rc = rc == RAN ? SHAPEC_OK : SHAPEC_ERR_MEMORY;
  }
  sc_rt_free(plain);
  sc_rt_free(plain_residual);
  return rc;
}

/* ---- max pooling of a tensor in the kernel's layout ----
 *
 * Between resnet's stem convolution and its first block sits a 3x3 max pool.  When its
 * input came in the kernel's blocked layout, oneDNN's pooling reads it there and writes
 * its output so too, for the convolutions after it (cg_conv_layout.c): no reorder to NCHW
 * and back, and the blocked channels are the vector lanes (resnet18 at batch 8, one core,
 * AVX2: the pool and its two reorders took 13.6 ms; see docs/benchmarks.md).  A source
 * in NCHW takes the built-in kernel (pool.c). */

/* The layouts the built-in kernel pools where they are: each pixel a vector of channels. */
static const dnnl_format_tag_t vector_layouts[3] = {dnnl_aBcd8b, dnnl_aBcd16b, dnnl_acdb}; /* nChw8c, nChw16c, NHWC */

/* Which of vector_layouts md is, or -1. */
static int vector_layout(const dnnl_memory_desc_t *md, int64_t n, int64_t c, int64_t h, int64_t w) {
  dnnl_dims_t dims = {n, c, h, w};
  for (int i = 0; i < 3; i++) {
    dnnl_memory_desc_t blocked;
    if (dnnl.dnnl_memory_desc_init_by_tag(&blocked, 4, dims, dnnl_f32, vector_layouts[i]) == dnnl_success &&
        dnnl.dnnl_memory_desc_equal(&blocked, md))
      return i;
  }
  return -1;
}

/* The built-in kernel's "plan" (groups -2, o the index in vector_layouts): only the
 * output's layout, the source's, which the header of the pooled tensor names. */
static bool make_blocked_pool_plan(plan *p, const conv_shape *k) {
  memset(p, 0, sizeof *p);
  p->key = *k;
  dnnl_dims_t dst = {k->n, k->c, k->oh, k->ow};
  if (dnnl.dnnl_memory_desc_init_by_tag(&p->dst_md, 4, dst, dnnl_f32, vector_layouts[k->o]) != dnnl_success)
    return false;
  int64_t block = SC_KERNEL_LAYOUT_CHANNELS;
  p->dst_bytes = dnnl.dnnl_memory_desc_get_size(&p->dst_md);
  p->dst_in_kernel_layout = true;
  return p->dst_bytes <= (size_t)(k->n * ((k->c + block - 1) / block * block) * k->oh * k->ow) * sizeof(float);
}

/* A plan for the key's pooling (groups -1) of a source in the key's layout. */
static bool make_pool_plan(plan *p, const conv_shape *k) {
  memset(p, 0, sizeof *p);
  p->key = *k;
  dnnl_dims_t dst = {k->n, k->c, k->oh, k->ow};
  dnnl_dims_t strides = {k->sh, k->sw}, kernel = {k->kh, k->kw}, dilation = {k->dh - 1, k->dw - 1}, pad_l = {k->ph, k->pw};
  dnnl_dims_t pad_r = {(k->oh - 1) * k->sh + (k->kh - 1) * k->dh + 1 - k->h - k->ph,
                       (k->ow - 1) * k->sw + (k->kw - 1) * k->dw + 1 - k->w - k->pw};
  p->src_user = *(const dnnl_memory_desc_t *)k->src_layout;
  dnnl_memory_desc_t dst_any;
  dnnl_pooling_v2_desc_t pool;
  /* a maximum of bfloat16 numbers is one of them: the kernel's layout keeps the source's type */
  if (dnnl.dnnl_memory_desc_init_by_tag(&p->dst_user, 4, dst, dnnl_f32, dnnl_nchw) != dnnl_success ||
      dnnl.dnnl_memory_desc_init_by_tag(&dst_any, 4, dst, p->src_user.data_type, dnnl_format_tag_any) != dnnl_success ||
      dnnl.dnnl_pooling_v2_forward_desc_init(&pool, dnnl_forward_inference, dnnl_pooling_max, &p->src_user, &dst_any,
                                             strides, kernel, dilation, pad_l, pad_r) != dnnl_success)
    return false;
  dnnl_primitive_attr_t attr;
  if (dnnl.dnnl_primitive_attr_create(&attr) != dnnl_success) return false;
  dnnl_primitive_desc_t pd = NULL;
  if (dnnl.dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user) != dnnl_success ||
      dnnl.dnnl_primitive_desc_create(&pd, &pool, attr, dnnl.engine, NULL) != dnnl_success)
    pd = NULL;
  dnnl.dnnl_primitive_attr_destroy(attr);
  int64_t block = SC_KERNEL_LAYOUT_CHANNELS;
  size_t capacity = k->dst_layout ? (size_t)(k->n * ((k->c + block - 1) / block * block) * k->oh * k->ow) * sizeof(float) : 0;
  return pd && finish_plan(p, pd, capacity);
}

int sc_k_max_pool2d_site_f32(void **slot, const float *x, float *y, int64_t n, int64_t c, int64_t h, int64_t wd,
                             int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw,
                             int64_t oh, int64_t ow, int32_t layout) {
  if (n == 0 || c == 0 || oh == 0 || ow == 0) { /* an empty output: its header alone */
    if (layout & SC_CONV_OUT_KERNEL_LAYOUT) output_header(&y);
    return SHAPEC_OK;
  }
  pthread_once(&once, load);
  const dnnl_memory_desc_t *src_layout = layout & SC_CONV_IN_KERNEL_LAYOUT ? source_layout(&x) : NULL;
  const dnnl_memory_desc_t **dst_header = layout & SC_CONV_OUT_KERNEL_LAYOUT ? output_header(&y) : NULL;
  int rc = NOT_RAN;
  /* only a source in the kernel's layout came from oneDNN, which is then loaded */
  if (src_layout && (thread_stream || dnnl.dnnl_stream_create(&thread_stream, dnnl.engine, dnnl_stream_default_flags) ==
                                          dnnl_success)) {
    site *s = site_of(slot);
    int threads = openmp_threads(), callers = dnnl.omp_set_num_threads ? dnnl.omp_get_max_threads() : threads;
    if (callers != threads) dnnl.omp_set_num_threads(threads);
    conv_shape key = {.n = n, .c = c, .h = h, .w = wd, .o = c, .kh = kh, .kw = kw, .sh = sh, .sw = sw, .ph = ph,
                      .pw = pw, .dh = dh, .dw = dw, .groups = -1, .oh = oh, .ow = ow, .threads = threads,
                      .src_layout = (intptr_t)src_layout, .dst_layout = dst_header != NULL};
    const plan *ran = NULL;
    /* nChw8c, nChw16c, NHWC into the same layout: the built-in kernel, which propagates NaN
     * as ATen does (oneDNN's pooling took 8.1 ms for resnet18's at batch 8 on one core,
     * AVX2; this kernel about 5 ms) */
    int layout_index = vector_layout(src_layout, n, c, h, wd);
    conv_shape own = key;
    own.groups = -2;
    own.o = layout_index;
    const plan *blocked = s && layout_index >= 0 && dst_header ? site_plan(s, &own, 0, NULL, make_blocked_pool_plan) : NULL;
    if (blocked) {
      int64_t lanes = layout_index == 0 ? 8 : layout_index == 1 ? 16 : c;
      int64_t planes = layout_index == 2 ? n : n * ((c + lanes - 1) / lanes);
      sc_k_max_pool2d_blocked_f32(x, y, planes, lanes, h, wd, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow);
      rc = RAN;
      ran = blocked;
    } else if (s) {
      rc = run_site(s, &key, 0, x, NULL, NULL, NULL, y, make_pool_plan, &ran);
    }
    if (callers != threads) dnnl.omp_set_num_threads(callers);
    if (rc == RAN && dst_header && ran && ran->dst_in_kernel_layout) *dst_header = &ran->dst_md;
  }
  float *plain = NULL;
  if (rc == NOT_RAN && src_layout) { /* the built-in kernel reads NCHW */
    if (!to_nchw(src_layout, x, n, c, h, wd, &plain)) rc = OUT_OF_MEMORY;
    x = plain;
  }
  if (rc == NOT_RAN) sc_k_max_pool2d_f32(x, y, NULL, n * c, h, wd, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow);
  sc_rt_free(plain);
  return rc == OUT_OF_MEMORY ? SHAPEC_ERR_MEMORY : SHAPEC_OK;
}

/* ---- linear layers: y = x w^T + bias through oneDNN's inner product ---- */

/* The inner product of x [m, k] and w [n, k] transposed alone (no bias, no post-ops), or
 * NULL when oneDNN has none. */
static dnnl_primitive_desc_t linear_desc(plan *p, const conv_shape *key) {
  dnnl_memory_desc_t weights_any, src = p->src_user;
  dnnl_dims_t weights = {key->o, key->c}, rows = {key->n, key->c};
  dnnl_data_type_t operands = key->bf16 ? dnnl_bf16 : dnnl_f32;
  dnnl_inner_product_desc_t ip;
  if ((key->bf16 && dnnl.dnnl_memory_desc_init_by_tag(&src, 2, rows, dnnl_bf16, dnnl_nc) != dnnl_success) ||
      dnnl.dnnl_memory_desc_init_by_tag(&weights_any, 2, weights, operands, dnnl_format_tag_any) != dnnl_success ||
      dnnl.dnnl_inner_product_forward_desc_init(&ip, dnnl_forward_inference, &src, &weights_any, NULL,
                                                &p->dst_user) != dnnl_success)
    return NULL;
  dnnl_primitive_attr_t attr;
  if (dnnl.dnnl_primitive_attr_create(&attr) != dnnl_success) return NULL;
  dnnl_primitive_desc_t pd = NULL;
  if (dnnl.dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user) != dnnl_success ||
      dnnl.dnnl_primitive_desc_create(&pd, &ip, attr, dnnl.engine, NULL) != dnnl_success)
    pd = NULL;
  dnnl.dnnl_primitive_attr_destroy(attr);
  return pd;
}

/* A plan for x [m, k] times w [n, k] transposed (the key's n, c and o); the weights in
 * the kernel's packed layout, the activations row-major.  oneDNN computes the product
 * alone; the bias, activation and residual follow in the runtime's one pass over each row
 * (sc_k_linear_epilogue_f32), which measured ahead of oneDNN's post-ops with either kernel:
 * - gemm-based (AVX2), which applies post-ops in passes of their own: a 128x256x1024
 *   layer took 0.65 ms alone and 0.78 with oneDNN's gelu_erf, whose cost the runtime's
 *   GELU cuts to 0.05; no residual copied into the output first, no bias pass (the encoder
 *   block at batch 1, one core: 2.43 -> 2.36 ms);
 * - brgemm (AVX-512), which applies them in registers: on an AMD EPYC (Zen 4) the
 *   1024x256x1024 layer took 5.71 ms with the gelu_erf post-op and 4.96 without, and the
 *   encoder block at batch 8, one core, 17.49 -> 17.19 ms (batch 1: 2.14 -> 2.09); on an
 *   Intel Xeon the two were within 1.5% of each other either way. */
static bool make_linear_plan(plan *p, const conv_shape *key) {
  memset(p, 0, sizeof *p);
  p->key = *key;
  dnnl_dims_t src = {key->n, key->c}, weights = {key->o, key->c}, dst = {key->n, key->o}, bias = {key->o};
  if (dnnl.dnnl_memory_desc_init_by_tag(&p->src_user, 2, src, dnnl_f32, dnnl_nc) != dnnl_success ||
      dnnl.dnnl_memory_desc_init_by_tag(&p->dst_user, 2, dst, dnnl_f32, dnnl_nc) != dnnl_success ||
      dnnl.dnnl_memory_desc_init_by_tag(&p->weights_user, 2, weights, dnnl_f32, key->upright ? dnnl_io : dnnl_oi) !=
          dnnl_success ||
      dnnl.dnnl_memory_desc_init_by_tag(&p->bias_md, 1, bias, dnnl_f32, dnnl_x) != dnnl_success)
    return false;
  p->epilogue_after = key->has_bias || key->act != SC_ACT_NONE || key->has_residual;
  dnnl_primitive_desc_t pd = linear_desc(p, key);
  if (pd && key->bf16 && reference_kernel(pd)) { /* no bfloat16 kernel for this CPU: the float32 one is faster */
    dnnl.dnnl_primitive_desc_destroy(pd);
    return false;
  }
  return pd && finish_plan(p, pd, 0);
}

/* The built-in path: the bias broadcast into y's rows, OpenBLAS, then the activation and
 * the residual; without an activation OpenBLAS starts from bias + residual.  w is [n, k],
 * or [k, n] when `upright`. */
static int linear_builtin(const float *x, const float *w, int32_t upright, const float *bias, const float *residual,
                          float *y, int64_t m, int64_t n, int64_t k, int32_t act) {
  bool start_from_residual = residual && act == SC_ACT_NONE;
  /* the whole epilogue in the product's registers */
  if (upright && sc_k_tiny_linear_f32(x, w, bias, residual, act, y, m, n, k)) return SHAPEC_OK;
  if (upright && !start_from_residual && sc_k_tiny_linear_f32(x, w, bias, NULL, SC_ACT_NONE, y, m, n, k)) {
    if (act != SC_ACT_NONE) sc_k_activation_f32(y, m * n, act);
    if (residual)
      for (int64_t e = 0; e < m * n; e++) y[e] += residual[e];
    return SHAPEC_OK;
  }
  if (start_from_residual)
    for (int64_t r = 0; r < m; r++)
      for (int64_t j = 0; j < n; j++) y[r * n + j] = residual[r * n + j] + (bias ? bias[j] : 0.0f);
  else if (bias)
    for (int64_t r = 0; r < m; r++) memcpy(y + r * n, bias, (size_t)n * sizeof(float));
  int rc = sc_k_bmm_f32(1, m, n, k, x, 0, 0, w, 0, !upright, y, 1.0f, bias || start_from_residual ? 1.0f : 0.0f);
  if (rc == SHAPEC_OK && act != SC_ACT_NONE) sc_k_activation_f32(y, m * n, act);
  if (rc == SHAPEC_OK && residual && !start_from_residual)
    for (int64_t e = 0; e < m * n; e++) y[e] += residual[e];
  return rc;
}

/* The site's upright copy of the constant w [n, k], made on the first call; NULL when
 * memory runs out (the caller then reads w as it is). */
static const float *upright_copy(site *s, const float *w, int64_t n, int64_t k) {
  upright_weights *u = atomic_load(&s->upright);
  if (!u) {
    upright_weights *fresh = malloc(sizeof *fresh + (size_t)(n * k) * sizeof(float)), *expected = NULL;
    if (!fresh) return NULL;
    *fresh = (upright_weights){w, n, k};
    for (int64_t j = 0; j < n; j++)
      for (int64_t p = 0; p < k; p++) fresh->data[p * n + j] = w[j * k + p];
    if (atomic_compare_exchange_strong(&s->upright, &expected, fresh)) u = fresh;
    else free(fresh), u = expected;
  }
  return u->from == w && u->n == n && u->k == k ? u->data : NULL;
}

static int linear_site(void **slot, int32_t weights_constant, const float *x, const float *w, const float *bias,
                       float *y, int64_t m, int64_t n, int64_t k, int32_t act, const float *residual, bool bf16,
                       int32_t upright);

int sc_k_linear_site_f32(void **slot, int32_t weights_constant, const float *x, const float *w, const float *bias,
                         float *y, int64_t m, int64_t n, int64_t k, int32_t act, const float *residual, int32_t upright) {
  return linear_site(slot, weights_constant, x, w, bias, y, m, n, k, act, residual, false, upright);
}

/* A layer whose input and weights hold bfloat16 numbers (a bfloat16 program computed in
 * float32, passes/half_precision.h): on a CPU with bfloat16 dot products (AVX512-BF16,
 * AMX) oneDNN's kernel takes them as bfloat16, converted exactly (the weights once, when
 * laid out), and accumulates in float32 as torch's does: the same products as the float32
 * kernel's, from half the bytes.  Elsewhere, or for a layer too small for oneDNN, the
 * float32 path. */
int sc_k_linear_site_bf16(void **slot, int32_t weights_constant, const float *x, const float *w, const float *bias,
                          float *y, int64_t m, int64_t n, int64_t k, int32_t act, const float *residual, int32_t upright) {
  return linear_site(slot, weights_constant, x, w, bias, y, m, n, k, act, residual, bf16_dot_products(), upright);
}

static int linear_site(void **slot, int32_t weights_constant, const float *x, const float *w, const float *bias,
                       float *y, int64_t m, int64_t n, int64_t k, int32_t act, const float *residual, bool bf16,
                       int32_t upright) {
  pthread_once(&once, load);
  int64_t macs = m * n * k;
  /* one row on one thread is a matrix-vector product, where OpenBLAS is ahead on weights
   * that stay in the core's cache (the MLP at batch 1: 0.067 ms against 0.076); with more
   * threads oneDNN's split keeps each core's share of the packed weights in its cache (0.017
   * ms on two), and weights read from memory stream faster from its packed layout
   * (GPT-2-small's decode step on one core of a Zen 5: 20.4 ms on the built-in path, 13.5
   * on oneDNN's) */
  enum { CACHED_WEIGHTS = 1 << 20 }; /* bytes */
  bool vector = m == 1 && openmp_threads() == 1 && n * k * (int64_t)sizeof(float) < CACHED_WEIGHTS;
  /* (Many rows on several threads went to OpenBLAS's parts too, once ahead of oneDNN while
   * the two ran on different thread teams; with the pool on OpenMP's team oneDNN is ahead
   * there: the zoo's encoder block at batch 8 on two threads 10.2-11.9 -> 7.9-8.7 ms, batch
   * 1 1.6-1.7 -> 0.9-1.15, on the Xeon of 2026-11-29.  Where the process's OpenBLAS is slow,
   * the layers the built-in path computes take oneDNN's products: gemm.c.) */
  bool use = dnnl.mode == 2 ? macs > 0 : dnnl.mode == 1 && macs >= MIN_MACS && (!vector || bf16);
  if (use && !thread_stream && dnnl.dnnl_stream_create(&thread_stream, dnnl.engine, dnnl_stream_default_flags) != dnnl_success)
    use = false;
  if (!use && upright) return linear_builtin(x, w, 1, bias, residual, y, m, n, k, act);
  if (!use && weights_constant && sc_k_tiny_product(m, n, k)) {
    site *t = site_of(slot);
    const float *up = t ? upright_copy(t, w, n, k) : NULL;
    if (up) return linear_builtin(x, up, 1, bias, residual, y, m, n, k, act);
  }
  site *s = use ? site_of(slot) : NULL;
  if (!s) return linear_builtin(x, w, upright, bias, residual, y, m, n, k, act);
  int threads = openmp_threads(), callers = dnnl.omp_set_num_threads ? dnnl.omp_get_max_threads() : threads;
  if (callers != threads) dnnl.omp_set_num_threads(threads);
  /* kh = 0 marks a linear layer's key; a site holds one kind */
  conv_shape key = {.n = m, .c = k, .o = n, .act = act, .threads = threads, .has_bias = bias != NULL,
                    .has_residual = residual != NULL, .bf16 = bf16, .upright = upright != 0};
  int rc = run_site(s, &key, weights_constant, x, w, bias, residual, y, make_linear_plan, NULL);
  if (callers != threads) dnnl.omp_set_num_threads(callers);
  if (rc == NOT_RAN) return linear_builtin(x, w, upright, bias, residual, y, m, n, k, act);
  return rc == RAN ? SHAPEC_OK : SHAPEC_ERR_MEMORY;
}

/* ---- batched products read and written through strides (attention) ----
 *
 * oneDNN's matmul takes each operand's strides, so attention's heads are read and written
 * where they are, as by sc_k_bmm_strided_f32, and the scale comes as its output scale.
 * Measured on the encoder's attention (8 x 4 heads, 128 x 128 x 64 and 128 x 64 x 128, one
 * core): 0.80 ms against 1.15 ms for OpenBLAS's products one head at a time.  A site keeps
 * one primitive per shape and strides, like a convolution's. */
typedef struct product_shape {
  int64_t batch0, batch1, m, n, k, a[3], b[3], c[3], trans_a, trans_b, threads;
  float alpha;
  int32_t pad; /* no padding bytes: compared with memcmp */
} product_shape;

typedef struct product_plan {
  product_shape key;
  dnnl_primitive_t prim;
  dnnl_memory_desc_t a_md, b_md, c_md, scratch_md;
  size_t scratch_bytes;
} product_plan;

typedef struct product_site {
  pthread_mutex_t lock;
  int n_plans;
  product_plan plans[SITE_PLANS];
} product_site;

/* A [batch0, batch1, rows, cols] descriptor over strides {outer, inner, leading dim}, stored
 * transposed (the rows contiguous) or not. */
static bool strided_md(dnnl_memory_desc_t *md, int64_t b0, int64_t b1, int64_t rows, int64_t cols, const int64_t *st,
                       int64_t transposed) {
  dnnl_dims_t dims = {b0, b1, rows, cols};
  dnnl_dims_t strides = {st[0], st[1], transposed ? 1 : st[2], transposed ? st[2] : 1};
  /* a batch dim of size 1 gets the stride a dense layout would give it: oneDNN reads the
   * layout's order from the strides, and a 0 or 1 there made a plain bmm's [1, 64, 128,
   * 64] look like no layout its kernels take */
  if (b1 == 1) strides[1] = (transposed ? cols : rows) * st[2];
  if (b0 == 1) strides[0] = b1 * strides[1];
  return dnnl.dnnl_memory_desc_init_by_strides(md, 4, dims, dnnl_f32, strides) == dnnl_success;
}

static bool make_product_plan(product_plan *p, const product_shape *k) {
  memset(p, 0, sizeof *p);
  p->key = *k;
  int64_t c_plain = 0;
  if (!strided_md(&p->a_md, k->batch0, k->batch1, k->m, k->k, k->a, k->trans_a) ||
      !strided_md(&p->b_md, k->batch0, k->batch1, k->k, k->n, k->b, k->trans_b) ||
      !strided_md(&p->c_md, k->batch0, k->batch1, k->m, k->n, k->c, c_plain))
    return false;
  dnnl_matmul_desc_t md;
  dnnl_primitive_attr_t attr;
  if (dnnl.dnnl_matmul_desc_init(&md, &p->a_md, &p->b_md, NULL, &p->c_md) != dnnl_success ||
      dnnl.dnnl_primitive_attr_create(&attr) != dnnl_success)
    return false;
  dnnl_primitive_desc_t pd = NULL;
  if (dnnl.dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user) != dnnl_success ||
      (k->alpha != 1.0f && dnnl.dnnl_primitive_attr_set_output_scales(attr, 1, 0, &k->alpha) != dnnl_success) ||
      dnnl.dnnl_primitive_desc_create(&pd, &md, attr, dnnl.engine, NULL) != dnnl_success)
    pd = NULL;
  dnnl.dnnl_primitive_attr_destroy(attr);
  if (pd && reference_kernel(pd)) {
    dnnl.dnnl_primitive_desc_destroy(pd);
    pd = NULL;
  }
  if (!pd) return false;
  p->scratch_md = *dnnl.dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  p->scratch_bytes = dnnl.dnnl_memory_desc_get_size(&p->scratch_md);
  bool ok = dnnl.dnnl_primitive_create(&p->prim, pd) == dnnl_success;
  dnnl.dnnl_primitive_desc_destroy(pd);
  return ok;
}

static int run_product_plan(const product_plan *p, const float *a, const float *b, float *c) {
  float *scratch = p->scratch_bytes ? sc_rt_alloc((int64_t)p->scratch_bytes) : NULL;
  if (p->scratch_bytes && !scratch) return OUT_OF_MEMORY;
  call_memory cm = {.n = 0};
  int rc = NOT_RAN;
  dnnl_memory_t ma = wrap(&cm, &p->a_md, a), mb = wrap(&cm, &p->b_md, b), mc = wrap(&cm, &p->c_md, c);
  dnnl_memory_t sp = scratch ? wrap(&cm, &p->scratch_md, scratch) : NULL;
  if (ma && mb && mc && (!scratch || sp)) {
    dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}, {DNNL_ARG_SCRATCHPAD, sp}};
    if (execute(p->prim, sp ? 4 : 3, args) && dnnl.dnnl_stream_wait(thread_stream) == dnnl_success) rc = RAN;
  }
  for (int i = 0; i < cm.n; i++) dnnl.dnnl_memory_destroy(cm.m[i]);
  sc_rt_free(scratch);
  return rc;
}

static product_site *product_site_of(void **slot) {
  product_site *s = atomic_load((_Atomic(product_site *) *)slot);
  if (s) return s;
  product_site *fresh = calloc(1, sizeof *fresh);
  if (!fresh) return NULL;
  pthread_mutex_init(&fresh->lock, NULL);
  product_site *expected = NULL;
  if (atomic_compare_exchange_strong((_Atomic(product_site *) *)slot, &expected, fresh)) return fresh;
  pthread_mutex_destroy(&fresh->lock);
  free(fresh);
  return expected;
}

int sc_k_bmm_strided_site_f32(void **slot, const int64_t *shape, const float *a, const int64_t *a_strides, int32_t trans_a,
                              const float *b, const int64_t *b_strides, int32_t trans_b, float *c,
                              const int64_t *c_strides, float alpha) {
  pthread_once(&once, load);
  int64_t macs = 1;
  bool fits = true; /* the count of multiply-adds fits in 64 bits */
  for (int i = 0; i < 5; i++) fits = fits && !__builtin_mul_overflow(macs, shape[i], &macs);
  /* on any thread count: once the pool's loops ran on a team of their own, OpenMP's
   * hand-off made the encoder block slower on two threads than the pool's parts of
   * OpenBLAS products (batch 8: 8.5 -> 10.5 ms); with the pool on OpenMP's team it is
   * ahead (batch 8: 7.8 -> 7.5 ms, the Xeon of 2026-11-29) */
  bool use = fits && (dnnl.mode == 2 ? macs > 0 : dnnl.mode == 1 && macs >= MIN_MACS);
  if (use && !thread_stream && dnnl.dnnl_stream_create(&thread_stream, dnnl.engine, dnnl_stream_default_flags) != dnnl_success)
    use = false;
  product_site *s = use ? product_site_of(slot) : NULL;
  if (!s) return sc_k_bmm_strided_f32(shape, a, a_strides, trans_a, b, b_strides, trans_b, c, c_strides, alpha, 0.0f);
  int threads = openmp_threads(), callers = dnnl.omp_set_num_threads ? dnnl.omp_get_max_threads() : threads;
  product_shape key = {shape[0], shape[1], shape[2], shape[3], shape[4],
                       {a_strides[0], a_strides[1], a_strides[2]}, {b_strides[0], b_strides[1], b_strides[2]},
                       {c_strides[0], c_strides[1], c_strides[2]}, trans_a, trans_b, threads, alpha, 0};
  const product_plan *found = NULL;
  pthread_mutex_lock(&s->lock);
  for (int i = 0; i < s->n_plans && !found; i++)
    if (memcmp(&s->plans[i].key, &key, sizeof key) == 0) found = &s->plans[i];
  if (!found && s->n_plans < SITE_PLANS && make_product_plan(&s->plans[s->n_plans], &key)) found = &s->plans[s->n_plans++];
  pthread_mutex_unlock(&s->lock);
  product_plan single; /* the site has no room left: a plan for this call alone */
  bool alone = !found && make_product_plan(&single, &key);
  int rc = NOT_RAN;
  if (found || alone) {
    if (callers != threads) dnnl.omp_set_num_threads(threads);
    rc = run_product_plan(found ? found : &single, a, b, c);
    if (callers != threads) dnnl.omp_set_num_threads(callers);
  }
  if (alone) dnnl.dnnl_primitive_destroy(single.prim);
  if (rc == NOT_RAN) return sc_k_bmm_strided_f32(shape, a, a_strides, trans_a, b, b_strides, trans_b, c, c_strides, alpha, 0.0f);
  return rc == RAN ? SHAPEC_OK : SHAPEC_ERR_MEMORY;
}
