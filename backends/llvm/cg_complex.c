/* cg_complex.c - complex64 tensors inside a program: the Fourier transforms of torch.fft
 * (FNet's fft_fftn, rfft / irfft, the decomposed _fft_c2c / _fft_r2c / _fft_c2r), casts of
 * real tensors to complex64, view_as_complex and polar that make complex numbers, their
 * arithmetic (+ - * / with complex or real operands that broadcast, negation, conjugate,
 * reciprocal, exp: the rotary embeddings of Llama 4 and Meta's reference Llama), and the
 * real and imaginary parts, magnitude, angle and view_as_real that bring the numbers back
 * (runtime fft.c, complex_arith.c).
 *
 * A complex64 tensor is held as float pairs (view_as_real's layout).  Views of one (slice,
 * unsqueeze, reshape, permute, expand...) only move elements and take the general view
 * lowering with 8-byte elements; every other op on a complex tensor is refused by name
 * here, before the elementwise loops (which have no complex type) could see it.  Complex
 * program inputs and outputs are refused too (the C ABI carries real tensors). */
#include <string.h>

#include "lower.h"
#include "runtime_abi.h"

static bool is_complex(sc_dtype dt) {
  return dt == SC_DTYPE_COMPLEX32 || dt == SC_DTYPE_COMPLEX64 || dt == SC_DTYPE_COMPLEX128;
}

static bool arg_complex(const sc_arg *a) {
  for (size_t j = 0; j < a->n_items && !a->lists; j++) {
    const sc_value *v = a->items[j].value;
    if (v && v->kind == SC_VALUE_TENSOR && is_complex(v->meta.dtype)) return true;
  }
  return false;
}

bool cg_touches_complex(const sc_node *n) {
  for (size_t i = 0; i < n->n_inputs; i++)
    if (arg_complex(&n->inputs[i].arg)) return true;
  for (size_t i = 0; i < n->n_outputs; i++)
    if (arg_complex(&n->outputs[i])) return true;
  return false;
}

/* A complex64 scratch buffer of n elements, freed after this node. */
static LLVMValueRef scratch(cg *g, LLVMValueRef n) {
  cg_value *owner = sc_arena_alloc(&g->ctx->arena, sizeof *owner);
  owner->last_use = g->node;
  return cg_alloc_buffer(g, owner, LLVMBuildMul(g->B, n, cg_i64(g, 8), "bytes"));
}

static LLVMValueRef dims_array(cg *g, cg_value *v) {
  int r = v->v->meta.rank;
  LLVMValueRef a = cg_entry_array(g, g->i64, r, "shape");
  for (int i = 0; i < r; i++) {
    LLVMValueRef idx[1] = {cg_i64(g, i)};
    LLVMBuildStore(g->B, v->dims[i], LLVMBuildGEP2(g->B, g->i64, a, idx, 1, "e"));
  }
  return a;
}

static LLVMValueRef i32s(cg *g, const int *vals, int n) {
  LLVMValueRef a = cg_entry_array(g, g->i32, n, "dims");
  for (int i = 0; i < n; i++) {
    LLVMValueRef idx[1] = {cg_i64(g, i)};
    LLVMBuildStore(g->B, LLVMConstInt(g->i32, (unsigned)vals[i], 0), LLVMBuildGEP2(g->B, g->i32, a, idx, 1, "e"));
  }
  return a;
}

static LLVMValueRef i32c(cg *g, int v) { return LLVMConstInt(g->i32, (unsigned)v, 0); }

/* x (real float32 / float64, or complex64) as complex64 in dst, n elements. */
static void as_complex(cg *g, cg_value *x, LLVMValueRef dst) {
  if (x->v->meta.dtype == SC_DTYPE_COMPLEX64) {
    LLVMBuildMemCpy(g->B, dst, 8, x->data, 8, LLVMBuildMul(g->B, x->numel, cg_i64(g, 8), "bytes"));
    return;
  }
  LLVMTypeRef p[4] = {g->ptr, g->i32, g->ptr, g->i64};
  LLVMValueRef a[4] = {x->data, i32c(g, x->v->meta.dtype == SC_DTYPE_F64), dst, x->numel};
  cg_call(g, "sc_k_real_to_complex", g->voidt, p, 4, a, 4, false);
}

/* One c2c transform of buf (complex, shaped as v) along dims, checked for memory. */
static void c2c(cg *g, const sc_node *n, LLVMValueRef buf, cg_value *shape_of, const int *dims, int nd, bool inverse,
                int norm, LLVMValueRef count) {
  LLVMTypeRef p[8] = {g->ptr, g->i32, g->ptr, g->i32, g->ptr, g->i32, g->i32, g->i64};
  LLVMValueRef a[8] = {buf, i32c(g, shape_of->v->meta.rank), dims_array(g, shape_of), i32c(g, nd), i32s(g, dims, nd),
                       i32c(g, inverse), i32c(g, norm), count};
  LLVMValueRef rc = cg_call(g, "sc_k_fft_c2c", g->i32, p, 8, a, 8, false);
  cg_fail_kernel_if(g, rc, n->name);
}

static const sc_arg *find(const sc_node *n, const char *name) { return cg_node_arg(n, name); }

static int64_t int_or(const sc_node *n, const char *name, int64_t def) {
  const sc_arg *a = find(n, name);
  if (!a || a->kind == SC_ARG_NONE || !a->n_items || a->items[0].value) return def;
  return a->kind == SC_ARG_BOOL ? a->items[0].b : a->kind == SC_ARG_INT ? a->items[0].i : def;
}

/* The dims a transform node works on, normalized (as its shape rule read them). */
static int transform_dims(const sc_node *n, int rank, int *dims) {
  const sc_arg *a = find(n, "dim");
  int nd = 0;
  if (!a || a->kind == SC_ARG_NONE || (a->n_items && a->items[0].is_none && !a->items[0].value)) {
    if (n->op->id == SC_OP_FFT_FFTN || n->op->id == SC_OP_FFT_IFFTN)
      for (int i = 0; i < rank; i++) dims[nd++] = i;
    else
      dims[nd++] = rank - 1;
    return nd;
  }
  for (size_t i = 0; i < a->n_items && nd < CG_MAX_RANK; i++) {
    int64_t d = a->items[i].i;
    dims[nd++] = (int)(d < 0 ? d + rank : d);
  }
  return nd;
}

/* torch.fft's norm= words as _fft_*'s normalization codes: 0 none, 1 1/sqrt(n), 2 1/n. */
static int norm_code(const sc_node *n, bool inverse) {
  const sc_arg *a = find(n, "norm");
  const char *s = a && a->kind == SC_ARG_STRING && a->n_items ? a->items[0].s : NULL;
  if (s && strcmp(s, "ortho") == 0) return 1;
  bool forward_norm = s && strcmp(s, "forward") == 0;
  return inverse ? (forward_norm ? 0 : 2) : (forward_norm ? 2 : 0);
}

static LLVMValueRef points(cg *g, cg_value *v, const int *dims, int nd) {
  LLVMValueRef c = cg_i64(g, 1);
  for (int i = 0; i < nd; i++) c = LLVMBuildMul(g->B, c, v->dims[dims[i]], "pts");
  return c;
}

static bool lower_transform(cg *g, const sc_node *n, cg_value *x) {
  int id = n->op->id, rank = x->v->meta.rank, dims[CG_MAX_RANK];
  int nd = transform_dims(n, rank, dims);
  bool underscore = id == SC_OP_FFT_C2C || id == SC_OP_FFT_R2C || id == SC_OP_FFT_C2R;
  bool inverse = id == SC_OP_FFT_IFFT || id == SC_OP_FFT_IFFTN || id == SC_OP_FFT_IRFFT || id == SC_OP_FFT_C2R ||
                 (id == SC_OP_FFT_C2C && !int_or(n, "forward", 1));
  int norm = underscore ? (int)int_or(n, "normalization", 0) : norm_code(n, inverse);
  cg_value *out = cg_produce(g, n->outputs[0].items[0].value);
  bool to_real = id == SC_OP_FFT_C2R || id == SC_OP_FFT_IRFFT;
  bool half = (id == SC_OP_FFT_R2C && int_or(n, "onesided", 1)) || id == SC_OP_FFT_RFFT;
  if (!to_real && !half) { /* complex result of the input's shape */
    as_complex(g, x, out->data);
    c2c(g, n, out->data, out, dims, nd, inverse, norm, points(g, out, dims, nd));
    return true;
  }
  int last = dims[nd - 1];
  if (half) { /* the full transform, then its first n / 2 + 1 positions along the last dim */
    LLVMValueRef full = scratch(g, x->numel);
    as_complex(g, x, full);
    c2c(g, n, full, x, dims, nd, false, norm, points(g, x, dims, nd));
    LLVMTypeRef p[6] = {g->ptr, g->ptr, g->i32, g->ptr, g->i32, g->i64};
    LLVMValueRef a[6] = {full, out->data, i32c(g, rank), dims_array(g, x), i32c(g, last), out->dims[last]};
    cg_call(g, "sc_k_complex_narrow", g->voidt, p, 6, a, 6, false);
    return true;
  }
  /* complex to real: the other dims transformed back first, then each line along the last
   * dim completed to its Hermitian spectrum and transformed back; the real part kept */
  LLVMValueRef work = scratch(g, x->numel);
  as_complex(g, x, work);
  LLVMValueRef count = points(g, out, dims, nd);
  if (nd > 1) c2c(g, n, work, x, dims, nd - 1, true, 0, count);
  LLVMValueRef full = scratch(g, out->numel);
  LLVMTypeRef p[6] = {g->ptr, g->ptr, g->i32, g->ptr, g->i32, g->i64};
  LLVMValueRef a[6] = {work, full, i32c(g, rank), dims_array(g, x), i32c(g, last), out->dims[last]};
  cg_call(g, "sc_k_complex_hermitian", g->voidt, p, 6, a, 6, false);
  c2c(g, n, full, out, &last, 1, true, norm, count);
  LLVMTypeRef q[4] = {g->ptr, g->ptr, g->i64, g->i32};
  LLVMValueRef b[4] = {full, out->data, out->numel, i32c(g, 0)};
  cg_call(g, "sc_k_complex_part", g->voidt, q, 4, b, 4, false);
  return true;
}

bool cg_complex_moves_only(const sc_node *n) {
  if (n->op && (n->op->op_class == SC_OPC_ASSERT || n->op->op_class == SC_OPC_SYMBOLIC)) return true; /* no data */
  if (!n->op || n->op->op_class != SC_OPC_VIEW) return false;
  const sc_value *x = cg_tensor_input(n, "self");
  const sc_value *o = n->n_outputs && n->outputs[0].n_items ? n->outputs[0].items[0].value : NULL;
  return x && o && x->meta.dtype == SC_DTYPE_COMPLEX64 && o->meta.dtype == SC_DTYPE_COMPLEX64;
}

bool cg_complex_always(const sc_node *n) {
  return n->op && (n->op->id == SC_OP_ANGLE || n->op->id == SC_OP_CONJ || n->op->id == SC_OP_POLAR ||
                   n->op->id == SC_OP_VIEW_AS_COMPLEX);
}

/* One operand of a binary op as the kernel reads it: its data, whether complex, and its
 * strides over the output's dims (right-aligned, 0 where it broadcasts); a Python number
 * put in memory.  False, with the error, for a kind the kernel has no reading of. */
static bool operand(cg *g, const sc_node *n, const char *name, cg_value *out, LLVMValueRef *data, LLVMValueRef *st,
                    int *is_complex) {
  int r = out->v->meta.rank;
  LLVMValueRef strides = cg_entry_array(g, g->i64, r ? r : 1, "cx.st");
  const sc_value *v = cg_tensor_input(n, name);
  const sc_arg *a = cg_node_arg(n, name);
  LLVMValueRef zero = cg_i64(g, 0);
  if (!v) { /* a number */
    if (!a || !a->n_items || a->items[0].value || (a->kind != SC_ARG_FLOAT && a->kind != SC_ARG_INT))
      return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s: '%s' is neither a tensor nor a real number (a "
                      "complex number literal has no lowering yet)", n->target, name);
    double x = a->kind == SC_ARG_FLOAT ? a->items[0].f : (double)a->items[0].i;
    *data = cg_entry_array(g, g->f32, 1, "cx.scalar");
    LLVMBuildStore(g->B, LLVMConstReal(g->f32, x), *data);
    for (int k = 0; k < r; k++) {
      LLVMValueRef idx[1] = {cg_i64(g, k)};
      LLVMBuildStore(g->B, zero, LLVMBuildGEP2(g->B, g->i64, strides, idx, 1, "e"));
    }
    *st = strides;
    *is_complex = 0;
    return true;
  }
  if (v->meta.dtype != SC_DTYPE_COMPLEX64 && v->meta.dtype != SC_DTYPE_F32)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s: '%s' is %s; complex arithmetic takes complex64 and "
                    "float32 operands", n->target, name, sc_dtype_name(v->meta.dtype));
  cg_value *cv = cg_get(g, v);
  int rv = v->meta.rank;
  LLVMValueRef run = cg_i64(g, 1);
  for (int k = r - 1; k >= 0; k--) {
    int j = k - (r - rv);
    LLVMValueRef s = zero;
    if (j >= 0) {
      s = LLVMBuildSelect(g->B, LLVMBuildICmp(g->B, LLVMIntEQ, cv->dims[j], cg_i64(g, 1), "one"), zero, run, "st");
      run = LLVMBuildMul(g->B, run, cv->dims[j], "run");
    }
    LLVMValueRef idx[1] = {cg_i64(g, k)};
    LLVMBuildStore(g->B, s, LLVMBuildGEP2(g->B, g->i64, strides, idx, 1, "e"));
  }
  *data = cv->data;
  *st = strides;
  *is_complex = v->meta.dtype == SC_DTYPE_COMPLEX64;
  return true;
}

static bool lower_binary(cg *g, const sc_node *n, int op, const char *left, const char *right) {
  const sc_arg *alpha = cg_node_arg(n, "alpha");
  if (alpha && alpha->n_items && !alpha->items[0].value &&
      ((alpha->kind == SC_ARG_INT && alpha->items[0].i != 1) || (alpha->kind == SC_ARG_FLOAT && alpha->items[0].f != 1.0)))
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s with alpha other than 1 on complex tensors has no "
                    "lowering yet", n->target);
  cg_value *out = cg_produce(g, n->outputs[0].items[0].value);
  LLVMValueRef a, ast, b, bst;
  int ac, bc;
  if (!operand(g, n, left, out, &a, &ast, &ac) || !operand(g, n, right, out, &b, &bst, &bc)) return false;
  LLVMTypeRef p[10] = {g->i32, g->i32, g->ptr, g->ptr, g->ptr, g->i32, g->ptr, g->ptr, g->i32, g->ptr};
  LLVMValueRef v[10] = {i32c(g, op), i32c(g, out->v->meta.rank), dims_array(g, out), a, ast, i32c(g, ac), b, bst,
                        i32c(g, bc), out->data};
  cg_call(g, "sc_k_complex_binary", g->voidt, p, 10, v, 10, false);
  return true;
}

static bool lower_unary(cg *g, const sc_node *n, int op, cg_value *x) {
  const sc_value *o = n->outputs[0].items[0].value;
  if (x->v->meta.dtype != SC_DTYPE_COMPLEX64 && x->v->meta.dtype != SC_DTYPE_F32)
    return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s of %s has no lowering (complex64 and float32 have one)",
                    n->target, sc_dtype_name(x->v->meta.dtype));
  bool complex_in = x->v->meta.dtype == SC_DTYPE_COMPLEX64;
  if (op == SC_CX_CONJ && !complex_in) { /* a real tensor's conjugate is itself */
    LLVMBuildMemCpy(g->B, cg_produce(g, o)->data, 4, x->data, 4, LLVMBuildMul(g->B, x->numel, cg_i64(g, 4), "b"));
    return true;
  }
  LLVMTypeRef p[5] = {g->i32, g->i64, g->ptr, g->i32, g->ptr};
  LLVMValueRef v[5] = {i32c(g, op), x->numel, x->data, i32c(g, complex_in), cg_produce(g, o)->data};
  cg_call(g, "sc_k_complex_unary", g->voidt, p, 5, v, 5, false);
  return true;
}

/* The binary ops: either operand may be a number (1 - x is sub.Tensor(1, x) after
 * run_decompositions()); -1 for any other op. */
static int binary_op(const sc_node *n, bool *swapped) {
  *swapped = false;
  switch (n->op->id) {
    case SC_OP_ADD_TENSOR: case SC_OP_ADD_SCALAR: return SC_CX_ADD;
    case SC_OP_SUB_TENSOR: case SC_OP_SUB_SCALAR: return SC_CX_SUB;
    case SC_OP_RSUB_SCALAR: *swapped = true; return SC_CX_SUB; /* other - self */
    case SC_OP_MUL_TENSOR: case SC_OP_MUL_SCALAR: return SC_CX_MUL;
    case SC_OP_DIV_TENSOR: case SC_OP_DIV_SCALAR: return SC_CX_DIV;
    default: return -1;
  }
}

bool cg_emit_complex(cg *g, const sc_node *n) {
  const sc_value *out = n->n_outputs == 1 && n->outputs[0].n_items ? n->outputs[0].items[0].value : NULL;
  bool swapped;
  int bop = n->op && !g->cuda && out && out->meta.dtype == SC_DTYPE_COMPLEX64 ? binary_op(n, &swapped) : -1;
  if (bop >= 0) return lower_binary(g, n, bop, swapped ? "other" : "self", swapped ? "self" : "other");
  if (n->op && n->op->id == SC_OP_POLAR && !g->cuda) {
    const sc_value *a = cg_tensor_input(n, "abs"), *b = cg_tensor_input(n, "angle");
    if (a && b && a->meta.dtype == SC_DTYPE_F32 && b->meta.dtype == SC_DTYPE_F32)
      return lower_binary(g, n, SC_CX_POLAR, "abs", "angle");
  }
  const sc_value *x = cg_tensor_input(n, "self");
  const sc_value *o = n->n_outputs && n->outputs[0].n_items ? n->outputs[0].items[0].value : NULL;
  bool supported = n->op && x && o && !g->cuda && n->n_outputs == 1 && x->meta.dtype != SC_DTYPE_COMPLEX32 &&
                   x->meta.dtype != SC_DTYPE_COMPLEX128 && o->meta.dtype != SC_DTYPE_COMPLEX32 &&
                   o->meta.dtype != SC_DTYPE_COMPLEX128;
  int id = supported ? (int)n->op->id : -1;
  bool real_in = x && (x->meta.dtype == SC_DTYPE_F32 || x->meta.dtype == SC_DTYPE_F64);
  cg_value *cx = x ? cg_get(g, x) : NULL;
  switch (id) {
    case SC_OP_FFT_C2C: case SC_OP_FFT_R2C: case SC_OP_FFT_C2R: case SC_OP_FFT_FFT: case SC_OP_FFT_IFFT:
    case SC_OP_FFT_FFTN: case SC_OP_FFT_IFFTN: case SC_OP_FFT_RFFT: case SC_OP_FFT_IRFFT:
      if (x->meta.dtype == SC_DTYPE_COMPLEX64 || real_in) return lower_transform(g, n, cx);
      break;
    case SC_OP_TO_COPY: case SC_OP_TO_DTYPE: case SC_OP_CLONE: case SC_OP_CONTIGUOUS: case SC_OP_ALIAS:
      if (o->meta.dtype == SC_DTYPE_COMPLEX64 && (real_in || x->meta.dtype == SC_DTYPE_COMPLEX64)) {
        as_complex(g, cx, cg_produce(g, o)->data);
        return true;
      }
      break;
    case SC_OP_REAL: case SC_OP_IMAG: case SC_OP_ABS:
      if (x->meta.dtype == SC_DTYPE_COMPLEX64 && o->meta.dtype == SC_DTYPE_F32) {
        LLVMTypeRef p[4] = {g->ptr, g->ptr, g->i64, g->i32};
        LLVMValueRef a[4] = {cx->data, cg_produce(g, o)->data, cx->numel, i32c(g, id == SC_OP_REAL ? 0 : id == SC_OP_IMAG ? 1 : 2)};
        cg_call(g, "sc_k_complex_part", g->voidt, p, 4, a, 4, false);
        return true;
      }
      break;
    case SC_OP_NEG: return lower_unary(g, n, SC_CX_NEG, cx);
    case SC_OP_CONJ: return lower_unary(g, n, SC_CX_CONJ, cx);
    case SC_OP_RECIPROCAL: return lower_unary(g, n, SC_CX_RECIPROCAL, cx);
    case SC_OP_EXP: return lower_unary(g, n, SC_CX_EXP, cx);
    case SC_OP_ANGLE:
      if (o->meta.dtype == SC_DTYPE_F32) return lower_unary(g, n, SC_CX_ANGLE, cx);
      break;
    case SC_OP_VIEW_AS_COMPLEX:
      if (x->meta.dtype == SC_DTYPE_F32 && o->meta.dtype == SC_DTYPE_COMPLEX64) { /* the same floats, a copy */
        LLVMBuildMemCpy(g->B, cg_produce(g, o)->data, 8, cx->data, 8, LLVMBuildMul(g->B, cx->numel, cg_i64(g, 4), "b"));
        return true;
      }
      break;
    case SC_OP_VIEW_AS_REAL:
      if (x->meta.dtype == SC_DTYPE_COMPLEX64) { /* the same floats, a copy */
        LLVMBuildMemCpy(g->B, cg_produce(g, o)->data, 8, cx->data, 8, LLVMBuildMul(g->B, cx->numel, cg_i64(g, 8), "b"));
        return true;
      }
      break;
    default: break;
  }
  return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, n->path, "%s on complex tensors has no %s lowering (the Fourier "
                  "transforms, casts to complex64, view_as_complex, polar, views, + - * /, neg, conj, reciprocal, exp, "
                  "real, imag, abs, angle and view_as_real on the CPU have one)",
                  n->target, g->cuda ? "CUDA" : "CPU");
}

bool cg_complex_boundary_ok(cg *g) {
  const sc_graph *gr = g->p->graph;
  for (int side = 0; side < 2; side++) {
    size_t count = side ? gr->n_outputs : gr->n_inputs;
    for (size_t i = 0; i < count; i++) {
      const sc_arg *a = side ? &gr->outputs[i] : &gr->inputs[i];
      if (!arg_complex(a)) continue;
      return cg_error(g, SC_DIAG_CODEGEN_UNSUPPORTED, a->path, "'%s', which the program %s, is a complex tensor: a "
                      "shapec library does not take or return complex tensors yet (they are computed inside a "
                      "program only; return torch.view_as_real(...) instead)",
                      a->items[0].value ? a->items[0].value->name : "?", side ? "returns" : "takes");
    }
  }
  return true;
}
