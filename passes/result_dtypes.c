/* result_dtypes.c - torch's result dtypes where the operator fixes them; see result_dtypes.h. */
#include "result_dtypes.h"

#include <string.h>

static const sc_value *input_tensor(const sc_node *n, const char *name) {
  for (size_t i = 0; i < n->n_inputs; i++)
    if (strcmp(n->inputs[i].name, name) == 0 && n->inputs[i].arg.kind == SC_ARG_TENSOR && n->inputs[i].arg.n_items)
      return n->inputs[i].arg.items[0].value;
  return NULL;
}

static sc_dtype dtype_of(const sc_value *v) { return v && v->kind == SC_VALUE_TENSOR ? v->meta.dtype : SC_DTYPE_UNKNOWN; }

static bool is_integral(sc_dtype d) {
  return d == SC_DTYPE_U8 || d == SC_DTYPE_I8 || d == SC_DTYPE_I16 || d == SC_DTYPE_I32 || d == SC_DTYPE_I64 ||
         d == SC_DTYPE_BOOL;
}

sc_dtype sc_result_dtype(const sc_node *n, int k) {
  if (!n->op) return SC_DTYPE_UNKNOWN;
  sc_dtype self = dtype_of(input_tensor(n, "self")), input = dtype_of(input_tensor(n, "input"));
  switch (n->op->id) {
    /* indices and counts */
    case SC_OP_ARGMAX: case SC_OP_ARGMIN: case SC_OP_NONZERO: case SC_OP_ARGSORT: return SC_DTYPE_I64;
    case SC_OP_MAX_DIM: case SC_OP_MIN_DIM: case SC_OP_CUMMAX: case SC_OP_CUMMIN: case SC_OP_MAX_POOL2D_INDICES: case SC_OP_MAX_POOL3D_INDICES: case SC_OP_SORT: case SC_OP_TOPK:
      return k == 1 ? SC_DTYPE_I64 : self;
    /* truth values */
    case SC_OP_EQ_TENSOR: case SC_OP_EQ_SCALAR: case SC_OP_NE_TENSOR: case SC_OP_NE_SCALAR: case SC_OP_LT_TENSOR:
    case SC_OP_LT_SCALAR: case SC_OP_LE_TENSOR: case SC_OP_LE_SCALAR: case SC_OP_GT_TENSOR: case SC_OP_GT_SCALAR:
    case SC_OP_GE_TENSOR: case SC_OP_GE_SCALAR: case SC_OP_LOGICAL_NOT: case SC_OP_LOGICAL_AND:
    case SC_OP_LOGICAL_OR: case SC_OP_LOGICAL_XOR: case SC_OP_ANY_DIM: case SC_OP_ANY: case SC_OP_ANY_DIMS: case SC_OP_ALL_DIM: case SC_OP_ALL: case SC_OP_ALL_DIMS: case SC_OP_ISINF: case SC_OP_ISNAN: case SC_OP_ISFINITE:
      return SC_DTYPE_BOOL;
    /* the operand's type: products, convolutions, pooling, normalization, data movement */
    case SC_OP_MM: case SC_OP_BMM: case SC_OP_MV: case SC_OP_EINSUM: case SC_OP_MATMUL: case SC_OP_ADDMM: case SC_OP_BADDBMM:
    case SC_OP_MAX_POOL2D: case SC_OP_AVG_POOL2D: case SC_OP_MAX_POOL1D: case SC_OP_AVG_POOL1D: case SC_OP_ADAPTIVE_AVG_POOL2D: case SC_OP_ADAPTIVE_AVG_POOL2D_: case SC_OP_ADAPTIVE_AVG_POOL1D:
    case SC_OP_MAX_POOL3D: case SC_OP_AVG_POOL3D: case SC_OP_ADAPTIVE_AVG_POOL3D:
    case SC_OP_SOFTMAX: case SC_OP_LOG_SOFTMAX: case SC_OP_LINALG_VECTOR_NORM: case SC_OP_AMAX: case SC_OP_AMIN: case SC_OP_MAX: case SC_OP_MIN:
    case SC_OP_HISTC: case SC_OP_TRIU: case SC_OP_TRIL: case SC_OP_REPEAT_INTERLEAVE: case SC_OP_MESHGRID: case SC_OP_GRID_SAMPLER_2D: case SC_OP_DIAGONAL: case SC_OP_AS_STRIDED: case SC_OP_MASKED_SCATTER: case SC_OP_REPEAT: case SC_OP_TILE: case SC_OP_PAD: case SC_OP_CONSTANT_PAD_ND: case SC_OP_REFLECTION_PAD: case SC_OP_REPLICATION_PAD: case SC_OP_FLIP: case SC_OP_ROLL: case SC_OP_INDEX_SELECT: case SC_OP_INDEX_COPY: case SC_OP_INDEX_ADD: case SC_OP_INDEX_PUT: case SC_OP_GATHER:
    case SC_OP_SCATTER_SRC: case SC_OP_SCATTER_VALUE: case SC_OP_SCATTER_ADD: case SC_OP_SCATTER_REDUCE: case SC_OP_MASKED_SELECT: case SC_OP_INDEX_TENSOR:
    case SC_OP_NEW_ZEROS: case SC_OP_NEW_ONES:
      return n->op->id == SC_OP_NEW_ZEROS || n->op->id == SC_OP_NEW_ONES ? SC_DTYPE_UNKNOWN : self;
    case SC_OP_LINEAR: case SC_OP_CONVOLUTION: case SC_OP_CONV1D: case SC_OP_CONV2D: case SC_OP_LAYER_NORM: case SC_OP_RMS_NORM:
    case SC_OP_CONV_TRANSPOSE1D: case SC_OP_CONV_TRANSPOSE2D: case SC_OP_CONV3D: case SC_OP_CONV_TRANSPOSE3D:
    case SC_OP_BATCH_NORM: case SC_OP_UPSAMPLE_NEAREST2D: case SC_OP_UPSAMPLE_BILINEAR2D: case SC_OP_UPSAMPLE_BICUBIC2D: case SC_OP_GROUP_NORM:
      return input;
    case SC_OP_NATIVE_GROUP_NORM: case SC_OP_INSTANCE_NORM: case SC_OP_BATCH_NORM_STATS: return input;
    case SC_OP_NATIVE_DROPOUT: return k == 1 ? SC_DTYPE_BOOL : input;
    case SC_OP_NATIVE_LAYER_NORM: case SC_OP_BATCH_NORM_INFER: return k == 0 ? input : SC_DTYPE_UNKNOWN;
    case SC_OP_EMBEDDING: return dtype_of(input_tensor(n, "weight"));
    case SC_OP_EMBEDDING_BAG: return dtype_of(input_tensor(n, k == 0 ? "weight" : "offsets"));
    /* bucket positions: int64, or int32 asked for */
    case SC_OP_BUCKETIZE: case SC_OP_BUCKETIZE_SCALAR: case SC_OP_SEARCHSORTED: case SC_OP_SEARCHSORTED_SCALAR:
      for (size_t i = 0; i < n->n_inputs; i++)
        if (strcmp(n->inputs[i].name, "out_int32") == 0 && n->inputs[i].arg.kind == SC_ARG_BOOL && n->inputs[i].arg.n_items)
          return n->inputs[i].arg.items[0].b ? SC_DTYPE_I32 : SC_DTYPE_I64;
      return SC_DTYPE_I64;
    /* sum of integers or bools is int64, as in torch */
    case SC_OP_SUM: case SC_OP_SUM_DIM:
      if (self == SC_DTYPE_UNKNOWN) return SC_DTYPE_UNKNOWN;
      for (size_t i = 0; i < n->n_inputs; i++)
        if (strcmp(n->inputs[i].name, "dtype") == 0 && n->inputs[i].arg.kind != SC_ARG_NONE) return SC_DTYPE_UNKNOWN;
      return is_integral(self) ? SC_DTYPE_I64 : self;
    default: return SC_DTYPE_UNKNOWN;
  }
}

bool sc_check_result_dtypes(sc_ctx *ctx, const sc_program *p) {
  bool ok = true;
  for (size_t i = 0; i < p->graph->n_nodes; i++) {
    const sc_node *n = &p->graph->nodes[i];
    int k = 0;
    for (size_t o = 0; o < n->n_outputs; o++)
      for (size_t j = 0; j < n->outputs[o].n_items; j++, k++) {
        const sc_value *v = n->outputs[o].items[j].value;
        sc_dtype want = sc_result_dtype(n, k);
        if (!v || v->kind != SC_VALUE_TENSOR || want == SC_DTYPE_UNKNOWN || v->meta.dtype == want) continue;
        sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_RESULT_DTYPE, SC_SEV_ERROR, p->file, v->path ? v->path : n->path,
                                  "'%s', output %d of node '%s' (%s), is declared %s; the operator produces %s", v->name,
                                  k, n->name, n->target, sc_dtype_name(v->meta.dtype), sc_dtype_name(want));
        sc_diag_set_hint(&ctx->diags, d, "the file's tensor_values disagree with the operator: re-export the program "
                                         "with torch.export, which writes the dtypes torch computes");
        ok = false;
      }
  }
  return ok;
}
