/* gemm.c - shapec's own batched matrix product, for machines without cuBLAS:
 * C[b] = alpha * op(A[b]) @ op(B[b]) + beta * C[b], row-major, op = transpose when
 * trans_*; A[b] at b * a_batch_stride, B[b] at b * b_batch_stride (0 broadcasts), C[b]
 * at b * m * n.  Each work item computes a 4x4 tile of C over the whole of k.  beta == 0
 * never reads C. */
#include "device.h"

#define TILE 4

/* full unrolling keeps the tile in registers (clang would leave the stores' loops rolled
 * and the tile in local memory) */
#ifdef SC_DEVICE_EMULATE
#define UNROLL
#else
#define UNROLL _Pragma("unroll")
#endif

SC_KERNEL void sc_d_gemm(int64_t batch, int64_t m, int64_t n, int64_t k, const float *a, int64_t a_batch_stride,
                         int32_t trans_a, const float *b, int64_t b_batch_stride, int32_t trans_b, float *c,
                         float alpha, float beta) {
  int64_t tm = (m + TILE - 1) / TILE, tn = (n + TILE - 1) / TILE;
  /* A(i, p) = A[i * a_row + p * a_col], B(p, j) = B[p * b_row + j * b_col] */
  int64_t a_row = trans_a ? 1 : k, a_col = trans_a ? m : 1;
  int64_t b_row = trans_b ? 1 : n, b_col = trans_b ? k : 1;
  SC_GRID_LOOP(t, batch * tm * tn) {
    int64_t bi = t / (tm * tn), r = t % (tm * tn);
    int64_t i0 = (r / tn) * TILE, j0 = (r % tn) * TILE;
    const float *ab = a + bi * a_batch_stride, *bb = b + bi * b_batch_stride;
    float *cb = c + bi * m * n;
    /* rows and columns past the edge repeat the last one (read, never written) */
    int64_t ia[TILE], jb[TILE];
    for (int x = 0; x < TILE; x++) {
      ia[x] = (i0 + x < m ? i0 + x : m - 1) * a_row;
      jb[x] = (j0 + x < n ? j0 + x : n - 1) * b_col;
    }
    float acc[TILE][TILE] = {{0}};
    for (int64_t p = 0; p < k; p++) {
      float av[TILE], bv[TILE];
      for (int x = 0; x < TILE; x++) {
        av[x] = ab[ia[x] + p * a_col];
        bv[x] = bb[p * b_row + jb[x]];
      }
      for (int x = 0; x < TILE; x++)
        for (int y = 0; y < TILE; y++) acc[x][y] += av[x] * bv[y];
    }
    UNROLL for (int x = 0; x < TILE; x++)
      UNROLL for (int y = 0; y < TILE; y++) {
        if (i0 + x >= m || j0 + y >= n) continue;
        float *cp = cb + (i0 + x) * n + j0 + y;
        *cp = beta == 0.0f ? alpha * acc[x][y] : alpha * acc[x][y] + beta * *cp;
      }
  }
}
