/* output_folder.c - the output folder resolved and vetted before anything is touched;
 * see output_folder.h. */
#define _GNU_SOURCE
#include "output_folder.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/base/fileio.h"
#include "lib/base/strbuf.h"

static const char *const advice =
    "an export replaces its output folder as a whole: give it a folder of its own (for example -o shapec-out)";

static bool refuse(sc_ctx *ctx, const char *outdir, const char *resolved, const char *why) {
  if (resolved && strcmp(resolved, outdir) != 0)
    sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, outdir, NULL,
                 "refusing the output folder %s (%s): %s; %s; nothing was written", outdir, resolved, why, advice);
  else
    sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, outdir, NULL,
                 "refusing the output folder %s: %s; %s; nothing was written", outdir, why, advice);
  return false;
}

/* path with repeated slashes collapsed and trailing ones dropped ("/" stays "/"). */
static char *tidy(sc_ctx *ctx, const char *path) {
  char *out = sc_arena_strdup(&ctx->arena, path);
  size_t n = 0;
  for (const char *p = path; *p; p++)
    if (!(*p == '/' && n > 0 && out[n - 1] == '/')) out[n++] = *p;
  while (n > 1 && out[n - 1] == '/') n--;
  out[n] = '\0';
  return out;
}

/* Whether path is folder or lies below it (both absolute and resolved). */
static bool is_within(const char *path, const char *folder) {
  size_t n = strlen(folder);
  if (strcmp(folder, "/") == 0) return true;
  return strncmp(path, folder, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* realpath into the arena; NULL with errno set. */
static char *real_path(sc_ctx *ctx, const char *path) {
  char *heap = realpath(path, NULL);
  if (!heap) return NULL;
  char *out = sc_arena_strdup(&ctx->arena, heap);
  free(heap);
  return out;
}

/* A mountinfo field with its octal escapes (\040 for a space) decoded, in place. */
static void unescape(char *s) {
  char *w = s;
  for (char *r = s; *r; r++) {
    if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
      *w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
      r += 3;
    } else {
      *w++ = *r;
    }
  }
  *w = '\0';
}

bool sc_output_folder_holds_mount(sc_ctx *ctx, const char *folder, const char **mount) {
  FILE *f = fopen("/proc/self/mountinfo", "r");
  if (!f) return false;
  bool found = false;
  char *line = NULL;
  size_t cap = 0;
  while (!found && getline(&line, &cap, f) > 0) {
    /* id parent major:minor root MOUNT_POINT options ... */
    char *save = NULL, *field = strtok_r(line, " ", &save);
    for (int i = 0; field && i < 4; i++) field = strtok_r(NULL, " ", &save);
    if (!field) continue;
    unescape(field);
    if (is_within(field, folder)) {
      found = true;
      if (mount) *mount = sc_arena_strdup(&ctx->arena, field);
    }
  }
  free(line);
  fclose(f);
  return found;
}

/* The absolute path of `path`, links followed, where the folders from some point on do
 * not exist yet: the deepest one that exists is resolved and the rest appended. */
static const char *resolve_path(sc_ctx *ctx, const char *outdir, const char *path) {
  const char *missing[PATH_MAX / 2];
  size_t n_missing = 0;
  const char *at = path;
  char *base = NULL;
  for (;;) {
    base = real_path(ctx, at);
    if (base) break;
    if (errno == ENOTDIR) { /* a file on the way: the folders below it cannot be made */
      sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, outdir, NULL,
                   "cannot create the output directory's folder %s: %s; nothing was written", sc_path_parent(ctx, path),
                   strerror(ENOTDIR));
      return NULL;
    }
    if (errno != ENOENT) {
      refuse(ctx, outdir, NULL, sc_arena_printf(&ctx->arena, "%s cannot be resolved: %s", at, strerror(errno)));
      return NULL;
    }
    struct stat st;
    if (lstat(at, &st) == 0) {
      refuse(ctx, outdir, NULL, sc_arena_printf(&ctx->arena, "%s is a link to something that does not exist", at));
      return NULL;
    }
    const char *name = sc_path_file_name(at);
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || n_missing == sizeof missing / sizeof *missing) {
      refuse(ctx, outdir, NULL, sc_arena_printf(&ctx->arena, "it names a folder below %s, which does not exist", at));
      return NULL;
    }
    missing[n_missing++] = name;
    at = sc_path_parent(ctx, at);
  }
  struct stat st;
  if (stat(base, &st) == 0 && !S_ISDIR(st.st_mode)) {
    refuse(ctx, outdir, base,
           n_missing ? sc_arena_printf(&ctx->arena, "%s is a file, not a folder", base) : "a file of that name exists");
    return NULL;
  }
  sc_strbuf sb = {0};
  sc_strbuf_append(&sb, base);
  for (size_t i = n_missing; i-- > 0;) {
    if (sb.len > 1) sc_strbuf_append(&sb, "/");
    sc_strbuf_append(&sb, missing[i]);
  }
  const char *out = sc_arena_strdup(&ctx->arena, sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return out;
}

const char *sc_output_folder_resolve(sc_ctx *ctx, const char *outdir, const char *const *inputs, size_t n_inputs) {
  if (!outdir[0]) {
    refuse(ctx, outdir, NULL, "the name is empty");
    return NULL;
  }
  const char *resolved = resolve_path(ctx, outdir, tidy(ctx, outdir));
  if (!resolved) return NULL;
  if (strcmp(resolved, "/") == 0) return refuse(ctx, outdir, resolved, "it is the root folder"), NULL;

  char *cwd = getcwd(NULL, 0);
  char *here = cwd ? real_path(ctx, cwd) : NULL;
  free(cwd);
  if (here && is_within(here, resolved))
    return refuse(ctx, outdir, resolved,
                  strcmp(here, resolved) == 0 ? "it is the current folder" : "it holds the current folder"),
           NULL;
  for (size_t i = 0; i < n_inputs; i++) {
    const char *input = inputs[i] ? real_path(ctx, inputs[i]) : NULL;
    if (input && is_within(input, resolved))
      return refuse(ctx, outdir, resolved, sc_arena_printf(&ctx->arena, "it holds %s, which this export reads", inputs[i])),
             NULL;
  }

  struct stat self, up;
  if (stat(resolved, &self) == 0) {
    const char *mount = NULL;
    if (stat(sc_path_parent(ctx, resolved), &up) == 0 && up.st_dev != self.st_dev)
      return refuse(ctx, outdir, resolved, "it is a mount point (another file system)"), NULL;
    if (sc_output_folder_holds_mount(ctx, resolved, &mount))
      return refuse(ctx, outdir, resolved,
                    strcmp(mount, resolved) == 0 ? "it is a mount point"
                                                 : sc_arena_printf(&ctx->arena, "it holds the mount point %s", mount)),
             NULL;
  }
  return resolved;
}
