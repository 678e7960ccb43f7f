/* generate.c - text generation from token ids with a decoder that shapec compiled.
 *
 * The decoder is one program for the prompt and for each new token: inputs input_ids
 * [1, L] and cache_position [L] (int64), output logits [1, L, V]; its KV cache is state
 * that the library keeps between calls (transformers' TorchExportableModuleForDecoderOnlyLM,
 * examples/generate/README.md).  This program loads the library, makes a state of its
 * own, runs the prompt, then one token at a time, and prints the new token ids.
 *
 * A decoder whose cache is its inputs and outputs (transformers' DynamicCache: inputs
 * input_ids, attention_mask, past_key_values_*, maybe a constant; outputs the logits and
 * each cache grown) runs too: each cache lives in one buffer with room for the whole
 * conversation, the past passed as a view of its first rows and the present as a view of
 * the same buffer, so that the library writes only the new rows (docs/abi.md, "A cache
 * that grows in place").
 *
 *   cc -O2 -I include -o generate examples/generate/generate.c -ldl
 *   ./generate [--temperature T] [--top-k K] [--seed S] MODEL.so NEW_TOKENS TOKEN...
 *
 * Greedy by default (the most likely token each step, as generate(do_sample=False));
 * with --temperature, tokens are sampled from softmax(logits / T) over the K most likely
 * (all without --top-k), from a seeded generator: the same seed gives the same text. */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shapec/runtime.h"

/* the library's entry points */
typedef struct {
  int (*num_inputs)(void);
  const char *(*input_name)(int);
  int (*output_ndim)(int);
  int (*output_shapes)(const shapec_tensor *, int64_t *const *, char *, size_t);
  shapec_model_state *(*state_new)(void);
  void (*state_free)(shapec_model_state *);
  int (*run_with_state)(shapec_model_state *, const shapec_tensor *, const shapec_tensor *, char *, size_t);
  /* the cache-in-and-out style's */
  int cache_in_out;
  int (*num_outputs)(void);
  int (*input_ndim)(int);
  int (*input_dtype)(int);
  const char *(*report)(void);
  int (*output_grows)(int, int *);
  int (*run)(const shapec_tensor *, const shapec_tensor *, char *, size_t);
} decoder;

static void *symbol(void *lib, const char *name) {
  void *f = dlsym(lib, name);
  if (!f) fprintf(stderr, "generate: the library has no %s: export it with a shapec that has state handles\n", name);
  return f;
}

static int load_cache_in_out(void *lib, const char *path, decoder *d) {
  if (!(d->num_outputs = (int (*)(void))symbol(lib, "shapec_model_num_outputs")) ||
      !(d->input_ndim = (int (*)(int))symbol(lib, "shapec_model_input_ndim")) ||
      !(d->input_dtype = (int (*)(int))symbol(lib, "shapec_model_input_dtype")) ||
      !(d->report = (const char *(*)(void))symbol(lib, "shapec_model_report")) ||
      !(*(void **)&d->output_grows = symbol(lib, "shapec_model_output_grows")) ||
      !(*(void **)&d->run = symbol(lib, "shapec_model_run")))
    return -1;
  int n = d->num_inputs();
  for (int i = 2; i < n; i++) /* every cache grows in place: one output per past */
    if (strncmp(d->input_name(i), "past_key_values", 15) == 0) {
      int found = 0;
      for (int o = 0; o < d->num_outputs(); o++) found |= d->output_grows(o, NULL) == i;
      if (!found || d->input_ndim(i) != 4 || d->input_dtype(i) != (2 << 8 | 32)) {
        fprintf(stderr, "generate: %s: cache input %s is not a float32 [b, h, s, d] cache that an output grows in "
                        "place (shapec_model_output_grows)\n", path, d->input_name(i));
        return -1;
      }
    } else if (i != n - 1 || d->input_ndim(i) != 0) {
      fprintf(stderr, "generate: %s: input %s is neither a cache nor a last constant\n", path, d->input_name(i));
      return -1;
    }
  d->cache_in_out = 1;
  return 0;
}

static int load(const char *path, decoder *d) {
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "generate: %s\n", dlerror());
    return -1;
  }
  memset(d, 0, sizeof *d);
  if ((d->num_inputs = (int (*)(void))symbol(lib, "shapec_model_num_inputs")) &&
      (d->input_name = (const char *(*)(int))symbol(lib, "shapec_model_input_name")) &&
      (*(void **)&d->output_shapes = symbol(lib, "shapec_model_output_shapes")) && d->num_inputs() >= 3 &&
      strcmp(d->input_name(0), "input_ids") == 0 && strcmp(d->input_name(1), "attention_mask") == 0)
    return load_cache_in_out(lib, path, d);
  if (!(d->num_inputs = (int (*)(void))symbol(lib, "shapec_model_num_inputs")) ||
      !(d->input_name = (const char *(*)(int))symbol(lib, "shapec_model_input_name")) ||
      !(d->output_ndim = (int (*)(int))symbol(lib, "shapec_model_output_ndim")) ||
      !(*(void **)&d->output_shapes = symbol(lib, "shapec_model_output_shapes")) ||
      !(*(void **)&d->state_new = symbol(lib, "shapec_model_state_new")) ||
      !(*(void **)&d->state_free = symbol(lib, "shapec_model_state_free")) ||
      !(*(void **)&d->run_with_state = symbol(lib, "shapec_model_run_with_state")))
    return -1;
  if (d->num_inputs() != 2 || strcmp(d->input_name(0), "input_ids") != 0 ||
      strcmp(d->input_name(1), "cache_position") != 0 || d->output_ndim(0) != 3) {
    fprintf(stderr, "generate: %s is not a decoder taking (input_ids, cache_position) and returning logits "
                    "[1, L, V]\n", path);
    return -1;
  }
  return 0;
}

static shapec_tensor int64_tensor(int64_t *data, int ndim, int64_t *shape) {
  shapec_tensor t = {.data = data, .device = {1, 0}, .ndim = ndim, .dtype = {0, 64, 1}, .shape = shape};
  return t;
}

/* xorshift64*: a small generator whose sequence is the same everywhere */
static double uniform(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return (double)((*s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static int pick(const float *logits, int64_t v, double temperature, int top_k, uint64_t *rng, double *weights) {
  int best = 0;
  for (int64_t i = 1; i < v; i++)
    if (logits[i] > logits[best]) best = (int)i;
  if (temperature <= 0) return best;
  /* the threshold for top-k: the k-th largest logit (ties kept) */
  float cut = -INFINITY;
  if (top_k > 0 && top_k < v) {
    for (int64_t i = 0; i < v; i++) {
      int larger = 0;
      for (int64_t j = 0; j < v; j++) larger += logits[j] > logits[i];
      if (larger < top_k && (cut == -INFINITY || logits[i] < cut)) cut = logits[i];
    }
  }
  double total = 0;
  for (int64_t i = 0; i < v; i++) {
    weights[i] = logits[i] >= cut ? exp((logits[i] - logits[best]) / temperature) : 0.0;
    total += weights[i];
  }
  double r = uniform(rng) * total;
  for (int64_t i = 0; i < v; i++) {
    r -= weights[i];
    if (r < 0 && weights[i] > 0) return (int)i;
  }
  return best;
}

/* One call: tokens [n] at positions pos.. ; *block holds its logits (the caller frees it),
 * *last the last position's row of them. */
static int step(decoder *d, shapec_model_state *st, int64_t *tokens, int64_t n, int64_t pos, float **block,
                float **last, int64_t *vocab) {
  int64_t *positions = malloc((size_t)n * sizeof *positions);
  if (!positions) return -1;
  for (int64_t i = 0; i < n; i++) positions[i] = pos + i;
  int64_t ids_shape[2] = {1, n}, pos_shape[1] = {n}, out_shape[3];
  shapec_tensor in[2] = {int64_tensor(tokens, 2, ids_shape), int64_tensor(positions, 1, pos_shape)};
  int64_t *shapes[1] = {out_shape};
  char err[1024];
  int rc = d->output_shapes(in, shapes, err, sizeof err);
  float *out = NULL;
  if (rc == 0) {
    *vocab = out_shape[2];
    out = malloc((size_t)(out_shape[0] * out_shape[1] * out_shape[2]) * sizeof *out);
    shapec_tensor o = {.data = out, .device = {1, 0}, .ndim = 3, .dtype = {2, 32, 1}, .shape = out_shape};
    rc = out ? d->run_with_state(st, in, &o, err, sizeof err) : SHAPEC_ERR_MEMORY;
  }
  free(positions);
  if (rc) {
    fprintf(stderr, "generate: %s\n", rc == SHAPEC_ERR_MEMORY ? "out of memory" : err);
    free(out);
    return -1;
  }
  *block = out;
  *last = out + (n - 1) * *vocab;
  return 0;
}

/* Where input `name`'s sizes are in the library's report ("shape": [1, 4, "s11", 8]): the
 * numbers in dims, a symbol as -1. */
static int report_shape(const char *report, const char *name, int64_t *dims, int ndim) {
  char key[300];
  snprintf(key, sizeof key, "\"name\": \"%s\"", name);
  const char *at = strstr(report, key);
  at = at ? strstr(at, "\"shape\": [") : NULL;
  if (!at) return -1;
  at += strlen("\"shape\": [");
  for (int k = 0; k < ndim; k++) {
    while (*at == ' ' || *at == ',') at++;
    if (*at == '"') {
      dims[k] = -1;
      at = strchr(at + 1, '"');
      if (!at) return -1;
      at++;
    } else {
      char *end;
      dims[k] = strtoll(at, &end, 10);
      if (end == at) return -1;
      at = end;
    }
  }
  return 0;
}

static shapec_tensor f32_view(float *data, int64_t *shape, int64_t *strides) {
  shapec_tensor t = {.data = data, .device = {1, 0}, .ndim = 4, .dtype = {2, 32, 1}, .shape = shape, .strides = strides};
  return t;
}

/* The cache-in-and-out style: the new tokens printed, as main does for the other. */
static int generate_cache_in_out(decoder *d, const int64_t *prompt, int64_t n, int new_tokens, double temperature,
                                 int top_k, uint64_t *seed) {
  enum { MAX_TENSORS = 256 };
  int n_in = d->num_inputs(), n_out = d->num_outputs();
  if (n_in > MAX_TENSORS || n_out > MAX_TENSORS) {
    fprintf(stderr, "generate: more than %d inputs or outputs\n", MAX_TENSORS);
    return 1;
  }
  int64_t cap = n + new_tokens, dims[MAX_TENSORS][4], strides[MAX_TENSORS][4], past_shape[MAX_TENSORS][4];
  int64_t present_shape[MAX_TENSORS][4], logits_shape[3], ids_shape[2], mask_shape[2];
  float *buffers[MAX_TENSORS] = {0};
  int rc = 0;
  uint8_t constant[8] = {1}; /* a last constant input (use_cache = True) */
  for (int i = 2; i < n_in && !rc; i++) {
    if (d->input_ndim(i) == 0) continue;
    if (report_shape(d->report(), d->input_name(i), dims[i], 4) || dims[i][0] < 1 || dims[i][1] < 1 || dims[i][3] < 1) {
      fprintf(stderr, "generate: the report gives no static [b, h, ., d] for %s\n", d->input_name(i));
      rc = 1;
      break;
    }
    dims[i][2] = cap; /* the buffer: room for the whole conversation */
    int64_t s[4] = {dims[i][1] * cap * dims[i][3], cap * dims[i][3], dims[i][3], 1};
    memcpy(strides[i], s, sizeof s);
    buffers[i] = calloc((size_t)(dims[i][0] * dims[i][1] * cap * dims[i][3]), sizeof(float));
    if (!buffers[i]) {
      fprintf(stderr, "generate: out of memory\n");
      rc = 1;
    }
  }
  int64_t length = 0, token = 0, vocab = 0, *mask = calloc((size_t)cap, sizeof *mask), *ids = malloc((size_t)n * sizeof *ids);
  double *weights = NULL;
  float *logits = NULL;
  if (!mask || !ids) {
    fprintf(stderr, "generate: out of memory\n");
    rc = 1;
  }
  for (int k = 0; k < new_tokens && !rc; k++) {
    int64_t fresh = k == 0 ? n : 1;
    if (k == 0) memcpy(ids, prompt, (size_t)n * sizeof *ids);
    else ids[0] = token;
    for (int64_t i = 0; i < length + fresh; i++) mask[i] = 1;
    ids_shape[0] = 1, ids_shape[1] = fresh, mask_shape[0] = 1, mask_shape[1] = length + fresh;
    shapec_tensor in[MAX_TENSORS], out[MAX_TENSORS];
    in[0] = int64_tensor(ids, 2, ids_shape);
    in[1] = int64_tensor(mask, 2, mask_shape);
    for (int i = 2; i < n_in; i++) {
      if (d->input_ndim(i) == 0) {
        int packed = d->input_dtype(i);
        in[i] = (shapec_tensor){.data = constant, .device = {1, 0}, .ndim = 0,
                                .dtype = {(uint8_t)(packed >> 8), (uint8_t)(packed & 0xFF), 1}};
        continue;
      }
      memcpy(past_shape[i], dims[i], sizeof dims[i]);
      past_shape[i][2] = length; /* the past: the buffer's first rows */
      in[i] = f32_view(buffers[i], past_shape[i], strides[i]);
    }
    int64_t *shapes[MAX_TENSORS] = {logits_shape};
    int64_t scratch[MAX_TENSORS][4];
    for (int o = 1; o < n_out; o++) shapes[o] = scratch[o];
    char err[1024];
    rc = d->output_shapes(in, shapes, err, sizeof err);
    if (!rc) {
      vocab = logits_shape[2];
      free(logits);
      logits = malloc((size_t)(logits_shape[0] * logits_shape[1] * vocab) * sizeof *logits);
      out[0] = (shapec_tensor){.data = logits, .device = {1, 0}, .ndim = 3, .dtype = {2, 32, 1}, .shape = logits_shape};
      for (int o = 1; o < n_out; o++) { /* each present: the same buffer, the new rows after the past's */
        int i = d->output_grows(o, NULL);
        if (i < 2) {
          fprintf(stderr, "generate: output %d is not a cache that grows in place\n", o);
          rc = 1;
          break;
        }
        memcpy(present_shape[o], dims[i], sizeof dims[i]);
        present_shape[o][2] = length + fresh;
        out[o] = f32_view(buffers[i], present_shape[o], strides[i]);
      }
      if (!rc) rc = logits ? d->run(in, out, err, sizeof err) : SHAPEC_ERR_MEMORY;
    }
    if (rc) {
      fprintf(stderr, "generate: %s\n", rc == SHAPEC_ERR_MEMORY ? "out of memory" : err);
      break;
    }
    length += fresh;
    if (!weights) weights = malloc((size_t)vocab * sizeof *weights);
    token = pick(logits + (fresh - 1) * vocab, vocab, temperature, top_k, seed, weights);
    printf("%lld%c", (long long)token, k + 1 == new_tokens ? '\n' : ' ');
  }
  for (int i = 0; i < n_in; i++) free(buffers[i]);
  free(mask), free(ids), free(weights), free(logits);
  return rc ? 1 : 0;
}

int main(int argc, char **argv) {
  double temperature = 0;
  int top_k = 0;
  uint64_t seed = 1;
  int a = 1;
  for (; a + 1 < argc && strncmp(argv[a], "--", 2) == 0; a += 2) {
    if (strcmp(argv[a], "--temperature") == 0) temperature = atof(argv[a + 1]);
    else if (strcmp(argv[a], "--top-k") == 0) top_k = atoi(argv[a + 1]);
    else if (strcmp(argv[a], "--seed") == 0) seed = strtoull(argv[a + 1], NULL, 10) * 2 + 1;
    else break;
  }
  if (argc - a < 3) {
    fprintf(stderr, "usage: %s [--temperature T] [--top-k K] [--seed S] MODEL.so NEW_TOKENS TOKEN...\n", argv[0]);
    return 2;
  }
  decoder d;
  if (load(argv[a], &d)) return 1;
  int new_tokens = atoi(argv[a + 1]);
  int64_t n = argc - a - 2;
  int64_t *prompt = malloc((size_t)n * sizeof *prompt);
  for (int64_t i = 0; i < n; i++) prompt[i] = strtoll(argv[a + 2 + i], NULL, 10);
  if (d.cache_in_out) {
    int result = generate_cache_in_out(&d, prompt, n, new_tokens, temperature, top_k, &seed);
    free(prompt);
    return result;
  }
  shapec_model_state *st = d.state_new();
  if (!st || !prompt) {
    fprintf(stderr, "generate: out of memory\n");
    return 1;
  }
  int64_t vocab = 0, pos = 0, token = 0;
  double *weights = NULL;
  int rc = 0;
  for (int k = 0; k < new_tokens; k++) {
    float *block, *row;
    if (k == 0 ? step(&d, st, prompt, n, 0, &block, &row, &vocab) : step(&d, st, &token, 1, pos, &block, &row, &vocab)) {
      rc = 1;
      break;
    }
    pos += k == 0 ? n : 1;
    if (!weights) weights = malloc((size_t)vocab * sizeof *weights);
    token = pick(row, vocab, temperature, top_k, &seed, weights);
    free(block);
    printf("%lld%c", (long long)token, k + 1 == new_tokens ? '\n' : ' ');
  }
  free(weights);
  free(prompt);
  d.state_free(st);
  return rc;
}
