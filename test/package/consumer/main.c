/* Calls the tutorial model through model.h: shapes, a run, and a wrong shape refused. */
#include <stdio.h>
#include <string.h>

#include "model.h"

#ifndef EXPECT_TARGETS
#define EXPECT_TARGETS SHAPEC_TARGET_CPU
#endif

int main(void) {
  if (shapec_model_targets() != EXPECT_TARGETS) {
    fprintf(stderr, "targets %d, expected %d\n", shapec_model_targets(), EXPECT_TARGETS);
    return 1;
  }
  /* declared by shapec/runtime.h (through model.h): a C caller gets the whole pointer */
  const char *features = shapec_model_cpu_features();
  if (!features || strlen(features) > 4096) { /* a truncated pointer would crash or read garbage here */
    fprintf(stderr, "shapec_model_cpu_features() gave no string\n");
    return 1;
  }
  printf("built for: %s\n", *features ? features : "(the baseline)");
  float w[6 * 5], x[4], y[8 * 4], z[32], o0[6 * 3], o1[32];
  for (int i = 0; i < 30; i++) w[i] = (float)(i % 7) / 7;
  for (int i = 0; i < 4; i++) x[i] = (float)i;
  for (int i = 0; i < 32; i++) y[i] = 1, z[i] = (float)i;
  int64_t sw[2] = {6, 5}, sx[1] = {4}, sy[2] = {8, 4}, sz[1] = {32}, so0[2], so1[1];
  shapec_dtype f32 = {2, 32, 1};
  shapec_tensor in[4] = {{w, {1, 0}, 2, f32, sw, NULL, 0}, {x, {1, 0}, 1, f32, sx, NULL, 0},
                         {y, {1, 0}, 2, f32, sy, NULL, 0}, {z, {1, 0}, 1, f32, sz, NULL, 0}};
  int64_t *shapes[2] = {so0, so1};
  char err[512];
  if (shapec_model_output_shapes(in, shapes, err, sizeof err) != SHAPEC_OK) {
    fprintf(stderr, "output_shapes: %s\n", err);
    return 1;
  }
  shapec_tensor out[2] = {{o0, {1, 0}, 2, f32, so0, NULL, 0}, {o1, {1, 0}, 1, f32, so1, NULL, 0}};
  if (shapec_model_run(in, out, err, sizeof err) != SHAPEC_OK) {
    fprintf(stderr, "run: %s\n", err);
    return 1;
  }
  /* add_1 = flatten(x + y) + z: element i is x[i % 4] + 1 + i */
  for (int i = 0; i < 32; i++)
    if (o1[i] != x[i % 4] + 1 + (float)i) {
      fprintf(stderr, "add_1[%d] = %g\n", i, o1[i]);
      return 1;
    }
  /* strided inputs (DLPack strides, in elements): w stored column-major, y every other row of
   * a wider buffer; the library copies them once and computes the same outputs */
  float wt[5 * 6], ywide[16 * 4], s0[6 * 3], s1[32];
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 5; c++) wt[c * 6 + r] = w[r * 5 + c];
  for (int i = 0; i < 16 * 4; i++) ywide[i] = -99;
  for (int r = 0; r < 8; r++)
    for (int c = 0; c < 4; c++) ywide[(2 * r) * 4 + c] = y[r * 4 + c];
  int64_t wst[2] = {1, 6}, yst[2] = {8, 1};
  shapec_tensor sin[4] = {{wt, {1, 0}, 2, f32, sw, wst, 0}, in[1], {ywide, {1, 0}, 2, f32, sy, yst, 0}, in[3]};
  shapec_tensor sout[2] = {{s0, {1, 0}, 2, f32, so0, NULL, 0}, {s1, {1, 0}, 1, f32, so1, NULL, 0}};
  if (shapec_model_run(sin, sout, err, sizeof err) != SHAPEC_OK || memcmp(s0, o0, sizeof s0) || memcmp(s1, o1, sizeof s1)) {
    fprintf(stderr, "strided inputs: %s (or different outputs)\n", err);
    return 1;
  }
  /* an output in an input's own buffer (add_1 written over z): the library sees the overlap,
   * computes aside and copies, so the result is the same; disjoint outputs are written in place */
  float zz[32], ww[6 * 5];
  memcpy(zz, z, sizeof zz);
  memcpy(ww, w, sizeof ww); /* and addmm written over its own input w, which it reads throughout */
  shapec_tensor ain[4] = {{ww, {1, 0}, 2, f32, sw, NULL, 0}, in[1], in[2], {zz, {1, 0}, 1, f32, sz, NULL, 0}};
  shapec_tensor aout[2] = {{ww, {1, 0}, 2, f32, so0, NULL, 0}, {zz, {1, 0}, 1, f32, so1, NULL, 0}};
  if (shapec_model_run(ain, aout, err, sizeof err) != SHAPEC_OK || memcmp(zz, o1, sizeof zz) ||
      memcmp(ww, o0, sizeof o0)) {
    fprintf(stderr, "an output over an input: %s (or different outputs)\n", err);
    return 1;
  }
  int64_t o0st[2] = {1, 6}; /* an output must be compact: refused */
  sout[0].strides = o0st;
  if (shapec_model_run(sin, sout, err, sizeof err) != SHAPEC_ERR_SHAPE || !strstr(err, "not contiguous")) {
    fprintf(stderr, "a strided output was not refused: %s\n", err);
    return 1;
  }
  sz[0] = 30; /* breaks z = x * y */
  if (shapec_model_run(in, out, err, sizeof err) != SHAPEC_ERR_SHAPE || !strstr(err, "z.size()[0] = 30")) {
    fprintf(stderr, "a wrong shape was not refused: %s\n", err);
    return 1;
  }
  printf("consumer: addmm [%lld, %lld], add_1 [%lld] ok, also from strided inputs; refused: %s\n", (long long)so0[0], (long long)so0[1],
         (long long)so1[0], err);
  return 0;
}
