/* einsum.c - einsum of one or two float32 operands as one batched product: each label is a
 * batch label (both operands and the output), a row label (the first and the output), a
 * column label (the second and the output), contracted (both, not the output) or summed
 * away (one operand only).  The operands are copied into [batch, rows, contracted] and
 * [batch, contracted, columns] (their own summed labels added up on the way, a label
 * repeated in one operand read along its diagonal, a size-1 dim broadcast), multiplied by
 * the library's GEMM, and the result copied to the output's order. */
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

#define MAXL 80 /* SC_EINSUM_LABELS (ir/einsum_equation.h) */

typedef struct operand {
  const float *data;
  int64_t stride[MAXL]; /* per label, elements; 0 where absent or broadcast */
  bool has[MAXL];
} operand;

static void describe(operand *op, const float *data, int32_t n, const int32_t *labels, const int64_t *shape,
                     const int64_t *size) {
  memset(op, 0, sizeof *op);
  op->data = data;
  int64_t st = 1;
  for (int32_t d = n - 1; d >= 0; d--) {
    int l = labels[d];
    op->has[l] = true;
    if (shape[d] != 1 || size[l] == 1) op->stride[l] += st;
    st *= shape[d];
  }
}

/* Walks every combination of the labels in list (sizes from size), calling back with the
 * offsets into two operands. */
typedef struct walk {
  int n, list[MAXL];
} walk;

static int64_t count(const walk *w, const int64_t *size) {
  int64_t c = 1;
  for (int i = 0; i < w->n; i++) c *= size[w->list[i]];
  return c;
}

/* The offset of combination k of w (row-major over its labels) through strides. */
static int64_t offset_of(const walk *w, const int64_t *size, const int64_t *stride, int64_t k) {
  int64_t off = 0;
  for (int i = w->n - 1; i >= 0; i--) {
    int l = w->list[i];
    off += (k % size[l]) * stride[l];
    k /= size[l];
  }
  return off;
}

/* dst [outer, inner] where outer walks `o` and inner walks `in`, each element the sum over
 * `sum` of src. */
static void gather(const operand *src, const walk *o, const walk *in, const walk *sum, const int64_t *size, float *dst) {
  int64_t no = count(o, size), ni = count(in, size), ns = count(sum, size);
  for (int64_t a = 0; a < no; a++) {
    int64_t oa = offset_of(o, size, src->stride, a);
    for (int64_t b = 0; b < ni; b++) {
      int64_t ob = oa + offset_of(in, size, src->stride, b);
      float acc = 0;
      for (int64_t s = 0; s < ns; s++) acc += src->data[ob + offset_of(sum, size, src->stride, s)];
      dst[a * ni + b] = acc;
    }
  }
}

int sc_k_einsum_f32(const float *a, int32_t na, const int32_t *a_labels, const int64_t *a_shape, const float *b, int32_t nb,
                    const int32_t *b_labels, const int64_t *b_shape, float *out, int32_t no, const int32_t *o_labels,
                    const int64_t *o_shape) {
  int64_t size[MAXL];
  for (int l = 0; l < MAXL; l++) size[l] = 1;
  for (int32_t d = 0; d < na; d++) if (a_shape[d] != 1) size[a_labels[d]] = a_shape[d];
  for (int32_t d = 0; d < nb; d++) if (b_shape[d] != 1) size[b_labels[d]] = b_shape[d];
  for (int32_t d = 0; d < no; d++) size[o_labels[d]] = o_shape[d];
  operand A, B, O;
  describe(&A, a, na, a_labels, a_shape, size);
  describe(&B, b, nb, b_labels, b_shape, size);
  describe(&O, out, no, o_labels, o_shape, size);
  walk batch = {0}, rows = {0}, cols = {0}, contract = {0}, sum_a = {0}, sum_b = {0};
  for (int l = 0; l < MAXL; l++) {
    bool ia = A.has[l], ib = B.has[l], io = O.has[l];
    walk *w = ia && ib && io ? &batch : ia && io ? &rows : ib && io ? &cols : ia && ib ? &contract : ia ? &sum_a : ib ? &sum_b : NULL;
    if (w) w->list[w->n++] = l;
  }
  int64_t nbt = count(&batch, size), m = count(&rows, size), n = count(&cols, size), k = count(&contract, size);
  int64_t total = nbt * m * n;
  if (total == 0) return SHAPEC_OK;
  float *pa = malloc((size_t)(nbt * m * k + nbt * k * n + total) * sizeof *pa);
  if (!pa) return SHAPEC_ERR_MEMORY;
  float *pb = pa + nbt * m * k, *pc = pb + nbt * k * n;
  walk a_outer = batch, b_outer = batch, o_rows = rows;
  /* A as [batch, rows, contract]: outer batch+rows, inner contract */
  for (int i = 0; i < rows.n; i++) a_outer.list[a_outer.n++] = rows.list[i];
  gather(&A, &a_outer, &contract, &sum_a, size, pa);
  /* B as [batch, contract, cols] */
  for (int i = 0; i < contract.n; i++) b_outer.list[b_outer.n++] = contract.list[i];
  if (nb) {
    gather(&B, &b_outer, &cols, &sum_b, size, pb);
  } else {
    for (int64_t i = 0; i < nbt * k * n; i++) pb[i] = 1.0f;
  }
  int rc = sc_k_bmm_f32(nbt, m, n, k, pa, m * k, 0, pb, k * n, 0, pc, 1.0f, 0.0f);
  if (rc == SHAPEC_OK) { /* [batch, rows, cols] to the output's order */
    walk all = batch;
    (void)o_rows;
    for (int i = 0; i < rows.n; i++) all.list[all.n++] = rows.list[i];
    for (int i = 0; i < cols.n; i++) all.list[all.n++] = cols.list[i];
    for (int64_t i = 0; i < total; i++) out[offset_of(&all, size, O.stride, i)] = pc[i];
  }
  free(pa);
  return rc;
}
