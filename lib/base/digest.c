/* digest.c - SHA-256 through libcrypto (digest.h). */
#include "digest.h"

#include <openssl/evp.h>

void sc_sha256_hex(const void *data, size_t len, char out[SC_SHA256_HEX_LEN + 1]) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(data, len, md, &n, EVP_sha256(), NULL);
  static const char hex[] = "0123456789abcdef";
  for (unsigned int i = 0; i < n && i < 32; i++) {
    out[2 * i] = hex[md[i] >> 4];
    out[2 * i + 1] = hex[md[i] & 15];
  }
  out[SC_SHA256_HEX_LEN] = '\0';
}
