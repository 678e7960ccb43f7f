/* pt2_reader.c - the archives torch.export.save writes, through libzip; see pt2_reader.h. */
#include "pt2_reader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zip.h>

#include "json_reader.h"
#include "lib/base/budget.h"
#include "lib/base/digest.h"
#include "lib/base/fileio.h"
#include "model_reader.h"
#include "strided.h"
#include "zip_member.h"
#include "torch_pickle.h"

#define SC_PT2_MAX_MEMBER ((zip_uint64_t)1 << 34) /* 16 GiB: beyond that, a broken header */

bool sc_pt2_looks_like_archive(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  unsigned char sig[4] = {0};
  size_t n = fread(sig, 1, 4, f);
  fclose(f);
  return n == 4 && sig[0] == 'P' && sig[1] == 'K' && sig[2] == 3 && sig[3] == 4;
}

typedef struct archive {
  sc_ctx *ctx;
  const char *path;
  zip_t *zip;
  char root[256];            /* "name/", or "" for an archive without a root folder */
  sc_strided *views;         /* the weights found so far (heap) */
  size_t n_views, cap_views;
  unsigned char **raw;       /* member bytes the views point into (heap) */
  size_t n_raw, cap_raw;
  sc_budget budget;          /* what reading the archive may take, all members at every level */
  sc_torch_tensors pickled;  /* tensors of torch.save files and their storages */
} archive;

static sc_diag *arc_error(archive *a, sc_diag_code code, const char *member, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static sc_diag *arc_error(archive *a, sc_diag_code code, const char *member, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return sc_diags_add(&a->ctx->diags, code, SC_SEV_ERROR, a->path, member, "%s", msg);
}

/* Reads a member into a heap buffer; NULL with an error when it is missing or unreadable
 * (missing and optional: NULL without an error). */
static unsigned char *read_member(archive *a, const char *name, size_t *len, bool required) {
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat(a->zip, name, 0, &st) != 0) {
    if (required) {
      sc_diag *d = arc_error(a, SC_DIAG_PT2_MISSING_MEMBER, name, "the archive has no member %s", name);
      sc_diag_set_hint(&a->ctx->diags, d, "write the archive with torch.export.save or tools/torch2shapec");
    }
    return NULL;
  }
  if (!sc_zip_size_plausible(&st) || st.size > SC_PT2_MAX_MEMBER) {
    arc_error(a, SC_DIAG_PT2_CORRUPT, name, "member %s has an implausible size", name);
    return NULL;
  }
  if (!sc_budget_charge(&a->budget, st.size + 1)) {
    sc_arena *arena = &a->ctx->arena;
    sc_diag *d = arc_error(a, SC_DIAG_PT2_PAYLOAD_SIZE, name,
                           "member %s inflates to %s: more than reading this archive may take, %s", name,
                           sc_budget_bytes(arena, st.size), sc_budget_describe(arena, &a->budget));
    sc_diag_set_hint(&a->ctx->diags, d, "%s", sc_budget_hint(arena, &a->budget, st.size + 1));
    return NULL;
  }
  zip_file_t *f = zip_fopen(a->zip, name, 0);
  if (!f) {
    arc_error(a, SC_DIAG_PT2_CORRUPT, name, "cannot open member %s: %s", name, zip_strerror(a->zip));
    return NULL;
  }
  unsigned char *buf = sc_xmalloc((size_t)st.size + 1);
  zip_uint64_t got = 0;
  while (got < st.size) {
    zip_int64_t r = zip_fread(f, buf + got, st.size - got);
    if (r <= 0) break;
    got += (zip_uint64_t)r;
  }
  bool ok = got == st.size;
  if (!ok) arc_error(a, SC_DIAG_PT2_CORRUPT, name, "member %s is damaged: %s", name, zip_file_strerror(f));
  /* libzip checks the CRC on the read that reaches the end: make it */
  unsigned char extra;
  if (ok && zip_fread(f, &extra, 1) != 0) {
    arc_error(a, SC_DIAG_PT2_CORRUPT, name, "member %s is damaged (checksum mismatch)", name);
    ok = false;
  }
  if (zip_fclose(f) != 0 && ok) {
    arc_error(a, SC_DIAG_PT2_CORRUPT, name, "member %s is damaged (checksum)", name);
    ok = false;
  }
  if (!ok) {
    free(buf);
    return NULL;
  }
  buf[st.size] = '\0';
  *len = (size_t)st.size;
  return buf;
}

static const char *member_name(archive *a, const char *fmt, const char *arg) {
  char inner[512];
  snprintf(inner, sizeof inner, fmt, arg);
  return sc_arena_printf(&a->ctx->arena, "%s%s", a->root, inner);
}

static bool has_member(archive *a, const char *name) { return zip_name_locate(a->zip, name, 0) >= 0; }

/* The archive's root folder: none when archive_format is at the top (archives written
 * without one), else the folder of its first entry; then its archive_format. */
static bool check_format(archive *a) {
  const char *first = zip_get_num_entries(a->zip, 0) > 0 ? zip_get_name(a->zip, 0, 0) : NULL;
  const char *slash = first ? strchr(first, '/') : NULL;
  if (has_member(a, "archive_format")) {
    a->root[0] = '\0';
  } else if (!slash || (size_t)(slash - first) + 1 >= sizeof a->root) {
    sc_diag *d = arc_error(a, SC_DIAG_PT2_FORMAT, NULL, "not a PT2 archive: its entries are not under one folder");
    sc_diag_set_hint(&a->ctx->diags, d, "torch.export.save writes <name>/archive_format, <name>/models/... (or, before "
                                        "torch 2.8, serialized_exported_program.json)");
    return false;
  } else {
    snprintf(a->root, sizeof a->root, "%.*s/", (int)(slash - first), first);
  }
  size_t len;
  unsigned char *fmt = read_member(a, member_name(a, "%sarchive_format", ""), &len, true);
  if (!fmt) return false;
  while (len && (fmt[len - 1] == '\n' || fmt[len - 1] == ' ' || fmt[len - 1] == '\r')) fmt[--len] = '\0';
  bool ok = strcmp((char *)fmt, "pt2") == 0;
  if (!ok) arc_error(a, SC_DIAG_PT2_FORMAT, member_name(a, "%sarchive_format", ""),
                     "archive_format is \"%.40s\", not \"pt2\"", (char *)fmt);
  free(fmt);
  return ok;
}

/* The one model of the archive ("model" when there are several). */
static const char *find_model(archive *a, char *name, size_t cap) {
  const char *prefix = member_name(a, "%smodels/", "");
  size_t plen = strlen(prefix);
  zip_int64_t n = zip_get_num_entries(a->zip, 0);
  int found = 0;
  char names[512] = "";
  for (zip_int64_t i = 0; i < n; i++) {
    const char *e = zip_get_name(a->zip, (zip_uint64_t)i, 0);
    size_t elen = e ? strlen(e) : 0;
    if (!e || strncmp(e, prefix, plen) != 0 || elen < plen + 6 || strcmp(e + elen - 5, ".json") != 0) continue;
    if (found == 0 || strncmp(e + plen, "model.json", 11) == 0) snprintf(name, cap, "%.*s", (int)(elen - plen - 5), e + plen);
    if (found++) strncat(names, ", ", sizeof names - strlen(names) - 1);
    strncat(names, e + plen, sizeof names - strlen(names) - 1);
  }
  if (found == 0) {
    sc_diag *d = arc_error(a, SC_DIAG_PT2_MISSING_MEMBER, prefix, "the archive holds no model under %s", prefix);
    sc_diag_set_hint(&a->ctx->diags, d, "an archive from torch.export.save has models/<name>.json");
    return NULL;
  }
  if (found > 1 && strcmp(name, "model") != 0) {
    arc_error(a, SC_DIAG_PT2_FORMAT, prefix, "the archive holds several models (%s) and none is named model", names);
    return NULL;
  }
  return name;
}

/* Keeps a member's bytes until the weights are built. */
static void keep_raw(archive *a, unsigned char *bytes) {
  if (a->n_raw == a->cap_raw) {
    a->cap_raw = a->cap_raw ? a->cap_raw * 2 : 16;
    a->raw = sc_xrealloc(a->raw, a->cap_raw * sizeof *a->raw);
  }
  a->raw[a->n_raw++] = bytes;
}

static void add_view(archive *a, const sc_strided *v) {
  if (a->n_views == a->cap_views) {
    a->cap_views = a->cap_views ? a->cap_views * 2 : 16;
    a->views = sc_xrealloc(a->views, a->cap_views * sizeof *a->views);
  }
  a->views[a->n_views++] = *v;
}

typedef struct named {
  const char *name; /* interned: equal names are equal pointers */
  size_t i;
} named;

static int compare_named(const void *a, const void *b) {
  const named *x = a, *y = b;
  if (x->name != y->name) return (uintptr_t)x->name < (uintptr_t)y->name ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

/* A name found twice (in the state dict and the constants, or twice in a config) keeps its
 * first tensor, as the lookup by name would find it; so the weights' index holds every
 * name once and binding stays a hash lookup per weight.  Sorted, O(n log n). */
static void drop_repeated_names(archive *a) {
  size_t n = a->n_views;
  named *sorted = sc_xmalloc((n ? n : 1) * sizeof *sorted);
  bool *drop = sc_xcalloc(n ? n : 1, sizeof *drop);
  for (size_t i = 0; i < n; i++) sorted[i] = (named){a->views[i].name, i};
  qsort(sorted, n, sizeof *sorted, compare_named);
  for (size_t k = 1; k < n; k++) drop[sorted[k].i] = sorted[k].name == sorted[k - 1].name;
  size_t kept = 0;
  for (size_t i = 0; i < n; i++)
    if (!drop[i]) a->views[kept++] = a->views[i];
  a->n_views = kept;
  free(drop);
  free(sorted);
}

/* A raw payload's view from its TensorMeta: concrete sizes, strides and offset. */
static bool view_from_meta(archive *a, sc_jr *jr, const sc_tensor_meta *m, sc_strided *v) {
  if (m->rank > SC_STRIDED_MAX_RANK) {
    sc_jr_error(jr, SC_DIAG_PT2_PAYLOAD_SIZE, "payload of '%s' has %d dims; shapec handles at most %d", v->name, m->rank,
                SC_STRIDED_MAX_RANK);
    return false;
  }
  v->dtype = m->dtype;
  v->rank = m->rank;
  bool concrete = true;
  for (int i = 0; i < m->rank; i++) concrete &= sc_expr_is_const(m->sizes[i], &v->sizes[i]);
  if (m->strides)
    for (int i = 0; i < m->rank; i++) concrete &= sc_expr_is_const(m->strides[i], &v->strides[i]);
  else
    sc_strided_set_contiguous(v);
  v->offset = 0;
  if (m->storage_offset) concrete &= sc_expr_is_const(m->storage_offset, &v->offset);
  if (!concrete) {
    sc_diag *d = sc_jr_error(jr, SC_DIAG_PT2_PAYLOAD_SIZE, "payload of '%s' has a symbolic size, stride or offset", v->name);
    sc_diag_set_hint(&a->ctx->diags, d, "a stored tensor has concrete sizes; the archive's weights config is damaged");
    return false;
  }
  return true;
}

/* The tensors of a torch.save file inside the archive (a state dict, or lone_name's one
 * tensor), appended to the views. */
static bool read_torch_save(archive *a, const char *member, const char *lone_name) {
  size_t len;
  unsigned char *bytes = read_member(a, member, &len, true);
  if (!bytes) return false;
  size_t first = a->pickled.n;
  bool ok = sc_torch_save_read(a->ctx, sc_arena_printf(&a->ctx->arena, "%s:%s", a->path, member), bytes, len, lone_name,
                               &a->pickled);
  free(bytes);
  for (size_t i = first; ok && i < a->pickled.n; i++) add_view(a, &a->pickled.views[i]);
  return ok;
}

/* Reads one PayloadConfig and its payloads (raw, or pickled by torch.save). */
static bool read_payloads(archive *a, const char *config_name, const char *dir) {
  size_t len;
  if (!has_member(a, config_name)) return true; /* a model without weights or constants */
  unsigned char *text = read_member(a, config_name, &len, true);
  if (!text) return false;
  const char *display = sc_arena_printf(&a->ctx->arena, "%s:%s", a->path, config_name);
  cJSON *root = sc_json_parse(a->ctx, display, (const char *)text, len);
  free(text);
  if (!root) return false;
  sc_jr jr;
  sc_jr_init(&jr, a->ctx, display, NULL);
  const cJSON *config = sc_jr_object_field(&jr, root, "config", true);
  bool ok = config != NULL;
  size_t saved = sc_jr_push_key(&jr, "config");
  for (const cJSON *e = config ? config->child : NULL; e; e = e->next) {
    size_t s2 = sc_jr_push_key(&jr, e->string);
    const char *path_name = NULL;
    bool pickled = false;
    const cJSON *meta = NULL;
    if (!sc_jr_expect_object(&jr, e) || !sc_jr_string_field(&jr, e, "path_name", true, &path_name) ||
        !sc_jr_bool_field(&jr, e, "use_pickle", false, &pickled)) {
      ok = false;
    } else if (pickled) {
      ok &= read_torch_save(a, sc_arena_printf(&a->ctx->arena, "%s%s%s", a->root, dir, path_name),
                            sc_ctx_intern(a->ctx, e->string));
    } else if (!(meta = sc_jr_object_field(&jr, e, "tensor_meta", true))) {
      ok = false;
    } else {
      sc_strided v = {.name = sc_ctx_intern(a->ctx, e->string)};
      sc_tensor_meta m;
      /* the TensorMeta reader of the model reader, through a one-tensor program */
      char *meta_text = cJSON_PrintUnformatted(meta);
      size_t m_saved = sc_jr_push_key(&jr, "tensor_meta");
      bool meta_ok = sc_model_read_tensor_meta(a->ctx, display, jr.path, meta_text, &m) && view_from_meta(a, &jr, &m, &v);
      free(meta_text);
      sc_jr_pop(&jr, m_saved);
      const char *member = sc_arena_printf(&a->ctx->arena, "%s%s%s", a->root, dir, path_name);
      unsigned char *raw = meta_ok ? read_member(a, member, &len, true) : NULL;
      if (raw) {
        keep_raw(a, raw);
        v.storage = raw;
        v.storage_len = len;
        add_view(a, &v);
      }
      ok &= raw != NULL;
    }
    sc_jr_pop(&jr, s2);
  }
  sc_jr_pop(&jr, saved);
  cJSON_Delete(root);
  return ok;
}

/* The weights and constants of a PT2 archive: torch.save files of the whole state dict
 * (torch 2.8: data/weights/<model>.pt) or one payload per tensor with a config (2.9 on). */
static bool read_pt2_weights(archive *a, const char *model) {
  bool ok = true;
  const char *dirs[2] = {"data/weights/", "data/constants/"}, *configs[2] = {"weights", "constants"};
  for (int k = 0; k < 2 && ok; k++) {
    const char *legacy = sc_arena_printf(&a->ctx->arena, "%s%s%s.pt", a->root, dirs[k], model);
    if (has_member(a, legacy)) ok = read_torch_save(a, legacy, NULL);
    else
      ok = read_payloads(a, sc_arena_printf(&a->ctx->arena, "%s%s%s_%s_config.json", a->root, dirs[k], model, configs[k]),
                         dirs[k]);
  }
  return ok;
}

/* The archive torch.export.save wrote from torch 2.1 to 2.7: the program as
 * serialized_exported_program.json, its weights and constants as torch.save files. */
static bool read_legacy(archive *a, sc_program **program) {
  const char *member = "serialized_exported_program.json";
  size_t len;
  unsigned char *text = read_member(a, member, &len, true);
  if (!text) return false;
  *program = sc_model_read(a->ctx, sc_arena_printf(&a->ctx->arena, "%s:%s", a->path, member), (const char *)text, len);
  free(text);
  if (!*program) return false;
  /* .pt in torch's writer; some early ones named them .json */
  const char *files[][2] = {{"serialized_state_dict.pt", "serialized_state_dict.json"},
                            {"serialized_constants.pt", "serialized_constants.json"}};
  for (int k = 0; k < 2; k++)
    for (int v = 0; v < 2; v++)
      if (has_member(a, files[k][v])) {
        if (!read_torch_save(a, files[k][v], NULL)) return false;
        break;
      }
  return true;
}

bool sc_pt2_read(sc_ctx *ctx, const char *path, sc_program **program, sc_weights **weights) {
  *program = NULL;
  *weights = NULL;
  int zerr = 0;
  zip_t *z = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &zerr);
  archive a = {.ctx = ctx, .path = sc_arena_strdup(&ctx->arena, path), .zip = z};
  struct stat st;
  sc_budget_init(&a.budget, stat(path, &st) == 0 && st.st_size > 0 ? (uint64_t)st.st_size : 0);
  if (!z) {
    zip_error_t e;
    zip_error_init_with_code(&e, zerr);
    sc_diag_code code = zerr == ZIP_ER_OPEN || zerr == ZIP_ER_READ || zerr == ZIP_ER_NOENT ? SC_DIAG_FILE_READ
                                                                                           : SC_DIAG_PT2_CORRUPT;
    sc_diag *d = arc_error(&a, code, NULL, "cannot read the archive: %s", zip_error_strerror(&e));
    if (code == SC_DIAG_PT2_CORRUPT) sc_diag_set_hint(&ctx->diags, d, "the .pt2 file is damaged or truncated");
    zip_error_fini(&e);
    return false;
  }
  /* the archive's digest first, while nothing else takes memory (its pages go with the view) */
  char sha256[SC_SHA256_HEX_LEN + 1] = "";
  sc_file_view view;
  if (sc_file_view_open(ctx, path, &view)) {
    sc_sha256_hex(view.data, view.len, sha256);
    sc_file_view_close(&view);
  }
  sc_budget *outer = ctx->budget; /* the torch.save files inside charge the archive's budget */
  ctx->budget = &a.budget;
  bool ok;
  if (has_member(&a, "serialized_exported_program.json")) {
    ok = read_legacy(&a, program);
  } else {
    char model[256];
    ok = check_format(&a) && find_model(&a, model, sizeof model);
    if (ok) {
      const char *member = member_name(&a, "models/%s.json", model);
      size_t len;
      unsigned char *text = read_member(&a, member, &len, true);
      if (text) {
        *program = sc_model_read(ctx, sc_arena_printf(&ctx->arena, "%s:%s", path, member), (const char *)text, len);
        free(text);
      }
      ok = *program != NULL && read_pt2_weights(&a, model);
    }
  }
  if (ok && a.n_views) {
    drop_repeated_names(&a);
    *weights = sc_strided_to_weights(ctx, a.path, a.views, a.n_views);
    ok = *weights != NULL;
  }
  if (ok && *program) { /* the archive is the model's file: its name and digest */
    (*program)->source = a.path;
    memcpy((*program)->sha256, sha256, sizeof sha256);
  }
  ctx->budget = outer;
  for (size_t i = 0; i < a.n_raw; i++) free(a.raw[i]);
  free(a.raw);
  free(a.views);
  sc_torch_tensors_free(&a.pickled);
  zip_discard(z);
  return ok;
}
