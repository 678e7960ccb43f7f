/* support.c - messages, input checks, workspace and CPU checks for generated code. */
#include <cpuid.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

int sc_rt_fail(char *err, size_t errlen, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return SHAPEC_ERR_SHAPE;
}

int sc_rt_refuse_stream(char *err, size_t errlen) {
  if (err && errlen)
    snprintf(err, errlen, "a CUDA stream was given but the tensors are not on a CUDA device (device type 2)");
  return SHAPEC_ERR_ARGUMENT;
}

int sc_rt_check_same_device(const shapec_tensor *inputs, int32_t n_in, const shapec_tensor *outputs, int32_t n_out,
                            char *err, size_t errlen) {
  const shapec_tensor *first = n_in ? &inputs[0] : n_out ? &outputs[0] : NULL;
  for (int32_t i = 0; first && i < n_in + n_out; i++) {
    const shapec_tensor *t = i < n_in ? &inputs[i] : &outputs[i - n_in];
    if (t->device.device_id == first->device.device_id) continue;
    if (err && errlen)
      snprintf(err, errlen, "%s %d is on CUDA device %d but %s 0 is on device %d; pass every tensor of a call on one "
               "device", i < n_in ? "input" : "output", (int)(i < n_in ? i : i - n_in), (int)t->device.device_id,
               n_in ? "input" : "output", (int)first->device.device_id);
    return SHAPEC_ERR_ARGUMENT;
  }
  return SHAPEC_OK;
}

static const char *dtype_name(int32_t code, int32_t bits) {
  if (code == 2 && bits == 32) return "float32";
  if (code == 2 && bits == 64) return "float64";
  if (code == 2 && bits == 16) return "float16";
  if (code == 0 && bits == 64) return "int64";
  if (code == 0 && bits == 32) return "int32";
  if (code == 0 && bits == 16) return "int16";
  if (code == 0 && bits == 8) return "int8";
  if (code == 1 && bits == 8) return "uint8";
  if (code == 6 && bits == 8) return "bool";
  if (code == 4 && bits == 16) return "bfloat16";
  return "an unknown dtype";
}

int sc_rt_check_tensor(const shapec_tensor *t, const char *what, int32_t device_type, int32_t ndim, int32_t code, int32_t bits, char *err,
                       size_t errlen) {
  if (!t) {
    if (err && errlen) snprintf(err, errlen, "%s: no tensor given", what);
    return SHAPEC_ERR_ARGUMENT;
  }
  if (t->device.device_type != device_type) {
    if (err && errlen)
      snprintf(err, errlen, "%s is on device type %d; %s", what, (int)t->device.device_type,
               device_type == 1 ? "this library runs on the CPU (1)"
                                : "this code runs on a CUDA device (2): pass every input and output as a CUDA tensor "
                                  "(a library exported with --target cpu,cuda takes CPU tensors too)");
    return SHAPEC_ERR_ARGUMENT;
  }
  if (t->ndim != ndim)
    return sc_rt_fail(err, errlen, "%s has %d dims but the model needs %d", what, (int)t->ndim, (int)ndim);
  if (t->dtype.code != code || t->dtype.bits != bits || t->dtype.lanes != 1)
    return sc_rt_fail(err, errlen, "%s is %s but the model needs %s", what, dtype_name(t->dtype.code, t->dtype.bits),
                      dtype_name(code, bits));
  if (ndim && !t->shape) {
    if (err && errlen) snprintf(err, errlen, "%s has no shape array", what);
    return SHAPEC_ERR_ARGUMENT;
  }
  int64_t numel = 1;
  for (int32_t i = 0; i < ndim; i++) {
    if (t->shape[i] < 0) return sc_rt_fail(err, errlen, "%s.size()[%d] = %lld is negative", what, (int)i, (long long)t->shape[i]);
    numel *= t->shape[i];
  }
  if (t->strides && numel > 1) {
    int64_t expect = 1;
    for (int32_t i = ndim - 1; i >= 0; i--) {
      if (t->shape[i] != 1 && t->strides[i] != expect)
        return sc_rt_fail(err, errlen, "%s is not contiguous (C order); pass a compact row-major tensor", what);
      expect *= t->shape[i];
    }
  }
  if (!t->data && numel) {
    if (err && errlen) snprintf(err, errlen, "%s has no data", what);
    return SHAPEC_ERR_ARGUMENT;
  }
  return SHAPEC_OK;
}

/* Whether this CPU (and the OS, for the AVX register state) supports an instruction set;
 * -1 for a name we do not check.  cpuid directly: the library links no libgcc. */
static int cpu_has(const char *name, size_t n) {
  unsigned a, b, c, d, b7 = 0, c1 = 0;
  if (__get_cpuid(1, &a, &b, &c, &d)) c1 = c;
  if (__get_cpuid_max(0, NULL) >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    b7 = b;
  }
  unsigned long long xcr0 = 0;
  if (c1 & (1u << 27)) { /* OSXSAVE: xgetbv is available */
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    xcr0 = ((unsigned long long)hi << 32) | lo;
  }
  bool avx_state = (xcr0 & 6) == 6, avx512_state = avx_state && (xcr0 & 0xe0) == 0xe0;
  static const struct {
    const char *name;
    int leaf;      /* 1: cpuid(1).ecx, 7: cpuid(7).ebx */
    int bit;
    int state;     /* 0 none, 1 AVX, 2 AVX-512 */
  } table[] = {{"sse4.2", 1, 20, 0}, {"avx", 1, 28, 1}, {"fma", 1, 12, 1}, {"f16c", 1, 29, 1},
               {"avx2", 7, 5, 1},    {"bmi2", 7, 8, 0},  {"avx512f", 7, 16, 2}, {"avx512dq", 7, 17, 2},
               {"avx512cd", 7, 28, 2}, {"avx512bw", 7, 30, 2}, {"avx512vl", 7, 31, 2}};
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    if (strlen(table[i].name) != n || strncmp(name, table[i].name, n) != 0) continue;
    unsigned reg = table[i].leaf == 1 ? c1 : b7;
    bool has = (reg >> table[i].bit) & 1u;
    if (table[i].state == 1) has = has && avx_state;
    if (table[i].state == 2) has = has && avx512_state;
    return has;
  }
  return -1;
}

/* features: comma-separated names such as "avx2,fma"; each must be supported here, or
 * code built for it would fault or, through the vector ABI, compute garbage. */
static int check_features(const char *features, char *err, size_t errlen) {
  for (const char *p = features; p && *p;) {
    size_t n = strcspn(p, ",");
    if (cpu_has(p, n) == 0) {
      if (err && errlen)
        snprintf(err, errlen, "this CPU lacks %.*s, which the library was built for; export again with --cpu for "
                              "this machine", (int)n, p);
      return SHAPEC_ERR_CPU;
    }
    p += n + (p[n] == ',');
  }
  return SHAPEC_OK;
}

/* cpuid traps to the hypervisor on virtual machines (tens of microseconds), so the answer,
 * which cannot change while the process runs, is computed once.  A library checks one
 * fixed feature list, so one cached verdict per library is enough. */
int sc_rt_cpu_supported(const char *features, char *err, size_t errlen) {
  static _Atomic int verdict = -1; /* -1 unknown, else the return code */
  int v = verdict;
  if (v == SHAPEC_OK) return SHAPEC_OK;
  v = check_features(features, err, errlen);
  if (v == SHAPEC_OK && sc_rt_blas_error()) {
    if (err && errlen) snprintf(err, errlen, "%s", sc_rt_blas_error());
    v = SHAPEC_ERR_CPU;
  }
  verdict = v;
  return v;
}

int sc_rt_has_avx2(void) {
  static _Atomic int known = -1; /* cpuid is slow on virtual machines: ask once */
  int v = known;
  if (v < 0) known = v = cpu_has("avx2", 4) == 1 && cpu_has("fma", 3) == 1;
  return v;
}

const char *sc_rt_blas_core(void) {
#define HAS(name) (cpu_has(name, sizeof name - 1) == 1)
  if (HAS("avx512f") && HAS("avx512bw") && HAS("avx512dq") && HAS("avx512vl") && HAS("avx512cd")) return "SkylakeX";
  if (HAS("avx2") && HAS("fma")) return "Haswell";
  if (HAS("avx")) return "Sandybridge";
  return NULL;
#undef HAS
}

/* Workspace blocks.  Large blocks come from mmap, so every fresh one page-faults its way
 * to use (a third of mobilenet_v2's run time at batch 8).  Freed blocks of 64 KiB or more
 * are kept, up to CACHE_BLOCKS of them and CACHE_BYTES in all, and handed to later
 * requests that fit them without wasting more than half; shapec_model_release_workspace
 * returns them to the system.  Each block starts with a 64-byte header holding its size. */
enum { HEADER = 64, CACHE_MIN = 64 << 10, CACHE_BLOCKS = 64 };
#define CACHE_BYTES ((size_t)1 << 30)

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static void *cache[CACHE_BLOCKS];
static size_t cache_size[CACHE_BLOCKS], cached_bytes;
static int n_cached;

/* After fork() the child may inherit the lock held by a thread that no longer exists. */
static void reset_cache_in_child(void) { pthread_mutex_init(&cache_lock, NULL); }
static pthread_once_t cache_atfork_once = PTHREAD_ONCE_INIT;
static void install_cache_atfork(void) { pthread_atfork(NULL, NULL, reset_cache_in_child); }

static void *take_cached(size_t n) {
  pthread_once(&cache_atfork_once, install_cache_atfork);
  int best = -1;
  pthread_mutex_lock(&cache_lock);
  for (int i = 0; i < n_cached; i++)
    if (cache_size[i] >= n && cache_size[i] <= 2 * n && (best < 0 || cache_size[i] < cache_size[best])) best = i;
  void *p = NULL;
  if (best >= 0) {
    p = cache[best];
    cached_bytes -= cache_size[best];
    cache[best] = cache[--n_cached];
    cache_size[best] = cache_size[n_cached];
  }
  pthread_mutex_unlock(&cache_lock);
  return p;
}

void *sc_rt_alloc(int64_t bytes) {
  if (bytes < 0 || bytes > INT64_MAX - 4096) return NULL;
  size_t n = (size_t)((bytes + 63) / 64 * 64);
  if (n >= CACHE_MIN) {
    unsigned char *hit = take_cached(n);
    if (hit) return hit + HEADER;
  }
  unsigned char *p = aligned_alloc(64, HEADER + (n ? n : 64));
  if (!p) return NULL;
  memcpy(p, &n, sizeof n);
  return p + HEADER;
}

void sc_rt_free(void *ptr) {
  if (!ptr) return;
  unsigned char *p = (unsigned char *)ptr - HEADER;
  size_t n;
  memcpy(&n, p, sizeof n);
  if (n >= CACHE_MIN) {
    pthread_mutex_lock(&cache_lock);
    bool kept = n_cached < CACHE_BLOCKS && cached_bytes + n <= CACHE_BYTES;
    if (kept) {
      cache[n_cached] = p;
      cache_size[n_cached++] = n;
      cached_bytes += n;
    }
    pthread_mutex_unlock(&cache_lock);
    if (kept) return;
  }
  free(p);
}

/* Defined where the library has CUDA code (backends/cuda/runtime/driver.c); a weak
 * reference does not pull it into a CPU-only library. */
extern void sc_cu_release_memory(void) __attribute__((weak, visibility("hidden")));

__attribute__((visibility("default"))) void shapec_model_release_workspace(void) {
  pthread_mutex_lock(&cache_lock);
  for (int i = 0; i < n_cached; i++) free(cache[i]);
  n_cached = 0;
  cached_bytes = 0;
  pthread_mutex_unlock(&cache_lock);
  if (sc_cu_release_memory) sc_cu_release_memory();
}

int64_t sc_rt_floordiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

int64_t sc_rt_mod(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
