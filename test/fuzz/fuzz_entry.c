/* fuzz_entry.c - the entry points of libraries that shapec built: shapec_model_output_shapes
 * and shapec_model_run of a few exported programs (test/fuzz/entry_models.py exports them
 * into $SHAPEC_FUZZ_ENTRY_MODELS), called with fuzzed shapes, strides, byte offsets,
 * dtypes, devices, index values, NULLs, output tensors and error buffers.
 *
 * A call must return a code of the ABI (and a message that fits its buffer), or run;
 * never crash, never touch memory outside the tensors it is given.  The libraries are not
 * instrumented, so every buffer the harness hands over (data, shape and stride arrays,
 * the error buffer) is mapped with an inaccessible page right after its last byte (or,
 * one time in four, right before its first), an input the program does not write to is
 * read-only during the call, and an output is filled with a pattern that a refused call
 * must leave as it was.  A tensor whose sizes or strides cannot be represented (a
 * negative size, an element, byte or stride reach past int64) gets a small buffer: the
 * call must refuse it, and one that runs is a finding.  Tensors of more than FE_MAX_BYTES
 * (as addressed, or as their elements compact) are only shown to output_shapes, of a
 * program whose output shapes do not read data.
 *
 * The input is read byte by byte, each one deciding one thing; a 0 (or the input's end)
 * keeps the default, so a one-byte input calls a program with its sample shapes.
 *
 * libFuzzer sees no coverage inside the libraries; each distinct answer (the program, the
 * entry, the code, the message with its numbers left out) is a feature of its own through
 * libFuzzer's extra counters, so inputs that reach another check are kept. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "shapec/runtime.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
const char *__asan_default_options(void);

/* An allocation past what the machine has returns NULL (the library must answer
 * SHAPEC_ERR_MEMORY) instead of stopping the process. */
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FE_MAX_MODELS = 16, FE_MAX_IO = 16, FE_MAX_RANK = 9, FE_MAX_BYTES = 8 << 20, FE_N_FEATURES = 1 << 14 };

typedef int (*shapes_fn)(const shapec_tensor *, int64_t *const *, char *, size_t);
typedef int (*run_fn)(const shapec_tensor *, const shapec_tensor *, char *, size_t);

typedef struct fe_model {
  char name[64];
  int n_in, n_out;
  int in_ndim[FE_MAX_IO], in_dtype[FE_MAX_IO], out_ndim[FE_MAX_IO], out_dtype[FE_MAX_IO];
  int64_t sample[FE_MAX_IO][FE_MAX_RANK];
  bool mutates;     /* the program writes back to an input */
  bool reads_data;  /* output_shapes runs the graph (item, nonzero) */
  shapes_fn output_shapes;
  run_fn run;
} fe_model;

static fe_model models[FE_MAX_MODELS];
static int n_models;
static bool verbose; /* FUZZ_ENTRY_VERBOSE=1: each call's tensors and answer on stderr, for reading a finding */

/* Each distinct answer of a library is a feature (see the file's comment). */
__attribute__((used, section("__libfuzzer_extra_counters"))) static uint8_t features[FE_N_FEATURES];

/* ---- the fuzz input, consumed from the front ---------------------------------------- */

typedef struct fe_src {
  const uint8_t *p;
  size_t n;
} fe_src;

static uint8_t take8(fe_src *s) {
  if (!s->n) return 0;
  s->n--;
  return *s->p++;
}

static uint64_t take64(fe_src *s) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = v << 8 | take8(s);
  return v;
}

/* ---- buffers with a guard page ------------------------------------------------------- */

typedef struct fe_buf {
  uint8_t *map, *p; /* p: the len bytes handed over, ending (or starting) at a guard page */
  size_t map_len, len, body;
} fe_buf;

enum { FE_MAX_BUFS = 4 * FE_MAX_IO + 8 };
static fe_buf bufs[FE_MAX_BUFS];
static int n_bufs;

static fe_buf *buf_new(size_t len, bool guard_before) {
  if (n_bufs == FE_MAX_BUFS) abort();
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  fe_buf *b = &bufs[n_bufs++];
  b->len = len;
  b->body = (len + page - 1) / page * page;
  if (!b->body) b->body = page;
  b->map_len = b->body + 2 * page;
  b->map = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (b->map == MAP_FAILED) abort();
  if (mprotect(b->map, page, PROT_NONE) || mprotect(b->map + page + b->body, page, PROT_NONE)) abort();
  b->p = guard_before ? b->map + page : b->map + page + b->body - len;
  return b;
}

static void bufs_free(void) {
  for (int i = 0; i < n_bufs; i++) munmap(bufs[i].map, bufs[i].map_len);
  n_bufs = 0;
}

static void buf_protect(fe_buf *b, int prot) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (mprotect(b->map + page, b->body, prot)) abort();
}

/* An int64 array of n entries ending at a guard page (reading entry n faults). */
static int64_t *array_new(int n, const int64_t *values) {
  fe_buf *b = buf_new((size_t)(n > 0 ? n : 0) * sizeof(int64_t), false);
  if (n > 0) memcpy(b->p, values, (size_t)n * sizeof(int64_t));
  return (int64_t *)b->p;
}

/* ---- the models ---------------------------------------------------------------------- */

static void *need_sym(void *lib, const char *dir, const char *name) {
  void *f = dlsym(lib, name);
  if (!f) {
    fprintf(stderr, "fuzz_entry: %s/model.so lacks %s\n", dir, name);
    exit(1);
  }
  return f;
}

static void load_model(const char *root, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s/model.so", root, name);
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) return;
  fe_model *m = &models[n_models];
  snprintf(m->name, sizeof m->name, "%s", name);
  int (*count)(void) = (int (*)(void))need_sym(lib, path, "shapec_model_num_inputs");
  m->n_in = count();
  m->n_out = ((int (*)(void))need_sym(lib, path, "shapec_model_num_outputs"))();
  if (m->n_in > FE_MAX_IO || m->n_out > FE_MAX_IO) return;
  int (*in_ndim)(int) = (int (*)(int))need_sym(lib, path, "shapec_model_input_ndim");
  int (*out_ndim)(int) = (int (*)(int))need_sym(lib, path, "shapec_model_output_ndim");
  int (*in_dtype)(int) = (int (*)(int))need_sym(lib, path, "shapec_model_input_dtype");
  int (*out_dtype)(int) = (int (*)(int))need_sym(lib, path, "shapec_model_output_dtype");
  for (int i = 0; i < m->n_in; i++) {
    m->in_ndim[i] = in_ndim(i);
    m->in_dtype[i] = in_dtype(i);
    if (m->in_ndim[i] < 0 || m->in_ndim[i] > FE_MAX_RANK) return;
    for (int d = 0; d < m->in_ndim[i]; d++) m->sample[i][d] = 2;
  }
  for (int i = 0; i < m->n_out; i++) {
    m->out_ndim[i] = out_ndim(i);
    m->out_dtype[i] = out_dtype(i);
    if (m->out_ndim[i] < 0 || m->out_ndim[i] > FE_MAX_RANK) return;
  }
  ((int (*)(int))need_sym(lib, path, "shapec_model_set_num_threads"))(1);
  m->output_shapes = (shapes_fn)need_sym(lib, path, "shapec_model_output_shapes");
  m->run = (run_fn)need_sym(lib, path, "shapec_model_run");
  /* fuzz.txt: the sample shapes; "mutates"; "reads_data" */
  snprintf(path, sizeof path, "%s/%s/fuzz.txt", root, name);
  FILE *f = fopen(path, "r");
  char line[1024];
  for (int i = 0; f && fgets(line, sizeof line, f);) {
    if (strncmp(line, "mutates", 7) == 0) m->mutates = true;
    if (strncmp(line, "reads_data", 10) == 0) m->reads_data = true;
    if (strncmp(line, "in ", 3) != 0 || i >= m->n_in) continue;
    char *p = line + 3;
    int rank = (int)strtol(p, &p, 10);
    for (int d = 0; d < rank && d < m->in_ndim[i]; d++) m->sample[i][d] = strtoll(p, &p, 10);
    i++;
  }
  if (f) fclose(f);
  n_models++;
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

/* Loads the libraries (once). */
static void load_models(void) {
  const char *root = getenv("SHAPEC_FUZZ_ENTRY_MODELS");
  if (!root) {
    fprintf(stderr, "fuzz_entry: set SHAPEC_FUZZ_ENTRY_MODELS to the folder test/fuzz/entry_models.py wrote\n");
    exit(1);
  }
  setenv("OPENBLAS_NUM_THREADS", "1", 0);
  setenv("OMP_NUM_THREADS", "1", 0);
  setenv("SHAPEC_NUM_THREADS", "1", 0);
  /* FUZZ_ENTRY_SKIP=a,b: programs left out (one with a known defect that every run would hit) */
  const char *skip = getenv("FUZZ_ENTRY_SKIP");
  struct dirent **names;
  int n = scandir(root, &names, NULL, by_name);
  for (int i = 0; i < n; i++) {
    const char *name = names[i]->d_name, *at = skip ? strstr(skip, name) : NULL;
    size_t len = strlen(name);
    bool skipped = at && (at == skip || at[-1] == ',') && (at[len] == ',' || at[len] == 0);
    if (name[0] != '.' && !skipped && n_models < FE_MAX_MODELS) load_model(root, name);
    free(names[i]);
  }
  if (n > 0) free(names);
  verbose = getenv("FUZZ_ENTRY_VERBOSE") != NULL;
  if (!n_models) {
    fprintf(stderr, "fuzz_entry: no model.so under %s\n", root);
    exit(1);
  }
  fprintf(stderr, "fuzz_entry: %d libraries:", n_models);
  for (int i = 0; i < n_models; i++) fprintf(stderr, " %s", models[i].name);
  fprintf(stderr, "\n");
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  load_models();
  return 0;
}

/* ---- tensors ------------------------------------------------------------------------- */

static const int64_t extremes[] = {-1, -2, INT64_MIN, INT64_MAX, (int64_t)1 << 31, (int64_t)1 << 32, (int64_t)1 << 40,
                                   (int64_t)1 << 61, (int64_t)1 << 62, ((int64_t)1 << 62) + 1, INT64_MAX / 2 + 1, 3037000500};

static int64_t fuzz_size(fe_src *s, int64_t sample) {
  uint8_t v = take8(s);
  switch (v % 16) {
    case 9: return sample + take8(s) % 5 - 2;
    case 10: return take8(s) % 9;
    case 11: return 0;
    case 12: return 1;
    case 13: return sample * (1 + take8(s) % 4);
    case 14: return extremes[take8(s) % (sizeof extremes / sizeof extremes[0])];
    case 15: return (int64_t)take64(s);
    default: return sample;
  }
}

typedef struct fe_tensor {
  shapec_tensor t;
  int64_t shape[FE_MAX_RANK], strides[FE_MAX_RANK];
  fe_buf *buf;        /* the data's buffer, NULL without one */
  bool must_refuse;   /* sizes or reach that int64 cannot hold: the call must refuse it */
  bool wraps;         /* data + byte_offset passes 2^64: run must refuse it */
  bool unbacked;      /* too large to back: only output_shapes sees it */
} fe_tensor;

/* Bytes per element (0 for a dtype that is not whole bytes). */
static size_t elem_size(shapec_dtype d) {
  size_t bits = (size_t)d.bits * (d.lanes ? d.lanes : 1);
  return bits % 8 ? 0 : bits / 8;
}

/* Fills n bytes from a short fuzzed pattern of values fitting the dtype (index values near
 * the sizes, special floats), repeated. */
static void fill(fe_src *s, uint8_t *p, size_t n, shapec_dtype d) {
  uint8_t pattern[64];
  size_t es = elem_size(d);
  if (!es || es > 16) es = 1;
  size_t plen = es * (1 + take8(s) % (sizeof pattern / es));
  for (size_t at = 0; at + es <= plen; at += es) {
    uint8_t v = take8(s);
    if (d.code == 0 && es == 8) { /* int64: indices */
      int64_t x = v < 200 ? (int64_t)((v + 4) % 24) - 4 : extremes[v % (sizeof extremes / sizeof extremes[0])];
      if (v >= 248) x = (int64_t)take64(s);
      memcpy(pattern + at, &x, 8);
    } else if (d.code == 2 && es == 4) {
      static const float fs[] = {0.0f, 1.0f, -1.0f, 0.5f, 3.0f, 1e30f, -1e-40f, __builtin_inff(), -__builtin_inff(),
                                 __builtin_nanf("")};
      float x = v < 160 ? (float)((int)v - 80) / 8 : fs[v % (sizeof fs / sizeof fs[0])];
      memcpy(pattern + at, &x, 4);
    } else if (d.code == 6) {
      memset(pattern + at, 0, es);
      pattern[at] = v & 1;
    } else {
      for (size_t k = 0; k < es; k++) pattern[at + k] = k ? take8(s) : v;
    }
  }
  for (size_t at = 0; at < n; at += plen) memcpy(p + at, pattern, n - at < plen ? n - at : plen);
}

/* One input: the program's rank, dtype and sample shape, each of them fuzzed. */
static void make_input(fe_src *s, const fe_model *m, int i, fe_tensor *x) {
  memset(x, 0, sizeof *x);
  int ndim = m->in_ndim[i];
  uint8_t v = take8(s);
  if (v % 32 == 31) ndim = take8(s) % FE_MAX_RANK;
  for (int d = 0; d < ndim; d++) x->shape[d] = fuzz_size(s, d < m->in_ndim[i] ? m->sample[i][d] : 2);
  int dt = m->in_dtype[i];
  x->t.dtype = (shapec_dtype){(uint8_t)(dt >> 8), (uint8_t)dt, 1};
  v = take8(s);
  if (v >= 240) {
    static const uint8_t bits[] = {8, 16, 32, 64, 1, 128, 0, 24};
    x->t.dtype = (shapec_dtype){(uint8_t)(take8(s) % 8), bits[take8(s) % 8], (uint16_t)(v % 4 ? 1 : take8(s) % 5)};
  }
  x->t.device = (shapec_device){1, 0};
  v = take8(s);
  if (v >= 250) x->t.device = (shapec_device){(int32_t)(v % 4), (int32_t)(take8(s) % 3)};
  x->t.ndim = ndim;
  size_t es = elem_size(x->t.dtype);
  /* strides: none (compact), or each one fuzzed */
  bool strided = take8(s) % 6 == 5;
  int64_t compact = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    int64_t c = compact;
    if (__builtin_mul_overflow(compact, x->shape[d] > 0 ? x->shape[d] : 1, &compact)) compact = INT64_MAX;
    if (!strided) continue;
    v = take8(s);
    switch (v % 8) {
      case 0: case 1: x->strides[d] = c; break;
      case 2: x->strides[d] = 0; break;
      case 3: x->strides[d] = -c; break;
      case 4: x->strides[d] = (int64_t)((uint64_t)c * (1 + v / 8 % 4)); break;
      case 5: x->strides[d] = (int64_t)(v / 8) - 8; break;
      case 6: x->strides[d] = extremes[v / 8 % (sizeof extremes / sizeof extremes[0])]; break;
      default: x->strides[d] = 1; break;
    }
  }
  x->t.strides = strided ? array_new(ndim, x->strides) : NULL;
  v = take8(s);
  x->t.shape = v % 128 == 127 && ndim ? NULL : array_new(ndim, x->shape);
  /* the bytes the tensor addresses: from lo to hi elements around its first element */
  bool zero = false, negative = false, overflow = !es;
  __int128 lo = 0, hi = 0, numel = 1;
  for (int d = 0; d < ndim; d++) {
    int64_t n = x->shape[d];
    negative |= n < 0;
    zero |= n == 0;
    if (n <= 0) continue;
    numel *= n;
    if (numel > INT64_MAX) numel = (__int128)INT64_MAX + 1;
    __int128 reach = (__int128)(n - 1) * (strided ? x->strides[d] : 0), cap = (__int128)1 << 100;
    if (reach < 0) lo = lo + reach < -cap ? -cap : lo + reach;
    else hi = hi + reach > cap ? cap : hi + reach;
  }
  if (!strided) hi = numel - 1;
  __int128 bytes = (hi - lo + 1) * (__int128)(es ? es : 1);
  if (numel > INT64_MAX || numel * (__int128)(es ? es : 1) > INT64_MAX || lo < INT64_MIN || hi > INT64_MAX ||
      bytes > INT64_MAX)
    overflow = true;
  x->must_refuse = negative || (!zero && overflow);
  if (zero && !negative) bytes = 0;
  /* a library may copy a strided input compact: its elements count, not only its reach */
  bool fits = !x->must_refuse && !overflow && bytes <= FE_MAX_BYTES && numel * (__int128)(es ? es : 1) <= FE_MAX_BYTES;
  if (zero && !negative) fits = true;
  x->unbacked = !fits && !x->must_refuse;
  size_t len = fits ? (size_t)bytes : 64;
  v = take8(s);
  x->buf = buf_new(len, v % 4 == 3);
  fill(s, x->buf->p, len, x->t.dtype);
  /* data + byte_offset is the first element, lo elements from the buffer's start */
  uint8_t *first = x->buf->p + (fits && !zero ? (size_t)(-lo) * (es ? es : 1) : 0);
  v = take8(s);
  if (v % 8 == 7) {
    static const uint64_t offsets[] = {4, 8, 28, 64, 1, 3, (uint64_t)1 << 63, UINT64_MAX, UINT64_MAX - 3, (uint64_t)1 << 62};
    x->t.byte_offset = offsets[v / 8 % (sizeof offsets / sizeof offsets[0])];
  }
  x->t.data = (void *)((uintptr_t)first - x->t.byte_offset); /* may wrap: data + byte_offset is still the first element */
  if ((uintptr_t)x->buf->p + x->t.byte_offset < (uintptr_t)x->buf->p && take8(s) % 2) {
    x->t.data = x->buf->p; /* or data is the buffer, and data + byte_offset passes 2^64: refused */
    x->wraps = true;
  }
  if (take8(s) % 64 == 63) x->t.data = NULL;
}

/* ---- calls --------------------------------------------------------------------------- */

/* The answer as a feature: the program, the entry, the code and the message's words. */
static void feature(int model, int entry, int rc, const char *msg) {
  uint32_t h = 2166136261u ^ (uint32_t)(model * 131 + entry * 17 + rc);
  for (const char *c = msg; c && *c; c++)
    if (*c < '0' || *c > '9') h = (h ^ (uint8_t)*c) * 16777619u;
  features[h % FE_N_FEATURES] = 1;
}

static void trace_tensor(const char *what, int i, const shapec_tensor *t) {
  if (!verbose) return;
  fprintf(stderr, "  %s[%d] data=%p offset=%llu device=%d:%d dtype=%d/%d/%d shape=", what, i, t->data,
          (unsigned long long)t->byte_offset, t->device.device_type, t->device.device_id, t->dtype.code, t->dtype.bits,
          t->dtype.lanes);
  for (int d = 0; t->shape && d < t->ndim; d++) fprintf(stderr, "%s%lld", d ? "," : "[", (long long)t->shape[d]);
  fprintf(stderr, "%s", t->shape ? (t->ndim ? "]" : "[]") : "NULL");
  if (t->strides) {
    fprintf(stderr, " strides=");
    for (int d = 0; d < t->ndim; d++) fprintf(stderr, "%s%lld", d ? "," : "[", (long long)t->strides[d]);
    fprintf(stderr, "]");
  }
  fprintf(stderr, "\n");
}

static void fail(const fe_model *m, const char *what, const char *msg) {
  fprintf(stderr, "fuzz_entry: %s: %s (message: %s)\n", m->name, what, msg);
  abort();
}

/* An error buffer of errlen bytes ending at a guard page (or NULL). */
static char *err_buf(fe_src *s, size_t *errlen) {
  uint8_t v = take8(s);
  *errlen = v < 200 ? 1024 : v % 16;
  if (v >= 250) return NULL;
  return (char *)buf_new(*errlen, false)->p;
}

/* The message the call left ("" where there is no buffer); a code outside the ABI or a
 * message without its NUL, or a failure with an empty one, is a finding. */
static const char *check_message(const fe_model *m, int rc, const char *err, size_t errlen) {
  if (rc < SHAPEC_OK || rc > SHAPEC_ERR_CUDA) fail(m, "a return code outside the ABI", "");
  if (!err || !errlen) return "";
  if (!memchr(err, 0, errlen)) fail(m, "a message without its NUL", "");
  /* a failure says why, where the buffer holds more than the NUL (an empty batch's
   * convolution once failed for want of memory with no word) */
  if (rc != SHAPEC_OK && errlen > 1 && !err[0]) fail(m, "a failure without a message", "");
  return err;
}

/* One output: the shape output_shapes gave (given; fuzzed sizes where it refused), perhaps
 * made wrong (a size, the dtype, the device, the rank, strides, NULL data); its buffer
 * filled with 0xA5 (*buf), or an input's bytes (*aliased).  False when it is too large. */
static bool make_output(fe_src *s, const fe_model *m, int o, const int64_t *given, fe_tensor *in, shapec_tensor *t,
                        fe_buf **buf, bool *aliased) {
  int64_t shape[FE_MAX_RANK];
  int ndim = m->out_ndim[o];
  for (int d = 0; d < ndim; d++) shape[d] = given ? given[d] : fuzz_size(s, 2);
  uint8_t v = take8(s);
  if (v % 32 == 1 && ndim) {
    int d = take8(s) % ndim;
    shape[d] = (int64_t)((uint64_t)shape[d] + 1);
  }
  int dt = m->out_dtype[o];
  *t = (shapec_tensor){NULL, {1, 0}, ndim, {(uint8_t)(dt >> 8), (uint8_t)dt, 1}, NULL, NULL, 0};
  if (v % 32 == 2) t->dtype.bits = 64;
  if (v % 32 == 3) t->device.device_type = 2;
  if (v % 64 == 4 && ndim) ndim = t->ndim = ndim - 1;
  if (v % 64 == 5) t->ndim = ++ndim;
  if (ndim > FE_MAX_RANK) ndim = t->ndim = FE_MAX_RANK;
  __int128 bytes = elem_size(t->dtype);
  for (int d = 0; d < ndim; d++) {
    if (d >= m->out_ndim[o]) shape[d] = 1;
    bytes *= shape[d] > 0 ? shape[d] : 0;
    if (bytes > FE_MAX_BYTES) return false;
  }
  t->shape = array_new(ndim, shape);
  if (v % 32 == 6) { /* compact strides given, or a transposed layout */
    int64_t st[FE_MAX_RANK], c = 1;
    for (int d = ndim - 1; d >= 0; d--) {
      st[d] = c;
      if (__builtin_mul_overflow(c, shape[d] > 0 ? shape[d] : 1, &c)) c = INT64_MAX;
    }
    if (ndim > 1 && take8(s) % 2) {
      int64_t tmp = st[0];
      st[0] = st[ndim - 1];
      st[ndim - 1] = tmp;
    }
    t->strides = array_new(ndim, st);
  }
  int src = v % 32 == 7 && m->n_in ? take8(s) % m->n_in : -1;
  if (src >= 0 && in[src].buf && in[src].buf->len >= (size_t)bytes && in[src].t.dtype.code == t->dtype.code &&
      in[src].t.dtype.bits == t->dtype.bits) {
    t->data = in[src].buf->p; /* the output over an input's bytes */
    *aliased = true;
    return true;
  }
  *buf = buf_new((size_t)bytes, take8(s) % 4 == 3);
  memset((*buf)->p, 0xA5, (*buf)->len);
  t->data = v % 64 == 8 ? NULL : (*buf)->p;
  return true;
}

static void protect_inputs(const fe_model *m, fe_tensor *in, int prot) {
  for (int i = 0; i < m->n_in; i++)
    if (in[i].buf) buf_protect(in[i].buf, prot);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!n_models) load_models(); /* the replay (test/fuzz/replay_main.c) has no LLVMFuzzerInitialize */
  fe_src s = {data, size};
  int mi = take8(&s) % n_models;
  const fe_model *m = &models[mi];
  static fe_tensor in[FE_MAX_IO];
  static shapec_tensor ins[FE_MAX_IO], outs[FE_MAX_IO];
  bool must_refuse = false, unbacked = false, wraps = false;
  for (int i = 0; i < m->n_in; i++) {
    make_input(&s, m, i, &in[i]);
    ins[i] = in[i].t;
    must_refuse |= in[i].must_refuse;
    wraps |= in[i].wraps;
    unbacked |= in[i].unbacked;
  }
  if (verbose) fprintf(stderr, "fuzz_entry: %s%s%s%s\n", m->name, must_refuse ? " (must refuse)" : "",
                       wraps ? " (data + byte_offset wraps: run must refuse)" : "",
                       unbacked ? " (too large to back: output_shapes only)" : "");
  for (int i = 0; i < m->n_in; i++) trace_tensor("input", i, &ins[i]);

  /* output_shapes, the inputs read-only */
  int64_t *out_shapes[FE_MAX_IO];
  for (int i = 0; i < m->n_out; i++) out_shapes[i] = (int64_t *)buf_new((size_t)m->out_ndim[i] * 8, false)->p;
  size_t errlen;
  char *err = err_buf(&s, &errlen);
  uint8_t v = take8(&s);
  const shapec_tensor *shown = v == 255 ? NULL : ins;
  int64_t *const *shapes_arg = v == 254 ? NULL : out_shapes;
  int rc1 = -1;
  if (!(unbacked && m->reads_data)) {
    protect_inputs(m, in, PROT_READ);
    rc1 = m->output_shapes(m->n_in ? shown : NULL, m->n_out ? shapes_arg : NULL, err, errlen);
    protect_inputs(m, in, PROT_READ | PROT_WRITE);
    const char *msg1 = check_message(m, rc1, err, errlen);
    feature(mi, 0, rc1, msg1);
    if (verbose) fprintf(stderr, "  output_shapes: %d %s\n", rc1, msg1);
    if (rc1 == SHAPEC_OK && must_refuse) fail(m, "output_shapes accepted sizes past int64", "");
  }

  /* run, the inputs read-only unless the program writes them or an output lies over one */
  fe_buf *out_buf[FE_MAX_IO] = {0};
  bool aliased = false, made = !unbacked;
  for (int o = 0; o < m->n_out && made; o++)
    made = make_output(&s, m, o, rc1 == SHAPEC_OK ? out_shapes[o] : NULL, in, &outs[o], &out_buf[o], &aliased);
  if (!made) {
    bufs_free();
    return 0;
  }
  for (int o = 0; o < m->n_out; o++) trace_tensor("output", o, &outs[o]);
  bool protect = !m->mutates && !aliased;
  if (protect) protect_inputs(m, in, PROT_READ);
  err = err_buf(&s, &errlen);
  v = take8(&s);
  int rc2 = m->run(m->n_in && v != 255 ? ins : NULL, m->n_out && v != 254 ? outs : NULL, err, errlen);
  if (protect) protect_inputs(m, in, PROT_READ | PROT_WRITE);
  const char *msg = check_message(m, rc2, err, errlen);
  feature(mi, 1, rc2, msg);
  if (verbose) fprintf(stderr, "  run: %d %s\n", rc2, msg);
  if (rc2 == SHAPEC_OK && must_refuse) fail(m, "run accepted sizes or strides past int64", msg);
  if (rc2 == SHAPEC_OK && wraps) fail(m, "run accepted data + byte_offset past 2^64", msg);
  if (rc2 == SHAPEC_OK && rc1 > SHAPEC_OK && rc1 != SHAPEC_ERR_MEMORY && shown && shapes_arg && !m->reads_data)
    fail(m, "run accepted the inputs that output_shapes refused", msg);
  if (rc2 != SHAPEC_OK && rc2 != SHAPEC_ERR_MEMORY)
    for (int o = 0; o < m->n_out; o++)
      if (out_buf[o] && outs[o].data)
        for (size_t k = 0; k < out_buf[o]->len; k++)
          if (out_buf[o]->p[k] != 0xA5) fail(m, "a refused run wrote to an output", msg);
  bufs_free();
  return 0;
}
