/* fuzz_common.h - what the libFuzzer harnesses share: a fresh context per input, and a
 * file holding the input for the readers that take a path (.pt2 through libzip, .npy). */
#ifndef SC_FUZZ_COMMON_H
#define SC_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/context.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Writes data to a per-process file (in /dev/shm when it exists) and returns its path. */
static inline const char *fuzz_input_file(const uint8_t *data, size_t size, const char *suffix) {
  static char path[256];
  const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(path, sizeof path, "%s/shapec-fuzz-%d%s", dir, (int)getpid(), suffix);
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (size && fwrite(data, 1, size, f) != size) abort();
  fclose(f);
  return path;
}

/* A NUL-terminated copy (the JSON readers take text and a length; cJSON reads to NUL). */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
  char *t = malloc(size + 1);
  if (!t) abort();
  memcpy(t, data, size);
  t[size] = 0;
  return t;
}

#endif
