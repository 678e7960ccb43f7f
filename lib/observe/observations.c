/* observations.c - reading, merging and appending observation files (observations.h). */
#include "observations.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "lib/base/fileio.h"
#include "lib/base/strbuf.h"
#include "lib/frontend/json_reader.h"

const char *sc_obs_dim_name(sc_ctx *ctx, const char *input, int dim) {
  return dim < 0 ? input : sc_arena_printf(&ctx->arena, "%s.size()[%d]", input, dim);
}

/* ---- one file ----------------------------------------------------------------------- */

static bool read_value(sc_jr *jr, const char *name, const cJSON *item, sc_obs_value *v) {
  sc_ctx *ctx = jr->ctx;
  v->name = sc_arena_strdup(&ctx->arena, name);
  if (cJSON_IsBool(item)) {
    v->kind = SC_OBS_BOOL;
    v->i = cJSON_IsTrue(item);
    return true;
  }
  if (sc_json_is_number(item)) {
    if (!sc_json_exact_int(item) && (item->valuedouble != floor(item->valuedouble) || !isfinite(item->valuedouble))) {
      v->kind = SC_OBS_FLOAT;
      v->f = item->valuedouble;
      return true;
    }
    v->kind = SC_OBS_INT;
    return sc_jr_as_int(jr, item, &v->i);
  }
  if (!cJSON_IsArray(item)) {
    sc_jr_error(jr, SC_DIAG_OBS_FORMAT, "'%s' is %s; give a tensor's sizes as a list of ints ([8, 128]) or a scalar's value",
                name, sc_json_type_name(item));
    return false;
  }
  v->kind = SC_OBS_TENSOR;
  int n = cJSON_GetArraySize(item);
  if (n > SC_OBS_MAX_RANK) {
    sc_jr_error(jr, SC_DIAG_OBS_FORMAT, "'%s' has %d sizes, more than the %d a tensor may have", name, n, SC_OBS_MAX_RANK);
    return false;
  }
  v->rank = n;
  v->sizes = sc_arena_alloc(&ctx->arena, (size_t)(n ? n : 1) * sizeof *v->sizes);
  int k = 0;
  const cJSON *size;
  cJSON_ArrayForEach(size, item) {
    size_t saved = sc_jr_push_index(jr, (size_t)k);
    bool ok = sc_jr_as_int(jr, size, &v->sizes[k]);
    if (ok && v->sizes[k] < 0) {
      sc_jr_error(jr, SC_DIAG_OBS_FORMAT, "a size is %lld; sizes are 0 or more", (long long)v->sizes[k]);
      ok = false;
    }
    sc_jr_pop(jr, saved);
    if (!ok) return false;
    k++;
  }
  return true;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first name given twice among n, or NULL: sorted, O(n log n) whatever the names. */
static const char *repeated_name(const char *const *names, size_t n) {
  const char **sorted = sc_xmalloc((n ? n : 1) * sizeof *sorted);
  memcpy(sorted, names, n * sizeof *sorted);
  qsort(sorted, n, sizeof *sorted, compare_names);
  const char *twice = NULL;
  for (size_t i = 1; i < n && !twice; i++)
    if (strcmp(sorted[i - 1], sorted[i]) == 0) twice = sorted[i];
  free(sorted);
  return twice;
}

static bool read_call(sc_jr *jr, const cJSON *obj, sc_obs_call *call) {
  if (!sc_jr_expect_object(jr, obj)) return false;
  call->n_values = (size_t)cJSON_GetArraySize(obj);
  call->values = sc_arena_alloc(&jr->ctx->arena, (call->n_values ? call->n_values : 1) * sizeof *call->values);
  const char **names = sc_xmalloc((call->n_values ? call->n_values : 1) * sizeof *names);
  size_t n = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, obj) names[n++] = item->string;
  const char *twice = repeated_name(names, n);
  free(names);
  size_t i = 0;
  cJSON_ArrayForEach(item, obj) {
    size_t saved = sc_jr_push_key(jr, item->string);
    bool ok = true;
    if (twice && strcmp(item->string, twice) == 0) {
      for (size_t j = 0; j < i && ok; j++) ok = strcmp(call->values[j].name, twice) != 0;
      if (!ok) sc_jr_error(jr, SC_DIAG_OBS_FORMAT, "input '%s' is given twice in one call", item->string);
    }
    ok = ok && read_value(jr, item->string, item, &call->values[i++]);
    sc_jr_pop(jr, saved);
    if (!ok) return false;
  }
  return true;
}

static bool read_rank_field(sc_jr *jr, const cJSON *root, const char *key, int *out) {
  *out = -1;
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!item || cJSON_IsNull(item)) return true;
  int64_t v;
  size_t saved = sc_jr_push_key(jr, key);
  bool ok = sc_jr_as_int(jr, item, &v);
  bool is_rank = strcmp(key, "rank") == 0;
  if (ok && (v < 0 || v > SC_OBS_MAX_PROCESSES - is_rank || (!is_rank && v == 0))) {
    sc_jr_error(jr, SC_DIAG_OBS_FORMAT, "%s is %lld; give a %s", key, (long long)v,
                strcmp(key, "rank") == 0 ? "rank from 0 (the launcher's RANK)" : "process count from 1 (WORLD_SIZE)");
    ok = false;
  }
  sc_jr_pop(jr, saved);
  *out = ok ? (int)v : -1;
  return ok;
}

bool sc_obs_read(sc_ctx *ctx, const char *path, sc_obs_file *out) {
  memset(out, 0, sizeof *out);
  out->path = sc_arena_strdup(&ctx->arena, path);
  out->rank = out->world_size = -1;
  size_t len;
  char *text = sc_file_read(ctx, path, &len);
  if (!text) return false;
  cJSON *root = sc_json_parse(ctx, path, text, len);
  free(text);
  if (!root) return false;
  sc_jr jr;
  sc_jr_init(&jr, ctx, path, NULL);
  bool ok = sc_jr_expect_object(&jr, root);
  const char *format = NULL;
  if (ok && cJSON_GetObjectItemCaseSensitive(root, "format")) {
    ok = sc_jr_string_field(&jr, root, "format", true, &format);
    if (ok && strcmp(format, SC_OBS_FORMAT) != 0) {
      size_t saved = sc_jr_push_key(&jr, "format");
      sc_jr_error(&jr, SC_DIAG_OBS_FORMAT, "format is '%s', not '%s': not an observations file", format, SC_OBS_FORMAT);
      sc_jr_pop(&jr, saved);
      ok = false;
    }
  }
  int64_t version = SC_OBS_VERSION;
  if (ok && cJSON_GetObjectItemCaseSensitive(root, "version")) ok = sc_jr_int_field(&jr, root, "version", true, &version);
  if (ok && version != SC_OBS_VERSION) {
    size_t saved = sc_jr_push_key(&jr, "version");
    sc_jr_error(&jr, SC_DIAG_OBS_FORMAT, "version %lld; this shapec reads version %d", (long long)version,
                SC_OBS_VERSION);
    sc_jr_pop(&jr, saved);
    ok = false;
  }
  ok = ok && read_rank_field(&jr, root, "rank", &out->rank) && read_rank_field(&jr, root, "world_size", &out->world_size);
  if (ok && out->rank >= 0 && out->world_size >= 0 && out->rank >= out->world_size) {
    size_t saved = sc_jr_push_key(&jr, "rank");
    sc_jr_error(&jr, SC_DIAG_OBS_FORMAT, "rank %d is not below world_size %d", out->rank, out->world_size);
    sc_jr_pop(&jr, saved);
    ok = false;
  }
  const char *sha = NULL;
  if (ok && cJSON_GetObjectItemCaseSensitive(root, "model_sha256") &&
      !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(root, "model_sha256")))
    ok = sc_jr_string_field(&jr, root, "model_sha256", true, &sha);
  out->model_sha256 = sha ? sc_arena_strdup(&ctx->arena, sha) : NULL;
  const cJSON *calls = ok ? sc_jr_array_field(&jr, root, "calls", true) : NULL;
  if (calls) {
    out->n_calls = (size_t)cJSON_GetArraySize(calls);
    out->calls = sc_arena_alloc(&ctx->arena, (out->n_calls ? out->n_calls : 1) * sizeof *out->calls);
    size_t saved = sc_jr_push_key(&jr, "calls");
    size_t i = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, calls) {
      size_t at = sc_jr_push_index(&jr, i);
      ok = read_call(&jr, c, &out->calls[i++]);
      sc_jr_pop(&jr, at);
      if (!ok) break;
    }
    sc_jr_pop(&jr, saved);
  } else {
    ok = false;
  }
  cJSON_Delete(root);
  return ok;
}

/* ---- many files ---------------------------------------------------------------------- */

typedef struct path_list {
  const char **items;
  size_t n, cap;
} path_list;

static void list_add(sc_ctx *ctx, path_list *l, const char *p) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 16;
    const char **items = sc_arena_alloc(&ctx->arena, cap * sizeof *items);
    if (l->n) memcpy(items, l->items, l->n * sizeof *items);
    l->items = items;
    l->cap = cap;
  }
  l->items[l->n++] = sc_arena_strdup(&ctx->arena, p);
}

static bool is_folder(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* rank-<R>.json with R written as the writers write it (decimal, no sign, no leading
 * zero): R; -2 when R is SC_OBS_MAX_PROCESSES or more (or written otherwise); -1 for a
 * name of another form. */
static int rank_of_name(const char *name) {
  if (strncmp(name, "rank-", 5) != 0) return -1;
  const char *p = name + 5, *digits = p;
  while (*p >= '0' && *p <= '9') p++;
  if (p == digits || strcmp(p, ".json") != 0) return -1;
  size_t n = (size_t)(p - digits);
  if (n > 7 || (n > 1 && *digits == '0')) return -2; /* read no further: past any int */
  int r = 0;
  for (const char *c = digits; c < p; c++) r = r * 10 + (*c - '0');
  return r < SC_OBS_MAX_PROCESSES ? r : -2;
}

/* The world size from the environment's WORLD_SIZE (or the launchers' own names), or -1. */
static int env_world_size(void) {
  static const char *const names[] = {"WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    const char *v = getenv(names[i]);
    char *end;
    long n = v && *v ? strtol(v, &end, 10) : 0;
    if (v && *v && !*end && n > 0 && n <= SC_OBS_MAX_PROCESSES) return (int)n;
  }
  return -1;
}

static int compare_ints(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return x < y ? -1 : x > y;
}

/* The ranks of a folder's rank-<R>.json files, sorted (heap; *n of them); *bad: the first
 * name of that form whose rank is out of range (arena), or NULL. */
static int *folder_ranks(sc_ctx *ctx, DIR *d, size_t *n, const char **bad) {
  int *ranks = NULL;
  size_t cap = 0;
  *n = 0;
  *bad = NULL;
  struct dirent *e;
  while ((e = readdir(d))) {
    int r = rank_of_name(e->d_name);
    if (r == -2 && !*bad) *bad = sc_arena_strdup(&ctx->arena, e->d_name);
    if (r < 0) continue;
    if (*n == cap) {
      cap = cap ? cap * 2 : 64;
      ranks = sc_xrealloc(ranks, cap * sizeof *ranks);
    }
    ranks[(*n)++] = r;
  }
  qsort(ranks, *n, sizeof *ranks, compare_ints);
  return ranks;
}

/* The rank files in a folder, in rank order; world_size: how many there must be.  The
 * ranks found are kept as a sorted list, never as an array indexed by rank, so a file named
 * rank-999999.json costs what any other does. */
static bool folder_files(sc_ctx *ctx, const char *folder, int world_size, int wait_s, path_list *out) {
  double deadline = 0;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  deadline = ts.tv_sec + ts.tv_nsec / 1e9 + (wait_s > 0 ? wait_s : 0);
  for (;;) {
    DIR *d = opendir(folder);
    if (!d) {
      sc_diags_add(&ctx->diags, SC_DIAG_FILE_READ, SC_SEV_ERROR, folder, NULL, "cannot read the folder: %s",
                   strerror(errno));
      return false;
    }
    size_t n_found;
    const char *bad;
    int *ranks = folder_ranks(ctx, d, &n_found, &bad);
    closedir(d);
    if (bad) {
      free(ranks);
      sc_diag *dg = sc_diags_add(&ctx->diags, SC_DIAG_OBS_FORMAT, SC_SEV_ERROR, folder, bad,
                                 "%s is not a rank's file: a rank is written in decimal without leading zeros, "
                                 "and is below %d", bad, SC_OBS_MAX_PROCESSES);
      sc_diag_set_hint(&ctx->diags, dg, "remove or rename it; a job's ranks run from 0 to its world size - 1");
      return false;
    }
    int max_rank = n_found ? ranks[n_found - 1] : -1;
    int want = world_size > 0 ? world_size : max_rank + 1;
    /* ranks below want, and the first one missing: the sorted ranks are 0, 1, 2 ... up to it */
    size_t below = 0;
    while (below < n_found && ranks[below] < want) below++;
    int missing = -1;
    for (size_t k = 0; k < below && missing < 0; k++)
      if (ranks[k] != (int)k) missing = (int)k;
    if (missing < 0 && below < (size_t)(want > 0 ? want : 0)) missing = (int)below;
    int n_missing = want > 0 ? want - (int)below : 0;
    free(ranks);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    bool late = ts.tv_sec + ts.tv_nsec / 1e9 >= deadline;
    if ((n_missing == 0 && want > 0) || late) {
      if (want <= 0) {
        sc_diag *dg = sc_diags_add(&ctx->diags, SC_DIAG_OBS_MISSING_RANK, SC_SEV_ERROR, folder, NULL,
                                   "no observations in the folder (no rank-<R>.json file)");
        sc_diag_set_hint(&ctx->diags, dg, "record them first: shapec run --record-shapes %s/ ..., or the Python package",
                         folder);
        return false;
      }
      if (n_missing) {
        sc_diag *dg = sc_diags_add(&ctx->diags, SC_DIAG_OBS_MISSING_RANK, SC_SEV_ERROR, folder, NULL,
                                   "rank %d of %d has no observations (%s/rank-%d.json is missing; %d rank%s missing)",
                                   missing, want, folder, missing, n_missing, n_missing == 1 ? "" : "s");
        sc_diag_set_hint(&ctx->diags, dg,
                         "every rank must record before the merge: wait for them (--wait SECONDS), or give the "
                         "world size that ran (--world-size N)");
        return false;
      }
      if (world_size > 0 && max_rank >= world_size) {
        sc_diag *dg = sc_diags_add(&ctx->diags, SC_DIAG_OBS_CONFLICT, SC_SEV_ERROR, folder, NULL,
                                   "the folder holds rank-%d.json, but the world size is %d", max_rank, world_size);
        sc_diag_set_hint(&ctx->diags, dg, "remove the observations of an earlier, larger job, or give its --world-size");
        return false;
      }
      for (int r = 0; r < want; r++) list_add(ctx, out, sc_arena_printf(&ctx->arena, "%s/rank-%d.json", folder, r));
      return true;
    }
    usleep(200 * 1000);
  }
}

static int compare_by_rank(const void *a, const void *b) {
  const sc_obs_file *x = a, *y = b;
  return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* The inputs merged so far, by name (the index + 1, as the map stores pointers). */
static sc_obs_input *find_input(sc_obs_set *s, const sc_strmap *by_name, const char *name) {
  size_t i = (size_t)(uintptr_t)sc_strmap_get(by_name, name);
  return i ? &s->inputs[i - 1] : NULL;
}

static const char *kind_name(const sc_obs_value *v) {
  switch (v->kind) {
    case SC_OBS_TENSOR: return "a tensor";
    case SC_OBS_INT: return "an int";
    case SC_OBS_FLOAT: return "a float";
    default: return "a bool";
  }
}

/* Folds one value into its input's record; false with an error when it does not fit. */
static bool merge_value(sc_ctx *ctx, sc_obs_set *s, sc_strmap *by_name, const sc_obs_file *f, size_t call,
                        const sc_obs_value *v, size_t *cap) {
  sc_obs_input *in = find_input(s, by_name, v->name);
  const char *where = sc_arena_printf(&ctx->arena, "calls[%zu].%s", call, v->name);
  if (!in) {
    if (s->n_inputs == *cap) {
      size_t ncap = *cap ? *cap * 2 : 8;
      sc_obs_input *ni = sc_arena_alloc(&ctx->arena, ncap * sizeof *ni);
      if (s->n_inputs) memcpy(ni, s->inputs, s->n_inputs * sizeof *ni);
      s->inputs = ni;
      *cap = ncap;
    }
    in = &s->inputs[s->n_inputs++];
    sc_strmap_put(by_name, v->name, (void *)(uintptr_t)s->n_inputs);
    memset(in, 0, sizeof *in);
    in->name = v->name;
    in->kind = v->kind;
    in->rank = v->rank;
    in->first_file = f;
    int n = v->kind == SC_OBS_TENSOR ? v->rank : 1;
    for (int k = 0; k < n; k++) in->first[k] = in->min[k] = in->max[k] = v->kind == SC_OBS_TENSOR ? v->sizes[k] : v->i;
    in->first_f = v->f;
    return true;
  }
  /* an int seen as a whole-number float elsewhere is one float input */
  if ((in->kind == SC_OBS_INT && v->kind == SC_OBS_FLOAT) || (in->kind == SC_OBS_FLOAT && v->kind == SC_OBS_INT)) {
    if (in->kind == SC_OBS_INT) {
      in->kind = SC_OBS_FLOAT;
      in->first_f = (double)in->first[0];
      in->varies[0] = in->min[0] != in->max[0];
    }
    double x = v->kind == SC_OBS_FLOAT ? v->f : (double)v->i;
    if (x != in->first_f) in->varies[0] = true;
    return true;
  }
  if (in->kind != v->kind || (v->kind == SC_OBS_TENSOR && in->rank != v->rank)) {
    const char *was = in->kind == SC_OBS_TENSOR ? sc_arena_printf(&ctx->arena, "a tensor of rank %d", in->rank)
                      : in->kind == SC_OBS_INT  ? "an int"
                      : in->kind == SC_OBS_FLOAT ? "a float"
                                                 : "a bool";
    const char *is = v->kind == SC_OBS_TENSOR ? sc_arena_printf(&ctx->arena, "a tensor of rank %d", v->rank) : kind_name(v);
    sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_OBS_CONFLICT, SC_SEV_ERROR, f->path, where,
                              "'%s' is %s here, but %s in %s", v->name, is, was, in->first_file->path);
    sc_diag_set_hint(&ctx->diags, d, "observations of one model give each input the same kind and rank");
    return false;
  }
  if (v->kind == SC_OBS_FLOAT) {
    if (v->f != in->first_f) in->varies[0] = true;
    return true;
  }
  int n = v->kind == SC_OBS_TENSOR ? v->rank : 1;
  for (int k = 0; k < n; k++) {
    int64_t x = v->kind == SC_OBS_TENSOR ? v->sizes[k] : v->i;
    if (x != in->first[k]) in->varies[k] = true;
    if (x < in->min[k]) in->min[k] = x;
    if (x > in->max[k]) in->max[k] = x;
  }
  return true;
}

bool sc_obs_collect(sc_ctx *ctx, const char *const *paths, size_t n_paths, int world_size, int wait_s,
                    sc_obs_set *out) {
  memset(out, 0, sizeof *out);
  out->world_size = -1;
  if (world_size <= 0) world_size = env_world_size();
  path_list files = {0};
  bool any_folder = false;
  for (size_t i = 0; i < n_paths; i++) {
    if (is_folder(paths[i])) {
      any_folder = true;
      if (!folder_files(ctx, paths[i], world_size, wait_s, &files)) return false;
    } else {
      list_add(ctx, &files, paths[i]);
    }
  }
  out->files = sc_arena_alloc(&ctx->arena, (files.n ? files.n : 1) * sizeof *out->files);
  bool ok = true;
  for (size_t i = 0; i < files.n; i++) ok &= sc_obs_read(ctx, files.items[i], &out->files[out->n_files++]);
  if (!ok) return false;
  /* ranks: as the files say; a file that does not say takes its place in the list */
  for (size_t i = 0; i < out->n_files; i++) {
    sc_obs_file *f = &out->files[i];
    if (f->rank < 0) f->rank = rank_of_name(sc_path_file_name(f->path));
    if (f->rank < 0) f->rank = (int)i;
    if (f->world_size > 0) {
      if (out->world_size > 0 && out->world_size != f->world_size) {
        sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_OBS_CONFLICT, SC_SEV_ERROR, f->path, "world_size",
                                  "world_size is %d here but %d in %s", f->world_size, out->world_size,
                                  out->files[0].path);
        sc_diag_set_hint(&ctx->diags, d, "observations of two jobs are mixed; keep one job's files in the folder");
        return false;
      }
      out->world_size = f->world_size;
    }
  }
  qsort(out->files, out->n_files, sizeof *out->files, compare_by_rank);
  for (size_t i = 1; i < out->n_files; i++)
    if (out->files[i].rank == out->files[i - 1].rank) {
      sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_OBS_CONFLICT, SC_SEV_ERROR, out->files[i].path, NULL,
                                "rank %d is observed twice: here and in %s", out->files[i].rank,
                                out->files[i - 1].path);
      sc_diag_set_hint(&ctx->diags, d, "give each rank's file once");
      return false;
    }
  /* one model */
  for (size_t i = 0; i < out->n_files; i++) {
    const sc_obs_file *f = &out->files[i];
    if (!f->model_sha256) continue;
    if (out->model_sha256 && strcmp(out->model_sha256, f->model_sha256) != 0) {
      const sc_obs_file *first = NULL;
      for (size_t j = 0; j < i && !first; j++)
        if (out->files[j].model_sha256) first = &out->files[j];
      sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_OBS_CONFLICT, SC_SEV_ERROR, f->path, "model_sha256",
                                "recorded for another model than %s (model_sha256 %.12s... here, %.12s... there)",
                                first ? first->path : "the other files", f->model_sha256, out->model_sha256);
      sc_diag_set_hint(&ctx->diags, d, "every rank must run the same model file; remove observations of another model");
      return false;
    }
    out->model_sha256 = f->model_sha256;
  }
  int want = out->world_size > 0 ? out->world_size : any_folder ? world_size : -1;
  if (want > 0) {
    /* sorted and without repeats: every rank is there when the i-th file has rank i */
    size_t have = 0;
    while (have < out->n_files && have < (size_t)want && out->files[have].rank == (int)have) have++;
    if (have < (size_t)want) {
      sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_OBS_MISSING_RANK, SC_SEV_ERROR,
                                out->n_files ? out->files[0].path : paths[0], NULL,
                                "rank %zu of %d has no observations", have, want);
      sc_diag_set_hint(&ctx->diags, d, "give every rank's file, or wait for them (--wait SECONDS)");
      return false;
    }
    if (out->n_files && out->files[out->n_files - 1].rank >= want) {
      sc_obs_file *f = &out->files[out->n_files - 1];
      sc_diags_add(&ctx->diags, SC_DIAG_OBS_CONFLICT, SC_SEV_ERROR, f->path, "rank",
                   "rank %d is not below the world size %d", f->rank, want);
      return false;
    }
    out->world_size = want;
  }
  /* merged in rank order: rank 0's first call gives the first values */
  size_t cap = 0;
  sc_strmap by_name;
  sc_strmap_init(&by_name, &ctx->arena);
  for (size_t i = 0; i < out->n_files; i++) {
    const sc_obs_file *f = &out->files[i];
    for (size_t c = 0; c < f->n_calls; c++) {
      out->n_calls++;
      for (size_t v = 0; v < f->calls[c].n_values; v++)
        if (!merge_value(ctx, out, &by_name, f, c, &f->calls[c].values[v], &cap)) {
          sc_strmap_release(&by_name);
          return false;
        }
    }
  }
  sc_strmap_release(&by_name);
  if (out->n_calls == 0) {
    sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_OBS_FORMAT, SC_SEV_ERROR, out->n_files ? out->files[0].path : paths[0],
                              NULL, "no calls observed");
    sc_diag_set_hint(&ctx->diags, d, "an observation file lists at least one call: {\"calls\": [{\"x\": [8, 128]}]}");
    return false;
  }
  return true;
}

/* ---- writing --------------------------------------------------------------------------- */

const char *sc_obs_rank_file(sc_ctx *ctx, const char *folder, const char **why) {
  static const char *const names[] = {"RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    const char *v = getenv(names[i]);
    char *end;
    long r = v && *v ? strtol(v, &end, 10) : -1;
    if (v && *v && !*end && r >= 0 && r < SC_OBS_MAX_PROCESSES) {
      size_t n = strlen(folder);
      while (n > 1 && folder[n - 1] == '/') n--;
      return sc_arena_printf(&ctx->arena, "%.*s/rank-%ld.json", (int)n, folder, r);
    }
  }
  *why = "no rank in the environment (RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK or PMI_RANK)";
  return NULL;
}

static cJSON *value_json(const sc_obs_value *v) {
  switch (v->kind) {
    case SC_OBS_TENSOR: {
      cJSON *a = cJSON_CreateArray();
      for (int k = 0; k < v->rank; k++) cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v->sizes[k]));
      return a;
    }
    case SC_OBS_INT: return cJSON_CreateNumber((double)v->i);
    case SC_OBS_FLOAT: return cJSON_CreateNumber(v->f);
    default: return cJSON_CreateBool(v->i != 0);
  }
}

/* One call per line: files stay readable and diffable however many calls they hold. */
static char *render(const cJSON *root) {
  sc_strbuf sb = {0};
  sc_strbuf_append(&sb, "{\n");
  const cJSON *item;
  cJSON_ArrayForEach(item, root) {
    if (strcmp(item->string, "calls") == 0) continue;
    char *v = cJSON_PrintUnformatted(item);
    sc_strbuf_printf(&sb, "  \"%s\": %s,\n", item->string, v);
    free(v);
  }
  sc_strbuf_append(&sb, "  \"calls\": [");
  const cJSON *calls = cJSON_GetObjectItemCaseSensitive(root, "calls");
  int i = 0;
  cJSON_ArrayForEach(item, calls) {
    char *v = cJSON_PrintUnformatted(item);
    sc_strbuf_printf(&sb, "%s\n    %s", i++ ? "," : "", v);
    free(v);
  }
  sc_strbuf_append(&sb, "\n  ]\n}\n");
  char *out = strdup(sc_strbuf_cstr(&sb));
  sc_strbuf_free(&sb);
  return out;
}

const char *sc_obs_append(sc_ctx *ctx, const char *path, const char *model_sha256, const sc_obs_call *call) {
  size_t n = strlen(path);
  const char *file = path;
  if (is_folder(path) || (n && path[n - 1] == '/')) {
    const char *why = NULL;
    file = sc_obs_rank_file(ctx, path, &why);
    if (!file) {
      sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_OBS_NO_RANK, SC_SEV_ERROR, path, NULL,
                                "cannot name this process's observations in the folder: %s", why);
      sc_diag_set_hint(&ctx->diags, d, "run under a launcher that sets RANK (torchrun, srun, mpirun), set RANK, or "
                                       "give a file instead of a folder");
      return NULL;
    }
    if (!is_folder(path) && !sc_dir_ensure(ctx, path)) return NULL;
  }
  /* a lock beside the file: the file itself is replaced on each write */
  const char *name = sc_path_file_name(file);
  const char *lock_path = sc_arena_printf(&ctx->arena, "%.*s.%s.lock", (int)(name - file), file, name);
  int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0 || flock(lock, LOCK_EX) != 0) {
    sc_diags_add(&ctx->diags, SC_DIAG_FILE_WRITE, SC_SEV_ERROR, lock_path, NULL, "cannot lock the observations: %s",
                 strerror(errno));
    if (lock >= 0) close(lock);
    return NULL;
  }
  cJSON *root = NULL;
  bool ok = true;
  if (sc_file_exists(file)) {
    sc_obs_file old;
    ok = sc_obs_read(ctx, file, &old);
    if (ok && model_sha256 && old.model_sha256 && strcmp(old.model_sha256, model_sha256) != 0) {
      sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_OBS_CONFLICT, SC_SEV_ERROR, file, "model_sha256",
                                "the file holds observations of another model (model_sha256 %.12s..., this one is "
                                "%.12s...)", old.model_sha256, model_sha256);
      sc_diag_set_hint(&ctx->diags, d, "record into a new file or folder for this model");
      ok = false;
    }
    if (ok) {
      size_t len;
      char *text = sc_file_read(ctx, file, &len);
      root = text ? cJSON_ParseWithLength(text, len) : NULL;
      free(text);
      ok = root != NULL;
    }
  } else {
    root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", SC_OBS_FORMAT);
    cJSON_AddNumberToObject(root, "version", SC_OBS_VERSION);
    const char *why, *mine = sc_obs_rank_file(ctx, ".", &why); /* the launcher's rank and world size */
    int r = mine ? rank_of_name(sc_path_file_name(mine)) : -1;
    int ws = env_world_size();
    if (r >= 0) cJSON_AddNumberToObject(root, "rank", r);
    if (r >= 0 && ws > r) cJSON_AddNumberToObject(root, "world_size", ws);
    if (model_sha256) cJSON_AddStringToObject(root, "model_sha256", model_sha256);
    cJSON_AddArrayToObject(root, "calls");
  }
  if (ok) {
    if (model_sha256 && !cJSON_GetObjectItemCaseSensitive(root, "model_sha256"))
      cJSON_AddStringToObject(root, "model_sha256", model_sha256);
    cJSON *c = cJSON_CreateObject();
    for (size_t i = 0; i < call->n_values; i++) cJSON_AddItemToObject(c, call->values[i].name, value_json(&call->values[i]));
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(root, "calls"), c);
    char *text = render(root);
    ok = sc_file_write_atomic(ctx, file, text, strlen(text));
    free(text);
  }
  cJSON_Delete(root);
  flock(lock, LOCK_UN);
  close(lock);
  return ok ? file : NULL;
}
