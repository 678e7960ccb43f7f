/* json_document.c - skeleton plus members read one at a time; see json_document.h. */
#include "json_document.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define NOT_FOUND ((size_t)-1)

/* The structural scan.  It only finds where things are; cJSON validates every value
 * later (the skeleton and each member), so the scan may be lenient inside values but
 * must be strict about the separators it steps over, giving up (`failed`) on anything
 * a whole parse would report. */
typedef struct scan {
  const char *t;
  size_t len;
  bool failed;
  const char *const *paths;
  sc_json_container *containers;
  size_t *open_at;           /* per container: offset of its '[' or '{', NOT_FOUND before it is seen */
  size_t *close_at;          /* offset of its closing bracket */
} scan;

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static size_t skip_space(const scan *s, size_t i) {
  while (i < s->len && is_space(s->t[i])) i++;
  return i;
}

/* i at an opening quote; returns the offset after the closing one. */
static size_t skip_string(scan *s, size_t i) {
  for (i++; i < s->len; i++) {
    if (s->t[i] == '\\') i++;
    else if (s->t[i] == '"') return i + 1;
  }
  s->failed = true;
  return s->len;
}

/* i at the start of a value nested `depth` levels deep; returns the offset after it. */
static size_t skip_value(scan *s, size_t i, int depth) {
  if (i >= s->len) {
    s->failed = true;
    return s->len;
  }
  char c = s->t[i];
  if (c == '"') return skip_string(s, i);
  if (c == '{' || c == '[') {
    int level = 0;
    for (; i < s->len; i++) {
      char k = s->t[i];
      if (k == '"') {
        i = skip_string(s, i) - 1;
      } else if (k == '{' || k == '[') {
        if (depth + ++level > SC_JSON_MAX_DEPTH) break;
      } else if ((k == '}' || k == ']') && --level == 0) {
        return i + 1;
      }
    }
    s->failed = true;
    return s->len;
  }
  /* a scalar: up to the next separator */
  size_t start = i;
  while (i < s->len && !is_space(s->t[i]) && s->t[i] != ',' && s->t[i] != '}' && s->t[i] != ']' && s->t[i] != ':')
    i++;
  if (i == start) s->failed = true;
  return i;
}

static void add_member(sc_json_container *c, size_t *cap, sc_json_member m) {
  if (c->n_members == *cap) {
    *cap = *cap ? *cap * 2 : 256;
    c->members = sc_xrealloc(c->members, *cap * sizeof *c->members);
  }
  c->members[c->n_members++] = m;
}

/* i at the '[' or '{' of a container to defer, `depth` levels deep; records its members
 * and returns the offset after it. */
static size_t split_container(scan *s, size_t i, int depth, sc_json_container *c) {
  bool object = s->t[i] == '{';
  char close = object ? '}' : ']';
  size_t cap = 0;
  if (depth + 1 > SC_JSON_MAX_DEPTH) s->failed = true;
  i = skip_space(s, i + 1);
  if (i < s->len && s->t[i] == close) return i + 1;
  while (!s->failed) {
    sc_json_member m = {0, 0, 0, 0};
    if (object) {
      if (i >= s->len || s->t[i] != '"') break;
      m.key_start = i;
      m.key_end = skip_string(s, i);
      /* keys are copied without decoding: an escaped one goes the whole-parse way */
      for (size_t k = m.key_start + 1; k + 1 < m.key_end; k++)
        if (s->t[k] == '\\' || (unsigned char)s->t[k] < 0x20) s->failed = true;
      i = skip_space(s, m.key_end);
      if (i >= s->len || s->t[i] != ':') break;
      i = skip_space(s, i + 1);
    }
    m.start = i;
    m.end = skip_value(s, i, depth + 1);
    if (s->failed) break;
    add_member(c, &cap, m);
    i = skip_space(s, m.end);
    if (i < s->len && s->t[i] == close) return i + 1;
    if (i >= s->len || s->t[i] != ',') break;
    i = skip_space(s, i + 1);
  }
  s->failed = true;
  return s->len;
}

/* Which requested path `prefix.key` is (exactly: returns its index) or begins (returns -2),
 * or -1. */
static int match_path(const scan *s, const char *prefix, size_t prefix_len, const char *key, size_t key_len) {
  int begins = -1;
  for (int p = 0; s->paths[p]; p++) {
    const char *path = s->paths[p];
    size_t n = strlen(path);
    size_t full = prefix_len + (prefix_len ? 1 : 0) + key_len;
    if (n < full || memcmp(path, prefix, prefix_len) != 0) continue;
    const char *rest = path + prefix_len;
    if (prefix_len) {
      if (*rest != '.') continue;
      rest++;
    }
    if (memcmp(rest, key, key_len) != 0) continue;
    if (rest[key_len] == '\0') return p;
    if (rest[key_len] == '.') begins = -2;
  }
  return begins;
}

/* i at the '{' of an object at dotted path `prefix`; walks its members, descending into
 * those that lead to a requested path.  Returns the offset after the object. */
static size_t walk_object(scan *s, size_t i, int depth, char *prefix, size_t prefix_len) {
  if (depth + 1 > SC_JSON_MAX_DEPTH) s->failed = true;
  i = skip_space(s, i + 1);
  if (i < s->len && s->t[i] == '}') return i + 1;
  while (!s->failed) {
    if (i >= s->len || s->t[i] != '"') break;
    size_t key_start = i + 1, key_end = skip_string(s, i);
    i = skip_space(s, key_end);
    if (i >= s->len || s->t[i] != ':') break;
    i = skip_space(s, i + 1);
    if (i >= s->len) break;
    int which = match_path(s, prefix, prefix_len, s->t + key_start, key_end - 1 - key_start);
    char c = s->t[i];
    if (which >= 0 && (c == '[' || c == '{') && s->open_at[which] == NOT_FOUND) {
      s->open_at[which] = i;
      i = split_container(s, i, depth + 1, &s->containers[which]);
      s->close_at[which] = i - 1;
    } else if (which == -2 && c == '{' && prefix_len + key_end - key_start + 1 < 256) {
      size_t n = prefix_len;
      if (n) prefix[n++] = '.';
      memcpy(prefix + n, s->t + key_start, key_end - 1 - key_start);
      n += key_end - 1 - key_start;
      prefix[n] = '\0';
      i = walk_object(s, i, depth + 1, prefix, n);
      prefix[prefix_len] = '\0';
    } else {
      i = skip_value(s, i, depth + 1);
    }
    if (s->failed) break;
    i = skip_space(s, i);
    if (i < s->len && s->t[i] == '}') return i + 1;
    if (i >= s->len || s->t[i] != ',') break;
    i = skip_space(s, i + 1);
  }
  s->failed = true;
  return s->len;
}

static void free_members(sc_json_container *cs, size_t n) {
  for (size_t k = 0; k < n; k++) {
    free(cs[k].members);
    cs[k] = (sc_json_container){0};
  }
}

/* The skeleton: the text with every deferred container's contents cut out, and where its
 * pieces lie in the document.  Containers are found in document order of `open_at`. */
static char *cut_containers(const scan *s, size_t n, size_t *out_len, sc_json_segment *segments, size_t *n_segments) {
  size_t order[8], k = 0;
  for (size_t p = 0; p < n; p++)
    if (s->open_at[p] != NOT_FOUND) order[k++] = p;
  for (size_t a = 1; a < k; a++) /* insertion sort: at most a few containers */
    for (size_t b = a; b > 0 && s->open_at[order[b]] < s->open_at[order[b - 1]]; b--) {
      size_t t = order[b];
      order[b] = order[b - 1];
      order[b - 1] = t;
    }
  char *out = sc_xmalloc(s->len + 1);
  size_t o = 0, from = 0;
  *n_segments = 0;
  for (size_t j = 0; j < k; j++) {
    size_t open = s->open_at[order[j]], close = s->close_at[order[j]];
    segments[(*n_segments)++] = (sc_json_segment){o, from};
    memcpy(out + o, s->t + from, open + 1 - from);
    o += open + 1 - from;
    from = close;
  }
  segments[(*n_segments)++] = (sc_json_segment){o, from};
  memcpy(out + o, s->t + from, s->len - from);
  o += s->len - from;
  out[o] = '\0';
  *out_len = o;
  return out;
}

bool sc_json_document_parse(sc_json_document *doc, sc_ctx *ctx, const char *file, const char *text, size_t len,
                            const sc_file_view *view, const char *const *paths) {
  size_t n = 0;
  while (paths[n]) n++;
  assert(n <= 8 && "a few big containers, not more");
  *doc = (sc_json_document){.ctx = ctx, .file = file, .text = text, .len = len, .n_containers = n, .view = view};
  doc->containers = sc_xcalloc(n ? n : 1, sizeof *doc->containers);
  size_t open_at[8], close_at[8];
  for (size_t p = 0; p < n; p++) open_at[p] = close_at[p] = NOT_FOUND;
  scan s = {.t = text, .len = len, .paths = paths, .containers = doc->containers, .open_at = open_at,
            .close_at = close_at};
  size_t i = skip_space(&s, 0);
  char prefix[256] = "";
  if (i < len && text[i] == '{') {
    i = walk_object(&s, i, 0, prefix, 0);
    if (skip_space(&s, i) != len) s.failed = true;
  } else {
    s.failed = true;
  }
  bool any = false;
  for (size_t p = 0; p < n; p++) any |= open_at[p] != NOT_FOUND;
  if (s.failed || !any) {
    free_members(doc->containers, n);
    doc->root = sc_json_parse(ctx, file, text, len);
  } else {
    sc_json_segment segments[9];
    size_t n_segments, skeleton_len;
    char *skeleton = cut_containers(&s, n, &skeleton_len, segments, &n_segments);
    sc_json_origin origin = {.doc = text, .doc_len = len, .segments = segments, .n_segments = n_segments};
    doc->root = sc_json_parse_in(ctx, file, skeleton, skeleton_len, &origin);
    free(skeleton);
    for (size_t p = 0; p < n; p++) {
      doc->containers[p].deferred = open_at[p] != NOT_FOUND;
      if (doc->containers[p].deferred) sc_file_view_forget(view, open_at[p], close_at[p]);
    }
  }
  if (!doc->root) {
    sc_json_document_free(doc);
    return false;
  }
  return true;
}

cJSON *sc_json_document_member(const sc_json_document *doc, const sc_json_container *c, size_t i) {
  const sc_json_member *m = &c->members[i];
  sc_json_segment at = {0, m->start};
  sc_json_origin origin = {.doc = doc->text, .doc_len = doc->len, .segments = &at, .n_segments = 1};
  cJSON *item = sc_json_parse_in(doc->ctx, doc->file, doc->text + m->start, m->end - m->start, &origin);
  if (item && m->key_end) {
    size_t n = m->key_end - m->key_start - 2;
    item->string = sc_xmalloc(n + 1);
    memcpy(item->string, doc->text + m->key_start + 1, n);
    item->string[n] = '\0';
  }
  sc_file_view_forget(doc->view, m->key_end ? m->key_start : m->start, m->end);
  return item;
}

void sc_json_document_free(sc_json_document *doc) {
  cJSON_Delete(doc->root);
  if (doc->containers) free_members(doc->containers, doc->n_containers);
  free(doc->containers);
  *doc = (sc_json_document){0};
}
