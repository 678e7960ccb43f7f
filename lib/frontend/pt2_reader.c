/* pt2_reader.c - PT2 archives through libzip; see pt2_reader.h. */
#include "pt2_reader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "json_reader.h"
#include "model_reader.h"

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
  char root[256];
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
  if (!(st.valid & ZIP_STAT_SIZE) || st.size > SC_PT2_MAX_MEMBER) {
    arc_error(a, SC_DIAG_PT2_CORRUPT, name, "member %s has an implausible size", name);
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
  return sc_arena_printf(&a->ctx->arena, "%s/%s", a->root, inner);
}

/* The archive's root folder, from its first entry, and its archive_format. */
static bool check_format(archive *a) {
  const char *first = zip_get_num_entries(a->zip, 0) > 0 ? zip_get_name(a->zip, 0, 0) : NULL;
  const char *slash = first ? strchr(first, '/') : NULL;
  if (!slash || (size_t)(slash - first) >= sizeof a->root) {
    sc_diag *d = arc_error(a, SC_DIAG_PT2_FORMAT, NULL, "not a PT2 archive: its entries are not under one folder");
    sc_diag_set_hint(&a->ctx->diags, d, "torch.export.save writes <name>/archive_format, <name>/models/...");
    return false;
  }
  snprintf(a->root, sizeof a->root, "%.*s", (int)(slash - first), first);
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

typedef struct payload {
  const char *fqn;
  sc_tensor_meta meta;
  unsigned char *raw;  /* the member's bytes */
  size_t raw_len;
} payload;

static int64_t meta_int(const sc_expr *e) {
  int64_t v = -1;
  sc_expr_is_const(e, &v);
  return v;
}

/* Reads one PayloadConfig and its payloads; appends to *items. */
static bool read_payloads(archive *a, const char *config_name, const char *dir, payload **items, size_t *n_items) {
  size_t len;
  if (zip_name_locate(a->zip, config_name, 0) < 0) return true; /* a model without weights or constants */
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
    } else if (!pickled && !(meta = sc_jr_object_field(&jr, e, "tensor_meta", true))) {
      ok = false;
    } else if (pickled) {
      sc_diag *d = sc_jr_error(&jr, SC_DIAG_PT2_PICKLED, "payload %s of '%s' is pickled; shapec reads raw payloads only",
                               path_name, e->string);
      sc_diag_set_hint(&a->ctx->diags, d, "export weights as plain tensors (no tensor subclasses or custom objects)");
      ok = false;
    } else {
      *items = sc_xrealloc(*items, (*n_items + 1) * sizeof **items);
      payload *p = &(*items)[*n_items];
      memset(p, 0, sizeof *p);
      p->fqn = sc_ctx_intern(a->ctx, e->string);
      /* the TensorMeta reader of the model reader, through a one-tensor program */
      char *meta_text = cJSON_PrintUnformatted(meta);
      size_t m_saved = sc_jr_push_key(&jr, "tensor_meta");
      const char *member = sc_arena_printf(&a->ctx->arena, "%s/%s%s", a->root, dir, path_name);
      p->raw = read_member(a, member, &p->raw_len, true);
      ok &= p->raw != NULL;
      ok &= sc_model_read_tensor_meta(a->ctx, display, jr.path, meta_text, &p->meta);
      free(meta_text);
      sc_jr_pop(&jr, m_saved);
      if (p->raw) (*n_items)++;
    }
    sc_jr_pop(&jr, s2);
  }
  sc_jr_pop(&jr, saved);
  cJSON_Delete(root);
  return ok;
}

/* A payload's stride in dim i; contiguous when the meta gives none. */
static int64_t stride_of(const sc_tensor_meta *m, int i) {
  if (m->strides) return meta_int(m->strides[i]);
  int64_t s = 1;
  for (int k = m->rank - 1; k > i; k--) s *= meta_int(m->sizes[k]);
  return s;
}

/* Bytes a strided tensor reaches in its storage. */
static bool storage_extent(const sc_tensor_meta *m, uint64_t *bytes) {
  uint64_t esize = sc_dtype_size(m->dtype), last = m->storage_offset ? (uint64_t)meta_int(m->storage_offset) : 0;
  for (int i = 0; i < m->rank; i++) {
    int64_t size = meta_int(m->sizes[i]), stride = stride_of(m, i);
    if (size < 0 || stride < 0) return false;
    if (size == 0) {
      *bytes = 0;
      return true;
    }
    last += (uint64_t)(size - 1) * (uint64_t)stride;
  }
  *bytes = (last + 1) * esize;
  return true;
}

/* Copies a strided view out of its storage into contiguous memory. */
static void gather(const sc_tensor_meta *m, const unsigned char *storage, unsigned char *out) {
  size_t esize = sc_dtype_size(m->dtype);
  int64_t idx[16] = {0};
  int64_t numel = 1;
  for (int i = 0; i < m->rank; i++) numel *= meta_int(m->sizes[i]);
  int64_t base = m->storage_offset ? meta_int(m->storage_offset) : 0;
  for (int64_t k = 0; k < numel; k++) {
    int64_t off = base;
    for (int i = 0; i < m->rank; i++) off += idx[i] * stride_of(m, i);
    memcpy(out + (size_t)k * esize, storage + (size_t)off * esize, esize);
    for (int i = m->rank - 1; i >= 0; i--) {
      if (++idx[i] < meta_int(m->sizes[i])) break;
      idx[i] = 0;
    }
  }
}

static sc_weights *build_weights(archive *a, payload *items, size_t n) {
  uint64_t total = 0;
  bool ok = true;
  for (size_t i = 0; i < n; i++) {
    const sc_tensor_meta *m = &items[i].meta;
    uint64_t need = 0, numel = 1;
    for (int k = 0; k < m->rank; k++) numel *= (uint64_t)(meta_int(m->sizes[k]) < 0 ? 0 : meta_int(m->sizes[k]));
    if (m->rank > 16 || !storage_extent(m, &need) || need > items[i].raw_len) {
      sc_diag *d = arc_error(a, SC_DIAG_PT2_PAYLOAD_SIZE, items[i].fqn,
                             "payload of '%s' has %zu bytes but its tensor meta needs %llu", items[i].fqn,
                             items[i].raw_len, (unsigned long long)need);
      sc_diag_set_hint(&a->ctx->diags, d, "the archive is truncated or its weights config does not match");
      ok = false;
      continue;
    }
    total += numel * sc_dtype_size(m->dtype);
  }
  if (!ok) return NULL;
  sc_weights *w = sc_arena_alloc(&a->ctx->arena, sizeof *w);
  w->file = a->path;
  w->buffer = sc_xmalloc((size_t)total + 1);
  w->size = (size_t)total;
  w->items = sc_arena_alloc(&a->ctx->arena, (n ? n : 1) * sizeof *w->items);
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    const sc_tensor_meta *m = &items[i].meta;
    sc_weight *wt = &w->items[w->n_items++];
    wt->name = items[i].fqn;
    wt->dtype = m->dtype;
    wt->rank = m->rank;
    wt->shape = sc_arena_alloc(&a->ctx->arena, (size_t)(m->rank ? m->rank : 1) * sizeof *wt->shape);
    uint64_t numel = 1;
    for (int k = 0; k < m->rank; k++) numel *= (uint64_t)(wt->shape[k] = meta_int(m->sizes[k]));
    wt->nbytes = (size_t)numel * sc_dtype_size(m->dtype);
    wt->data = w->buffer + at;
    if (wt->nbytes) gather(m, items[i].raw, w->buffer + at);
    at += wt->nbytes;
  }
  return w;
}

bool sc_pt2_read(sc_ctx *ctx, const char *path, sc_program **program, sc_weights **weights) {
  *program = NULL;
  *weights = NULL;
  int zerr = 0;
  zip_t *z = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &zerr);
  archive a = {ctx, sc_arena_strdup(&ctx->arena, path), z, ""};
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
  char model[256];
  bool ok = check_format(&a) && find_model(&a, model, sizeof model);
  if (ok) {
    const char *member = member_name(&a, "models/%s.json", model);
    size_t len;
    unsigned char *text = read_member(&a, member, &len, true);
    if (text) {
      *program = sc_model_read(ctx, sc_arena_printf(&ctx->arena, "%s:%s", path, member), (const char *)text, len);
      free(text);
    }
    ok = *program != NULL;
  }
  payload *items = NULL;
  size_t n = 0;
  if (ok) {
    ok &= read_payloads(&a, member_name(&a, "data/weights/%s_weights_config.json", model), "data/weights/", &items, &n);
    ok &= read_payloads(&a, member_name(&a, "data/constants/%s_constants_config.json", model), "data/constants/", &items,
                        &n);
  }
  if (ok && n) {
    *weights = build_weights(&a, items, n);
    ok = *weights != NULL;
  }
  for (size_t i = 0; i < n; i++) free(items[i].raw);
  free(items);
  zip_discard(z);
  return ok;
}
