/* Two libraries of the tutorial model in one executable, exported with --name: tut_dyn with
 * the dynamic spec, tut_fixed with every dim static.  Each call reaches its own library. */
#include <stdio.h>
#include <string.h>

#include "tut_dyn.h"
#include "tut_fixed.h"

int main(void) {
  float w[8 * 5] = {0}, x[4] = {0}, y[8 * 4] = {0}, z[32] = {0}, o0[8 * 3], o1[32];
  int64_t sw[2] = {8, 5}, sx[1] = {4}, sy[2] = {8, 4}, sz[1] = {32}, so0[2], so1[1];
  shapec_dtype f32 = {2, 32, 1};
  shapec_tensor in[4] = {{w, {1, 0}, 2, f32, sw, NULL, 0}, {x, {1, 0}, 1, f32, sx, NULL, 0},
                         {y, {1, 0}, 2, f32, sy, NULL, 0}, {z, {1, 0}, 1, f32, sz, NULL, 0}};
  int64_t *shapes[2] = {so0, so1};
  char err[512];
  /* w with 8 rows: the dynamic library takes it, the static one (traced with 6) refuses it */
  if (shapec_tut_dyn_output_shapes(in, shapes, err, sizeof err) != SHAPEC_OK || so0[0] != 8) {
    fprintf(stderr, "tut_dyn refused w [8, 5]: %s\n", err);
    return 1;
  }
  shapec_tensor out[2] = {{o0, {1, 0}, 2, f32, so0, NULL, 0}, {o1, {1, 0}, 1, f32, so1, NULL, 0}};
  if (shapec_tut_dyn_run(in, out, err, sizeof err) != SHAPEC_OK) {
    fprintf(stderr, "tut_dyn run: %s\n", err);
    return 1;
  }
  if (shapec_tut_fixed_output_shapes(in, shapes, err, sizeof err) != SHAPEC_ERR_SHAPE || !strstr(err, "w.size()[0]")) {
    fprintf(stderr, "tut_fixed did not refuse w [8, 5]: %s\n", err);
    return 1;
  }
  /* each library has its own thread setting */
  shapec_tut_dyn_set_num_threads(1);
  shapec_tut_fixed_set_num_threads(2);
  if (shapec_tut_dyn_get_num_threads() != 1 || shapec_tut_fixed_get_num_threads() != 2) {
    fprintf(stderr, "thread settings are shared: %d, %d\n", shapec_tut_dyn_get_num_threads(),
            shapec_tut_fixed_get_num_threads());
    return 1;
  }
  printf("two_models: tut_dyn ran w [8, 5]; tut_fixed refused it: %s\n", err);
  return 0;
}
