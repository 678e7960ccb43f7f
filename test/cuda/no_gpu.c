/* no_gpu.c - a CUDA model library on a machine without a GPU: it must load, answer its
 * metadata and output shapes, check every guard before touching the driver, and fail a
 * run with SHAPEC_ERR_CUDA and "no CUDA device" instead of crashing.
 *
 * usage: test_cuda_no_gpu MODEL.so SHAPE...   (one per input: 2x3, or - for a scalar)
 * Exits 77 when this machine has a CUDA driver (the GPU tests cover it there). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shapec/runtime.h"

static int failures;

static void expect(int ok, const char *what, const char *detail) {
  printf("%s - %s%s%s\n", ok ? "ok" : "not ok", what, detail && *detail ? ": " : "", detail ? detail : "");
  if (!ok) failures++;
}

typedef int (*run_fn)(const shapec_tensor *, const shapec_tensor *, char *, size_t);
typedef int (*stream_fn)(const shapec_tensor *, const shapec_tensor *, void *, char *, size_t);
typedef int (*shapes_fn)(const shapec_tensor *, int64_t *const *, char *, size_t);

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL.so SHAPE...\n", argv[0]);
    return 2;
  }
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver) {
    printf("skipped: this machine has a CUDA driver\n");
    return 77;
  }
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  expect(h != NULL, "the library loads without CUDA", h ? "" : dlerror());
  if (!h) return 1;
  int (*n_inputs)(void) = (int (*)(void))dlsym(h, "shapec_model_num_inputs");
  int (*n_outputs)(void) = (int (*)(void))dlsym(h, "shapec_model_num_outputs");
  int (*in_dtype)(int) = (int (*)(int))dlsym(h, "shapec_model_input_dtype");
  int (*out_dtype)(int) = (int (*)(int))dlsym(h, "shapec_model_output_dtype");
  int (*out_ndim)(int) = (int (*)(int))dlsym(h, "shapec_model_output_ndim");
  int (*targets)(void) = (int (*)(void))dlsym(h, "shapec_model_targets");
  shapes_fn shapes = (shapes_fn)dlsym(h, "shapec_model_output_shapes");
  run_fn run = (run_fn)dlsym(h, "shapec_model_run");
  stream_fn run_on_stream = (stream_fn)dlsym(h, "shapec_model_run_on_stream");
  expect(targets && run_on_stream && (targets() & 2), "the library has CUDA code and shapec_model_run_on_stream", "");
  if (!targets || !run_on_stream) return 1;
  int ni = n_inputs(), no = n_outputs();
  if (argc - 2 != ni) {
    fprintf(stderr, "%d inputs need %d shapes\n", ni, ni);
    return 2;
  }
  shapec_tensor in[64], out[64];
  int64_t in_shapes[64][16], out_shapes[64][16];
  int64_t *out_shape_ptrs[64];
  static char fake[64]; /* device pointers that must never be dereferenced on the host */
  for (int i = 0; i < ni; i++) {
    int nd = 0;
    for (char *s = argv[2 + i]; strcmp(argv[2 + i], "-") != 0 && *s; s = *s == 'x' ? s + 1 : s) in_shapes[i][nd++] = strtoll(s, &s, 10);
    int dt = in_dtype(i);
    in[i] = (shapec_tensor){fake, {2, 0}, nd, {(uint8_t)(dt >> 8), (uint8_t)(dt & 255), 1}, in_shapes[i], NULL, 0};
  }
  for (int i = 0; i < no; i++) out_shape_ptrs[i] = out_shapes[i];
  char err[1024] = "";
  int rc = shapes(in, out_shape_ptrs, err, sizeof err);
  /* shapes need no GPU unless they depend on data (then the graph must run there) */
  expect(rc == SHAPEC_OK || (rc == SHAPEC_ERR_CUDA && strstr(err, "no CUDA device")), "output shapes without a GPU", err);
  for (int i = 0; i < no; i++) {
    int dt = out_dtype(i);
    out[i] = (shapec_tensor){fake, {2, 0}, out_ndim(i), {(uint8_t)(dt >> 8), (uint8_t)(dt & 255), 1}, out_shapes[i], NULL, 0};
  }
  int shapes_known = rc == SHAPEC_OK; /* else the outputs' sizes depend on data only a GPU computes */
  if (shapes_known) {
    err[0] = 0;
    rc = run(in, out, err, sizeof err);
    expect(rc == SHAPEC_ERR_CUDA && strstr(err, "no CUDA device") != NULL, "a run says there is no CUDA device", err);
    err[0] = 0;
    rc = run_on_stream(in, out, (void *)0x1, err, sizeof err);
    expect(rc == SHAPEC_ERR_CUDA && strstr(err, "no CUDA device") != NULL, "so does a run on a stream", err);
  }
  if (shapes_known && ni > 0 && no > 0) { /* every tensor on one device */
    out[0].device.device_id = 1;
    err[0] = 0;
    rc = run(in, out, err, sizeof err);
    expect(rc == SHAPEC_ERR_ARGUMENT && strstr(err, "output 0 is on CUDA device 1 but input 0 is on device 0"),
           "tensors on two devices are refused", err);
    out[0].device.device_id = 0;
  }
  if (ni > 0) { /* the guards come first: a wrong rank is reported as such, not as a missing GPU */
    in[0].ndim += 1;
    in_shapes[0][in[0].ndim - 1] = 1;
    err[0] = 0;
    rc = run(in, out, err, sizeof err);
    expect(rc == SHAPEC_ERR_SHAPE && strstr(err, "dims but the model needs"), "a wrong rank is refused before CUDA", err);
    in[0].ndim -= 1;
    /* CPU tensors: computed on the CPU by a cpu,cuda library, refused by a cuda one */
    for (int i = 0; i < ni; i++) in[i].device.device_type = 1;
    for (int i = 0; i < no; i++) out[i].device.device_type = 1;
    if (!(targets() & 1)) {
      err[0] = 0;
      rc = run(in, out, err, sizeof err);
      expect(rc == SHAPEC_ERR_ARGUMENT && strstr(err, "pass every input and output as a CUDA tensor"),
             "CPU tensors are refused by a CUDA-only library", err);
    } else {
      err[0] = 0;
      rc = run_on_stream(in, out, (void *)0x1, err, sizeof err);
      expect(rc == SHAPEC_ERR_ARGUMENT && strstr(err, "a CUDA stream was given but the tensors are not on a CUDA device"),
             "a stream with CPU tensors is refused", err);
    }
  }
  printf("# %d failed\n", failures);
  return failures ? 1 : 0;
}
