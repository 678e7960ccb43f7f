/* outputs_over_inputs.c - a model library's outputs given in its inputs' own memory.
 *
 * A graph output is computed straight in the caller's tensor when that tensor overlaps no
 * input and no other output (backends/llvm/cg_entry.c, place_outputs), also when a layer
 * computes it for an activation or residual add folded into it.  When the caller passes
 * an input's buffer as an output, the library must see the overlap, compute aside and copy:
 * the result is the one it gives with separate outputs, bit for bit.
 *   1. a call with separate outputs: the reference;
 *   2. for each output k and each float32 input j at least as large: a call whose output k
 *      is a copy of input j, which is also passed as input j.
 * Inputs are float32, filled with a fixed pattern.  Exits 1 on a difference.
 *   usage: outputs_over_inputs MODEL.so SHAPES
 * SHAPES gives every input's shape, inputs separated by ',' and dims by 'x'. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shapec/runtime.h"

enum { MAX_TENSORS = 16, MAX_DIMS = 8 };

typedef struct model {
  int (*num_inputs)(void), (*num_outputs)(void), (*output_ndim)(int);
  int (*output_shapes)(const shapec_tensor *, int64_t *const *, char *, size_t);
  int (*run)(const shapec_tensor *, const shapec_tensor *, char *, size_t);
} model;

static const shapec_dtype F32 = {2, 32, 1};

static int64_t numel(const int64_t *shape, int ndim) {
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) n *= shape[d];
  return n;
}

static int parse_shapes(char *text, int64_t shapes[][MAX_DIMS], int *ndims) {
  int count = 0;
  for (char *in = strtok(text, ","); in && count < MAX_TENSORS; in = strtok(NULL, ","), count++) {
    ndims[count] = 0;
    for (char *p = in; *p && ndims[count] < MAX_DIMS;) {
      shapes[count][ndims[count]++] = strtoll(p, &p, 10);
      if (*p == 'x') p++;
    }
  }
  return count;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: outputs_over_inputs MODEL.so SHAPES\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  model m = {(int (*)(void))dlsym(lib, "shapec_model_num_inputs"), (int (*)(void))dlsym(lib, "shapec_model_num_outputs"),
             (int (*)(int))dlsym(lib, "shapec_model_output_ndim"),
             (int (*)(const shapec_tensor *, int64_t *const *, char *, size_t))dlsym(lib, "shapec_model_output_shapes"),
             (int (*)(const shapec_tensor *, const shapec_tensor *, char *, size_t))dlsym(lib, "shapec_model_run")};
  if (!m.num_inputs || !m.num_outputs || !m.output_ndim || !m.output_shapes || !m.run) {
    fprintf(stderr, "%s: not a model library\n", argv[1]);
    return 1;
  }
  int64_t in_shapes[MAX_TENSORS][MAX_DIMS], out_shapes[MAX_TENSORS][MAX_DIMS];
  int in_ndim[MAX_TENSORS], n_in = parse_shapes(argv[2], in_shapes, in_ndim), n_out = m.num_outputs();
  if (n_in != m.num_inputs() || n_out > MAX_TENSORS) {
    fprintf(stderr, "%d input shapes for %d inputs\n", n_in, m.num_inputs());
    return 1;
  }
  shapec_tensor in[MAX_TENSORS], out[MAX_TENSORS];
  float *in_data[MAX_TENSORS], *ref[MAX_TENSORS];
  for (int j = 0; j < n_in; j++) {
    int64_t n = numel(in_shapes[j], in_ndim[j]);
    in_data[j] = malloc((size_t)(n ? n : 1) * sizeof(float));
    for (int64_t e = 0; e < n; e++) in_data[j][e] = (float)((e * 7919 + j * 31) % 1000) / 250.0f - 2.0f;
    in[j] = (shapec_tensor){in_data[j], {1, 0}, in_ndim[j], F32, in_shapes[j], NULL, 0};
  }
  int64_t *shape_ptrs[MAX_TENSORS];
  for (int k = 0; k < n_out; k++) shape_ptrs[k] = out_shapes[k];
  char err[512];
  if (m.output_shapes(in, shape_ptrs, err, sizeof err) != SHAPEC_OK) {
    fprintf(stderr, "output_shapes: %s\n", err);
    return 1;
  }
  for (int k = 0; k < n_out; k++) {
    int64_t n = numel(out_shapes[k], m.output_ndim(k));
    ref[k] = malloc((size_t)(n ? n : 1) * sizeof(float));
    out[k] = (shapec_tensor){ref[k], {1, 0}, m.output_ndim(k), F32, out_shapes[k], NULL, 0};
  }
  if (m.run(in, out, err, sizeof err) != SHAPEC_OK) {
    fprintf(stderr, "run: %s\n", err);
    return 1;
  }
  int failures = 0, checked = 0;
  for (int k = 0; k < n_out; k++)
    for (int j = 0; j < n_in; j++) {
      int64_t n_o = numel(out_shapes[k], m.output_ndim(k)), n_i = numel(in_shapes[j], in_ndim[j]);
      if (n_i < n_o) continue;
      /* every output separate again but k, which lives in (a copy of) input j */
      float *shared = malloc((size_t)(n_i ? n_i : 1) * sizeof(float)), *others[MAX_TENSORS];
      memcpy(shared, in_data[j], (size_t)n_i * sizeof(float));
      shapec_tensor in2[MAX_TENSORS], out2[MAX_TENSORS];
      memcpy(in2, in, sizeof in2);
      in2[j].data = shared;
      for (int o = 0; o < n_out; o++) {
        int64_t n = numel(out_shapes[o], m.output_ndim(o));
        others[o] = o == k ? shared : malloc((size_t)(n ? n : 1) * sizeof(float));
        out2[o] = out[o];
        out2[o].data = others[o];
      }
      int rc = m.run(in2, out2, err, sizeof err);
      checked++;
      if (rc != SHAPEC_OK) {
        fprintf(stderr, "output %d over input %d: %s\n", k, j, err);
        failures++;
      } else {
        for (int o = 0; o < n_out; o++)
          if (memcmp(others[o], ref[o], (size_t)numel(out_shapes[o], m.output_ndim(o)) * sizeof(float)) != 0) {
            fprintf(stderr, "output %d over input %d: output %d differs from the call with separate outputs\n", k, j,
                    o);
            failures++;
          }
      }
      for (int o = 0; o < n_out; o++)
        if (o != k) free(others[o]);
      free(shared);
    }
  for (int j = 0; j < n_in; j++) free(in_data[j]);
  for (int k = 0; k < n_out; k++) free(ref[k]);
  printf("%d placements of an output over an input, %d differed\n", checked, failures);
  return failures || !checked ? 1 : 0;
}
