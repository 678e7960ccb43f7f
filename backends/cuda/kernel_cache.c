/* kernel_cache.c - shapec's device kernels as PTX, kept on disk between exports (see
 * kernel_cache.h). */
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm-c/Core.h>

#include "backends/cuda/kernel_cache.h"
#include "lib/base/digest.h"
#include "lib/base/fileio.h"

#define ENTRY_PREFIX "cuda-kernels-"
#define HEADER "// shapec kernel cache sha256="
#define KEEP_ENTRIES 16 /* a folder shared by many builds stays a few MB */

/* The build ID of the ELF object that holds this code, in hex: it changes with any change
 * to shapec, including how it compiles the kernels. */
typedef struct build_id_search {
  const void *code;
  char hex[2 * 64 + 1];
} build_id_search;

static int find_build_id(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  build_id_search *s = arg;
  bool holds = false;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && (uintptr_t)s->code >= lo && (uintptr_t)s->code < lo + ph->p_memsz) holds = true;
  }
  if (!holds) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE) continue;
    const unsigned char *at = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr), *end = at + ph->p_memsz;
    while (at + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *note = (const ElfW(Nhdr) *)at;
      const unsigned char *name = at + sizeof *note, *desc = name + ((note->n_namesz + 3) & ~3u);
      if (desc + note->n_descsz > end) break;
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 && note->n_descsz &&
          note->n_descsz <= 64) {
        for (unsigned k = 0; k < note->n_descsz; k++) snprintf(s->hex + 2 * k, 3, "%02x", desc[k]);
        return 1;
      }
      at = desc + ((note->n_descsz + 3) & ~3u);
    }
  }
  return 1; /* the object, without a build ID */
}

static const char *cache_dir(sc_ctx *ctx) {
  const char *env = getenv("SHAPEC_CACHE_DIR");
  if (env) return *env ? env : NULL;
  const char *xdg = getenv("XDG_CACHE_HOME");
  if (xdg && *xdg == '/') return sc_arena_printf(&ctx->arena, "%s/shapec", xdg);
  const char *home = getenv("HOME");
  if (home && *home == '/') return sc_arena_printf(&ctx->arena, "%s/.cache/shapec", home);
  return NULL;
}

sc_kernel_cache sc_kernel_cache_open(sc_ctx *ctx, const char *arch, const void *bitcode, size_t bitcode_len,
                                     const char *libdevice_path) {
  sc_kernel_cache cache = {NULL};
  const char *dir = cache_dir(ctx);
  if (!dir) return cache;
  build_id_search self = {.code = (const void *)&sc_kernel_cache_open};
  dl_iterate_phdr(find_build_id, &self);
  if (!self.hex[0]) return cache; /* nothing names this build: compile every time */
  size_t libdevice_len;
  sc_ctx *quiet = sc_ctx_new(); /* a libdevice that cannot be read is reported by the compile */
  char *libdevice = sc_file_read(quiet, libdevice_path, &libdevice_len);
  sc_ctx_free(quiet);
  if (!libdevice) return cache;
  char bc_hex[SC_SHA256_HEX_LEN + 1], libdevice_hex[SC_SHA256_HEX_LEN + 1], key[SC_SHA256_HEX_LEN + 1];
  sc_sha256_hex(bitcode, bitcode_len, bc_hex);
  sc_sha256_hex(libdevice, libdevice_len, libdevice_hex);
  free(libdevice);
  unsigned major, minor, patch;
  LLVMGetVersion(&major, &minor, &patch);
  const char *inputs = sc_arena_printf(&ctx->arena, "shapec %s\nllvm %u.%u.%u\narch %s\nkernels %s\nlibdevice %s\n",
                                       self.hex, major, minor, patch, arch, bc_hex, libdevice_hex);
  sc_sha256_hex(inputs, strlen(inputs), key);
  cache.path = sc_arena_printf(&ctx->arena, "%s/" ENTRY_PREFIX "%s-%s.ptx", dir, arch, key);
  return cache;
}

char *sc_kernel_cache_read(const sc_kernel_cache *cache, size_t *len) {
  if (!cache->path) return NULL;
  sc_ctx *quiet = sc_ctx_new();
  size_t n;
  char *file = sc_file_read(quiet, cache->path, &n);
  sc_ctx_free(quiet);
  if (!file) return NULL;
  /* the header names the digest of the text after it: a damaged entry is a miss */
  size_t header = strlen(HEADER) + SC_SHA256_HEX_LEN + 1;
  char digest[SC_SHA256_HEX_LEN + 1];
  if (n < header || memcmp(file, HEADER, strlen(HEADER)) != 0 || file[header - 1] != '\n') {
    free(file);
    return NULL;
  }
  sc_sha256_hex(file + header, n - header, digest);
  if (memcmp(digest, file + strlen(HEADER), SC_SHA256_HEX_LEN) != 0) {
    free(file);
    return NULL;
  }
  memmove(file, file + header, n - header + 1); /* with the NUL sc_file_read added */
  *len = n - header;
  return file;
}

/* Removes the oldest entries past KEEP_ENTRIES. */
static void prune(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  char *names[256];
  time_t times[256];
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) && n < 256;) {
    size_t len = strlen(e->d_name);
    if (strncmp(e->d_name, ENTRY_PREFIX, strlen(ENTRY_PREFIX)) != 0 || len < 4 || strcmp(e->d_name + len - 4, ".ptx"))
      continue;
    char *path;
    struct stat st;
    if (asprintf(&path, "%s/%s", dir, e->d_name) < 0) break;
    if (stat(path, &st) != 0) {
      free(path);
      continue;
    }
    names[n] = path;
    times[n++] = st.st_mtime;
  }
  closedir(d);
  while (n > KEEP_ENTRIES) {
    int oldest = 0;
    for (int i = 1; i < n; i++)
      if (times[i] < times[oldest]) oldest = i;
    unlink(names[oldest]);
    free(names[oldest]);
    names[oldest] = names[--n];
    times[oldest] = times[n];
  }
  for (int i = 0; i < n; i++) free(names[i]);
}

void sc_kernel_cache_write(sc_ctx *ctx, const sc_kernel_cache *cache, const char *ptx, size_t len) {
  if (!cache->path) return;
  char *dir = sc_arena_strdup(&ctx->arena, cache->path);
  *strrchr(dir, '/') = '\0';
  sc_ctx *quiet = sc_ctx_new(); /* the cache never fails an export */
  char digest[SC_SHA256_HEX_LEN + 1];
  sc_sha256_hex(ptx, len, digest);
  size_t header = strlen(HEADER) + SC_SHA256_HEX_LEN + 1;
  char *file = sc_xmalloc(header + len);
  snprintf(file, header + 1, HEADER "%s\n", digest);
  memcpy(file + header, ptx, len);
  /* the temporary name and the rename make a concurrent export see the old entry or the
   * new one, never half of it */
  if (sc_dir_ensure(quiet, dir) && sc_file_write_atomic(quiet, cache->path, file, header + len)) prune(dir);
  free(file);
  sc_ctx_free(quiet);
}
