/* driver.c - the CUDA driver API as a model library uses it: loaded with dlopen on first
 * use (no CUDA needed to build or to load the library), one primary context and one
 * module per device, stream-ordered memory, launches, and every failure turned into a
 * message that names the call.  Implements cuda_rt.h. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/llvm/runtime_abi.h"
#include "cuda_rt.h"
#include "shapec/runtime.h"

/* The driver's types, as its ABI defines them (cuda.h is not needed). */
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef unsigned long long CUdeviceptr;

enum {
  CU_OK = 0,
  CU_ERROR_NO_DEVICE = 100,
  CU_ATTR_MULTIPROCESSOR_COUNT = 16,
  CU_ATTR_CC_MAJOR = 75,
  CU_ATTR_CC_MINOR = 76,
  CU_ATTR_MEMORY_POOLS_SUPPORTED = 115,
  CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4,
  CU_ERROR_NOT_SUPPORTED = 801,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

/* The entry points used, by their exported names (the _v2 ones take 64-bit sizes). */
static struct {
  CUresult (*Init)(unsigned);
  CUresult (*DeviceGetCount)(int *);
  CUresult (*DeviceGet)(CUdevice *, int);
  CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*PrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*CtxGetCurrent)(CUcontext *);
  CUresult (*DeviceGetDefaultMemPool)(void **, CUdevice); /* CUDA 11.2+; NULL before */
  CUresult (*MemPoolSetAttribute)(void *, int, void *);
  CUresult (*MemPoolTrimTo)(void *, size_t);
  CUresult (*ModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemAllocAsync)(CUdeviceptr *, size_t, CUstream); /* CUDA 11.2+; NULL before */
  CUresult (*MemFreeAsync)(CUdeviceptr, CUstream);
  CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
  CUresult (*MemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
  CUresult (*MemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*StreamSynchronize)(CUstream);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                           void **, void **);
  CUresult (*GetErrorName)(CUresult, const char **);
  CUresult (*GetErrorString)(CUresult, const char **);
} cu;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512]; /* empty when the driver is ready */
static int device_count;

static void *sym(void *lib, const char *name, int required) {
  void *p = dlsym(lib, name);
  if (!p && required && !load_error[0])
    snprintf(load_error, sizeof load_error, "the CUDA driver (libcuda.so.1) lacks %s; update the NVIDIA driver", name);
  return p;
}

static const char *result_text(CUresult r) {
  static _Thread_local char text[256];
  const char *name = NULL, *what = NULL;
  if (cu.GetErrorName) cu.GetErrorName(r, &name);
  if (cu.GetErrorString) cu.GetErrorString(r, &what);
  snprintf(text, sizeof text, "%s (%d): %s", name ? name : "CUDA error", r, what ? what : "no description");
  return text;
}

static void load_driver(void) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    snprintf(load_error, sizeof load_error,
             "no CUDA device: the CUDA driver libcuda.so.1 cannot be loaded (%s); run this library's CUDA code on a "
             "machine with an NVIDIA GPU and its driver, or pass CPU tensors to a library exported with --target "
             "cpu,cuda", dlerror());
    return;
  }
#define LOAD(field, name) *(void **)&cu.field = sym(lib, name, 1)
  LOAD(Init, "cuInit");
  LOAD(DeviceGetCount, "cuDeviceGetCount");
  LOAD(DeviceGet, "cuDeviceGet");
  LOAD(DeviceGetAttribute, "cuDeviceGetAttribute");
  LOAD(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  LOAD(CtxSetCurrent, "cuCtxSetCurrent");
  LOAD(CtxGetCurrent, "cuCtxGetCurrent");
  LOAD(ModuleLoadDataEx, "cuModuleLoadDataEx");
  LOAD(ModuleGetFunction, "cuModuleGetFunction");
  LOAD(MemAlloc, "cuMemAlloc_v2");
  LOAD(MemFree, "cuMemFree_v2");
  LOAD(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
  LOAD(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
  LOAD(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
  LOAD(StreamSynchronize, "cuStreamSynchronize");
  LOAD(LaunchKernel, "cuLaunchKernel");
  LOAD(GetErrorName, "cuGetErrorName");
  LOAD(GetErrorString, "cuGetErrorString");
#undef LOAD
  *(void **)&cu.MemAllocAsync = sym(lib, "cuMemAllocAsync", 0);
  *(void **)&cu.MemFreeAsync = sym(lib, "cuMemFreeAsync", 0);
  *(void **)&cu.DeviceGetDefaultMemPool = sym(lib, "cuDeviceGetDefaultMemPool", 0);
  *(void **)&cu.MemPoolSetAttribute = sym(lib, "cuMemPoolSetAttribute", 0);
  *(void **)&cu.MemPoolTrimTo = sym(lib, "cuMemPoolTrimTo", 0);
  if (load_error[0]) return;
  CUresult r = cu.Init(0);
  if (r == CU_OK) r = cu.DeviceGetCount(&device_count);
  if (r == CU_ERROR_NO_DEVICE || (r == CU_OK && device_count == 0))
    snprintf(load_error, sizeof load_error, "no CUDA device: the CUDA driver is installed but sees no GPU");
  else if (r != CU_OK)
    snprintf(load_error, sizeof load_error, "no CUDA device: cuInit failed with %s", result_text(r));
}

/* ---- per device: context, module, kernels, weights -------------------------------------- */

enum { MAX_DEVICES = 64, MAX_KERNELS = 256 };

typedef struct device_state {
  pthread_mutex_t lock;
  int ready;
  CUcontext ctx;
  CUmodule module;   /* the model's fused kernels (sc_ew_N) */
  CUmodule library;  /* shapec's device kernels (sc_d_*) */
  int sm_count;
  int pools;         /* stream-ordered allocation (cuMemAllocAsync) works here */
  void *pool;        /* its default pool, which keeps freed memory for later calls */
  int n_kernels;
  const char *kernel_names[MAX_KERNELS];
  CUfunction kernels[MAX_KERNELS];
  CUdeviceptr weights;
  int64_t weights_bytes;
  CUdeviceptr weights_half[3]; /* [SC_HALF_F16], [SC_HALF_BF16]: made on first use */
  pthread_mutex_t half_lock;    /* held while one is made (its launch takes `lock`) */
} device_state;

static device_state devices[MAX_DEVICES];
static pthread_once_t devices_once = PTHREAD_ONCE_INIT;

static void init_devices(void) {
  for (int i = 0; i < MAX_DEVICES; i++) {
    pthread_mutex_init(&devices[i].lock, NULL);
    pthread_mutex_init(&devices[i].half_lock, NULL);
  }
}

/* One call's state: the device, stream and first error, and the context that was current
 * before the call (given back at its end, so that the caller's own CUDA code, PyTorch's
 * say, keeps its device). */
typedef struct call_state {
  int active, status;
  char *err;
  size_t errlen;
  CUstream stream;
  CUcontext previous;
  device_state *dev;
  int device_id;
} call_state;

static _Thread_local call_state call;

void sc_cu_fail(const char *fmt, ...) {
  if (call.status) return;
  call.status = SHAPEC_ERR_CUDA;
  if (!call.err || !call.errlen) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(call.err, call.errlen, fmt, ap);
  va_end(ap);
}

static int check(CUresult r, const char *what) {
  if (r == CU_OK) return 1;
  sc_cu_fail("%s failed: %s", what, result_text(r));
  return 0;
}

/* The device's context made current, its module loaded (under the device's lock). */
/* Loads one PTX text; on failure records the JIT log and the arch to export for. */
static int load_module(CUmodule *m, const char *ptx, const char *what, int id, CUdevice dev) {
  int major = 0, minor = 0;
  cu.DeviceGetAttribute(&major, CU_ATTR_CC_MAJOR, dev);
  cu.DeviceGetAttribute(&minor, CU_ATTR_CC_MINOR, dev);
  char log[4096] = "";
  int options[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[2] = {log, (void *)(size_t)sizeof log};
  CUresult r = cu.ModuleLoadDataEx(m, ptx, 2, options, values);
  if (r == CU_OK) return 1;
  char arch[16];
  snprintf(arch, sizeof arch, "sm_%d%d", major, minor);
  sc_cu_fail("loading %s on CUDA device %d (compute capability %d.%d) failed: %s%s%s; update the driver if it is older "
             "than the PTX version, or export with a --cuda-arch this GPU runs (%s)",
             what, id, major, minor, result_text(r), log[0] ? "; JIT log: " : "", log,
             major * 10 + minor >= 100 ? "sm_90 or older: plain sm_XX PTX is JIT-compiled for newer GPUs" : arch);
  return 0;
}

/* Stream-ordered allocation where the GPU supports memory pools; the default pool then
 * keeps freed memory for later calls instead of giving it back at every synchronization. */
static void open_pools(device_state *d, CUdevice dev) {
  int supported = 0;
  if (!cu.MemAllocAsync || !cu.MemFreeAsync || cu.DeviceGetAttribute(&supported, CU_ATTR_MEMORY_POOLS_SUPPORTED, dev) != CU_OK)
    supported = 0;
  d->pools = supported;
  void *pool = NULL;
  unsigned long long keep = ~0ull;
  if (supported && cu.DeviceGetDefaultMemPool && cu.MemPoolSetAttribute && cu.DeviceGetDefaultMemPool(&pool, dev) == CU_OK) {
    cu.MemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep);
    d->pool = pool;
  }
}

/* After a failure, a later call retries only what is missing (the context is retained
 * once, a module that loaded stays). */
static int open_device(device_state *d, int id, const char *ptx, const char *ptx_kernels) {
  if (d->ready) return check(cu.CtxSetCurrent(d->ctx), "cuCtxSetCurrent");
  CUdevice dev;
  if (!check(cu.DeviceGet(&dev, id), "cuDeviceGet")) return 0;
  if (!d->ctx && !check(cu.PrimaryCtxRetain(&d->ctx, dev), "cuDevicePrimaryCtxRetain")) {
    d->ctx = NULL;
    return 0;
  }
  if (!check(cu.CtxSetCurrent(d->ctx), "cuCtxSetCurrent")) return 0;
  if (cu.DeviceGetAttribute(&d->sm_count, CU_ATTR_MULTIPROCESSOR_COUNT, dev) != CU_OK || d->sm_count <= 0) d->sm_count = 1;
  open_pools(d, dev);
  if (!d->module && !load_module(&d->module, ptx, "the model's PTX", id, dev)) {
    d->module = NULL;
    return 0;
  }
  if (!d->library && !load_module(&d->library, ptx_kernels, "shapec's device kernels (PTX)", id, dev)) {
    d->library = NULL;
    return 0;
  }
  d->ready = 1;
  return 1;
}

sc_dims sc_cu_dims(const int64_t *values, int32_t n) {
  sc_dims d;
  memset(&d, 0, sizeof d);
  for (int32_t i = 0; i < n && i < 16; i++) d.v[i] = values[i];
  return d;
}

int sc_cu_begin(const char *ptx, const char *ptx_kernels, int32_t device_id, void *stream, char *err, size_t errlen) {
  memset(&call, 0, sizeof call);
  call.err = err;
  call.errlen = errlen;
  call.stream = stream;
  call.active = 1;
  if (err && errlen) err[0] = 0;
  pthread_once(&load_once, load_driver);
  pthread_once(&devices_once, init_devices);
  if (load_error[0]) {
    sc_cu_fail("%s", load_error);
    return call.status;
  }
  if (device_id < 0 || device_id >= device_count || device_id >= MAX_DEVICES) {
    sc_cu_fail("the tensors are on CUDA device %d, but this machine has %d CUDA device%s", device_id, device_count,
               device_count == 1 ? "" : "s");
    return call.status;
  }
  device_state *d = &devices[device_id];
  if (cu.CtxGetCurrent(&call.previous) != CU_OK) call.previous = NULL;
  pthread_mutex_lock(&d->lock);
  int ok = open_device(d, device_id, ptx, ptx_kernels);
  pthread_mutex_unlock(&d->lock);
  if (ok) call.dev = d;
  call.device_id = device_id;
  return call.status;
}

int sc_cu_status(void) { return call.status; }

int sc_cu_current_device(void) { return call.dev ? call.device_id : -1; }

void *sc_cu_current_stream(void) { return call.stream; }

int sc_cu_end(int32_t sync) {
  if (!call.active) return SHAPEC_OK;
  if (sync && call.dev) check(cu.StreamSynchronize(call.stream), "cuStreamSynchronize (a kernel of this model)");
  if (call.dev && call.previous) cu.CtxSetCurrent(call.previous);
  call.active = 0;
  return call.status;
}

/* ---- memory -------------------------------------------------------------------------- */

void *sc_cu_alloc(int64_t bytes) {
  if (!call.dev || call.status) return NULL;
  size_t n = bytes > 0 ? (size_t)bytes : 256; /* the driver refuses 0 bytes; nothing reads it */
  CUdeviceptr p = 0;
  CUresult r = call.dev->pools ? cu.MemAllocAsync(&p, n, call.stream) : cu.MemAlloc(&p, n);
  if (r != CU_OK) {
    sc_cu_fail("allocating %lld bytes of CUDA device memory failed: %s", (long long)bytes, result_text(r));
    return NULL;
  }
  return (void *)(uintptr_t)p;
}

/* shapec_model_release_workspace: the memory the pools keep goes back to the driver (once
 * the work already enqueued is done with it). */
void sc_cu_release_memory(void) {
  if (load_error[0] || !cu.MemPoolTrimTo) return;
  for (int i = 0; i < MAX_DEVICES && i < device_count; i++) {
    device_state *d = &devices[i];
    pthread_mutex_lock(&d->lock);
    if (d->ready && d->pool) cu.MemPoolTrimTo(d->pool, 0);
    pthread_mutex_unlock(&d->lock);
  }
}

void sc_cu_free(void *p) {
  if (!p || !call.dev) return;
  if (call.dev->pools) cu.MemFreeAsync((CUdeviceptr)(uintptr_t)p, call.stream);
  else cu.MemFree((CUdeviceptr)(uintptr_t)p);
}

void *sc_cu_weights(const void *host, int64_t bytes) {
  if (!call.dev || call.status) return NULL;
  device_state *d = call.dev;
  pthread_mutex_lock(&d->lock);
  if (!d->weights && bytes > 0) {
    CUdeviceptr p = 0;
    /* the copy from pageable memory may return before it lands: wait for it before any
     * call, on any stream, can see the pointer */
    if (check(cu.MemAlloc(&p, (size_t)bytes), "allocating device memory for the weights") &&
        check(cu.MemcpyHtoDAsync(p, host, (size_t)bytes, call.stream), "copying the weights to the device") &&
        check(cu.StreamSynchronize(call.stream), "cuStreamSynchronize (the weights' upload)"))
      d->weights = p, d->weights_bytes = bytes;
    else if (p)
      cu.MemFree(p);
  }
  pthread_mutex_unlock(&d->lock);
  if (bytes <= 0) return (void *)(uintptr_t)1; /* no weights: never read */
  return d->weights ? (void *)(uintptr_t)d->weights : NULL;
}

/* A half-precision product reads its weights in its dtype from a mirror of the whole blob,
 * converted on the device once (the blob holds them widened to float32; the elements
 * that are not float32 numbers convert to bits nobody reads).  Half the blob's size. */
const void *sc_cu_weights_half(const void *p, int32_t kind) {
  if (!call.dev || call.status || (kind != SC_HALF_F16 && kind != SC_HALF_BF16)) return NULL;
  device_state *d = call.dev;
  CUdeviceptr at = (CUdeviceptr)(uintptr_t)p;
  if (!d->weights || at < d->weights || at >= d->weights + (CUdeviceptr)d->weights_bytes || (at - d->weights) % 4)
    return NULL;
  pthread_mutex_lock(&d->half_lock);
  if (!d->weights_half[kind]) {
    int64_t n = d->weights_bytes / 4;
    CUdeviceptr h = 0;
    if (check(cu.MemAlloc(&h, (size_t)(n > 0 ? n : 1) * 2), "allocating device memory for the half-precision weights")) {
      /* device/copy.c's kernel, launched here: the driver calls no launcher of ops.c */
      CUdeviceptr from = d->weights;
      void *params[] = {&from, &h, &n, &kind};
      sc_cu_launch("sc_d_to_half", n, params);
      /* every stream may read it once it is published */
      if (!call.status && check(cu.StreamSynchronize(call.stream), "cuStreamSynchronize (the half-precision weights)"))
        d->weights_half[kind] = h;
      else
        cu.MemFree(h);
    }
  }
  CUdeviceptr mirror = d->weights_half[kind];
  pthread_mutex_unlock(&d->half_lock);
  return mirror ? (const void *)(uintptr_t)(mirror + (at - d->weights) / 2) : NULL;
}

/* cuBLAS's library, opened once (the newest soname first). */
static void *cublas_lib;
static pthread_once_t cublas_once = PTHREAD_ONCE_INIT;

static void open_cublas(void) {
  static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"};
  for (size_t i = 0; i < sizeof names / sizeof names[0] && !cublas_lib; i++)
    cublas_lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
}

void *sc_cu_cublas_symbol(const char *name) {
  pthread_once(&cublas_once, open_cublas);
  return cublas_lib ? dlsym(cublas_lib, name) : NULL;
}

void sc_cu_copy_to_host(void *dst, const void *src, int64_t bytes) {
  if (!call.dev || call.status || bytes <= 0) return;
  if (check(cu.MemcpyDtoHAsync(dst, (CUdeviceptr)(uintptr_t)src, (size_t)bytes, call.stream), "cuMemcpyDtoHAsync"))
    check(cu.StreamSynchronize(call.stream), "cuStreamSynchronize (a kernel of this model)");
}

void sc_cu_copy_to_device(void *dst, const void *src, int64_t bytes) {
  if (!call.dev || call.status || bytes <= 0) return;
  check(cu.MemcpyHtoDAsync((CUdeviceptr)(uintptr_t)dst, src, (size_t)bytes, call.stream), "cuMemcpyHtoDAsync");
}

void sc_cu_copy_device(void *dst, const void *src, int64_t bytes) {
  if (!call.dev || call.status || bytes <= 0) return;
  check(cu.MemcpyDtoDAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, (size_t)bytes, call.stream),
        "cuMemcpyDtoDAsync");
}

/* ---- launches ------------------------------------------------------------------------ */

/* The kernel by name, looked up once per device.  Names are the model's string constants,
 * so the pointer identifies the name. */
static CUfunction kernel(const char *name) {
  device_state *d = call.dev;
  CUfunction f = NULL;
  pthread_mutex_lock(&d->lock);
  for (int i = 0; i < d->n_kernels && !f; i++)
    if (d->kernel_names[i] == name || strcmp(d->kernel_names[i], name) == 0) f = d->kernels[i];
  if (!f) {
    char what[300];
    snprintf(what, sizeof what, "cuModuleGetFunction(%s)", name);
    CUmodule m = strncmp(name, "sc_d_", 5) == 0 ? d->library : d->module;
    if (check(cu.ModuleGetFunction(&f, m, name), what) && d->n_kernels < MAX_KERNELS) {
      d->kernel_names[d->n_kernels] = name;
      d->kernels[d->n_kernels++] = f;
    }
  }
  pthread_mutex_unlock(&d->lock);
  return f;
}

void sc_cu_launch_grid(const char *name, uint32_t grid_x, uint32_t grid_y, uint32_t block, void **params) {
  if (!call.dev || call.status || !grid_x || !grid_y || !block) return;
  CUfunction f = kernel(name);
  if (!f) return;
  char what[300];
  snprintf(what, sizeof what, "launching kernel %s (grid %u x %u, block %u)", name, grid_x, grid_y, block);
  check(cu.LaunchKernel(f, grid_x, grid_y, 1, block, 1, 1, 0, call.stream, params, NULL), what);
}

void sc_cu_launch(const char *name, int64_t work, void **params) {
  if (!call.dev || work <= 0) return;
  enum { BLOCK = 256 };
  /* enough blocks to fill every SM several times over; the loop strides past the rest */
  int64_t blocks = (work + BLOCK - 1) / BLOCK, most = (int64_t)call.dev->sm_count * 32;
  if (blocks > most) blocks = most;
  sc_cu_launch_grid(name, (uint32_t)blocks, 1, BLOCK, params);
}
