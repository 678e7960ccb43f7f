/* vec_transpose.h - an 8x8 transpose of float vectors, inline: attention's lanes hold one
 * row each (attention.c), and layer norm sums eight short rows at once (nn.c). */
#ifndef SHAPEC_RUNTIME_VEC_TRANSPOSE_H
#define SHAPEC_RUNTIME_VEC_TRANSPOSE_H

#include <immintrin.h>

/* Eight vectors, lane t of vector c to lane c of vector t. */
__attribute__((target("avx2"), always_inline)) static inline void transpose8(__m256 x[8]) {
  __m256 a[8], b[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; i += 2) {
    a[i] = _mm256_unpacklo_ps(x[i], x[i + 1]);
    a[i + 1] = _mm256_unpackhi_ps(x[i], x[i + 1]);
  }
#pragma GCC unroll 8
  for (int i = 0; i < 8; i += 4) {
    b[i] = _mm256_shuffle_ps(a[i], a[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    b[i + 1] = _mm256_shuffle_ps(a[i], a[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    b[i + 2] = _mm256_shuffle_ps(a[i + 1], a[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    b[i + 3] = _mm256_shuffle_ps(a[i + 1], a[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
#pragma GCC unroll 8
  for (int i = 0; i < 4; i++) {
    x[i] = _mm256_permute2f128_ps(b[i], b[i + 4], 0x20);
    x[i + 4] = _mm256_permute2f128_ps(b[i], b[i + 4], 0x31);
  }
}

#endif
