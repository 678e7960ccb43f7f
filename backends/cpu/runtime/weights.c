/* weights.c - a model's weights in a side file (shapec export --external-weights).
 *
 * The file, OUTDIR/model.weights, is a 64-byte header (magic "SHAPECW1", the weights' id,
 * their size) followed by the same 64-byte aligned blob an embedded library carries.  It
 * is mapped read-only on the first run, from beside the library unless
 * shapec_model_set_weights_path named another file, and checked against the id and size
 * the library was built with, so a file from another export is refused, not misread. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernels.h"

enum { HEADER = 64 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const unsigned char *mapped;      /* the blob in use, once a run asked for it */
static const unsigned char *replacement; /* shapec_model_load_weights' blob (weights_replace.c) */
static const unsigned char *own;         /* the side file, mapped for a replacement's missing pieces */
static char chosen_path[4096];           /* set by shapec_model_set_weights_path */

/* OUTDIR/model.weights for the library this code is linked into. */
static int default_path(char *out, size_t n) {
  Dl_info info;
  if (!dladdr((void *)default_path, &info) || !info.dli_fname) return -1;
  const char *slash = strrchr(info.dli_fname, '/');
  int dir_len = slash ? (int)(slash - info.dli_fname) : 1;
  const char *dir = slash ? info.dli_fname : ".";
  return snprintf(out, n, "%.*s/model.weights", dir_len, dir) < (int)n ? 0 : -1;
}

static uint64_t read_u64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

static const unsigned char *load(uint64_t id, uint64_t size, char *err, size_t errlen) {
  char path[4096];
  if (chosen_path[0]) snprintf(path, sizeof path, "%s", chosen_path);
  else if (default_path(path, sizeof path) != 0) {
    sc_rt_fail(err, errlen, "cannot tell where this library lives to find model.weights beside it; call "
                            "shapec_model_set_weights_path");
    return NULL;
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    sc_rt_fail(err, errlen, "cannot open the weights file %s: %s (it is written beside model.so by shapec export "
                            "--external-weights)", path, strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    sc_rt_fail(err, errlen, "cannot read the weights file %s: %s", path, strerror(errno));
    close(fd);
    return NULL;
  }
  if ((uint64_t)st.st_size != HEADER + size) {
    close(fd);
    sc_rt_fail(err, errlen, "the weights file %s has %lld bytes; this library needs %llu: it belongs to another "
                            "export", path, (long long)st.st_size, (unsigned long long)(HEADER + size));
    return NULL;
  }
  void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED) {
    sc_rt_fail(err, errlen, "cannot map the weights file %s: %s", path, strerror(errno));
    return NULL;
  }
  const unsigned char *h = m;
  if (memcmp(h, "SHAPECW1", 8) != 0 || read_u64(h + 8) != id || read_u64(h + 16) != size) {
    munmap(m, (size_t)st.st_size);
    sc_rt_fail(err, errlen, "the weights file %s does not belong to this library (another export or not a shapec "
                            "weights file); export again or point shapec_model_set_weights_path at the right one", path);
    return NULL;
  }
  return h + HEADER;
}

const void *sc_rt_external_weights(uint64_t id, uint64_t size, char *err, size_t errlen) {
  const unsigned char *w = __atomic_load_n(&mapped, __ATOMIC_ACQUIRE);
  if (w) return w;
  pthread_mutex_lock(&lock);
  if (!mapped) {
    if (!replacement && !own) own = load(id, size, err, errlen);
    __atomic_store_n(&mapped, replacement ? replacement : own, __ATOMIC_RELEASE);
  }
  w = mapped;
  pthread_mutex_unlock(&lock);
  return w;
}

int sc_rt_weights_replace(const unsigned char *blob, char *err, size_t errlen) {
  pthread_mutex_lock(&lock);
  int rc = SHAPEC_OK;
  if (mapped)
    rc = sc_rt_fail(err, errlen, "the weights can be replaced only before the library's first run (a run has used "
                    "them, and kernels keep them laid out); load the library again, or call "
                    "shapec_model_load_weights first");
  else {
    free((void *)replacement);
    replacement = blob;
  }
  pthread_mutex_unlock(&lock);
  if (rc) free((void *)blob);
  return rc;
}

const unsigned char *sc_rt_weights_own(uint64_t id, uint64_t size, char *err, size_t errlen) {
  pthread_mutex_lock(&lock);
  if (!own) own = load(id, size, err, errlen);
  const unsigned char *w = own;
  pthread_mutex_unlock(&lock);
  return w;
}

__attribute__((visibility("default"))) int shapec_model_set_weights_path(const char *path) {
  if (!path || strlen(path) >= sizeof chosen_path) return SHAPEC_ERR_ARGUMENT;
  pthread_mutex_lock(&lock);
  int rc = mapped || own ? SHAPEC_ERR_ARGUMENT : SHAPEC_OK; /* the weights in use cannot change */
  if (rc == SHAPEC_OK) snprintf(chosen_path, sizeof chosen_path, "%s", path);
  pthread_mutex_unlock(&lock);
  return rc;
}
