/* fuzz_members.h - the field format of fuzz_pt2_members: an archive's members as
 * length-prefixed fields, so that a mutation changes what is inside a member while the zip
 * around it (sizes, CRCs, central directory) is always written correctly by libzip.
 *
 *   input  := header[4] field*
 *   field  := kind[1] index[1] length[3, little-endian] bytes[length]
 *
 * header[0] % 3: the layout (0: torch 2.1-2.7's zip with serialized_exported_program.json
 *   and torch.save files; 1: torch 2.8's PT2 archive, its weights and constants as
 *   torch.save files data/weights/model.pt; 2: torch 2.9+'s PT2 archive, one payload per
 *   tensor and a JSON config); header[1]: FM_FLAG_* bits; header[2]: the index of a pickled
 *   payload (layout 2); header[3] % 4: the root folder ("model/", "archive/", none, or a
 *   name of 200 characters).
 * A field's kind % FM_N_KINDS says which member it is (FM_KIND_*); index numbers the
 * storages (data/<index> of a torch.save file, weight_<index> / tensor_<index> of a
 * layout-2 archive).  kind's bits 3-6, r, repeat the bytes 4^r times (at most
 * FM_MAX_EXPANDED bytes where the members are deflated, FM_MAX_STORED where they are
 * stored), so that a few input bytes make a member that inflates far (a deflated
 * storage, a data.pkl of a million MEMOIZEs).  A field cut short by the end of the input keeps what is there, so
 * every input means an archive. */
#ifndef SC_FUZZ_MEMBERS_H
#define SC_FUZZ_MEMBERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
  FM_KIND_MODEL,     /* the ExportedProgram JSON */
  FM_KIND_W_PKL,     /* data.pkl of the weights' torch.save file */
  FM_KIND_W_CONFIG,  /* model_weights_config.json (layout 2) */
  FM_KIND_W_STORAGE, /* a weight storage: data/<index> in the torch.save file, or weight_<index> */
  FM_KIND_C_PKL,     /* data.pkl of the constants' torch.save file */
  FM_KIND_C_CONFIG,  /* model_constants_config.json (layout 2) */
  FM_KIND_C_STORAGE, /* a constant's storage: data/<index>, or tensor_<index> */
  FM_KIND_EXTRA,     /* any other member under the root: its name, a NUL, its bytes */
  FM_N_KINDS
};

enum {
  FM_FLAG_DEFLATE = 1,        /* every member deflated (torch stores them) */
  FM_FLAG_NO_FORMAT = 2,      /* no archive_format member (layouts 1, 2) */
  FM_FLAG_JSON_NAMES = 4,     /* layout 0: serialized_state_dict.json, as early writers named it */
  FM_FLAG_NO_BYTEORDER = 8,   /* the torch.save files without their byteorder member */
  FM_FLAG_BIG_ENDIAN = 16,    /* the torch.save files say "big" */
  FM_FLAG_FLAT_PICKLE = 32,   /* the torch.save files' data.pkl at their top, not under archive/ */
  FM_FLAG_W_PICKLED = 64,     /* layout 2: data/weights/weight_<header[2]> is a torch.save file */
  FM_FLAG_C_PICKLED = 128,    /* layout 2: data/constants/tensor_<header[2]> is a torch.save file */
};

enum { FM_HEADER = 4, FM_FIELD_HEAD = 5, FM_MAX_FIELDS = 512, FM_MAX_LEN = (1 << 24) - 1 };
/* The harness reads with a budget of FM_BUDGET (SHAPEC_MAX_INPUT_MEMORY) rather than the
 * 64 MiB floor: the same refusals are reached by a member 8 times smaller, so an input
 * costs a tenth of a second instead of a second (reading is linear in the inflated bytes,
 * and at 64 MiB the fuzzer spent its time inflating and reported that as slow units).
 * The default budget itself is tested by CTest `budgets`. */
#define FM_BUDGET "8M"
#define FM_MAX_EXPANDED ((size_t)9 << 20) /* past FM_BUDGET */
#define FM_MAX_STORED ((size_t)1 << 20)     /* a stored member is as large in the file: no bomb */

typedef struct fm_field {
  uint8_t kind, index;
  uint8_t repeat; /* r: the bytes 4^r times */
  const uint8_t *data;
  size_t len;
} fm_field;

typedef struct fm_input {
  uint8_t header[FM_HEADER];
  fm_field fields[FM_MAX_FIELDS];
  size_t n;
} fm_input;

/* Splits data into the header and fields (pointing into data); never fails. */
static inline void fm_parse(const uint8_t *data, size_t size, fm_input *in) {
  memset(in->header, 0, sizeof in->header);
  memcpy(in->header, data, size < FM_HEADER ? size : FM_HEADER);
  in->n = 0;
  size_t at = FM_HEADER;
  while (at + FM_FIELD_HEAD <= size && in->n < FM_MAX_FIELDS) {
    fm_field *f = &in->fields[in->n++];
    f->kind = data[at] % FM_N_KINDS;
    f->repeat = (data[at] >> 3) & 15;
    f->index = data[at + 1];
    size_t len = data[at + 2] | (size_t)data[at + 3] << 8 | (size_t)data[at + 4] << 16;
    at += FM_FIELD_HEAD;
    f->data = data + at;
    f->len = len < size - at ? len : size - at;
    at += f->len;
  }
}

/* The size fm_write needs. */
static inline size_t fm_size(const fm_input *in) {
  size_t n = FM_HEADER;
  for (size_t i = 0; i < in->n; i++) n += FM_FIELD_HEAD + in->fields[i].len;
  return n;
}

/* Writes the input into out (of cap bytes; the fields' data must not overlap out);
 * returns its size, or 0 when it does not fit. */
static inline size_t fm_write(const fm_input *in, uint8_t *out, size_t cap) {
  size_t need = fm_size(in);
  if (need > cap) return 0;
  memcpy(out, in->header, FM_HEADER);
  size_t at = FM_HEADER;
  for (size_t i = 0; i < in->n; i++) {
    const fm_field *f = &in->fields[i];
    size_t len = f->len > FM_MAX_LEN ? FM_MAX_LEN : f->len;
    out[at] = (uint8_t)(f->kind | (f->repeat & 15) << 3);
    out[at + 1] = f->index;
    out[at + 2] = (uint8_t)len;
    out[at + 3] = (uint8_t)(len >> 8);
    out[at + 4] = (uint8_t)(len >> 16);
    if (len) memcpy(out + at + FM_FIELD_HEAD, f->data, len);
    at += FM_FIELD_HEAD + len;
  }
  return at;
}

/* The field's bytes repeated 4^repeat times, at most cap bytes (heap; free it): replaces
 * f's data and length.  Nothing to do (NULL) when it does not repeat. */
static inline uint8_t *fm_expand(fm_field *f, size_t cap) {
  if (!f->repeat || !f->len) return NULL;
  size_t times = (size_t)1 << (2 * f->repeat), len = f->len;
  size_t total = len > cap / times ? cap / len * len : len * times;
  if (total < len) total = len;
  uint8_t *out = (uint8_t *)malloc(total);
  if (!out) abort();
  memcpy(out, f->data, len);
  for (size_t at = len; at < total;) { /* doubling: few copies */
    size_t n = at < total - at ? at : total - at;
    memcpy(out + at, out, n);
    at += n;
  }
  f->data = out;
  f->len = total;
  return out;
}

#endif
