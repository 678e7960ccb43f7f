/* run.c - `shapec run MODEL.so --input NAME=FILE.npy ... [--out DIR] [--bench N]`: loads a
 * library that `shapec export` built, feeds it .npy inputs through its C ABI and writes
 * the outputs as .npy files; with --bench, times it. */
#include <dlfcn.h>
#include <errno.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuda_stage.h"
#include "lib/base/fileio.h"
#include "lib/base/strbuf.h"
#include "ir/half.h"
#include "lib/frontend/npy.h"
#include "lib/observe/observations.h"
#include "library_file.h"
#include "run.h"
#include "shapec/runtime.h"

#if defined(__SANITIZE_ADDRESS__)
/* In a sanitized build: a model library's convolutions load oneDNN, whose OpenMP
 * (libgomp) workers make LeakSanitizer's scan of thread-local storage crash at exit
 * ("Tracer caught signal 11").  shapec keeps no heap pointers in thread-local storage, so
 * the scan is not needed to find its leaks.  Overridden by LSAN_OPTIONS. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) { return "use_tls=0"; }
/* ... which makes what glibc and libgomp keep there look leaked: the per-thread dlerror
 * state, the dynamic loader's own bookkeeping (allocations made inside ld.so), and the
 * OpenMP settings of a thread that set its own thread count (omp_set_num_threads) */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
  return "leak:_dlerror_run\nleak:ld-linux-x86-64.so.2\nleak:libgomp.so.1\n";
}
#endif

typedef struct model_api {
  int (*num_inputs)(void), (*num_outputs)(void), (*input_ndim)(int), (*output_ndim)(int);
  int (*input_dtype)(int), (*output_dtype)(int);
  const char *(*input_name)(int), *(*output_name)(int);
  int (*output_shapes)(const shapec_tensor *, int64_t *const *, char *, size_t);
  int (*run)(const shapec_tensor *, const shapec_tensor *, char *, size_t);
} model_api;

static sc_dtype from_packed(int packed) {
  switch (packed) {
    case (2 << 8) | 32: return SC_DTYPE_F32;
    case (2 << 8) | 64: return SC_DTYPE_F64;
    case (0 << 8) | 64: return SC_DTYPE_I64;
    case (0 << 8) | 32: return SC_DTYPE_I32;
    case (6 << 8) | 8: return SC_DTYPE_BOOL;
    case (1 << 8) | 8: return SC_DTYPE_U8;
    case (0 << 8) | 8: return SC_DTYPE_I8;
    case (0 << 8) | 16: return SC_DTYPE_I16;
    case (2 << 8) | 16: return SC_DTYPE_F16;
    case (4 << 8) | 16: return SC_DTYPE_BF16;
    default: return SC_DTYPE_UNKNOWN;
  }
}

static void to_dl(sc_dtype dt, shapec_dtype *out) {
  out->lanes = 1;
  out->bits = (uint8_t)(sc_dtype_size(dt) * 8);
  out->code = dt == SC_DTYPE_F32 || dt == SC_DTYPE_F64 || dt == SC_DTYPE_F16 ? 2
              : dt == SC_DTYPE_BF16                                        ? 4
              : dt == SC_DTYPE_BOOL                                        ? 6
              : dt == SC_DTYPE_U8 || dt == SC_DTYPE_U16                    ? 1
                                                                           : 0;
}

/* stderr, for people: the output's dtype, shape and first values. */
static void describe_output(int index, const char *name, const sc_npy *a) {
  fprintf(stderr, "shapec: output_%d (%s): %s [", index, name, sc_dtype_name(a->dtype));
  int64_t numel = 1;
  for (int k = 0; k < a->ndim; k++) {
    fprintf(stderr, "%s%lld", k ? ", " : "", (long long)a->shape[k]);
    numel *= a->shape[k];
  }
  fprintf(stderr, "]");
  if (a->dtype == SC_DTYPE_F32 || a->dtype == SC_DTYPE_F16) {
    fprintf(stderr, " =");
    for (int64_t i = 0; i < numel && i < 6; i++)
      fprintf(stderr, " %.6g", a->dtype == SC_DTYPE_F32 ? ((const float *)a->data)[i] : sc_f16_to_f32(((const uint16_t *)a->data)[i]));
    if (numel > 6) fprintf(stderr, " ...");
  }
  fprintf(stderr, "\n");
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static bool load(sc_ctx *ctx, const char *path, void **handle, model_api *api) {
  char full[4096];
  snprintf(full, sizeof full, "%s%s", strchr(path, '/') ? "" : "./", path);
  char why[300];
  const char *problem = sc_library_file_problem(full, why, sizeof why);
  if (problem) {
    sc_diags_add(&ctx->diags, SC_DIAG_RUN_LOAD, SC_SEV_ERROR, path, NULL, "cannot load the library: %s", problem);
    return false;
  }
  *handle = dlopen(full, RTLD_NOW | RTLD_LOCAL);
  if (!*handle) {
    sc_diags_add(&ctx->diags, SC_DIAG_RUN_LOAD, SC_SEV_ERROR, path, NULL, "cannot load the library: %s", dlerror());
    return false;
  }
#define SYM(field, name)                                                                                  \
  *(void **)&api->field = sc_library_function(*handle, name);                                           \
  if (!api->field) {                                                                                    \
    sc_diags_add(&ctx->diags, SC_DIAG_RUN_LOAD, SC_SEV_ERROR, path, NULL, "not a shapec model library: no %s", name); \
    return false;                                                                                       \
  }
  SYM(num_inputs, "num_inputs") SYM(num_outputs, "num_outputs")
  SYM(input_ndim, "input_ndim") SYM(output_ndim, "output_ndim")
  SYM(input_dtype, "input_dtype") SYM(output_dtype, "output_dtype")
  SYM(input_name, "input_name") SYM(output_name, "output_name")
  SYM(output_shapes, "output_shapes") SYM(run, "run")
#undef SYM
  int (*abi)(void) = (int (*)(void))sc_library_function(*handle, "abi_version");
  if (!abi || abi() != SHAPEC_ABI_VERSION) {
    sc_diags_add(&ctx->diags, SC_DIAG_RUN_LOAD, SC_SEV_ERROR, path, NULL,
                 "the library was built for ABI version %d, this shapec runs version %d: export it again",
                 abi ? abi() : 0, SHAPEC_ABI_VERSION);
    return false;
  }
  return true;
}

/* A scalar input written as its value (--input n=5, f=0.5, b=True) as a 0-d array of the
 * dtype the library takes; false when the text is not such a value (then it is a file). */
static bool scalar_value(const char *text, sc_dtype dtype, sc_npy *out) {
  char *end = NULL;
  union {
    int64_t i;
    double f;
    uint8_t b;
  } v = {0};
  if (dtype == SC_DTYPE_I64) {
    errno = 0;
    long long x = strtoll(text, &end, 10);
    if (end == text || *end || errno) return false;
    v.i = x;
  } else if (dtype == SC_DTYPE_F64) {
    v.f = strtod(text, &end);
    if (end == text || *end) return false;
  } else if (dtype == SC_DTYPE_BOOL) {
    if (strcmp(text, "True") == 0 || strcmp(text, "true") == 0 || strcmp(text, "1") == 0) v.b = 1;
    else if (strcmp(text, "False") != 0 && strcmp(text, "false") != 0 && strcmp(text, "0") != 0) return false;
  } else {
    return false;
  }
  *out = (sc_npy){.dtype = dtype, .ndim = 0, .nbytes = sc_dtype_size(dtype)};
  out->data = aligned_alloc(64, 64);
  memcpy(out->data, &v, out->nbytes);
  return true;
}

/* Whether the library's input i is a scalar (an int, float or bool input), from the
 * report it embeds: a 0-d tensor input is a tensor. */
static bool input_is_scalar(const cJSON *report, const char *name) {
  const cJSON *in;
  cJSON_ArrayForEach(in, cJSON_GetObjectItemCaseSensitive(report, "inputs")) {
    const char *n = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(in, "name"));
    if (n && strcmp(n, name) == 0) return cJSON_GetObjectItemCaseSensitive(in, "value_kind") != NULL;
  }
  return false;
}

/* --record-shapes: this call's input shapes (and scalar values) appended to the
 * observations, with the model's digest, before the library checks them: a library that
 * refuses the shapes still records them (docs/observations.md). */
static bool record_shapes(sc_ctx *ctx, void *handle, const model_api *api, const sc_npy *ins, int n_in,
                          const char *path) {
  const char *(*report_fn)(void) = (const char *(*)(void))sc_library_function(handle, "report");
  cJSON *report = report_fn ? cJSON_Parse(report_fn()) : NULL;
  const char *sha = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(report, "model_sha256"));
  sc_obs_call call = {sc_arena_alloc(&ctx->arena, (size_t)(n_in ? n_in : 1) * sizeof *call.values), (size_t)n_in};
  for (int i = 0; i < n_in; i++) {
    sc_obs_value *v = &call.values[i];
    v->name = api->input_name(i);
    if (ins[i].ndim == 0 && input_is_scalar(report, v->name)) {
      switch (ins[i].dtype) {
        case SC_DTYPE_F64: v->kind = SC_OBS_FLOAT, v->f = *(const double *)ins[i].data; break;
        case SC_DTYPE_F32: v->kind = SC_OBS_FLOAT, v->f = *(const float *)ins[i].data; break;
        case SC_DTYPE_BOOL: v->kind = SC_OBS_BOOL, v->i = *(const uint8_t *)ins[i].data != 0; break;
        case SC_DTYPE_I32: v->kind = SC_OBS_INT, v->i = *(const int32_t *)ins[i].data; break;
        default: v->kind = SC_OBS_INT, v->i = *(const int64_t *)ins[i].data; break;
      }
    } else {
      v->kind = SC_OBS_TENSOR;
      v->rank = ins[i].ndim;
      v->sizes = (int64_t *)ins[i].shape;
    }
  }
  const char *file = sc_obs_append(ctx, path, sha, &call);
  cJSON_Delete(report);
  if (file) fprintf(stderr, "shapec: recorded the input shapes in %s\n", file);
  return file != NULL;
}

int sc_cmd_run(sc_ctx *ctx, const sc_run_options *o) {
  void *handle = NULL;
  model_api api;
  int status = 0;
  int n_in = 0, n_out = 0;
  sc_npy *ins = NULL, *outs = NULL;
  shapec_tensor *tin = NULL, *tout = NULL;
  int64_t **oshapes = NULL;
  void **dev_in = NULL, **dev_out = NULL; /* --device cuda: the device copies */
  char err[2048] = "";
  if (!load(ctx, o->model, &handle, &api)) {
    status = 3;
    goto done;
  }
  if (o->weights) { /* --weights FILE.safetensors: before the first run */
    int (*load_weights)(const char *, char *, size_t) =
        (int (*)(const char *, char *, size_t))sc_library_function(handle, "load_weights");
    if (!load_weights) {
      sc_diags_add(&ctx->diags, SC_DIAG_RUN_LOAD, SC_SEV_ERROR, o->model, NULL,
                   "this library cannot replace its weights (built before shapec 0.75): export it again");
      status = 3;
      goto done;
    }
    if (load_weights(o->weights, err, sizeof err) != SHAPEC_OK) {
      sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_WEIGHTS_MISMATCH, SC_SEV_ERROR, o->weights, NULL, "%s", err);
      sc_diag_set_hint(&ctx->diags, d, "the file must hold the tensors `shapec inspect %s` lists under weights, with "
                       "those names, dtypes and shapes", o->model);
      status = 3;
      goto done;
    }
  }
  n_in = api.num_inputs();
  n_out = api.num_outputs();
  ins = sc_xcalloc((size_t)n_in + 1, sizeof *ins);
  outs = sc_xcalloc((size_t)n_out + 1, sizeof *outs);
  tin = sc_xcalloc((size_t)n_in + 1, sizeof *tin);
  tout = sc_xcalloc((size_t)n_out + 1, sizeof *tout);
  oshapes = sc_xcalloc((size_t)n_out + 1, sizeof *oshapes);
  dev_in = sc_xcalloc((size_t)n_in + 1, sizeof *dev_in);
  dev_out = sc_xcalloc((size_t)n_out + 1, sizeof *dev_out);
  /* a library of CUDA code only takes CUDA tensors: say which flag makes them */
  int (*targets)(void) = (int (*)(void))sc_library_function(handle, "targets");
  if (!o->cuda && targets && !(targets() & SHAPEC_TARGET_CPU)) {
    sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_RUN_INPUT, SC_SEV_ERROR, o->model, NULL,
                              "this library computes on CUDA tensors only (it was exported with --target cuda)");
    sc_diag_set_hint(&ctx->diags, d, "run it with --device cuda (or export with --target cpu,cuda for CPU tensors too)");
    status = 1;
    goto done;
  }
  /* a library exported with --cuda-emulate takes host memory as its "device" memory */
  const char *(*cuda_arch)(void) = (const char *(*)(void))sc_library_function(handle, "cuda_arch");
  bool stage = o->cuda && !(cuda_arch && strcmp(cuda_arch(), "host-emulation") == 0);
  if (stage && !sc_stage_open(o->cuda_device, err, sizeof err)) {
    fprintf(stderr, "shapec: --device cuda:%d: %s\n", o->cuda_device, err);
    status = 4;
    goto done;
  }
  for (size_t k = 0; k < o->n_inputs; k++) {
    bool known = false;
    for (int i = 0; i < n_in; i++) known |= strcmp(api.input_name(i), o->input_names[k]) == 0;
    if (!known) {
      sc_strbuf names = {0};
      for (int i = 0; i < n_in; i++) sc_strbuf_printf(&names, "%s%s", i ? ", " : "", api.input_name(i));
      sc_diags_add(&ctx->diags, SC_DIAG_RUN_INPUT, SC_SEV_ERROR, o->model, NULL, "the model has no input named '%s' "
                   "(its inputs: %s; give each as -i NAME=FILE.npy)", o->input_names[k], n_in ? sc_strbuf_cstr(&names) : "none");
      sc_strbuf_free(&names);
      status = 1;
      goto done;
    }
  }
  for (int i = 0; i < n_in; i++) {
    const char *file = NULL;
    for (size_t k = 0; k < o->n_inputs; k++)
      if (strcmp(api.input_name(i), o->input_names[k]) == 0) file = o->input_files[k];
    if (!file) {
      sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_RUN_INPUT, SC_SEV_ERROR, o->model, NULL, "no file for input '%s'",
                                api.input_name(i));
      sc_diag_set_hint(&ctx->diags, d, "pass --input %s=FILE.npy", api.input_name(i));
      status = 1;
      goto done;
    }
    if (api.input_ndim(i) == 0 && scalar_value(file, from_packed(api.input_dtype(i)), &ins[i])) {
      /* --input n=5: a scalar input given on the command line */
    } else if (api.input_ndim(i) == 0 && access(file, F_OK) != 0) {
      sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_RUN_INPUT, SC_SEV_ERROR, o->model, NULL,
                                "input '%s' is a scalar (%s) and '%s' is neither such a value nor a file",
                                api.input_name(i), sc_dtype_name(from_packed(api.input_dtype(i))), file);
      sc_diag_set_hint(&ctx->diags, d, "pass its value (--input %s=5, 0.5 or True) or a 0-d .npy file", api.input_name(i));
      status = 1;
      goto done;
    } else if (!sc_npy_read(ctx, file, &ins[i])) {
      status = (int)sc_diags_exit_class(&ctx->diags);
      goto done;
    }
    sc_npy_as_half(&ins[i], from_packed(api.input_dtype(i))); /* float32 or bit patterns for a half input */
    tin[i] = (shapec_tensor){ins[i].data, {1, 0}, ins[i].ndim, {0, 0, 1}, ins[i].shape, NULL, 0};
    to_dl(ins[i].dtype, &tin[i].dtype);
    if (o->cuda) tin[i].device = (shapec_device){2, o->cuda_device};
    if (stage) {
      if (!(dev_in[i] = sc_stage_put(ins[i].data, ins[i].nbytes, err, sizeof err))) {
        fprintf(stderr, "shapec: --device cuda: input '%s': %s\n", api.input_name(i), err);
        status = 4;
        goto done;
      }
      tin[i].data = dev_in[i];
    }
  }
  if (o->record_shapes && !record_shapes(ctx, handle, &api, ins, n_in, o->record_shapes)) {
    status = (int)sc_diags_exit_class(&ctx->diags);
    goto done;
  }
  for (int i = 0; i < n_out; i++) oshapes[i] = outs[i].shape;
  int rc = api.output_shapes(tin, oshapes, err, sizeof err);
  if (rc == SHAPEC_ERR_CPU || rc == SHAPEC_ERR_CUDA) { /* this machine, not the inputs, is the problem */
    fprintf(stderr, "shapec: %s: %s\n", o->model, err);
    status = 4;
    goto done;
  }
  if (rc) {
    fprintf(stderr, "shapec: %s: the inputs do not fit the model: %s\n", o->model, err);
    status = 1;
    goto done;
  }
  for (int i = 0; i < n_out; i++) {
    outs[i].ndim = api.output_ndim(i);
    outs[i].dtype = from_packed(api.output_dtype(i));
    int64_t numel = 1;
    for (int k = 0; k < outs[i].ndim; k++) numel *= outs[i].shape[k];
    outs[i].nbytes = (size_t)numel * sc_dtype_size(outs[i].dtype);
    outs[i].data = aligned_alloc(64, (outs[i].nbytes + 63) / 64 * 64 + 64);
    tout[i] = (shapec_tensor){outs[i].data, {1, 0}, outs[i].ndim, {0, 0, 1}, outs[i].shape, NULL, 0};
    to_dl(outs[i].dtype, &tout[i].dtype);
    if (o->cuda) tout[i].device = (shapec_device){2, o->cuda_device};
    if (stage) {
      if (!(dev_out[i] = sc_stage_put(NULL, outs[i].nbytes, err, sizeof err))) {
        fprintf(stderr, "shapec: --device cuda: output '%s': %s\n", api.output_name(i), err);
        status = 4;
        goto done;
      }
      tout[i].data = dev_out[i];
    }
  }
  rc = api.run(tin, tout, err, sizeof err);
  if (rc) {
    fprintf(stderr, "shapec: %s: %s\n", o->model, err);
    status = rc == SHAPEC_ERR_SHAPE ? 1 : rc == SHAPEC_ERR_WEIGHTS ? 3 : 4;
    goto done;
  }
  if (o->bench > 0) {
    for (int w = 0; w < 3; w++) api.run(tin, tout, err, sizeof err);
    double *t = sc_xcalloc((size_t)o->bench, sizeof *t);
    for (int r = 0; r < o->bench; r++) {
      double t0 = now_us();
      api.run(tin, tout, err, sizeof err);
      t[r] = now_us() - t0;
    }
    qsort(t, (size_t)o->bench, sizeof *t, cmp);
    /* a CUDA library's shapec_model_run returns after its stream is done: these are whole runs */
    /* stderr: stdout holds only the output paths, for scripts */
    fprintf(stderr, "latency over %d runs: median %.1f us, min %.1f us, max %.1f us\n", o->bench, t[o->bench / 2], t[0],
           t[o->bench - 1]);
    free(t);
  }
  for (int i = 0; i < n_out && stage; i++)
    if (!sc_stage_get(outs[i].data, dev_out[i], outs[i].nbytes, err, sizeof err)) {
      fprintf(stderr, "shapec: --device cuda: output '%s': %s\n", api.output_name(i), err);
      status = 4;
      goto done;
    }
  const char *outdir = o->outdir ? o->outdir : ".";
  if (!sc_dir_ensure(ctx, outdir)) {
    status = 3;
    goto done;
  }
  for (int i = 0; i < n_out; i++) {
    sc_npy_widen_bf16(&outs[i]); /* NumPy has no bfloat16: its values as float32, exactly */
    /* by position, as the program returns them (the graph's node names say nothing to a
     * caller, and change when the model does) */
    const char *path = sc_arena_printf(&ctx->arena, "%s/output_%d.npy", outdir, i);
    if (!sc_npy_write(ctx, path, &outs[i])) {
      status = 3;
      goto done;
    }
    printf("%s\n", path); /* stdout: one path per output, for scripts */
    describe_output(i, api.output_name(i), &outs[i]);
  }
done:
  for (int i = 0; i < n_in && dev_in; i++) sc_stage_free(dev_in[i]);
  for (int i = 0; i < n_out && dev_out; i++) sc_stage_free(dev_out[i]);
  free(dev_in);
  free(dev_out);
  for (int i = 0; i < n_in && ins; i++) sc_npy_free(&ins[i]);
  for (int i = 0; i < n_out && outs; i++) sc_npy_free(&outs[i]);
  free(ins);
  free(outs);
  free(tin);
  free(tout);
  free(oshapes);
  if (handle) dlclose(handle);
  return status;
}
