/* runtime_symbols.c - which sc_cu_* functions the device runtime defines, read from the
 * symbol index of the runtime archive that shapec embeds (the same archive every CUDA
 * library links).  The lowering asks before it calls one, so that an op whose CPU kernel
 * has no CUDA counterpart is refused at its node ("has no CUDA lowering yet"), never left
 * to fail the link with an undefined symbol.
 *
 * The index is the archive's first member, "/" in the GNU and System V format: a 4-byte
 * big-endian count, that many 4-byte member offsets, then the names, NUL-terminated. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_target.h"

extern const unsigned char sc_kernels_archive[];
extern const size_t sc_kernels_archive_size;

static const char **names; /* sorted */
static size_t n_names;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int by_text(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static void read_index(void) {
  const unsigned char *a = sc_kernels_archive;
  size_t size = sc_kernels_archive_size;
  if (size < 8 + 60 || memcmp(a, "!<arch>\n", 8) != 0 || memcmp(a + 8, "/ ", 2) != 0) return;
  size_t member = (size_t)strtoul((const char *)a + 8 + 48, NULL, 10); /* ar_size, 10 decimal digits */
  const unsigned char *body = a + 8 + 60;
  if (member < 4 || member > size - 8 - 60) return;
  uint32_t count = (uint32_t)body[0] << 24 | (uint32_t)body[1] << 16 | (uint32_t)body[2] << 8 | body[3];
  if ((size_t)count > (member - 4) / 4) return;
  const char *text = (const char *)body + 4 + 4 * (size_t)count, *end = (const char *)body + member;
  names = malloc((count ? count : 1) * sizeof *names);
  if (!names) return;
  for (uint32_t i = 0; i < count && text < end; i++) {
    const char *nul = memchr(text, 0, (size_t)(end - text));
    if (!nul) break;
    names[n_names++] = text;
    text = nul + 1;
  }
  qsort(names, n_names, sizeof *names, by_text);
}

bool cuda_runtime_defines(const char *name) {
  pthread_once(&once, read_index);
  if (!n_names) return true; /* no index to ask: the link decides, as before */
  return bsearch(&name, names, n_names, sizeof *names, by_text) != NULL;
}
