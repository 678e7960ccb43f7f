/* weights_replace.c - the weights a library takes, listed, and replaced at load from a
 * safetensors file (shapec_model_num_weights, shapec_model_weight,
 * shapec_model_load_weights; docs/abi.md "Replacing the weights").
 *
 * The list is the code generator's (cg_weights.c, sc_model_weights_manifest): each
 * parameter, buffer and tensor constant the program reads, with torch's dtype and shape,
 * and, in a library exported with --external-weights, where the blob holds it.  A
 * replacement is a new blob built before the first run: every tensor of the file that
 * the list names is checked (dtype and shape as torch stored it) and copied in, widened to
 * float32 where the library computes a half-precision weight in float32; every parameter
 * must be in the file; buffers and constants it lacks (a non-persistent buffer is not in a
 * state_dict) keep the exported values.  Only an external-weights blob can be replaced:
 * an embedded one is compiled into the code, folded and laid out at export. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/llvm/half_bits.h"
#include "kernels.h"
#include "safetensors.h"


/* ir/dtype.h's codes, as the manifest writes them */
enum { U8 = 1, I8 = 2, I16 = 3, I32 = 4, I64 = 5, F16 = 6, F32 = 7, F64 = 8, BOOL = 12, BF16 = 13 };

static const struct {
  int dtype;
  const char *safetensors, *torch;
  uint8_t code, bits; /* DLPack */
  int size;
} dtypes[] = {
    {U8, "U8", "uint8", 1, 8, 1},      {I8, "I8", "int8", 0, 8, 1},        {I16, "I16", "int16", 0, 16, 2},
    {I32, "I32", "int32", 0, 32, 4},   {I64, "I64", "int64", 0, 64, 8},    {F16, "F16", "float16", 2, 16, 2},
    {F32, "F32", "float32", 2, 32, 4}, {F64, "F64", "float64", 2, 64, 8},  {BOOL, "BOOL", "bool", 6, 8, 1},
    {BF16, "BF16", "bfloat16", 4, 16, 2},
};

static int dtype_index(int dtype) {
  for (int i = 0; i < (int)(sizeof dtypes / sizeof dtypes[0]); i++)
    if (dtypes[i].dtype == dtype) return i;
  return -1;
}

static const char *safetensors_torch_name(const char *st) {
  for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
    if (strcmp(dtypes[i].safetensors, st) == 0) return dtypes[i].torch;
  return st;
}

typedef struct weight {
  const char *name, *kind;
  int dtype, stored; /* torch's, and the blob's */
  unsigned di;       /* dtype's row of dtypes[] */
  int64_t offset;    /* in the blob, -1: not in one (embedded) */
  uint64_t nbytes;   /* in the blob */
  int ndim;
  int64_t shape[SC_ST_MAX_DIMS];
} weight;

static struct {
  int external;
  uint64_t size, id; /* the side file's blob */
  weight *items;
  int n;
} list;
static pthread_once_t list_once = PTHREAD_ONCE_INIT;

/* One line of the manifest: kind, name, dtype, stored, offset, nbytes, dims; 0 if malformed. */
static int parse_line(char *line, weight *w) {
  char *field[7];
  for (int f = 0; f < 7; f++) {
    field[f] = line;
    char *tab = strchr(line, '\t');
    if (f < 6 && !tab) return 0;
    if (tab) *tab = 0, line = tab + 1;
  }
  w->kind = field[0][0] == 'p' ? "parameter" : field[0][0] == 'b' ? "buffer" : "constant";
  w->name = field[1];
  w->dtype = atoi(field[2]);
  w->stored = atoi(field[3]);
  w->offset = strtoll(field[4], NULL, 10);
  w->nbytes = strtoull(field[5], NULL, 10);
  w->ndim = 0;
  for (char *d = field[6]; *d && w->ndim < SC_ST_MAX_DIMS; w->ndim++) {
    w->shape[w->ndim] = strtoll(d, &d, 10);
    if (*d == ',') d++;
  }
  int di = dtype_index(w->dtype);
  w->di = di >= 0 ? (unsigned)di : 0;
  return di >= 0 && dtype_index(w->stored) >= 0;
}

static void read_list(void) {
  const char *text = sc_model_weights_manifest();
  char *copy = strdup(text ? text : "");
  if (!copy) return;
  int lines = 0;
  for (const char *c = copy; *c; c++) lines += *c == '\n';
  list.items = calloc((size_t)(lines ? lines : 1), sizeof *list.items);
  if (!list.items) return;
  char *line = copy, *nl = strchr(line, '\n');
  if (!nl) return;
  *nl = 0;
  list.external = sscanf(line, "external %llu %llu", (unsigned long long *)&list.size, (unsigned long long *)&list.id) == 2;
  for (line = nl + 1; (nl = strchr(line, '\n')); line = nl + 1) {
    *nl = 0;
    if (parse_line(line, &list.items[list.n])) list.n++;
  }
  /* copy stays: the names point into it for the library's life */
}

__attribute__((visibility("default"))) int shapec_model_num_weights(void) {
  pthread_once(&list_once, read_list);
  return list.n;
}

__attribute__((visibility("default"))) int shapec_model_weight(int i, shapec_weight_info *info) {
  pthread_once(&list_once, read_list);
  if (i < 0 || i >= list.n || !info) return SHAPEC_ERR_ARGUMENT;
  const weight *w = &list.items[i];
  *info = (shapec_weight_info){.name = w->name, .kind = w->kind, .code = dtypes[w->di].code, .bits = dtypes[w->di].bits,
                               .ndim = w->ndim, .shape = w->shape};
  return SHAPEC_OK;
}

static void shape_text(char *out, size_t n, const int64_t *shape, int ndim) {
  size_t len = (size_t)snprintf(out, n, "[");
  for (int d = 0; d < ndim && len < n; d++) len += (size_t)snprintf(out + len, n - len, "%s%lld", d ? ", " : "", (long long)shape[d]);
  if (len < n) snprintf(out + len, n - len, "]");
}

/* Checks file tensor t against w and writes it into blob (widened where the blob holds
 * a half-precision weight in float32). */
static int put(const weight *w, const sc_st_tensor *t, unsigned char *blob, const char *path, char *err, size_t errlen) {
  const char *want = dtypes[w->di].safetensors;
  if (strcmp(t->dtype, want) != 0)
    return sc_rt_fail(err, errlen, "%s: tensor '%s' is %s, but the library takes the %s %s as %s (exported with that "
                      "dtype): save the weights in %s, or export the model again in %s", path, w->name,
                      safetensors_torch_name(t->dtype), w->kind, w->name, dtypes[w->di].torch,
                      dtypes[w->di].torch, safetensors_torch_name(t->dtype));
  int same = t->ndim == w->ndim;
  for (int d = 0; same && d < w->ndim; d++) same = t->shape[d] == w->shape[d];
  if (!same) {
    char got[200], need[200];
    shape_text(got, sizeof got, t->shape, t->ndim);
    shape_text(need, sizeof need, w->shape, w->ndim);
    return sc_rt_fail(err, errlen, "%s: tensor '%s' has shape %s, but the library takes %s: the weights of another "
                      "configuration of the model (export the model built with these weights)", path, w->name, got, need);
  }
  uint64_t count = 1;
  for (int d = 0; d < w->ndim; d++) count *= (uint64_t)w->shape[d];
  uint64_t bytes = count * (uint64_t)dtypes[w->di].size;
  if (t->end - t->begin != bytes)
    return sc_rt_fail(err, errlen, "%s: tensor '%s' holds %llu bytes where its dtype and shape take %llu: a corrupt "
                      "file", path, w->name, (unsigned long long)(t->end - t->begin), (unsigned long long)bytes);
  unsigned char *at = blob + w->offset;
  if (w->stored == w->dtype) {
    if (bytes != w->nbytes) return sc_rt_fail(err, errlen, "weight '%s': the library's list disagrees with itself", w->name);
    memcpy(at, t->data, bytes);
  } else if (w->stored == F32 && (w->dtype == BF16 || w->dtype == F16) && count * 4 == w->nbytes) {
    float *f = (float *)(void *)at;
    for (uint64_t k = 0; k < count; k++) {
      uint16_t h;
      memcpy(&h, t->data + 2 * k, 2);
      f[k] = sc_half_bits_to_f32(h, w->dtype == BF16);
    }
  } else {
    return sc_rt_fail(err, errlen, "weight '%s': the library holds it in a form this file cannot give", w->name);
  }
  return SHAPEC_OK;
}

/* The new blob from the file's bytes (mapped); *blob_out on success. */
static int build(const unsigned char *file, uint64_t size, const char *path, unsigned char **blob_out, char *err,
                 size_t errlen) {
  sc_st_file st;
  char why[1024] = "";
  if (sc_st_index(file, size, &st, why, sizeof why) != SHAPEC_OK)
    return sc_rt_fail(err, errlen, "%s: %s", path, why), SHAPEC_ERR_WEIGHTS;
  /* every parameter must be there; the others may keep the exported values */
  int missing = 0, kept = 0;
  char names[600] = "";
  for (int i = 0; i < list.n; i++) {
    if (sc_st_find(&st, list.items[i].name)) continue;
    if (strcmp(list.items[i].kind, "parameter") != 0) {
      kept++;
      continue;
    }
    if (missing++ < 3)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s'%s'", missing > 1 ? ", " : "", list.items[i].name);
  }
  if (missing) {
    sc_st_free(&st);
    return sc_rt_fail(err, errlen, "%s lacks %d of the model's %d parameters (%s%s): the weights of another model, or "
                      "saved under other names (save model.state_dict() with safetensors)", path, missing,
                      shapec_model_num_weights(), names, missing > 3 ? ", ..." : ""), SHAPEC_ERR_WEIGHTS;
  }
  unsigned char *blob = NULL;
  if (posix_memalign((void **)&blob, 64, list.size ? list.size : 64) != 0) {
    sc_st_free(&st);
    return sc_rt_fail_memory(err, errlen, (int64_t)list.size);
  }
  int rc = SHAPEC_OK;
  if (kept) { /* the exported values under the replaced ones */
    const unsigned char *base = sc_rt_weights_own(list.id, list.size, err, errlen);
    if (base) memcpy(blob, base, list.size);
    else rc = SHAPEC_ERR_WEIGHTS;
  } else {
    memset(blob, 0, list.size);
  }
  for (int i = 0; i < list.n && rc == SHAPEC_OK; i++) {
    const sc_st_tensor *t = sc_st_find(&st, list.items[i].name);
    if (t) rc = put(&list.items[i], t, blob, path, err, errlen);
  }
  sc_st_free(&st);
  if (rc) {
    free(blob);
    return rc == SHAPEC_ERR_MEMORY ? rc : SHAPEC_ERR_WEIGHTS;
  }
  *blob_out = blob;
  return SHAPEC_OK;
}

__attribute__((visibility("default"))) int shapec_model_load_weights(const char *path, char *err, size_t errlen) {
  if (!path) return sc_rt_fail_argument(err, errlen, "path is NULL");
  pthread_once(&list_once, read_list);
  if (!list.external)
    return sc_rt_fail(err, errlen, "this library embeds its weights, compiled into its code (folded and laid out at "
                      "export): export with --external-weights to replace them at load"), SHAPEC_ERR_ARGUMENT;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return sc_rt_fail(err, errlen, "cannot open %s: %s", path, strerror(errno)), SHAPEC_ERR_WEIGHTS;
  struct stat sb;
  if (fstat(fd, &sb) != 0 || sb.st_size < 0) {
    close(fd);
    return sc_rt_fail(err, errlen, "cannot read %s: %s", path, strerror(errno)), SHAPEC_ERR_WEIGHTS;
  }
  uint64_t size = (uint64_t)sb.st_size;
  void *m = size ? mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  close(fd);
  if (m == MAP_FAILED)
    return sc_rt_fail(err, errlen, "%s: %s", path, size ? strerror(errno) : "an empty file, not safetensors"),
           SHAPEC_ERR_WEIGHTS;
  unsigned char *blob = NULL;
  int rc = build(m, size, path, &blob, err, errlen);
  munmap(m, (size_t)size);
  if (rc) return rc;
  return sc_rt_weights_replace(blob, err, errlen) ? SHAPEC_ERR_ARGUMENT : SHAPEC_OK;
}
