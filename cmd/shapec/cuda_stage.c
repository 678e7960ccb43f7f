/* cuda_stage.c - see cuda_stage.h. */
#include "cuda_stage.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

typedef int CUresult;

static struct {
  CUresult (*Init)(unsigned);
  CUresult (*DeviceGet)(int *, int);
  CUresult (*PrimaryCtxRetain)(void **, int);
  CUresult (*CtxSetCurrent)(void *);
  CUresult (*MemAlloc)(unsigned long long *, size_t);
  CUresult (*MemFree)(unsigned long long);
  CUresult (*MemcpyHtoD)(unsigned long long, const void *, size_t);
  CUresult (*MemcpyDtoH)(void *, unsigned long long, size_t);
  CUresult (*GetErrorName)(CUresult, const char **);
} cu;

static bool failed(CUresult r, const char *what, char *err, size_t errlen) {
  if (r == 0) return false;
  const char *name = "?";
  if (cu.GetErrorName) cu.GetErrorName(r, &name);
  snprintf(err, errlen, "%s failed: %s (%d)", what, name, r);
  return true;
}

bool sc_stage_open(int device, char *err, size_t errlen) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    snprintf(err, errlen, "no CUDA device: the CUDA driver libcuda.so.1 cannot be loaded (%s)", dlerror());
    return false;
  }
  *(void **)&cu.Init = dlsym(lib, "cuInit");
  *(void **)&cu.DeviceGet = dlsym(lib, "cuDeviceGet");
  *(void **)&cu.PrimaryCtxRetain = dlsym(lib, "cuDevicePrimaryCtxRetain");
  *(void **)&cu.CtxSetCurrent = dlsym(lib, "cuCtxSetCurrent");
  *(void **)&cu.MemAlloc = dlsym(lib, "cuMemAlloc_v2");
  *(void **)&cu.MemFree = dlsym(lib, "cuMemFree_v2");
  *(void **)&cu.MemcpyHtoD = dlsym(lib, "cuMemcpyHtoD_v2");
  *(void **)&cu.MemcpyDtoH = dlsym(lib, "cuMemcpyDtoH_v2");
  *(void **)&cu.GetErrorName = dlsym(lib, "cuGetErrorName");
  if (!cu.Init || !cu.DeviceGet || !cu.PrimaryCtxRetain || !cu.CtxSetCurrent || !cu.MemAlloc || !cu.MemFree ||
      !cu.MemcpyHtoD || !cu.MemcpyDtoH) {
    snprintf(err, errlen, "the CUDA driver lacks a function shapec run needs; update the NVIDIA driver");
    return false;
  }
  int dev;
  void *ctx;
  if (failed(cu.Init(0), "cuInit (no CUDA device?)", err, errlen) || failed(cu.DeviceGet(&dev, device), "cuDeviceGet", err, errlen) ||
      failed(cu.PrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain", err, errlen) ||
      failed(cu.CtxSetCurrent(ctx), "cuCtxSetCurrent", err, errlen))
    return false;
  return true;
}

void *sc_stage_put(const void *host, size_t bytes, char *err, size_t errlen) {
  unsigned long long p = 0;
  if (failed(cu.MemAlloc(&p, bytes ? bytes : 1), "cuMemAlloc", err, errlen)) return NULL;
  if (host && bytes && failed(cu.MemcpyHtoD(p, host, bytes), "cuMemcpyHtoD", err, errlen)) {
    cu.MemFree(p);
    return NULL;
  }
  return (void *)(uintptr_t)p;
}

bool sc_stage_get(void *host, const void *dev, size_t bytes, char *err, size_t errlen) {
  return !bytes || !failed(cu.MemcpyDtoH(host, (unsigned long long)(uintptr_t)dev, bytes), "cuMemcpyDtoH", err, errlen);
}

void sc_stage_free(void *dev) {
  if (dev && cu.MemFree) cu.MemFree((unsigned long long)(uintptr_t)dev);
}
