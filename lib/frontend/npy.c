/* npy.c - NumPy .npy reader and writer; see npy.h. */
#include "npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/half.h"
#include "lib/base/fileio.h"

static const struct {
  const char *descr;
  sc_dtype dt;
} npy_types[] = {{"<f4", SC_DTYPE_F32}, {"<f8", SC_DTYPE_F64}, {"<i8", SC_DTYPE_I64}, {"<i4", SC_DTYPE_I32},
                 {"|b1", SC_DTYPE_BOOL}, {"|u1", SC_DTYPE_U8}, {"|i1", SC_DTYPE_I8}, {"<f2", SC_DTYPE_F16},
                 /* 16-bit integers: also bfloat16's bit patterns (NumPy has no bfloat16) */
                 {"<i2", SC_DTYPE_I16}, {"<u2", SC_DTYPE_U16}};

static bool bad(sc_ctx *ctx, const char *path, const char *what) {
  sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_NPY_FORMAT, SC_SEV_ERROR, path, NULL, "not a usable .npy file: %s", what);
  sc_diag_set_hint(&ctx->diags, d, "write it with numpy.save of a C-ordered float32, float64, float16, int64, int32 "
                   "or bool array");
  return false;
}

/* The shape tuple after 'shape': "(3, 4)", "(5,)" or "()": non-negative decimal sizes,
 * at most 16 of them.  Returns NULL, or what is wrong. */
static const char *parse_shape(const char *p, sc_npy *out) {
  while (*p == ' ') p++;
  if (*p != '(') return "the shape is not a tuple";
  p++;
  for (;;) {
    while (*p == ' ') p++;
    if (*p == ')') return NULL;
    if (*p < '0' || *p > '9') return "malformed shape";
    int64_t v = 0;
    for (; *p >= '0' && *p <= '9'; p++)
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *p - '0', &v)) return "a size in the shape overflows";
    if (out->ndim >= 16) return "more than 16 dims";
    out->shape[out->ndim++] = v;
    while (*p == ' ') p++;
    if (*p == ',') p++;
    else if (*p != ')') return "malformed shape";
  }
}

bool sc_npy_read(sc_ctx *ctx, const char *path, sc_npy *out) {
  memset(out, 0, sizeof *out);
  size_t len;
  char *buf = sc_file_read(ctx, path, &len);
  if (!buf) return false;
  bool ok = false;
  if (len < 10 || memcmp(buf, "\x93NUMPY", 6) != 0) {
    bad(ctx, path, "no NUMPY magic");
    goto done;
  }
  int major = (unsigned char)buf[6];
  size_t hlen = major == 1 ? (size_t)(unsigned char)buf[8] | (size_t)(unsigned char)buf[9] << 8
                           : len >= 12 ? (size_t)(unsigned char)buf[8] | (size_t)(unsigned char)buf[9] << 8 |
                                             (size_t)(unsigned char)buf[10] << 16 | (size_t)(unsigned char)buf[11] << 24
                                       : 0;
  size_t start = major == 1 ? 10 : 12;
  if (major < 1 || major > 3 || start + hlen > len) {
    bad(ctx, path, "truncated header");
    goto done;
  }
  char *h = sc_xmalloc(hlen + 1);
  memcpy(h, buf + start, hlen);
  h[hlen] = '\0';
  const char *d = strstr(h, "'descr':"), *f = strstr(h, "'fortran_order':"), *s = strstr(h, "'shape':");
  if (!d || !f || !s) {
    bad(ctx, path, "header without descr, fortran_order and shape");
    free(h);
    goto done;
  }
  if (strncmp(f + 16, " True", 5) == 0) {
    bad(ctx, path, "Fortran order; pass a C-ordered array");
    free(h);
    goto done;
  }
  const char *q = strchr(d + 8, '\'');
  out->dtype = SC_DTYPE_UNKNOWN;
  for (size_t i = 0; q && i < sizeof npy_types / sizeof npy_types[0]; i++)
    if (strncmp(q + 1, npy_types[i].descr, 3) == 0 && q[4] == '\'') out->dtype = npy_types[i].dt;
  if (out->dtype == SC_DTYPE_UNKNOWN) {
    bad(ctx, path, "unsupported dtype (use float32, float64, float16, int64, int32 or bool, little-endian)");
    free(h);
    goto done;
  }
  const char *why = parse_shape(s + 8, out);
  free(h);
  if (why) {
    bad(ctx, path, why);
    goto done;
  }
  /* the element count and byte count of a crafted shape can overflow: check both */
  uint64_t numel = 1;
  bool overflow = false;
  for (int i = 0; i < out->ndim; i++) overflow |= __builtin_mul_overflow(numel, (uint64_t)out->shape[i], &numel);
  uint64_t nbytes = 0;
  overflow |= __builtin_mul_overflow(numel, (uint64_t)sc_dtype_size(out->dtype), &nbytes);
  if (overflow || nbytes > len - start - hlen) {
    bad(ctx, path, overflow ? "the shape's element count overflows" : "the data is shorter than the shape says (truncated file?)");
    goto done;
  }
  out->nbytes = (size_t)nbytes;
  out->data = aligned_alloc(64, (out->nbytes + 63) / 64 * 64 + 64);
  if (!out->data) sc_fatal_oom();
  memcpy(out->data, buf + start + hlen, out->nbytes);
  ok = true;
done:
  free(buf);
  return ok;
}

bool sc_npy_write(sc_ctx *ctx, const char *path, const sc_npy *a) {
  const char *descr = NULL;
  for (size_t i = 0; i < sizeof npy_types / sizeof npy_types[0]; i++)
    if (npy_types[i].dt == a->dtype) descr = npy_types[i].descr;
  if (!descr) {
    sc_diags_add(&ctx->diags, SC_DIAG_NPY_FORMAT, SC_SEV_ERROR, path, NULL, "cannot write %s as .npy", sc_dtype_name(a->dtype));
    return false;
  }
  char header[512];
  int n = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int i = 0; i < a->ndim; i++) n += snprintf(header + n, sizeof header - (size_t)n, "%lld,%s", (long long)a->shape[i], i + 1 < a->ndim ? " " : "");
  n += snprintf(header + n, sizeof header - (size_t)n, "), }");
  size_t total = 10 + (size_t)n + 1;
  size_t pad = (64 - total % 64) % 64;
  size_t hlen = (size_t)n + pad + 1;
  char *buf = sc_xmalloc(10 + hlen + a->nbytes);
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  buf[8] = (char)(hlen & 0xff);
  buf[9] = (char)(hlen >> 8);
  memcpy(buf + 10, header, (size_t)n);
  memset(buf + 10 + n, ' ', pad);
  buf[10 + hlen - 1] = '\n';
  if (a->nbytes) memcpy(buf + 10 + hlen, a->data, a->nbytes);
  bool ok = sc_file_write_atomic(ctx, path, buf, 10 + hlen + a->nbytes);
  free(buf);
  return ok;
}

void sc_npy_free(sc_npy *a) {
  free(a->data);
  a->data = NULL;
}

bool sc_npy_as_half(sc_npy *a, sc_dtype want) {
  if ((want != SC_DTYPE_F16 && want != SC_DTYPE_BF16) || a->dtype == want) return a->dtype == want;
  if (want == SC_DTYPE_BF16 && (a->dtype == SC_DTYPE_I16 || a->dtype == SC_DTYPE_U16)) { /* the bits as they are */
    a->dtype = want;
    return true;
  }
  if (a->dtype != SC_DTYPE_F32) return false;
  size_t n = a->nbytes / 4;
  const float *f = a->data;
  uint16_t *h = a->data; /* in place: element i is written after element i was read */
  for (size_t i = 0; i < n; i++) {
    float x = f[i];
    h[i] = want == SC_DTYPE_BF16 ? sc_f32_to_bf16(x) : sc_f32_to_f16(x);
  }
  a->dtype = want;
  a->nbytes = n * 2;
  return true;
}

bool sc_npy_widen_bf16(sc_npy *a) {
  if (a->dtype != SC_DTYPE_BF16) return false;
  size_t n = a->nbytes / 2;
  float *f = aligned_alloc(64, (n * 4 + 63) / 64 * 64 + 64);
  if (!f) sc_fatal_oom();
  const uint16_t *h = a->data;
  for (size_t i = 0; i < n; i++) f[i] = sc_bf16_to_f32(h[i]);
  free(a->data);
  a->data = f;
  a->dtype = SC_DTYPE_F32;
  a->nbytes = n * 4;
  return true;
}
