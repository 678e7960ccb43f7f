/* support.c - messages, input checks, workspace and integer helpers for generated code. */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "thread_slot.h"

int sc_rt_fail(char *err, size_t errlen, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return SHAPEC_ERR_SHAPE;
}

int sc_rt_fail_argument(char *err, size_t errlen, const char *message) {
  if (err && errlen) snprintf(err, errlen, "%s", message);
  return SHAPEC_ERR_ARGUMENT;
}

int sc_rt_fail_memory(char *err, size_t errlen, int64_t bytes) {
  if (err && errlen) snprintf(err, errlen, "out of memory: a workspace buffer of %lld bytes could not be allocated", (long long)bytes);
  return SHAPEC_ERR_MEMORY;
}

int sc_rt_fail_kernel(char *err, size_t errlen, int32_t rc, const char *node) {
  if (err && errlen) {
    if (rc == SHAPEC_ERR_MEMORY)
      snprintf(err, errlen, "out of memory: %s could not allocate its working memory", node);
    else
      snprintf(err, errlen, "%s failed (shapec_status %d)", node, (int)rc);
  }
  return rc;
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

int sc_rt_check_tensor(const shapec_tensor *t, const char *what, int32_t device_type, int32_t ndim, int32_t code, int32_t bits,
                       int32_t strided_ok, char *err, size_t errlen) {
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
  if (t->dtype.lanes != 1)
    return sc_rt_fail(err, errlen, "%s has %d lanes per element but the model needs 1 (%s)", what, (int)t->dtype.lanes,
                      dtype_name(code, bits));
  if (t->dtype.code != code || t->dtype.bits != bits)
    return sc_rt_fail(err, errlen, "%s is %s but the model needs %s", what, dtype_name(t->dtype.code, t->dtype.bits),
                      dtype_name(code, bits));
  if (ndim && !t->shape) {
    if (err && errlen) snprintf(err, errlen, "%s has no shape array", what);
    return SHAPEC_ERR_ARGUMENT;
  }
  int64_t numel = 1, bytes;
  for (int32_t i = 0; i < ndim; i++) {
    if (t->shape[i] < 0) return sc_rt_fail(err, errlen, "%s.size()[%d] = %lld is negative", what, (int)i, (long long)t->shape[i]);
    if (__builtin_mul_overflow(numel, t->shape[i], &numel))
      return sc_rt_fail(err, errlen, "%s has sizes whose product overflows int64", what);
  }
  if (__builtin_mul_overflow(numel, (int64_t)(bits / 8 ? bits / 8 : 1), &bytes))
    return sc_rt_fail(err, errlen, "%s has more bytes than int64 counts", what);
  int64_t reach = 0;
  uint64_t extent = (uint64_t)bytes; /* the bytes from the first element's address on */
  if (t->strides && numel > 1 && strided_ok) { /* any strides: the reach of each must fit in int64 */
    for (int32_t i = 0; i < ndim; i++) {
      int64_t step = t->strides[i] < 0 ? -t->strides[i] : t->strides[i], span;
      if (t->strides[i] == INT64_MIN || __builtin_mul_overflow(step, t->shape[i] - 1, &span) ||
          __builtin_mul_overflow(span, (int64_t)(bits / 8 ? bits / 8 : 1), &span) || __builtin_add_overflow(reach, span, &reach))
        return sc_rt_fail(err, errlen, "%s has strides that reach past what int64 counts", what);
    }
    extent = (uint64_t)reach + (uint64_t)(bits / 8 ? bits / 8 : 1);
  } else if (t->strides && numel > 1) {
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
  /* data + byte_offset, and the span after it, must stay inside the address space: an
   * offset of 2^64 - 4 would otherwise read the 4 bytes before data */
  uintptr_t end;
  if (t->byte_offset > (uint64_t)INT64_MAX || __builtin_add_overflow((uintptr_t)t->data, (uintptr_t)t->byte_offset, &end) ||
      __builtin_add_overflow(end, (uintptr_t)extent, &end)) {
    if (err && errlen)
      snprintf(err, errlen, "%s has byte_offset %llu, which from data %p wraps around the address space; pass the "
               "offset of its first element within the buffer at data (at most 2^63 - 1 bytes)", what,
               (unsigned long long)t->byte_offset, t->data);
    return SHAPEC_ERR_ARGUMENT;
  }
  return SHAPEC_OK;
}

/* Whether t's elements lie in compact row-major order (no strides, or the compact ones). */
bool sc_rt_is_compact(const shapec_tensor *t) {
  if (!t->strides) return true;
  int64_t expect = 1;
  for (int32_t i = t->ndim - 1; i >= 0; i--) {
    if (t->shape[i] != 1 && t->strides[i] != expect) return false;
    expect *= t->shape[i];
  }
  return true;
}

/* Copies the strided elements of `src` (sizes `shape`, strides in elements, signed) into
 * compact row-major `dst`, one dim at a time. */
static void gather(unsigned char *dst, const unsigned char *src, const int64_t *shape, const int64_t *strides, int32_t ndim,
                   int64_t esize, int64_t *written) {
  if (ndim == 0) {
    memcpy(dst + *written * esize, src, (size_t)esize);
    (*written)++;
    return;
  }
  for (int64_t i = 0; i < shape[0]; i++) gather(dst, src + i * strides[0] * esize, shape + 1, strides + 1, ndim - 1, esize, written);
}

int sc_rt_input_data(const shapec_tensor *t, int64_t esize, void **data, void **owned, char *err, size_t errlen) {
  unsigned char *base = (unsigned char *)t->data + t->byte_offset;
  int64_t numel = 1;
  for (int32_t i = 0; i < t->ndim; i++) numel *= t->shape[i];
  if (numel <= 1 || sc_rt_is_compact(t)) {
    *data = base;
    return SHAPEC_OK;
  }
  unsigned char *copy = sc_rt_alloc(numel * esize);
  if (!copy) return sc_rt_fail_memory(err, errlen, numel * esize);
  int64_t written = 0;
  gather(copy, base, t->shape, t->strides, t->ndim, esize, &written);
  *data = *owned = copy;
  return SHAPEC_OK;
}

/* Whether t is plainly what sc_rt_check_tensor accepts, as the entry's inline check of a
 * single input decides it (cg_entry.c plainly_fine): the device, rank and dtype, no strides,
 * sizes at least 0 whose product and bytes fit, data unless it is empty, and a byte_offset
 * that does not wrap.  Anything else goes to the call, which words the refusal. */
static bool plainly_fine(const shapec_tensor *t, int32_t device_type, const sc_rt_input_check *c) {
  if (t->device.device_type != device_type || t->ndim != c->ndim || t->dtype.code != c->code ||
      t->dtype.bits != c->bits || t->dtype.lanes != 1 || t->strides || (c->ndim && !t->shape))
    return false;
  int64_t esize = c->bits / 8 ? c->bits / 8 : 1, numel = 1;
  for (int32_t i = 0; i < c->ndim; i++)
    if (t->shape[i] < 0 || __builtin_mul_overflow(numel, t->shape[i], &numel)) return false;
  if (numel > INT64_MAX / esize || (!t->data && numel)) return false;
  uintptr_t end;
  return t->byte_offset <= (uint64_t)INT64_MAX && !__builtin_add_overflow((uintptr_t)t->data, (uintptr_t)t->byte_offset, &end) &&
         !__builtin_add_overflow(end, (uintptr_t)(numel * esize), &end);
}

int sc_rt_check_inputs(const shapec_tensor *inputs, const sc_rt_input_check *checks, int64_t n, const char *texts,
                       int32_t device_type, char *err, size_t errlen) {
  for (int64_t k = 0; k < n; k++) {
    const sc_rt_input_check *c = &checks[k];
    if (plainly_fine(&inputs[k], device_type, c)) continue;
    char what[300]; /* as the entry of a program with few inputs names it */
    snprintf(what, sizeof what, "input '%s'", texts + c->name);
    int rc = sc_rt_check_tensor(&inputs[k], what, device_type, c->ndim, c->code, c->bits, c->strided_ok, err, errlen);
    if (rc != SHAPEC_OK) return rc;
  }
  return SHAPEC_OK;
}

int sc_rt_check_dims(const shapec_tensor *inputs, const sc_rt_dim_check *checks, int64_t n, int64_t *syms,
                     const char *texts, char *err, size_t errlen) {
  for (int64_t k = 0; k < n; k++) {
    const sc_rt_dim_check *c = &checks[k];
    long long d = (long long)inputs[c->input].shape[c->axis];
    const char *source = texts + c->source;
    switch (c->kind) {
      case SC_DIM_CHECK_STATIC:
        if (d != c->value)
          return sc_rt_fail(err, errlen, "Guard failed: %s == %s (%s = %lld but the model needs %lld)", source, texts + c->want,
                            source, d, (long long)c->value);
        break;
      case SC_DIM_CHECK_BIND:
        syms[c->symbol] = d;
        if ((c->flags & SC_DIM_CHECK_HAS_LO) && d < c->value)
          return sc_rt_fail(err, errlen, "Guard failed: %s >= %lld (%s = %lld is less than %lld, the least %s can be)", source,
                            (long long)c->value, source, d, (long long)c->value, texts + c->name);
        if ((c->flags & SC_DIM_CHECK_HAS_HI) && d > c->hi)
          return sc_rt_fail(err, errlen, "Guard failed: %s <= %lld (%s = %lld is more than %lld, the most %s can be)", source,
                            (long long)c->hi, source, d, (long long)c->hi, texts + c->name);
        break;
      case SC_DIM_CHECK_EQUAL:
        if (d != syms[c->symbol])
          return sc_rt_fail(err, errlen, "Guard failed: %s == %s (%s = %lld but the model needs %s = %lld; %s)", source,
                            texts + c->want, source, d, texts + c->name, (long long)syms[c->symbol], texts + c->bound_from);
        break;
    }
  }
  return SHAPEC_OK;
}

int sc_rt_bind_inputs(const shapec_tensor *inputs, const sc_rt_input_bind *binds, int64_t n, const int32_t *kept,
                      void **data, void **owned, char *err, size_t errlen) {
  int64_t slot = 0;
  for (int64_t k = 0; k < n; k++) {
    const shapec_tensor *t = &inputs[binds[k].input];
    data[k] = (unsigned char *)t->data + t->byte_offset;
    if (!binds[k].copy_ok) continue;
    void **own = &owned[slot++];
    if (!t->strides || (kept && kept[k])) continue;
    int rc = sc_rt_input_data(t, binds[k].esize, &data[k], own, err, errlen);
    if (rc != SHAPEC_OK) return rc;
  }
  return SHAPEC_OK;
}

int32_t sc_rt_apart_from_inputs(const void *p, int64_t bytes, const shapec_tensor *inputs, const sc_rt_input_bind *binds,
                                void *const *data, int64_t n) {
  uint64_t a = (uintptr_t)p;
  for (int64_t k = 0; k < n; k++) {
    const shapec_tensor *t = &inputs[binds[k].input];
    uint64_t b = (uintptr_t)data[k], len = (uint64_t)binds[k].esize;
    for (int32_t i = 0; i < t->ndim; i++) len *= (uint64_t)t->shape[i];
    if (a + (uint64_t)bytes > b && b + len > a) return 0;
  }
  return 1;
}

void sc_rt_free_slots(void *const *slots, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (slots[i]) sc_rt_free(slots[i]);
}

/* Kernels' scratch blocks (im2col columns, oneDNN's scratchpad, compact copies of strided
 * inputs; a call's tensors live in its planned workspace, workspace.c).  Large blocks come
 * from mmap, so every fresh one page-faults its way to use.  Freed blocks of 64 KiB or more
 * are kept, up to CACHE_BLOCKS of them and CACHE_BYTES in all, and a request takes the
 * smallest kept block that holds it, so that calls at shapes seen before, or smaller ones,
 * find theirs; shapec_model_release_workspace returns them to the system.  Each block
 * starts with a 64-byte header holding its size. */
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
    if (cache_size[i] >= n && (best < 0 || cache_size[i] < cache_size[best])) best = i;
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

/* Small blocks (below CACHE_MIN) are kept per thread: a tiny model's call would otherwise
 * spend a third of its time in aligned_alloc and free, which take glibc's slow memalign
 * path.  SMALL_BLOCKS per thread, returned to the system when the thread exits or calls
 * shapec_model_release_workspace.  A thread's cache is a slot of its own (thread_slot.h). */
enum { SMALL_BLOCKS = 8 };
typedef struct {
  void *block[SMALL_BLOCKS];
  size_t size[SMALL_BLOCKS];
  int n;
} small_cache;
static __thread small_cache *small;

static void free_small_blocks(small_cache *c) {
  for (int i = 0; i < c->n; i++) free(c->block[i]);
  c->n = 0;
}
static void small_at_thread_exit(void *payload) {
  free_small_blocks(payload);
  small = NULL;
}
static sc_rt_slot_kind small_caches = SC_RT_SLOT_KIND(small_cache, small_at_thread_exit);

static void *take_small(size_t n) {
  small_cache *c = small;
  if (!c) return NULL;
  int best = -1;
  for (int i = 0; i < c->n; i++)
    if (c->size[i] >= n && (best < 0 || c->size[i] < c->size[best])) best = i;
  if (best < 0) return NULL;
  void *p = c->block[best];
  c->n--;
  c->block[best] = c->block[c->n];
  c->size[best] = c->size[c->n];
  return p;
}

static bool keep_small(void *p, size_t n) {
  if (!small) small = sc_rt_slot_make(&small_caches); /* the thread's first kept block */
  if (!small) return false;
  small_cache *c = small;
  if (c->n == SMALL_BLOCKS) return false;
  c->block[c->n] = p;
  c->size[c->n++] = n;
  return true;
}

void *sc_rt_alloc(int64_t bytes) {
  if (bytes < 0 || bytes > INT64_MAX - 4096) return NULL;
  size_t n = bytes ? (size_t)((bytes + 63) / 64 * 64) : 64; /* n: what the block holds */
  unsigned char *hit = n >= CACHE_MIN ? take_cached(n) : take_small(n);
  if (!hit && n < CACHE_MIN) hit = take_cached(n); /* a larger shape's block serves a smaller one */
  if (hit) return hit + HEADER;
  unsigned char *p = aligned_alloc(64, HEADER + n);
  if (!p) return NULL;
  memcpy(p, &n, sizeof n);
  return p + HEADER;
}

void sc_rt_free(void *ptr) {
  if (!ptr) return;
  unsigned char *p = (unsigned char *)ptr - HEADER;
  size_t n;
  memcpy(&n, p, sizeof n);
  if (n < CACHE_MIN) {
    if (!keep_small(p, n)) free(p);
    return;
  }
  pthread_mutex_lock(&cache_lock);
  bool kept = n_cached < CACHE_BLOCKS && cached_bytes + n <= CACHE_BYTES;
  if (kept) {
    cache[n_cached] = p;
    cache_size[n_cached++] = n;
    cached_bytes += n;
  }
  pthread_mutex_unlock(&cache_lock);
  if (!kept) free(p);
}

/* Defined where the library has CUDA code (backends/cuda/runtime/driver.c); a weak
 * reference does not pull it into a CPU-only library. */
extern void sc_cu_release_memory(void) __attribute__((weak, visibility("hidden")));

__attribute__((visibility("default"))) void shapec_model_release_workspace(void) {
  if (small) free_small_blocks(small);
  sc_rt_ws_free_kept();
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
