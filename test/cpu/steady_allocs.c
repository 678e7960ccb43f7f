/* steady_allocs.c - how many heap allocations a model library makes once warm.
 *
 * The CPU path computes in a workspace planned at export (backends/llvm/cg_workspace.c)
 * whose regions stay between calls, so calls at shapes seen before, or at smaller ones,
 * must allocate nothing.  This program replaces malloc and its family (forwarding to
 * glibc's own) and counts the calls made, on any thread, while the model runs, telling the
 * model library's own (its code, the runtime linked into it) from those of the libraries it
 * calls: OpenBLAS's small-matrix kernels and oneDNN's primitive execution allocate on every
 * call, out of shapec's hands.
 *   1. three calls at the first shapes (warm-up: regions, plans, thread start);
 *   2. ten more at the same shapes, whose outputs must equal the first call's bit for bit;
 *   3. one at each further shape, then the first shapes again.
 * Inputs are float32, filled with a fixed pattern.  Prints the counts; exits 1 if the
 * library allocated in step 2 or 3 or an output differed, 77 in a sanitized build (whose
 * allocator this would replace).  With --new-shapes-plan the calls at new shapes may
 * allocate (oneDNN plans are made per shape); the first shapes again may not.
 * STEADY_ALLOCS_TRAP=1 stops at the library's first counted allocation, for a debugger.
 *   usage: steady_allocs [--new-shapes-plan] MODEL.so THREADS SHAPES [SHAPES ...]
 * SHAPES gives every input's shape, inputs separated by ',' and dims by 'x': "2x3x64x64"
 * for one input, "6x5,4,8x4,32" for four; the later SHAPES must be no larger. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <malloc.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shapec/runtime.h"

#if defined(__SANITIZE_ADDRESS__)
int main(void) {
  puts("skipped: a sanitized build brings its own allocator");
  return 77;
}
#else

/* ---- counting allocator: glibc's own entry points do the work ---- */
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t count, size_t n);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void __libc_free(void *p);

static atomic_bool counting;
static atomic_long allocations, own_allocations;
static uintptr_t model_lo, model_hi; /* the model library's mapped range */
static bool trap;

/* Counts one allocation, and whether the model library's own code made it (its runtime is
 * linked into it) rather than OpenBLAS, oneDNN or libgomp. */
#define COUNT()                                                                                  \
  do {                                                                                           \
    if (atomic_load_explicit(&counting, memory_order_relaxed)) {                                 \
      uintptr_t from = (uintptr_t)__builtin_return_address(0);                                   \
      atomic_fetch_add(&allocations, 1);                                                         \
      if (from >= model_lo && from < model_hi) {                                                 \
        atomic_fetch_add(&own_allocations, 1);                                                   \
        if (trap) raise(SIGTRAP);                                                                \
      }                                                                                          \
    }                                                                                            \
  } while (0)

void *malloc(size_t n) {
  COUNT();
  return __libc_malloc(n);
}
void *calloc(size_t count_, size_t n) {
  COUNT();
  return __libc_calloc(count_, n);
}
void *realloc(void *p, size_t n) {
  COUNT();
  return __libc_realloc(p, n);
}
void *memalign(size_t align, size_t n) {
  COUNT();
  return __libc_memalign(align, n);
}
void *aligned_alloc(size_t align, size_t n) {
  COUNT();
  return __libc_memalign(align, n);
}
int posix_memalign(void **out, size_t align, size_t n) {
  COUNT();
  void *p = __libc_memalign(align, n);
  if (!p) return 12; /* ENOMEM */
  *out = p;
  return 0;
}
void free(void *p) { __libc_free(p); }

/* Finds the model library's address range among the loaded objects. */
static int find_model(struct dl_phdr_info *info, size_t size, void *path) {
  (void)size;
  const char *name = info->dlpi_name, *want = path;
  size_t ln = strlen(name), lw = strlen(want);
  if (ln < lw || strcmp(name + ln - lw, want) != 0) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD) continue;
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
    if (!model_lo || lo < model_lo) model_lo = lo;
    if (hi > model_hi) model_hi = hi;
  }
  return 1;
}

/* ---- the model ---- */
typedef struct api {
  int (*num_inputs)(void), (*num_outputs)(void), (*input_ndim)(int), (*output_ndim)(int), (*input_dtype)(int);
  int (*set_threads)(int);
  int (*shapes)(const shapec_tensor *, int64_t *const *, char *, size_t);
  int (*run)(const shapec_tensor *, const shapec_tensor *, char *, size_t);
} api;

enum { MAX_IO = 16, MAX_RANK = 8 };

typedef struct call {
  int n_in, n_out;
  int64_t in_shape[MAX_IO][MAX_RANK], out_shape[MAX_IO][MAX_RANK];
  shapec_tensor in[MAX_IO], out[MAX_IO];
  size_t out_bytes[MAX_IO];
} call;

static int64_t numel(const int64_t *shape, int ndim) {
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) n *= shape[d];
  return n;
}

/* Sets up the inputs at `spec` ("2x3,4") and outputs of the sizes the model says. */
static bool prepare(const api *m, const char *spec, call *c) {
  memset(c, 0, sizeof *c);
  c->n_in = m->num_inputs();
  c->n_out = m->num_outputs();
  if (c->n_in > MAX_IO || c->n_out > MAX_IO) return false;
  const char *s = spec;
  shapec_dtype f32 = {2, 32, 1};
  for (int i = 0; i < c->n_in; i++) {
    int ndim = m->input_ndim(i);
    if (ndim > MAX_RANK || m->input_dtype(i) != ((2 << 8) | 32)) {
      fprintf(stderr, "input %d: only float32 inputs of rank <= %d are supported here\n", i, MAX_RANK);
      return false;
    }
    for (int d = 0; d < ndim; d++) {
      char *end;
      c->in_shape[i][d] = strtoll(s, &end, 10);
      if (end == s) {
        fprintf(stderr, "'%s': input %d needs %d dims\n", spec, i, ndim);
        return false;
      }
      s = *end == 'x' ? end + 1 : end;
    }
    if (*s == ',') s++;
    int64_t n = numel(c->in_shape[i], ndim);
    float *data = __libc_malloc((size_t)(n ? n : 1) * sizeof(float));
    for (int64_t k = 0; k < n; k++) data[k] = (float)((k * 7 + i * 3) % 17) / 8.0f - 1.0f;
    c->in[i] = (shapec_tensor){data, {1, 0}, ndim, f32, c->in_shape[i], NULL, 0};
  }
  int64_t *rows[MAX_IO];
  for (int o = 0; o < c->n_out; o++) rows[o] = c->out_shape[o];
  char err[512];
  if (m->shapes(c->in, rows, err, sizeof err) != 0) {
    fprintf(stderr, "output_shapes at %s: %s\n", spec, err);
    return false;
  }
  for (int o = 0; o < c->n_out; o++) {
    int ndim = m->output_ndim(o);
    c->out_bytes[o] = (size_t)numel(c->out_shape[o], ndim) * sizeof(float);
    c->out[o] = (shapec_tensor){__libc_malloc(c->out_bytes[o] + 1), {1, 0}, ndim, f32, c->out_shape[o], NULL, 0};
  }
  return true;
}

static bool run(const api *m, call *c) {
  char err[512];
  if (m->run(c->in, c->out, err, sizeof err) == 0) return true;
  fprintf(stderr, "run failed: %s\n", err);
  return false;
}

/* The model library's own allocations in `calls` calls of c (every thread's). */
static long counted_calls(const api *m, call *c, int calls, bool *ok) {
  atomic_store(&allocations, 0);
  atomic_store(&own_allocations, 0);
  atomic_store(&counting, true);
  for (int k = 0; k < calls && *ok; k++) *ok = run(m, c);
  atomic_store(&counting, false);
  long all = atomic_load(&allocations), own = atomic_load(&own_allocations);
  printf("  (%ld allocations in the process, %ld of them by the model library)\n", all, own);
  return own;
}

int main(int argc, char **argv) {
  trap = getenv("STEADY_ALLOCS_TRAP") != NULL;
  bool new_shapes_plan = argc > 1 && strcmp(argv[1], "--new-shapes-plan") == 0;
  if (new_shapes_plan) {
    argv++;
    argc--;
  }
  if (argc < 4) {
    fprintf(stderr, "usage: steady_allocs [--new-shapes-plan] MODEL.so THREADS SHAPES [SHAPES ...]\n");
    return 2;
  }
  void *h = dlopen(argv[1], RTLD_NOW);
  if (!h) {
    fprintf(stderr, "%s\n", dlerror());
    return 2;
  }
  const char *base = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
  if (!dl_iterate_phdr(find_model, (void *)base)) {
    fprintf(stderr, "%s is not among the loaded objects\n", argv[1]);
    return 2;
  }
  api m = {dlsym(h, "shapec_model_num_inputs"), dlsym(h, "shapec_model_num_outputs"),
           dlsym(h, "shapec_model_input_ndim"), dlsym(h, "shapec_model_output_ndim"),
           dlsym(h, "shapec_model_input_dtype"), dlsym(h, "shapec_model_set_num_threads"),
           dlsym(h, "shapec_model_output_shapes"), dlsym(h, "shapec_model_run")};
  if (!m.run || !m.shapes || !m.set_threads) return 2;
  m.set_threads(atoi(argv[2]));
  call first;
  if (!prepare(&m, argv[3], &first)) return 2;
  bool ok = true;
  for (int k = 0; k < 3 && ok; k++) ok = run(&m, &first);
  void *want[MAX_IO];
  for (int o = 0; o < first.n_out; o++) {
    want[o] = __libc_malloc(first.out_bytes[o] + 1);
    memcpy(want[o], first.out[o].data, first.out_bytes[o]);
  }
  long steady = counted_calls(&m, &first, 10, &ok);
  int differ = 0;
  for (int o = 0; o < first.n_out; o++) differ += memcmp(want[o], first.out[o].data, first.out_bytes[o]) != 0;
  printf("10 calls at %s: %ld allocations by the library, %d outputs differ from the first call's\n", argv[3],
         steady, differ);
  long later = 0;
  for (int a = 4; a < argc && ok; a++) {
    call c;
    if (!prepare(&m, argv[a], &c)) return 2;
    long n = counted_calls(&m, &c, 1, &ok);
    printf("a call at %s: %ld allocations by the library%s\n", argv[a], n, new_shapes_plan ? " (plans: allowed)" : "");
    if (!new_shapes_plan) later += n;
  }
  if (argc > 4) {
    long n = counted_calls(&m, &first, 1, &ok);
    printf("a call at %s again: %ld allocations by the library\n", argv[3], n);
    later += n;
  }
  dlclose(h);
  if (!ok) return 1;
  return steady || later || differ ? 1 : 0;
}
#endif
