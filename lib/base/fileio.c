/* fileio.c - file helpers; see fileio.h. */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

char *sc_file_read(sc_ctx *ctx, const char *path, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    sc_diags_add(&ctx->diags, SC_DIAG_FILE_READ, SC_SEV_ERROR, path, NULL, "cannot read the file: %s",
                 strerror(errno));
    if (fd >= 0) close(fd);
    return NULL;
  }
  if (S_ISDIR(st.st_mode)) {
    sc_diags_add(&ctx->diags, SC_DIAG_FILE_READ, SC_SEV_ERROR, path, NULL, "cannot read the file: it is a directory");
    close(fd);
    return NULL;
  }
  size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536;
  char *buf = sc_xmalloc(cap);
  size_t n = 0;
  for (;;) {
    if (n + 1 >= cap) {
      cap *= 2;
      buf = sc_xrealloc(buf, cap);
    }
    ssize_t r = read(fd, buf + n, cap - n - 1);
    if (r < 0) {
      if (errno == EINTR) continue;
      sc_diags_add(&ctx->diags, SC_DIAG_FILE_READ, SC_SEV_ERROR, path, NULL, "cannot read the file: %s",
                   strerror(errno));
      free(buf);
      close(fd);
      return NULL;
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  close(fd);
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* The mapped file a SIGBUS is about (only one is read at a time). */
static char mapped_path[512];

static void on_sigbus(int sig) {
  (void)sig;
  static const char head[] = "shapec: error: ";
  static const char tail[] = " became shorter while shapec was reading it; export again once it is written completely\n";
  ssize_t ignored = write(2, head, sizeof head - 1);
  ignored = write(2, mapped_path, strlen(mapped_path));
  ignored = write(2, tail, sizeof tail - 1);
  (void)ignored;
  _exit(3);
}

bool sc_file_view_open(sc_ctx *ctx, const char *path, sc_file_view *out) {
  *out = (sc_file_view){0};
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      close(fd);
      snprintf(mapped_path, sizeof mapped_path, "%s", path);
      struct sigaction sa = {.sa_handler = on_sigbus};
      sigaction(SIGBUS, &sa, NULL);
      *out = (sc_file_view){.data = p, .len = (size_t)st.st_size, .mapped = true};
      return true;
    }
  }
  if (fd >= 0) close(fd);
  char *text = sc_file_read(ctx, path, &out->len);
  out->data = text;
  return text != NULL;
}

void sc_file_view_forget(const sc_file_view *view, size_t start, size_t end) {
  if (!view || !view->mapped) return;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t from = start / page * page, to = end / page * page;
  if (to > from) madvise((char *)view->data + from, to - from, MADV_DONTNEED);
}

void sc_file_view_close(sc_file_view *view) {
  if (view->mapped) munmap((void *)view->data, view->len);
  else free((void *)view->data);
  *view = (sc_file_view){0};
}

static bool write_all(int fd, const char *p, size_t len) {
  while (len) {
    ssize_t w = write(fd, p, len);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    len -= (size_t)w;
  }
  return true;
}

bool sc_file_write_atomic(sc_ctx *ctx, const char *path, const void *data, size_t len) {
  size_t n = strlen(path) + 32;
  char *tmp = sc_xmalloc(n);
  snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = fd >= 0 && write_all(fd, data, len) && fsync(fd) == 0;
  int saved_errno = errno;
  if (fd >= 0 && close(fd) != 0 && ok) {
    ok = false;
    saved_errno = errno;
  }
  if (ok && rename(tmp, path) != 0) {
    ok = false;
    saved_errno = errno;
  }
  if (!ok) {
    unlink(tmp);
    sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, path, NULL, "cannot write the file: %s",
                 strerror(saved_errno));
  }
  free(tmp);
  return ok;
}

bool sc_dir_ensure(sc_ctx *ctx, const char *path) {
  struct stat st;
  if (stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode)) return true;
    sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, path, NULL,
                 "cannot create the output directory: a file of that name exists");
    return false;
  }
  /* the missing folders above it first, as mkdir -p does */
  char *p = sc_arena_strdup(&ctx->arena, path);
  for (char *at = p + 1; *at; at++) {
    if (*at != '/') continue;
    *at = '\0';
    if (stat(p, &st) != 0 && mkdir(p, 0755) != 0 && errno != EEXIST) {
      sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, path, NULL,
                   "cannot create the output directory's folder %s: %s", p, strerror(errno));
      return false;
    }
    *at = '/';
  }
  if (mkdir(path, 0755) != 0 && errno != EEXIST) {
    sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, path, NULL, "cannot create the output directory: %s",
                 strerror(errno));
    return false;
  }
  return true;
}

bool sc_file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

void sc_temp_template(char *out, size_t n, const char *name) {
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir || strlen(dir) + strlen(name) + 9 > n) dir = "/tmp";
  snprintf(out, n, "%s/%s-XXXXXX", dir, name);
}

const char *sc_path_file_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash && slash[1] ? slash + 1 : path;
}

char *sc_path_parent(sc_ctx *ctx, const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return sc_arena_strdup(&ctx->arena, ".");
  if (slash == path) return sc_arena_strdup(&ctx->arena, "/");
  return sc_arena_strndup(&ctx->arena, path, (size_t)(slash - path));
}
