/* strbuf.c - growable heap string; see strbuf.h. */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "arena.h"

static void strbuf_reserve(sc_strbuf *sb, size_t extra) {
  size_t need = sb->len + extra + 1;
  if (need <= sb->cap) return;
  size_t cap = sb->cap ? sb->cap : 64;
  while (cap < need) cap *= 2;
  sb->data = sc_xrealloc(sb->data, cap);
  sb->cap = cap;
}

void sc_strbuf_append_n(sc_strbuf *sb, const char *s, size_t n) {
  strbuf_reserve(sb, n);
  memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

void sc_strbuf_append(sc_strbuf *sb, const char *s) { sc_strbuf_append_n(sb, s, strlen(s)); }

void sc_strbuf_printf(sc_strbuf *sb, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  va_list copy;
  va_copy(copy, ap);
  int n = vsnprintf(NULL, 0, fmt, copy);
  va_end(copy);
  if (n > 0) {
    strbuf_reserve(sb, (size_t)n);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
  }
  va_end(ap);
}

void sc_strbuf_append_json_string(sc_strbuf *sb, const char *s) {
  sc_strbuf_append(sb, "\"");
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
      case '"': sc_strbuf_append(sb, "\\\""); break;
      case '\\': sc_strbuf_append(sb, "\\\\"); break;
      case '\n': sc_strbuf_append(sb, "\\n"); break;
      case '\r': sc_strbuf_append(sb, "\\r"); break;
      case '\t': sc_strbuf_append(sb, "\\t"); break;
      default:
        if (*p < 0x20) sc_strbuf_printf(sb, "\\u%04x", *p);
        else sc_strbuf_append_n(sb, (const char *)p, 1);
    }
  }
  sc_strbuf_append(sb, "\"");
}

const char *sc_strbuf_cstr(sc_strbuf *sb) { return sb->data ? sb->data : ""; }

void sc_strbuf_free(sc_strbuf *sb) {
  free(sb->data);
  sb->data = NULL;
  sb->len = sb->cap = 0;
}
