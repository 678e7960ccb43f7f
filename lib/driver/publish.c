/* publish.c - the output folder replaced as one unit; see publish.h. */
#define _GNU_SOURCE
#include "publish.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/base/fileio.h"

/* What shapec writes into an output folder: everything else there is the user's. */
static const char *const own_files[] = {"constraints.json", "constraints.failed.json", "model.so", "model.h",
                                        "model.ll", "model.weights", "model.ptx", "model_kernels.ptx",
                                        "model_device.ll", "model_kernels.ll", NULL};

static bool is_own(const char *name) {
  for (int i = 0; own_files[i]; i++)
    if (strcmp(own_files[i], name) == 0) return true;
  /* a temporary of an atomic write (NAME.tmp.PID) */
  return strstr(name, ".tmp.") != NULL;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  remove(path);
  return 0;
}

static void remove_tree(const char *path) { nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

static char *parent_of(sc_ctx *ctx, const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return sc_arena_strdup(&ctx->arena, ".");
  if (slash == path) return sc_arena_strdup(&ctx->arena, "/");
  return sc_arena_strndup(&ctx->arena, path, (size_t)(slash - path));
}

static const char *base_of(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* Staging folders whose export died (kill -9, power loss): PID no longer running. */
static void remove_leftovers(sc_ctx *ctx, const char *parent, const char *name) {
  DIR *d = opendir(parent);
  if (!d) return;
  const char *prefix = sc_arena_printf(&ctx->arena, ".%s.staging-", name);
  size_t n = strlen(prefix);
  for (struct dirent *e; (e = readdir(d));) {
    if (strncmp(e->d_name, prefix, n) != 0) continue;
    long pid = strtol(e->d_name + n, NULL, 10);
    if (pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH)
      remove_tree(sc_arena_printf(&ctx->arena, "%s/%s", parent, e->d_name));
  }
  closedir(d);
}

/* Creates the folders of `path` that do not exist yet, as mkdir -p does (-o a/b/c with no
 * a/).  Returns false with errno set when one cannot be made. */
static bool make_folders(sc_ctx *ctx, const char *path) {
  char *p = sc_arena_strdup(&ctx->arena, path);
  for (char *at = p + 1;; at++) {
    if (*at != '/' && *at != '\0') continue;
    char saved = *at;
    *at = '\0';
    struct stat st;
    if (stat(p, &st) != 0 && mkdir(p, 0777) != 0 && errno != EEXIST) return false;
    *at = saved;
    if (!saved) return true;
  }
}

bool sc_publish_begin(sc_ctx *ctx, const char *outdir, sc_publish *pub) {
  pub->final = outdir;
  pub->staging = NULL;
  pub->lock_fd = -1;
  size_t len = strlen(outdir);
  while (len > 1 && outdir[len - 1] == '/') len--;
  pub->final = sc_arena_strndup(&ctx->arena, outdir, len);
  struct stat st;
  if (stat(pub->final, &st) == 0 && !S_ISDIR(st.st_mode)) {
    sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, pub->final, NULL,
                 "cannot create the output directory: a file of that name exists");
    return false;
  }
  const char *parent = parent_of(ctx, pub->final), *name = base_of(pub->final);
  if (!make_folders(ctx, parent)) {
    sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, pub->final, NULL,
                 "cannot create the output directory's folder %s: %s", parent, strerror(errno));
    return false;
  }
  pub->lock_fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (pub->lock_fd < 0 || flock(pub->lock_fd, LOCK_EX) != 0) {
    sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, pub->final, NULL,
                 "cannot create the output directory: its folder %s cannot be opened and locked: %s", parent,
                 strerror(errno));
    if (pub->lock_fd >= 0) close(pub->lock_fd);
    pub->lock_fd = -1;
    return false;
  }
  remove_leftovers(ctx, parent, name);
  char *staging = sc_arena_printf(&ctx->arena, "%s/.%s.staging-%ld-XXXXXX", parent, name, (long)getpid());
  if (!mkdtemp(staging)) {
    sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, parent, NULL,
                 "cannot create the staging folder for %s: %s", pub->final, strerror(errno));
    sc_publish_end(pub);
    return false;
  }
  chmod(staging, 0755);
  pub->staging = staging;
  return true;
}

bool sc_publish_has_library(const sc_publish *pub) {
  char path[4096];
  snprintf(path, sizeof path, "%s/model.so", pub->final);
  return sc_file_exists(path);
}

/* The user's files in the output folder move into the staging folder first. */
static bool carry_over(sc_ctx *ctx, const sc_publish *pub) {
  DIR *d = opendir(pub->final);
  if (!d) return true;
  bool ok = true;
  for (struct dirent *e; (e = readdir(d));) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 || is_own(e->d_name)) continue;
    const char *from = sc_arena_printf(&ctx->arena, "%s/%s", pub->final, e->d_name);
    const char *to = sc_arena_printf(&ctx->arena, "%s/%s", pub->staging, e->d_name);
    if (rename(from, to) != 0) {
      sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, from, NULL, "cannot keep the file in the new output: %s",
                   strerror(errno));
      ok = false;
    }
  }
  closedir(d);
  return ok;
}

bool sc_publish_commit(sc_ctx *ctx, sc_publish *pub) {
  struct stat st;
  bool exists = stat(pub->final, &st) == 0;
  if (exists && !carry_over(ctx, pub)) return false;
  if (exists ? renameat2(AT_FDCWD, pub->staging, AT_FDCWD, pub->final, RENAME_EXCHANGE) != 0
             : rename(pub->staging, pub->final) != 0) {
    sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, pub->final, NULL,
                 "cannot put the new outputs in place: %s", strerror(errno));
    return false;
  }
  chmod(pub->final, 0755);
  return true;
}

void sc_publish_keep_previous(sc_ctx *ctx, sc_publish *pub) {
  const char *from = sc_arena_printf(&ctx->arena, "%s/constraints.json", pub->staging);
  const char *to = sc_arena_printf(&ctx->arena, "%s/constraints.failed.json", pub->final);
  if (sc_file_exists(from) && rename(from, to) != 0)
    sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_WARNING, to, NULL, "cannot write the failed export's report: %s",
                 strerror(errno));
}

void sc_publish_end(sc_publish *pub) {
  if (pub->staging) remove_tree(pub->staging); /* after an exchange: the previous outputs */
  pub->staging = NULL;
  if (pub->lock_fd >= 0) close(pub->lock_fd); /* closing releases the lock */
  pub->lock_fd = -1;
}
