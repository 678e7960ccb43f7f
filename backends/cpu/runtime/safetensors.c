/* safetensors.c - the tensor index of a safetensors file, for a library that replaces its
 * weights at load (weights.c, shapec_model_load_weights).
 *
 * The file: an 8-byte little-endian header length N, N bytes of JSON, the data.  The JSON
 * is an object from tensor names to {"dtype": "F32", "shape": [..], "data_offsets": [begin,
 * end]} (offsets past the header), and an optional "__metadata__" of strings.  A model
 * library does not link a JSON library, so this reads exactly that grammar (any key order,
 * escapes in names, unknown keys skipped) and refuses anything else with the byte offset. */
#include "safetensors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

typedef struct reader {
  const char *s, *end;
  const char *start; /* the JSON's first byte, for offsets in messages */
  char *err;
  size_t errlen;
  int failed;
} reader;

static int bad(reader *r, const char *what) {
  if (!r->failed)
    sc_rt_fail(r->err, r->errlen, "the safetensors header is malformed at byte %lld of its JSON: %s",
               (long long)(r->s - r->start), what);
  r->failed = 1;
  return 0;
}

static void space(reader *r) {
  while (r->s < r->end && (*r->s == ' ' || *r->s == '\t' || *r->s == '\n' || *r->s == '\r')) r->s++;
}

static int next_is(reader *r, char c) {
  space(r);
  return r->s < r->end && *r->s == c;
}

static int expect(reader *r, char c) {
  if (!next_is(r, c)) {
    char what[40];
    snprintf(what, sizeof what, "'%c' expected", c);
    return bad(r, what);
  }
  r->s++;
  return 1;
}

/* A JSON string into out (UTF-8, at most n - 1 bytes; longer is an error). */
static int string(reader *r, char *out, size_t n) {
  if (!expect(r, '"')) return 0;
  size_t len = 0;
  while (r->s < r->end && *r->s != '"') {
    unsigned cp = (unsigned char)*r->s++;
    unsigned char buf[3];
    size_t k = 0;
    if (cp != '\\') {
      buf[k++] = (unsigned char)cp; /* the file's own bytes (UTF-8) pass through */
    } else {
      if (r->s >= r->end) break;
      char e = *r->s++;
      switch (e) {
        case '"': case '\\': case '/': cp = (unsigned char)e; break;
        case 'b': cp = '\b'; break;
        case 'f': cp = '\f'; break;
        case 'n': cp = '\n'; break;
        case 'r': cp = '\r'; break;
        case 't': cp = '\t'; break;
        case 'u': {
          if (r->end - r->s < 4) return bad(r, "a truncated \\u escape");
          cp = 0;
          for (int d = 0; d < 4; d++) {
            char h = *r->s++;
            int v = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
            if (v < 0) return bad(r, "a \\u escape that is not hexadecimal");
            cp = cp << 4 | (unsigned)v;
          }
          break;
        }
        default: return bad(r, "an unknown escape in a string");
      }
      if (cp < 0x80) { /* an escaped code point in UTF-8 (a lone surrogate kept as it is) */
        buf[k++] = (unsigned char)cp;
      } else if (cp < 0x800) {
        buf[k++] = (unsigned char)(0xC0 | cp >> 6);
        buf[k++] = (unsigned char)(0x80 | (cp & 0x3F));
      } else {
        buf[k++] = (unsigned char)(0xE0 | cp >> 12);
        buf[k++] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        buf[k++] = (unsigned char)(0x80 | (cp & 0x3F));
      }
    }
    if (len + k >= n) return bad(r, "a name longer than this reader takes");
    memcpy(out + len, buf, k);
    len += k;
  }
  if (r->s >= r->end) return bad(r, "a string without its closing quote");
  r->s++;
  out[len] = 0;
  return 1;
}

/* A non-negative integer (sizes and offsets). */
static int integer(reader *r, uint64_t *out) {
  space(r);
  if (r->s >= r->end || *r->s < '0' || *r->s > '9') return bad(r, "a non-negative integer expected");
  uint64_t v = 0;
  while (r->s < r->end && *r->s >= '0' && *r->s <= '9') {
    if (v > (UINT64_MAX - 9) / 10) return bad(r, "an integer too large");
    v = v * 10 + (uint64_t)(*r->s++ - '0');
  }
  *out = v;
  return 1;
}

/* Skips any JSON value (an unknown key's, or __metadata__), nesting at most 64 deep. */
static int skip(reader *r, int depth) {
  if (depth > 64) return bad(r, "nesting too deep");
  space(r);
  if (r->s >= r->end) return bad(r, "a value expected");
  char c = *r->s;
  if (c == '"') {
    char scratch[4096];
    return string(r, scratch, sizeof scratch);
  }
  if (c == '{' || c == '[') {
    char close = c == '{' ? '}' : ']';
    r->s++;
    if (next_is(r, close)) return r->s++, 1;
    for (;;) {
      if (c == '{') {
        char key[4096];
        if (!string(r, key, sizeof key) || !expect(r, ':')) return 0;
      }
      if (!skip(r, depth + 1)) return 0;
      if (next_is(r, ',')) {
        r->s++;
        continue;
      }
      return expect(r, close);
    }
  }
  /* a number, true, false or null */
  const char *from = r->s;
  while (r->s < r->end && (strchr("+-.eE", *r->s) || (*r->s >= '0' && *r->s <= '9') || (*r->s >= 'a' && *r->s <= 'z')))
    r->s++;
  return r->s > from ? 1 : bad(r, "a value expected");
}

static int integers(reader *r, int64_t *out, int max, int *count) {
  if (!expect(r, '[')) return 0;
  *count = 0;
  if (next_is(r, ']')) return r->s++, 1;
  for (;;) {
    uint64_t v;
    if (!integer(r, &v)) return 0;
    if (*count >= max) return bad(r, "more dims than a tensor may have");
    if (v > (uint64_t)INT64_MAX) return bad(r, "an integer too large");
    out[(*count)++] = (int64_t)v;
    if (next_is(r, ',')) {
      r->s++;
      continue;
    }
    return expect(r, ']');
  }
}

static int entry(reader *r, sc_st_tensor *t) {
  int have_dtype = 0, have_shape = 0, have_offsets = 0;
  if (!expect(r, '{')) return 0;
  if (!next_is(r, '}'))
    for (;;) {
      char key[64];
      if (!string(r, key, sizeof key) || !expect(r, ':')) return 0;
      if (strcmp(key, "dtype") == 0) {
        if (!string(r, t->dtype, sizeof t->dtype)) return 0;
        have_dtype = 1;
      } else if (strcmp(key, "shape") == 0) {
        if (!integers(r, t->shape, SC_ST_MAX_DIMS, &t->ndim)) return 0;
        have_shape = 1;
      } else if (strcmp(key, "data_offsets") == 0) {
        int64_t o[2];
        int n;
        if (!integers(r, o, 2, &n)) return 0;
        if (n != 2 || o[1] < o[0]) return bad(r, "data_offsets must be [begin, end] with begin <= end");
        t->begin = (uint64_t)o[0], t->end = (uint64_t)o[1];
        have_offsets = 1;
      } else if (!skip(r, 1)) {
        return 0;
      }
      if (next_is(r, ',')) {
        r->s++;
        continue;
      }
      break;
    }
  if (!expect(r, '}')) return 0;
  if (!have_dtype || !have_shape || !have_offsets) return bad(r, "a tensor without its dtype, shape or data_offsets");
  return 1;
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const sc_st_tensor *)a)->name, ((const sc_st_tensor *)b)->name);
}

int sc_st_index(const unsigned char *file, uint64_t size, sc_st_file *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (size < 8) return sc_rt_fail(err, errlen, "a safetensors file is at least 8 bytes; this one has %llu",
                                  (unsigned long long)size);
  uint64_t n = 0;
  for (int i = 7; i >= 0; i--) n = n << 8 | file[i];
  if (n > size - 8)
    return sc_rt_fail(err, errlen, "the safetensors header says it takes %llu bytes, but the file has %llu after its "
                      "length: truncated, or not a safetensors file", (unsigned long long)n, (unsigned long long)(size - 8));
  reader r = {.s = (const char *)file + 8, .end = (const char *)file + 8 + n, .start = (const char *)file + 8,
              .err = err, .errlen = errlen};
  int cap = 0;
  if (!expect(&r, '{')) return SHAPEC_ERR_WEIGHTS;
  if (!next_is(&r, '}'))
    for (;;) {
      sc_st_tensor t;
      memset(&t, 0, sizeof t);
      if (!string(&r, t.name, sizeof t.name) || !expect(&r, ':')) break;
      if (strcmp(t.name, "__metadata__") == 0) {
        if (!skip(&r, 1)) break;
      } else {
        if (!entry(&r, &t)) break;
        if (t.end > size - 8 - n) {
          sc_rt_fail(err, errlen, "tensor '%s' of the safetensors file ends at byte %llu of its data, past the file's "
                     "%llu: truncated", t.name, (unsigned long long)t.end, (unsigned long long)(size - 8 - n));
          r.failed = 1;
          break;
        }
        t.data = file + 8 + n + t.begin;
        if (out->n == cap) {
          cap = cap ? 2 * cap : 64;
          sc_st_tensor *grown = realloc(out->tensors, (size_t)cap * sizeof *grown);
          if (!grown) {
            sc_rt_fail_memory(err, errlen, (int64_t)cap * (int64_t)sizeof *grown);
            r.failed = 1;
            break;
          }
          out->tensors = grown;
        }
        out->tensors[out->n++] = t;
      }
      if (next_is(&r, ',')) {
        r.s++;
        continue;
      }
      if (!expect(&r, '}')) break;
      break;
    }
  else
    r.s++;
  if (r.failed) {
    sc_st_free(out);
    return SHAPEC_ERR_WEIGHTS;
  }
  if (out->n) qsort(out->tensors, (size_t)out->n, sizeof *out->tensors, by_name);
  for (int i = 1; i < out->n; i++)
    if (strcmp(out->tensors[i - 1].name, out->tensors[i].name) == 0) {
      sc_rt_fail(err, errlen, "the safetensors file names tensor '%s' twice", out->tensors[i].name);
      sc_st_free(out);
      return SHAPEC_ERR_WEIGHTS;
    }
  return SHAPEC_OK;
}

const sc_st_tensor *sc_st_find(const sc_st_file *f, const char *name) {
  sc_st_tensor key;
  if (!f->n || strlen(name) >= sizeof key.name) return NULL;
  snprintf(key.name, sizeof key.name, "%s", name);
  return bsearch(&key, f->tensors, (size_t)f->n, sizeof *f->tensors, by_name);
}

void sc_st_free(sc_st_file *f) {
  free(f->tensors);
  f->tensors = NULL;
  f->n = 0;
}
