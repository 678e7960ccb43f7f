/* dtype.h - element types, numbered as torch's serialized ScalarType enum. */
#ifndef SC_DTYPE_H
#define SC_DTYPE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum sc_dtype {
  SC_DTYPE_UNKNOWN = 0,
  SC_DTYPE_U8 = 1,
  SC_DTYPE_I8 = 2,
  SC_DTYPE_I16 = 3,
  SC_DTYPE_I32 = 4,
  SC_DTYPE_I64 = 5,
  SC_DTYPE_F16 = 6,
  SC_DTYPE_F32 = 7,
  SC_DTYPE_F64 = 8,
  SC_DTYPE_COMPLEX32 = 9,
  SC_DTYPE_COMPLEX64 = 10,
  SC_DTYPE_COMPLEX128 = 11,
  SC_DTYPE_BOOL = 12,
  SC_DTYPE_BF16 = 13,
  SC_DTYPE_U16 = 28,
  SC_DTYPE_F8E4M3FN = 29,
  SC_DTYPE_F8E5M2 = 30,
  SC_DTYPE_F8E4M3FNUZ = 31,
  SC_DTYPE_F8E5M2FNUZ = 32,
  SC_DTYPE_F8E8M0FNU = 33,  /* schema 8.x of torch 2.8+: known, not computed with */
  SC_DTYPE_U32 = 34,
  SC_DTYPE_U64 = 35,
} sc_dtype;

/* True for every number of the serialized ScalarType enum. */
bool sc_dtype_is_known(int code);
/* True for the dtypes shapec computes with (float32/64/16, bfloat16, ints, uint8, bool). */
bool sc_dtype_is_supported(sc_dtype dt);
/* torch's name ("float32"), its short print(ep) spelling ("f32"), safetensors' ("F32"). */
const char *sc_dtype_name(sc_dtype dt);
const char *sc_dtype_short(sc_dtype dt);
const char *sc_dtype_safetensors(sc_dtype dt);
/* Parses a safetensors dtype ("F32"); SC_DTYPE_UNKNOWN if unknown. */
sc_dtype sc_dtype_from_safetensors(const char *s);
/* Element size in bytes; 0 for unknown. */
size_t sc_dtype_size(sc_dtype dt);

#endif
