/* test_npy.c - the .npy reader of `shapec run`: real files read, and every crafted header
 * (sizes that overflow the element or byte count, sizes past int64, a shape that is not
 * a tuple, a header longer than the file) refused with an npy-format error, no crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/frontend/npy.h"
#include "test_util.h"

/* Writes a version-1.0 .npy file: the header text, padded, then `data_bytes` zero bytes. */
static const char *write_npy(const char *header, size_t data_bytes) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/shapec-test-npy-%d.npy", (int)getpid());
  size_t hlen = strlen(header) + 1;
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 255), (unsigned char)(hlen >> 8)};
  fwrite(pre, 1, 10, f);
  fwrite(header, 1, strlen(header), f);
  fputc('\n', f);
  for (size_t i = 0; i < data_bytes; i++) fputc(0, f);
  fclose(f);
  return path;
}

static void expect_refused(const char *header, size_t data_bytes, const char *what) {
  sc_ctx *ctx = sc_ctx_new();
  sc_npy a;
  ck_assert_msg(!sc_npy_read(ctx, write_npy(header, data_bytes), &a), "accepted: %s", header);
  tu_assert_diag(ctx, SC_DIAG_NPY_FORMAT, NULL);
  ck_assert_msg(strstr(ctx->diags.items[0].message, what), "'%s' does not say '%s'", ctx->diags.items[0].message, what);
  sc_ctx_free(ctx);
}

START_TEST(test_reads_real_shapes) {
  sc_ctx *ctx = sc_ctx_new();
  sc_npy a;
  ck_assert(sc_npy_read(ctx, write_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", 48), &a));
  ck_assert_int_eq(a.ndim, 2);
  ck_assert_int_eq(a.shape[1], 4);
  ck_assert_uint_eq(a.nbytes, 48);
  sc_npy_free(&a);
  ck_assert(sc_npy_read(ctx, write_npy("{'descr': '<i8', 'fortran_order': False, 'shape': (5,), }", 40), &a));
  ck_assert_int_eq(a.ndim, 1);
  sc_npy_free(&a);
  ck_assert(sc_npy_read(ctx, write_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 8), &a));
  ck_assert_int_eq(a.ndim, 0);
  sc_npy_free(&a);
  ck_assert(sc_npy_read(ctx, write_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 7), }", 0), &a));
  ck_assert_uint_eq(a.nbytes, 0);
  sc_npy_free(&a);
  sc_ctx_free(ctx);
}
END_TEST

START_TEST(test_crafted_headers_are_refused) {
  /* 2^62 * 2^62 elements: the count wraps to 0 without the overflow check */
  expect_refused("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4611686018427387904), }", 16,
                 "overflows");
  /* 2^62 float32: the byte count wraps to 0 */
  expect_refused("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904,), }", 16, "overflows");
  /* past int64: strtoll would saturate */
  expect_refused("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", 16, "overflows");
  /* not a tuple: was read as 0-d */
  expect_refused("{'descr': '<f4', 'fortran_order': False, 'shape': 3, }", 4, "not a tuple");
  expect_refused("{'descr': '<f4', 'fortran_order': False, 'shape': (-3,), }", 16, "malformed shape");
  expect_refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4, }", 48, "malformed shape");
  expect_refused("{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1), }", 4,
                 "more than 16");
  expect_refused("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", 47, "shorter");
  expect_refused("{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }", 24, "unsupported dtype");
}
END_TEST

int main(void) {
  Suite *s = suite_create("npy");
  TCase *tc = tcase_create("npy");
  tcase_add_test(tc, test_reads_real_shapes);
  tcase_add_test(tc, test_crafted_headers_are_refused);
  suite_add_tcase(s, tc);
  return tu_run(s);
}
