/* element_kind.h - one element of a tensor whose dtype is an SC_KIND_* (runtime_abi.h),
 * read and written as a double (floats) or an int64 (integers, bools): the kernels that
 * take any dtype (sort.c, scatter.c) go through these. */
#ifndef SHAPEC_RUNTIME_ELEMENT_KIND_H
#define SHAPEC_RUNTIME_ELEMENT_KIND_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "backends/llvm/runtime_abi.h"

static inline bool sc_kind_is_float(int32_t kind) { return kind == SC_KIND_F32 || kind == SC_KIND_F64; }

static inline int64_t sc_kind_size(int32_t kind) {
  static const int64_t sizes[] = {1, 1, 2, 4, 8, 4, 8};
  return kind >= 0 && kind <= SC_KIND_F64 ? sizes[kind] : 8;
}

static inline double sc_kind_get_f(const char *p, int32_t kind) {
  if (kind == SC_KIND_F32) {
    float f;
    memcpy(&f, p, 4);
    return f;
  }
  double d;
  memcpy(&d, p, 8);
  return d;
}

static inline void sc_kind_put_f(char *p, int32_t kind, double v) {
  if (kind == SC_KIND_F32) {
    float f = (float)v;
    memcpy(p, &f, 4);
  } else {
    memcpy(p, &v, 8);
  }
}

static inline int64_t sc_kind_get_i(const char *p, int32_t kind) {
  switch (kind) {
    case SC_KIND_U8: return *(const uint8_t *)p;
    case SC_KIND_I8: return *(const int8_t *)p;
    case SC_KIND_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case SC_KIND_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    default: { int64_t v; memcpy(&v, p, 8); return v; }
  }
}

static inline void sc_kind_put_i(char *p, int32_t kind, int64_t v) {
  switch (kind) {
    case SC_KIND_U8: *(uint8_t *)p = (uint8_t)v; break;
    case SC_KIND_I8: *(int8_t *)p = (int8_t)v; break;
    case SC_KIND_I16: { int16_t w = (int16_t)v; memcpy(p, &w, 2); break; }
    case SC_KIND_I32: { int32_t w = (int32_t)v; memcpy(p, &w, 4); break; }
    default: memcpy(p, &v, 8); break;
  }
}

#endif
