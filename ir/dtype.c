/* dtype.c - element type table; see dtype.h. */
#include "dtype.h"

#include <string.h>

static const struct {
  sc_dtype dt;
  const char *name, *shortname, *st;
  size_t size;
  bool supported;
} dtypes[] = {
    {SC_DTYPE_U8, "uint8", "u8", "U8", 1, true},
    {SC_DTYPE_I8, "int8", "i8", "I8", 1, true},
    {SC_DTYPE_I16, "int16", "i16", "I16", 2, true},
    {SC_DTYPE_I32, "int32", "i32", "I32", 4, true},
    {SC_DTYPE_I64, "int64", "i64", "I64", 8, true},
    {SC_DTYPE_F16, "float16", "f16", "F16", 2, true},
    {SC_DTYPE_F32, "float32", "f32", "F32", 4, true},
    {SC_DTYPE_F64, "float64", "f64", "F64", 8, true},
    {SC_DTYPE_COMPLEX32, "complex32", "c32", "C32", 4, false},
    {SC_DTYPE_COMPLEX64, "complex64", "c64", "C64", 8, true}, /* inside programs only (backends/llvm/cg_complex.c) */
    {SC_DTYPE_COMPLEX128, "complex128", "c128", "C128", 16, false},
    {SC_DTYPE_BOOL, "bool", "b8", "BOOL", 1, true},
    {SC_DTYPE_BF16, "bfloat16", "bf16", "BF16", 2, true},
    {SC_DTYPE_U16, "uint16", "u16", "U16", 2, false},
    {SC_DTYPE_F8E4M3FN, "float8_e4m3fn", "f8e4m3fn", "F8_E4M3", 1, false},
    {SC_DTYPE_F8E5M2, "float8_e5m2", "f8e5m2", "F8_E5M2", 1, false},
    {SC_DTYPE_F8E4M3FNUZ, "float8_e4m3fnuz", "f8e4m3fnuz", "F8_E4M3FNUZ", 1, false},
    {SC_DTYPE_F8E5M2FNUZ, "float8_e5m2fnuz", "f8e5m2fnuz", "F8_E5M2FNUZ", 1, false},
    {SC_DTYPE_F8E8M0FNU, "float8_e8m0fnu", "f8e8m0fnu", "F8_E8M0", 1, false},
    {SC_DTYPE_U32, "uint32", "u32", "U32", 4, false},
    {SC_DTYPE_U64, "uint64", "u64", "U64", 8, false},
};

#define N_DTYPES (sizeof dtypes / sizeof dtypes[0])

static int dtype_index(int code) {
  for (size_t i = 0; i < N_DTYPES; i++)
    if ((int)dtypes[i].dt == code) return (int)i;
  return -1;
}

bool sc_dtype_is_known(int code) { return dtype_index(code) >= 0; }

bool sc_dtype_is_supported(sc_dtype dt) {
  int i = dtype_index((int)dt);
  return i >= 0 && dtypes[i].supported;
}

const char *sc_dtype_name(sc_dtype dt) {
  int i = dtype_index((int)dt);
  return i >= 0 ? dtypes[i].name : "unknown";
}

const char *sc_dtype_short(sc_dtype dt) {
  int i = dtype_index((int)dt);
  return i >= 0 ? dtypes[i].shortname : "?";
}

const char *sc_dtype_safetensors(sc_dtype dt) {
  int i = dtype_index((int)dt);
  return i >= 0 ? dtypes[i].st : "?";
}

sc_dtype sc_dtype_from_safetensors(const char *s) {
  for (size_t i = 0; i < N_DTYPES; i++)
    if (strcmp(dtypes[i].st, s) == 0) return dtypes[i].dt;
  return SC_DTYPE_UNKNOWN;
}

size_t sc_dtype_size(sc_dtype dt) {
  int i = dtype_index((int)dt);
  return i >= 0 ? dtypes[i].size : 0;
}
