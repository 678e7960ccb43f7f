/* inspect.c - `shapec inspect MODEL.so`; see inspect.h. */
#include "inspect.h"

#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "library_file.h"
#include "shapec/runtime.h"

static const char *str(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A shape as [s0, 5]. */
static void print_shape(const cJSON *shape) {
  printf("[");
  int i = 0;
  for (const cJSON *d = shape ? shape->child : NULL; d; d = d->next, i++) {
    if (i) printf(", ");
    if (cJSON_IsNumber(d)) printf("%lld", (long long)d->valuedouble);
    else if (cJSON_IsString(d)) printf("%s", d->valuestring);
  }
  printf("]");
}

static void print_bound(const cJSON *v, const char *inf) {
  if (cJSON_IsNumber(v)) printf("%lld", (long long)v->valuedouble);
  else printf("%s", inf);
}

/* Each entry's `member` on its own line, under a heading; nothing when the array is empty. */
static void print_list(const cJSON *report, const char *key, const char *member, const char *heading) {
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(report, key);
  if (!cJSON_GetArraySize(arr)) return;
  printf("%s:\n", heading);
  for (const cJSON *e = arr->child; e; e = e->next) {
    const char *text = str(e, member);
    if (text) printf("  %s\n", text);
  }
}

/* The library's own view of its inputs, through the ABI: every input it takes, scalars too. */
typedef struct abi_inputs {
  int (*count)(void), (*ndim)(int), (*dtype)(int);
  const char *(*name)(int);
  int (*num_weights)(void), (*weight)(int, shapec_weight_info *); /* NULL before shapec 0.75 */
} abi_inputs;

static const char *dtype_text(int packed) {
  switch (packed) {
    case (2 << 8) | 32: return "float32";
    case (2 << 8) | 64: return "float64";
    case (2 << 8) | 16: return "float16";
    case (4 << 8) | 16: return "bfloat16";
    case (0 << 8) | 16: return "int16";
    case (0 << 8) | 64: return "int64";
    case (0 << 8) | 32: return "int32";
    case (0 << 8) | 8: return "int8";
    case (1 << 8) | 8: return "uint8";
    case (6 << 8) | 8: return "bool";
    default: return "?";
  }
}

static void print_report(const char *path, const cJSON *r, int targets, const char *features, const char *cuda_arch,
                         const abi_inputs *abi) {
  printf("%s: a shapec model library (ABI %d), built by shapec %s\n", path, SHAPEC_ABI_VERSION,
         str(r, "shapec_version") ? str(r, "shapec_version") : "?");
  printf("  from: %s", str(r, "model") ? str(r, "model") : "?");
  if (str(r, "model_sha256")) printf(" (sha256 %s)", str(r, "model_sha256"));
  printf("\n  spec: %s", str(r, "spec") ? str(r, "spec") : "none");
  if (str(r, "spec_sha256")) printf(" (sha256 %s)", str(r, "spec_sha256"));
  printf("\n");
  printf("  targets: %s%s%s", targets & SHAPEC_TARGET_CPU ? "cpu" : "",
         (targets & SHAPEC_TARGET_CPU) && (targets & SHAPEC_TARGET_CUDA) ? ", " : "", targets & SHAPEC_TARGET_CUDA ? "cuda" : "");
  if (targets & SHAPEC_TARGET_CPU) printf(" (CPU features: %s)", features && *features ? features : "the baseline");
  if (cuda_arch) printf(" (CUDA: %s)", cuda_arch);
  const cJSON *meta = cJSON_GetObjectItemCaseSensitive(r, "metadata"); /* export --metadata */
  if (cJSON_GetArraySize(meta)) {
    printf("\nmetadata:");
    for (const cJSON *m = meta->child; m; m = m->next)
      printf("\n  %s = %s", m->string, cJSON_IsString(m) ? m->valuestring : "?");
  }
  printf("\ninputs (in call order):\n");
  for (int i = 0; i < abi->count(); i++) {
    const char *name = abi->name(i);
    const cJSON *shape = NULL;
    for (const cJSON *in = cJSON_GetObjectItemCaseSensitive(r, "inputs")->child; in && !shape; in = in->next)
      if (str(in, "name") && strcmp(str(in, "name"), name) == 0) shape = cJSON_GetObjectItemCaseSensitive(in, "shape");
    printf("  %s: %s ", name, dtype_text(abi->dtype(i)));
    if (shape) print_shape(shape);
    else if (abi->ndim(i) == 0) printf("scalar (a 0-d tensor; `shapec run --input %s=VALUE`)", name);
    else printf("(%d dims)", abi->ndim(i));
    printf("\n");
  }
  printf("outputs:\n");
  for (const cJSON *out = cJSON_GetObjectItemCaseSensitive(r, "outputs")->child; out; out = out->next) {
    printf("  %s: %s ", str(out, "name") ? str(out, "name") : "?", str(out, "dtype") ? str(out, "dtype") : "?");
    print_shape(cJSON_GetObjectItemCaseSensitive(out, "shape"));
    printf("\n");
  }
  int n_weights = abi->num_weights ? abi->num_weights() : 0;
  if (n_weights) /* what a safetensors file for `run --weights` / shapec_model_load_weights holds */
    printf("weights (replaceable at load in a library exported with --external-weights):\n");
  for (int i = 0; i < n_weights; i++) {
    shapec_weight_info w;
    if (abi->weight(i, &w) != SHAPEC_OK) continue;
    printf("  %s: %s %s [", w.name, w.kind, dtype_text(w.code << 8 | w.bits));
    for (int d = 0; d < w.ndim; d++) printf("%s%lld", d ? ", " : "", (long long)w.shape[d]);
    printf("]\n");
  }
  const cJSON *symbols = cJSON_GetObjectItemCaseSensitive(r, "symbols");
  const cJSON *ranges = cJSON_GetObjectItemCaseSensitive(r, "range_constraints");
  if (cJSON_GetArraySize(ranges)) {
    printf("ranges:\n");
    for (const cJSON *rc = ranges->child; rc; rc = rc->next) {
      const cJSON *sym = cJSON_GetObjectItemCaseSensitive(symbols, rc->string);
      printf("  %s in [", rc->string);
      print_bound(cJSON_GetObjectItemCaseSensitive(rc, "min"), "-int_oo");
      printf(", ");
      print_bound(cJSON_GetObjectItemCaseSensitive(rc, "max"), "int_oo");
      printf("]%s%s\n", sym && str(sym, "source") ? "  " : "", sym && str(sym, "source") ? str(sym, "source") : "");
    }
  }
  const cJSON *repl = cJSON_GetObjectItemCaseSensitive(r, "replacements");
  if (cJSON_GetArraySize(repl)) {
    printf("replacements:\n");
    for (const cJSON *e = repl->child; e; e = e->next)
      printf("  %s = %s\n", e->string, cJSON_IsString(e) ? e->valuestring : "?");
  }
  print_list(r, "input_guards", "text", "checked on every call (besides the ranges and shapes above)");
  print_list(r, "runtime_asserts", "expr", "runtime asserts");
}

int sc_cmd_inspect(const char *path, bool as_json) {
  char full[4096], why[300];
  snprintf(full, sizeof full, "%s%s", strchr(path, '/') ? "" : "./", path);
  const char *problem = sc_library_file_problem(full, why, sizeof why);
  if (problem) {
    fprintf(stderr, "%s: error[SC0902]: cannot load the library: %s\n", path, problem);
    return 3;
  }
  void *h = dlopen(full, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "%s: error[SC0902]: cannot load the library: %s\n", path, dlerror());
    return 3;
  }
  const char *(*report)(void) = (const char *(*)(void))sc_library_function(h, "report");
  int (*targets)(void) = (int (*)(void))sc_library_function(h, "targets");
  const char *(*features)(void) = (const char *(*)(void))sc_library_function(h, "cpu_features");
  const char *(*cuda_arch)(void) = (const char *(*)(void))sc_library_function(h, "cuda_arch");
  abi_inputs abi;
  *(void **)&abi.count = sc_library_function(h, "num_inputs");
  *(void **)&abi.ndim = sc_library_function(h, "input_ndim");
  *(void **)&abi.dtype = sc_library_function(h, "input_dtype");
  *(void **)&abi.name = sc_library_function(h, "input_name");
  *(void **)&abi.num_weights = sc_library_function(h, "num_weights");
  *(void **)&abi.weight = sc_library_function(h, "weight");
  if (!abi.weight) abi.num_weights = NULL;
  if (!report || !targets || !abi.count || !abi.ndim || !abi.dtype || !abi.name) {
    fprintf(stderr, "%s: error[SC0902]: not a shapec model library: no shapec_model_report\n", path);
    dlclose(h);
    return 3;
  }
  int status = 0;
  if (as_json) {
    printf("%s\n", report());
  } else {
    cJSON *r = cJSON_Parse(report());
    if (!r || !cJSON_GetObjectItemCaseSensitive(r, "inputs") || !cJSON_GetObjectItemCaseSensitive(r, "outputs")) {
      fprintf(stderr, "%s: error[SC0902]: the library's embedded report cannot be read\n", path);
      status = 3;
    } else {
      print_report(path, r, targets(), features ? features() : NULL, cuda_arch ? cuda_arch() : NULL, &abi);
    }
    cJSON_Delete(r);
  }
  dlclose(h);
  return status;
}
