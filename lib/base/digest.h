/* digest.h - SHA-256 of bytes, in hex (OpenSSL's libcrypto): how a report and an
 * observations file name the model and spec they came from without their paths, so that
 * the same files give the same artifacts wherever they lie. */
#ifndef SC_DIGEST_H
#define SC_DIGEST_H

#include <stddef.h>

#define SC_SHA256_HEX_LEN 64

/* Writes 64 lowercase hex digits and a NUL into out. */
void sc_sha256_hex(const void *data, size_t len, char out[SC_SHA256_HEX_LEN + 1]);

#endif
