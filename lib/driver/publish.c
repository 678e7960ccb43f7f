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
#include "lib/base/strbuf.h"
#include "output_folder.h"

/* The staging folder's manifest: the names of the user's entries carried into it, each
 * ending in a NUL, written before the entry moves.  Present only while the folder is this
 * export's staging folder: after the exchange it is in the output folder and removed. */
static const char manifest[] = ".shapec-staging";

/* What shapec writes into an output folder under fixed names (an export also owns the
 * names it staged: spec.json, NAME.h, NAME.so). */
static const char *const own_files[] = {"constraints.json", "constraints.failed.json", "model.so", "model.h",
                                        "model.ll", "model.weights", "model.ptx", "model_kernels.ptx",
                                        "model_device.ll", "model_kernels.ll", manifest, NULL};

static bool is_own(const char *name) {
  for (int i = 0; own_files[i]; i++)
    if (strcmp(own_files[i], name) == 0) return true;
  /* a temporary of an atomic write (NAME.tmp.PID), the linker's folder (.build-XXXXXX) */
  return strstr(name, ".tmp.") != NULL || strncmp(name, ".build-", 7) == 0;
}

static bool listed(const char *const *names, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0) return true;
  return false;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  remove(path);
  return 0;
}

/* Removes path and, for a folder, everything below it: only ever called on what shapec
 * wrote. */
static void remove_tree(const char *path) { nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

static const char *join(sc_ctx *ctx, const char *folder, const char *name) {
  return sc_arena_printf(&ctx->arena, "%s/%s", folder, name);
}

static bool entry_exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

/* The names in folder (not . and ..), in the arena; NULL with errno when it cannot be
 * read. */
static const char **list_names(sc_ctx *ctx, const char *folder, size_t *n) {
  *n = 0;
  DIR *d = opendir(folder);
  if (!d) return NULL;
  size_t cap = 16;
  const char **names = sc_arena_alloc(&ctx->arena, cap * sizeof *names);
  for (struct dirent *e; (e = readdir(d));) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    if (*n == cap) {
      const char **grown = sc_arena_alloc(&ctx->arena, 2 * cap * sizeof *names);
      memcpy(grown, names, cap * sizeof *names);
      names = grown, cap *= 2;
    }
    names[(*n)++] = sc_arena_strdup(&ctx->arena, e->d_name);
  }
  closedir(d);
  return names;
}

/* The manifest's names (NULL-free list in the arena); NULL when there is no manifest. */
static const char **read_manifest(sc_ctx *ctx, const char *staging, size_t *n) {
  *n = 0;
  size_t len = 0;
  const char *path = join(ctx, staging, manifest);
  if (!entry_exists(path)) return NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  sc_strbuf text = {0};
  char chunk[4096];
  for (size_t got; (got = fread(chunk, 1, sizeof chunk, f)) > 0;) sc_strbuf_append_n(&text, chunk, got);
  fclose(f);
  len = text.len;
  const char *data = text.data ? text.data : "";
  size_t count = 0;
  for (size_t i = 0; i < len; i++) count += data[i] == '\0';
  const char **names = sc_arena_alloc(&ctx->arena, (count + 1) * sizeof *names);
  for (size_t i = 0; i < len;) {
    size_t end = i;
    while (end < len && data[end]) end++;
    if (end == len) break; /* a name cut short by a kill: its entry was not moved yet */
    names[(*n)++] = sc_arena_strndup(&ctx->arena, data + i, end - i);
    i = end + 1;
  }
  sc_strbuf_free(&text);
  return names;
}

/* Puts folder/name into the output folder when that name is free there; false when it
 * stays where it is. */
static bool give_back(sc_ctx *ctx, const char *folder, const char *name, const char *final) {
  const char *to = join(ctx, final, name);
  return !entry_exists(to) && rename(join(ctx, folder, name), to) == 0;
}

static void warn_left(sc_ctx *ctx, const char *folder, size_t n_left, const char *where) {
  sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_WARNING, folder, NULL,
               "%zu file%s that shapec did not write could not be put back into %s and stay%s in %s: move %s "
               "where %s belong%s",
               n_left, n_left == 1 ? "" : "s", where, n_left == 1 ? "s" : "", folder, n_left == 1 ? "it" : "them",
               n_left == 1 ? "it" : "they", n_left == 1 ? "s" : "");
}

/* A staging folder whose export died (kill -9, power loss).  With its manifest it died
 * before the exchange: the entries the manifest lists are the user's and go back to the
 * output folder, the rest is shapec's.  Without one it is a previous output folder (the
 * export died after the exchange) or held nothing of the user's yet: shapec's own names
 * and the names the new output folder has again are removed, anything else is given
 * back. */
static void tidy_dead_staging(sc_ctx *ctx, const char *staging, const char *final) {
  size_t n_carried, n_names, n_left = 0;
  const char **carried = read_manifest(ctx, staging, &n_carried);
  const char **names = list_names(ctx, staging, &n_names);
  for (size_t i = 0; names && i < n_names; i++) {
    const char *path = join(ctx, staging, names[i]);
    bool users = carried ? listed(carried, n_carried, names[i])
                         : !is_own(names[i]) && !entry_exists(join(ctx, final, names[i]));
    if (!users) remove_tree(path);
    else if (!give_back(ctx, staging, names[i], final)) n_left++;
  }
  if (n_left) warn_left(ctx, staging, n_left, final);
  else rmdir(staging);
}

static void tidy_leftovers(sc_ctx *ctx, const char *parent, const char *name, const char *final) {
  DIR *d = opendir(parent);
  if (!d) return;
  const char *prefix = sc_arena_printf(&ctx->arena, ".%s.staging-", name);
  size_t n = strlen(prefix);
  const char **dead = NULL;
  size_t n_dead = 0, cap = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (strncmp(e->d_name, prefix, n) != 0) continue;
    long pid = strtol(e->d_name + n, NULL, 10);
    if (!(pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH)) continue;
    if (n_dead == cap) {
      cap = cap ? 2 * cap : 4;
      const char **grown = sc_arena_alloc(&ctx->arena, cap * sizeof *grown);
      if (n_dead) memcpy(grown, dead, n_dead * sizeof *grown);
      dead = grown;
    }
    dead[n_dead++] = join(ctx, parent, e->d_name);
  }
  closedir(d);
  for (size_t i = 0; i < n_dead; i++) tidy_dead_staging(ctx, dead[i], final);
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

bool sc_publish_begin(sc_ctx *ctx, const char *outdir, const char *const *inputs, size_t n_inputs, sc_publish *pub) {
  memset(pub, 0, sizeof *pub);
  pub->lock_fd = -1;
  size_t len = strlen(outdir);
  while (len > 1 && outdir[len - 1] == '/') len--;
  pub->named = sc_arena_strndup(&ctx->arena, outdir, len);
  pub->final = sc_output_folder_resolve(ctx, outdir, inputs, n_inputs);
  if (!pub->final) return false;
  const char *parent = sc_path_parent(ctx, pub->final), *name = sc_path_file_name(pub->final);
  if (!make_folders(ctx, parent)) {
    sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, pub->named, NULL,
                 "cannot create the output directory's folder %s: %s", parent, strerror(errno));
    return false;
  }
  pub->lock_fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (pub->lock_fd < 0 || flock(pub->lock_fd, LOCK_EX) != 0) {
    sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, pub->named, NULL,
                 "cannot create the output directory: its folder %s cannot be opened and locked: %s", parent,
                 strerror(errno));
    if (pub->lock_fd >= 0) close(pub->lock_fd);
    pub->lock_fd = -1;
    return false;
  }
  tidy_leftovers(ctx, parent, name, pub->final);
  char *staging = sc_arena_printf(&ctx->arena, "%s/.%s.staging-%ld-XXXXXX", parent, name, (long)getpid());
  int fd = -1;
  if (!mkdtemp(staging) || (fd = open(join(ctx, staging, manifest), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0) {
    sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, parent, NULL,
                 "cannot create the staging folder for %s: %s", pub->named, strerror(errno));
    if (entry_exists(staging)) rmdir(staging);
    sc_publish_end(ctx, pub);
    return false;
  }
  close(fd);
  chmod(staging, 0755);
  pub->staging = pub->staged_in = staging;
  return true;
}

bool sc_publish_has_library(const sc_publish *pub) {
  char path[4096];
  snprintf(path, sizeof path, "%s/model.so", pub->final);
  return sc_file_exists(path);
}

/* Why an entry of the output folder cannot be carried by a rename: another file system
 * or a mount point.  NULL when it can. */
static const char *unmovable(sc_ctx *ctx, const char *path, dev_t folder_dev) {
  struct stat st;
  if (lstat(path, &st) != 0) return NULL; /* gone meanwhile: nothing to carry */
  if (st.st_dev != folder_dev) return "it is on another file system";
  const char *mount = NULL;
  if (S_ISDIR(st.st_mode) && sc_output_folder_holds_mount(ctx, path, &mount))
    return sc_arena_printf(&ctx->arena, "%s is a mount point", mount);
  return NULL;
}

/* The user's entries move back from the staging folder (a carry that failed). */
static void carry_back(sc_ctx *ctx, sc_publish *pub) {
  size_t kept = 0;
  for (size_t i = 0; i < pub->n_carried; i++)
    if (rename(join(ctx, pub->staging, pub->carried[i]), join(ctx, pub->final, pub->carried[i])) != 0)
      pub->carried[kept++] = pub->carried[i];
  pub->n_carried = kept;
  if (kept) warn_left(ctx, pub->staging, kept, pub->named);
}

/* The user's entries of the output folder move into the staging folder, each named in the
 * manifest first.  On a failure the moved ones go back: false with an error. */
static bool carry_over(sc_ctx *ctx, sc_publish *pub) {
  size_t n;
  const char **names = list_names(ctx, pub->final, &n);
  if (!names) {
    sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, pub->named, NULL, "cannot read the output folder: %s",
                 strerror(errno));
    return false;
  }
  struct stat folder;
  if (stat(pub->final, &folder) != 0) return true;
  const char **users = sc_arena_alloc(&ctx->arena, (n + 1) * sizeof *users);
  size_t n_users = 0;
  for (size_t i = 0; i < n; i++) {
    if (is_own(names[i]) || listed(pub->written, pub->n_written, names[i])) continue;
    const char *path = join(ctx, pub->final, names[i]), *why = unmovable(ctx, path, folder.st_dev);
    if (why) {
      sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, path, NULL,
                   "cannot replace the output folder %s: %s, so it cannot be carried into the new folder in one "
                   "rename; export into a folder of its own; nothing was changed",
                   pub->named, why);
      return false;
    }
    users[n_users++] = names[i];
  }
  pub->carried = sc_arena_alloc(&ctx->arena, (n_users + 1) * sizeof *pub->carried);
  FILE *m = fopen(join(ctx, pub->staging, manifest), "ab");
  for (size_t i = 0; i < n_users; i++) {
    const char *from = join(ctx, pub->final, users[i]);
    bool noted = m && fwrite(users[i], 1, strlen(users[i]) + 1, m) == strlen(users[i]) + 1 && fflush(m) == 0;
    if (!noted || rename(from, join(ctx, pub->staging, users[i])) != 0) {
      sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, from, NULL,
                   "cannot keep the file in the new output folder: %s; nothing was changed",
                   strerror(noted ? errno : EIO));
      if (m) fclose(m);
      carry_back(ctx, pub);
      return false;
    }
    pub->carried[pub->n_carried++] = users[i];
  }
  if (m) fclose(m);
  return true;
}

/* After the exchange the staging folder holds the previous output folder: what shapec
 * wrote there goes, anything else (made while this export ran) is given back. */
static void retire_previous(sc_ctx *ctx, sc_publish *pub) {
  size_t n, n_left = 0;
  const char **names = list_names(ctx, pub->staging, &n);
  for (size_t i = 0; names && i < n; i++) {
    if (is_own(names[i]) || listed(pub->written, pub->n_written, names[i]))
      remove_tree(join(ctx, pub->staging, names[i]));
    else if (!give_back(ctx, pub->staging, names[i], pub->final))
      n_left++;
  }
  if (n_left) {
    warn_left(ctx, pub->staging, n_left, pub->named);
    pub->staging = NULL; /* kept, with the user's files in it */
  }
}

bool sc_publish_commit(sc_ctx *ctx, sc_publish *pub) {
  size_t n;
  const char **staged = list_names(ctx, pub->staging, &n);
  pub->written = sc_arena_alloc(&ctx->arena, (n + 1) * sizeof *pub->written);
  pub->n_written = 0;
  for (size_t i = 0; staged && i < n; i++)
    if (strcmp(staged[i], manifest) != 0) pub->written[pub->n_written++] = staged[i];
  if (pub->n_written == 0) return true; /* nothing to publish: the folder stays as it is */

  struct stat st;
  bool exists = stat(pub->final, &st) == 0;
  if (exists && !carry_over(ctx, pub)) return false;
  if (exists ? renameat2(AT_FDCWD, pub->staging, AT_FDCWD, pub->final, RENAME_EXCHANGE) != 0
             : rename(pub->staging, pub->final) != 0) {
    sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, pub->named, NULL,
                 "cannot put the new outputs in place: %s", strerror(errno));
    carry_back(ctx, pub);
    return false;
  }
  pub->n_carried = 0;
  unlink(join(ctx, pub->final, manifest));
  chmod(pub->final, 0755);
  if (exists) retire_previous(ctx, pub);
  else pub->staging = NULL;
  return true;
}

void sc_publish_keep_previous(sc_ctx *ctx, sc_publish *pub) {
  const char *from = join(ctx, pub->staging, "constraints.json");
  const char *to = join(ctx, pub->final, "constraints.failed.json");
  if (sc_file_exists(from) && rename(from, to) != 0)
    sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_WARNING, to, NULL, "cannot write the failed export's report: %s",
                 strerror(errno));
}

void sc_publish_end(sc_ctx *ctx, sc_publish *pub) {
  if (pub->staging) {
    /* what is still here is this export's (an export that was not published, or the
     * previous output folder's own files), but the user's entries a failed carry could
     * not put back */
    size_t n;
    const char **names = list_names(ctx, pub->staging, &n);
    for (size_t i = 0; names && i < n; i++)
      if (!listed(pub->carried, pub->n_carried, names[i]) && !(pub->n_carried && strcmp(names[i], manifest) == 0))
        remove_tree(join(ctx, pub->staging, names[i]));
    if (pub->n_carried == 0) rmdir(pub->staging);
  }
  pub->staging = NULL;
  if (pub->lock_fd >= 0) close(pub->lock_fd); /* closing releases the lock */
  pub->lock_fd = -1;
}
