/* json_locate.c - a JSON path's line and column in its text; see json_locate.h. */
#include "json_locate.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct scan {
  const char *p, *end;
  int depth;
} scan;

static void skip_ws(scan *s) {
  while (s->p < s->end && isspace((unsigned char)*s->p)) s->p++;
}

/* Past a string starting at its quote; false when unterminated. */
static bool skip_string(scan *s) {
  if (s->p >= s->end || *s->p != '"') return false;
  for (s->p++; s->p < s->end; s->p++) {
    if (*s->p == '\\') s->p++;
    else if (*s->p == '"') {
      s->p++;
      return true;
    }
  }
  return false;
}

static bool skip_value(scan *s) {
  skip_ws(s);
  if (s->p >= s->end || ++s->depth > 512) return false;
  bool ok = true;
  if (*s->p == '"') {
    ok = skip_string(s);
  } else if (*s->p == '{' || *s->p == '[') {
    char close = *s->p == '{' ? '}' : ']';
    bool object = close == '}';
    s->p++;
    skip_ws(s);
    if (s->p < s->end && *s->p == close) s->p++;
    else
      for (;;) {
        if (object) {
          skip_ws(s);
          if (!skip_string(s)) return false;
          skip_ws(s);
          if (s->p >= s->end || *s->p++ != ':') return false;
        }
        if (!skip_value(s)) return false;
        skip_ws(s);
        if (s->p < s->end && *s->p == ',') {
          s->p++;
          continue;
        }
        if (s->p < s->end && *s->p == close) {
          s->p++;
          break;
        }
        return false;
      }
  } else {
    while (s->p < s->end && !strchr(",}] \t\r\n", *s->p)) s->p++;
  }
  s->depth--;
  return ok;
}

/* The member `key` of the object at s->p: s->p is left at its value. */
static bool find_key(scan *s, const char *key, size_t key_len) {
  skip_ws(s);
  if (s->p >= s->end || *s->p != '{') return false;
  s->p++;
  for (;;) {
    skip_ws(s);
    const char *k = s->p + 1;
    if (!skip_string(s)) return false;
    size_t n = (size_t)(s->p - 1 - k);
    skip_ws(s);
    if (s->p >= s->end || *s->p++ != ':') return false;
    skip_ws(s);
    if (n == key_len && memcmp(k, key, n) == 0) return true;
    if (!skip_value(s)) return false;
    skip_ws(s);
    if (s->p >= s->end || *s->p++ != ',') return false;
  }
}

/* Element i of the array at s->p. */
static bool find_index(scan *s, long i) {
  skip_ws(s);
  if (s->p >= s->end || *s->p != '[') return false;
  s->p++;
  for (long k = 0; k < i; k++) {
    if (!skip_value(s)) return false;
    skip_ws(s);
    if (s->p >= s->end || *s->p++ != ',') return false;
  }
  skip_ws(s);
  return s->p < s->end && *s->p != ']';
}

bool sc_json_locate(const char *text, size_t len, const char *path, int *line, int *col) {
  scan s = {text, text + len, 0};
  const char *at = path;
  while (*at) {
    if (*at == '[') {
      char *stop;
      long i = strtol(at + 1, &stop, 10);
      if (*stop != ']' || i < 0 || !find_index(&s, i)) return false;
      at = stop + 1;
    } else {
      size_t n = strcspn(at, ".[");
      if (!find_key(&s, at, n)) return false;
      at += n;
    }
    if (*at == '.') at++;
  }
  skip_ws(&s);
  *line = 1;
  *col = 1;
  for (const char *c = text; c < s.p; c++) {
    if (*c == '\n') (*line)++, *col = 1;
    else (*col)++;
  }
  return true;
}

/* The text of a plain JSON file of at most 16 MB, or NULL. */
static char *small_json_file(const char *file, size_t *len) {
  FILE *f = file ? fopen(file, "rb") : NULL;
  if (!f) return NULL;
  char *text = NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    long n = ftell(f);
    if (n > 0 && n <= (16L << 20) && fseek(f, 0, SEEK_SET) == 0) {
      text = malloc((size_t)n);
      if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
      }
      *len = (size_t)n;
    }
  }
  fclose(f);
  if (text) { /* JSON begins with an object or an array */
    size_t i = 0;
    while (i < *len && isspace((unsigned char)text[i])) i++;
    if (i == *len || (text[i] != '{' && text[i] != '[')) {
      free(text);
      text = NULL;
    }
  }
  return text;
}

/* The files read so far: many diagnostics name the same file. */
typedef struct file_cache {
  const char *names[8];
  char *texts[8];
  size_t lens[8];
  int n;
} file_cache;

static const char *cached_text(file_cache *c, const char *file, size_t *len) {
  if (!file) return NULL;
  for (int i = 0; i < c->n; i++)
    if (strcmp(c->names[i], file) == 0) {
      *len = c->lens[i];
      return c->texts[i];
    }
  char *text = small_json_file(file, len);
  if (c->n < 8) {
    c->names[c->n] = file;
    c->texts[c->n] = text;
    c->lens[c->n++] = *len;
  } else {
    free(c->texts[7]); /* the last slot turns over */
    c->names[7] = file;
    c->texts[7] = text;
    c->lens[7] = *len;
  }
  return text;
}

/* Each lookup scans its file from the start: past this many diagnostics, the rest keep their
 * JSON paths only, so that thousands of warnings on a 16 MB file stay cheap. */
enum { MAX_LOCATED = 100 };

void sc_diags_locate(sc_ctx *ctx) {
  file_cache cache = {0};
  for (size_t i = 0; i < ctx->diags.n_items && i < MAX_LOCATED; i++) {
    sc_diag *d = &ctx->diags.items[i];
    size_t len = 0;
    if (d->path && d->line == 0) {
      const char *text = cached_text(&cache, d->file, &len);
      if (text) sc_json_locate(text, len, d->path, &d->line, &d->column);
    }
    if (!d->n_edit_paths) continue;
    const char *text = cached_text(&cache, d->edit_file, &len);
    d->edit_lines = sc_arena_alloc(ctx->diags.arena, d->n_edit_paths * sizeof *d->edit_lines);
    d->edit_cols = sc_arena_alloc(ctx->diags.arena, d->n_edit_paths * sizeof *d->edit_cols);
    for (size_t k = 0; k < d->n_edit_paths; k++) {
      d->edit_lines[k] = d->edit_cols[k] = 0;
      if (text) sc_json_locate(text, len, d->edit_paths[k], &d->edit_lines[k], &d->edit_cols[k]);
    }
  }
  for (int i = 0; i < cache.n; i++) free(cache.texts[i]);
}
