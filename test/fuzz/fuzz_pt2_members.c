/* fuzz_pt2_members.c - the members inside a .pt2 archive, past its checksums: the input is
 * the archive's members as fields (fuzz_members.h), the harness writes them into a correct
 * zip with libzip in the layout the input names (torch 2.1-2.7, 2.8 or 2.9+; the weights'
 * and constants' torch.save files built from their data.pkl and storages the same way),
 * then reads it as `shapec export --no-codegen` does: the archive, the graph check, the
 * result dtypes, the in-place resolution, the program's own dynamism as the spec, the
 * analysis, the weights bound to the program, the report.
 *
 * Its mutator changes one field at a time (or the header, or which fields there are) and
 * its cross-over takes whole members from either parent, so a mutation lands in data.pkl,
 * a weights config, the model JSON or a storage instead of a zip header.  The seeds are
 * the members of the real-torch corpus's archives (test/fuzz/pt2_members_seeds.py). */
#include <zip.h>

#include "fuzz_common.h"
#include "fuzz_members.h"
#include "ir/weights.h"
#include "lib/base/budget.h"
#include "lib/frontend/pt2_reader.h"
#include "lib/frontend/spec_reader.h"
#include "lib/report/report.h"
#include "passes/inplace_updates.h"
#include "passes/result_dtypes.h"
#include "passes/shape_analysis.h"
#include "passes/verify_graph.h"

/* ---- an archive written in memory ------------------------------------------------------ */

typedef struct zmember {
  char *name; /* heap */
  const uint8_t *data;
  size_t len;
} zmember;

typedef struct zlist {
  zmember *m;
  size_t n, cap;
  uint8_t **owned; /* bytes built here (nested torch.save files), freed with the list */
  size_t n_owned;
} zlist;

static void zlist_add(zlist *l, const char *name, const uint8_t *data, size_t len) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 16;
    l->m = realloc(l->m, l->cap * sizeof *l->m);
    if (!l->m) abort();
  }
  l->m[l->n++] = (zmember){strdup(name), data, len};
}

static void zlist_add_text(zlist *l, const char *name, const char *text) {
  zlist_add(l, name, (const uint8_t *)text, strlen(text));
}

static void zlist_own(zlist *l, uint8_t *bytes) {
  l->owned = realloc(l->owned, (l->n_owned + 1) * sizeof *l->owned);
  if (!l->owned) abort();
  l->owned[l->n_owned++] = bytes;
}

static void zlist_free(zlist *l) {
  for (size_t i = 0; i < l->n; i++) free(l->m[i].name);
  for (size_t i = 0; i < l->n_owned; i++) free(l->owned[i]);
  free(l->m);
  free(l->owned);
}

/* The zip of the list's members, in order (a later member of the same name replaces the
 * earlier one), stored or deflated; heap, *len bytes.  An empty list gives 0 bytes. */
static uint8_t *zip_write(const zlist *l, bool deflate, size_t *len) {
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t *src = zip_source_buffer_create(NULL, 0, 0, &err);
  if (!src) abort();
  zip_source_keep(src);
  zip_t *z = zip_open_from_source(src, ZIP_TRUNCATE, &err);
  if (!z) abort();
  for (size_t i = 0; i < l->n; i++) {
    zip_source_t *s = zip_source_buffer(z, l->m[i].data, l->m[i].len, 0);
    zip_int64_t k = s ? zip_file_add(z, l->m[i].name, s, ZIP_FL_OVERWRITE) : -1;
    if (k < 0) { /* a name libzip refuses (empty): the member is left out */
      if (s) zip_source_free(s);
      continue;
    }
    zip_set_file_compression(z, (zip_uint64_t)k, deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, deflate ? 1 : 0);
  }
  if (zip_close(z) != 0) abort();
  zip_error_fini(&err);
  zip_stat_t st;
  zip_stat_init(&st);
  uint8_t *out = NULL;
  *len = 0;
  if (zip_source_stat(src, &st) == 0 && st.size > 0 && zip_source_open(src) == 0) {
    out = malloc(st.size);
    if (!out) abort();
    zip_int64_t got = zip_source_read(src, out, st.size);
    zip_source_close(src);
    if (got != (zip_int64_t)st.size) abort();
    *len = st.size;
  }
  zip_source_free(src);
  return out ? out : calloc(1, 1);
}

/* ---- the layouts ------------------------------------------------------------------------ */

static const fm_field *last_of(const fm_input *in, int kind) {
  const fm_field *f = NULL;
  for (size_t i = 0; i < in->n; i++)
    if (in->fields[i].kind == kind) f = &in->fields[i];
  return f;
}

/* The torch.save file of pkl and the storages of storage_kind, as torch writes it
 * (archive/data.pkl, archive/byteorder, archive/data/<key>, archive/version, ...); NULL
 * when the input has no such data.pkl. */
static uint8_t *torch_save_build(const fm_input *in, int pkl_kind, int storage_kind, size_t *len) {
  const fm_field *pkl = last_of(in, pkl_kind);
  if (!pkl) return NULL;
  uint8_t flags = in->header[1];
  const char *prefix = flags & FM_FLAG_FLAT_PICKLE ? "" : "archive/";
  zlist l = {0};
  char name[300];
  snprintf(name, sizeof name, "%sdata.pkl", prefix);
  zlist_add(&l, name, pkl->data, pkl->len);
  if (!(flags & FM_FLAG_NO_BYTEORDER)) {
    snprintf(name, sizeof name, "%sbyteorder", prefix);
    zlist_add_text(&l, name, flags & FM_FLAG_BIG_ENDIAN ? "big" : "little");
  }
  for (size_t i = 0; i < in->n; i++)
    if (in->fields[i].kind == storage_kind) {
      snprintf(name, sizeof name, "%sdata/%d", prefix, in->fields[i].index);
      zlist_add(&l, name, in->fields[i].data, in->fields[i].len);
    }
  snprintf(name, sizeof name, "%sversion", prefix);
  zlist_add_text(&l, name, "3\n");
  snprintf(name, sizeof name, "%s.data/serialization_id", prefix);
  zlist_add_text(&l, name, "1234567890123456789012345678901234567890");
  uint8_t *bytes = zip_write(&l, flags & FM_FLAG_DEFLATE, len);
  zlist_free(&l);
  return bytes;
}

/* Adds a torch.save file (when the input has its data.pkl) as member `name`. */
static void add_torch_save(zlist *l, const fm_input *in, int pkl_kind, int storage_kind, const char *name) {
  size_t len;
  uint8_t *bytes = torch_save_build(in, pkl_kind, storage_kind, &len);
  if (!bytes) return;
  zlist_own(l, bytes);
  zlist_add(l, name, bytes, len);
}

/* Every EXTRA field: "name\0bytes" under the root. */
static void add_extras(zlist *l, const fm_input *in, const char *root) {
  for (size_t i = 0; i < in->n; i++) {
    const fm_field *f = &in->fields[i];
    if (f->kind != FM_KIND_EXTRA) continue;
    const uint8_t *nul = memchr(f->data, 0, f->len);
    size_t name_len = nul ? (size_t)(nul - f->data) : f->len;
    char name[512];
    snprintf(name, sizeof name, "%s%.*s", root, (int)(name_len < 200 ? name_len : 200), (const char *)f->data);
    zlist_add(l, name, nul ? nul + 1 : f->data + f->len, nul ? f->len - name_len - 1 : 0);
  }
}

/* Weights or constants of a PT2 archive: their torch.save file (layout 1, where the input
 * has a data.pkl), else their config and one payload per storage, one of them a torch.save
 * file where the header asks. */
static void add_pt2_tensors(zlist *l, const fm_input *in, const char *root, bool constants) {
  const char *dir = constants ? "data/constants/" : "data/weights/";
  const char *stem = constants ? "tensor_" : "weight_";
  int pkl_kind = constants ? FM_KIND_C_PKL : FM_KIND_W_PKL;
  int config_kind = constants ? FM_KIND_C_CONFIG : FM_KIND_W_CONFIG;
  int storage_kind = constants ? FM_KIND_C_STORAGE : FM_KIND_W_STORAGE;
  char name[600];
  if (in->header[0] % 3 == 1 && last_of(in, pkl_kind)) {
    snprintf(name, sizeof name, "%s%smodel.pt", root, dir);
    add_torch_save(l, in, pkl_kind, storage_kind, name);
    return;
  }
  for (size_t i = 0; i < in->n; i++)
    if (in->fields[i].kind == storage_kind) {
      snprintf(name, sizeof name, "%s%s%s%d", root, dir, stem, in->fields[i].index);
      zlist_add(l, name, in->fields[i].data, in->fields[i].len);
    }
  if (in->header[1] & (constants ? FM_FLAG_C_PICKLED : FM_FLAG_W_PICKLED)) {
    snprintf(name, sizeof name, "%s%s%s%d", root, dir, stem, in->header[2]);
    add_torch_save(l, in, pkl_kind, storage_kind, name);
  }
  const fm_field *config = last_of(in, config_kind);
  if (config) {
    snprintf(name, sizeof name, "%s%smodel_%s_config.json", root, dir, constants ? "constants" : "weights");
    zlist_add(l, name, config->data, config->len);
  }
}

/* The archive's members in the input's layout, in the order torch writes them. */
static void archive_members(const fm_input *in, zlist *l) {
  const fm_field *model = last_of(in, FM_KIND_MODEL);
  uint8_t flags = in->header[1];
  if (in->header[0] % 3 == 0) { /* torch 2.1-2.7 */
    if (model) zlist_add(l, "serialized_exported_program.json", model->data, model->len);
    add_torch_save(l, in, FM_KIND_W_PKL, FM_KIND_W_STORAGE,
                   flags & FM_FLAG_JSON_NAMES ? "serialized_state_dict.json" : "serialized_state_dict.pt");
    add_torch_save(l, in, FM_KIND_C_PKL, FM_KIND_C_STORAGE,
                   flags & FM_FLAG_JSON_NAMES ? "serialized_constants.json" : "serialized_constants.pt");
    zlist_add_text(l, "version", "1\n");
    add_extras(l, in, "");
    return;
  }
  static char long_root[256];
  if (!long_root[0]) {
    memset(long_root, 'r', 254);
    long_root[254] = '/';
  }
  const char *roots[4] = {"model/", "archive/", "", long_root};
  const char *root = roots[in->header[3] % 4];
  char name[600];
  add_pt2_tensors(l, in, root, false);
  add_pt2_tensors(l, in, root, true);
  if (model) {
    snprintf(name, sizeof name, "%smodels/model.json", root);
    zlist_add(l, name, model->data, model->len);
  }
  if (!(flags & FM_FLAG_NO_FORMAT)) {
    snprintf(name, sizeof name, "%sarchive_format", root);
    zlist_add_text(l, name, "pt2");
  }
  snprintf(name, sizeof name, "%sarchive_version", root);
  zlist_add_text(l, name, "0");
  snprintf(name, sizeof name, "%sbyteorder", root);
  zlist_add_text(l, name, "little");
  add_extras(l, in, root);
}

/* ---- the reading path of `shapec export --no-codegen` ---------------------------------- */

static void read_as_export(const char *path) {
  sc_ctx *ctx = sc_ctx_new();
  sc_program *p = NULL;
  sc_weights *w = NULL;
  if (sc_pt2_read(ctx, path, &p, &w) && p && sc_verify_graph(ctx, p) && sc_check_result_dtypes(ctx, p) &&
      sc_resolve_inplace_updates(ctx, p)) {
    sc_dynspec *spec = sc_spec_from_program(ctx, p);
    if (spec) {
      sc_analysis a;
      if (sc_analysis_run(ctx, p, spec, &a)) sc_weights_bind(ctx, w, p, false);
      free(sc_report_render(ctx, p, spec, &a, NULL));
      sc_analysis_release(&a);
    }
  }
  if (getenv("FUZZ_PT2_MEMBERS_DIAGS")) { /* what an input reached, for checking the seeds */
    for (size_t i = 0; i < ctx->diags.n_items; i++) sc_diag_print(stderr, &ctx->diags.items[i]);
    fprintf(stderr, "pt2_members: %s, %zu errors, %s weights\n", p ? "program read" : "no program",
            ctx->diags.n_errors, w ? "with" : "no");
  }
  sc_weights_free(w);
  sc_ctx_free(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fm_input in;
  setenv(SC_BUDGET_ENV, FM_BUDGET, 0); /* here, not in an initializer: the replay has none */
  fm_parse(data, size, &in);
  zlist l = {0};
  for (size_t i = 0; i < in.n; i++) { /* repeated bytes, freed with the list */
    uint8_t *expanded = fm_expand(&in.fields[i], in.header[1] & FM_FLAG_DEFLATE ? FM_MAX_EXPANDED : FM_MAX_STORED);
    if (expanded) zlist_own(&l, expanded);
  }
  archive_members(&in, &l);
  size_t len;
  uint8_t *zip = zip_write(&l, in.header[1] & FM_FLAG_DEFLATE, &len);
  zlist_free(&l);
  const char *path = fuzz_input_file(zip, len, ".pt2");
  read_as_export(path);
  unlink(path); /* fork mode's jobs would each leave one in /dev/shm (up to 9 MiB) */
  free(zip);
  return 0;
}

/* ---- the mutator: one member at a time ---------------------------------------------- */

/* libFuzzer's own mutations; weak, so that the replay build (no libFuzzer) links. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) __attribute__((weak));
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2, uint8_t *out,
                                 size_t max_out, unsigned int seed);

static uint32_t next_rand(uint32_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  static fm_input in;
  static uint8_t *copy, *field;
  static size_t cap;
  if (cap < max_size) {
    free(copy);
    free(field);
    cap = max_size;
    copy = malloc(cap);
    field = malloc(cap);
    if (!copy || !field) abort();
  }
  uint32_t r = seed | 1;
  memcpy(copy, data, size);
  fm_parse(copy, size, &in);
  uint32_t what = next_rand(&r) % 100;
  if (what < 3 || size < FM_HEADER) return LLVMFuzzerMutate(data, size, max_size); /* the bytes as they are */
  if (what < 10) { /* the header: another layout, flag, payload index or root */
    in.header[next_rand(&r) % FM_HEADER] ^= (uint8_t)(1u << (next_rand(&r) % 8));
    if (next_rand(&r) % 4 == 0) in.header[0] = (uint8_t)(next_rand(&r) % 3);
  } else if (what < 16 || in.n == 0) { /* which members there are, or how often one's bytes repeat */
    uint32_t op = next_rand(&r) % 5;
    size_t i = in.n ? next_rand(&r) % in.n : 0;
    if (op == 0 && in.n) {
      memmove(&in.fields[i], &in.fields[i + 1], (in.n - i - 1) * sizeof in.fields[0]);
      in.n--;
    } else if (op == 1 && in.n && in.n < FM_MAX_FIELDS) {
      in.fields[in.n] = in.fields[i];
      in.fields[in.n++].index = (uint8_t)next_rand(&r);
    } else if (op == 2 && in.n) {
      in.fields[i].index = (uint8_t)(next_rand(&r) % 4 ? in.fields[i].index + 1u : next_rand(&r));
    } else if (op == 3 && in.n && in.fields[i].kind != FM_KIND_MODEL && in.fields[i].kind != FM_KIND_W_CONFIG &&
               in.fields[i].kind != FM_KIND_C_CONFIG) {
      /* a binary member's bytes: mostly none or a few times; past the budget (r >= 8) one time in 16 */
      uint32_t k = next_rand(&r);
      in.fields[i].repeat = (uint8_t)(k % 2 ? 0 : k % 16 == 0 ? 8 + k / 16 % 8 : 1 + k / 16 % 3);
    } else if (in.n < FM_MAX_FIELDS) { /* a new, empty member of any kind */
      in.fields[in.n++] = (fm_field){.kind = (uint8_t)(next_rand(&r) % FM_N_KINDS), .index = (uint8_t)(next_rand(&r) % 4), .data = copy};
    }
  } else { /* one member's bytes: pick a kind first, so many storages do not crowd out data.pkl */
    int present[FM_N_KINDS], n_kinds = 0;
    for (int k = 0; k < FM_N_KINDS; k++)
      for (size_t i = 0; i < in.n; i++)
        if (in.fields[i].kind == k) {
          present[n_kinds++] = k;
          break;
        }
    int kind = present[next_rand(&r) % n_kinds];
    size_t n_of = 0;
    for (size_t i = 0; i < in.n; i++) n_of += in.fields[i].kind == kind;
    size_t pick = next_rand(&r) % n_of, i = 0;
    for (;; i++)
      if (in.fields[i].kind == kind && pick-- == 0) break;
    fm_field *f = &in.fields[i];
    size_t rest = fm_size(&in) - f->len;
    if (rest >= max_size) return LLVMFuzzerMutate(data, size, max_size);
    size_t room = max_size - rest;
    size_t len = f->len < room ? f->len : room;
    memcpy(field, f->data, len);
    if (len == 0) field[len++] = (uint8_t)next_rand(&r);
    f->len = LLVMFuzzerMutate(field, len, room);
    f->data = field;
  }
  size_t n = fm_write(&in, data, max_size);
  if (n) return n;
  memcpy(data, copy, size);
  return LLVMFuzzerMutate(data, size, max_size);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1, const uint8_t *d2, size_t s2, uint8_t *out,
                                 size_t max_out, unsigned int seed) {
  static fm_input a, b, c;
  fm_parse(d1, s1, &a);
  fm_parse(d2, s2, &b);
  uint32_t r = seed | 1;
  memcpy(c.header, next_rand(&r) % 2 ? a.header : b.header, FM_HEADER);
  c.n = 0;
  for (int k = 0; k < FM_N_KINDS; k++) { /* each kind of member wholly from one parent */
    const fm_input *from = next_rand(&r) % 2 ? &a : &b;
    for (size_t i = 0; i < from->n && c.n < FM_MAX_FIELDS; i++)
      if (from->fields[i].kind == k) c.fields[c.n++] = from->fields[i];
  }
  size_t n = fm_write(&c, out, max_out);
  if (n) return n;
  n = s1 < max_out ? s1 : max_out;
  memcpy(out, d1, n);
  return n;
}
