/* strbuf.h - growable heap string used by printers and writers. */
#ifndef SC_STRBUF_H
#define SC_STRBUF_H

#include <stddef.h>

typedef struct sc_strbuf {
  char *data; /* always NUL-terminated once anything was appended */
  size_t len;
  size_t cap;
} sc_strbuf;

void sc_strbuf_append(sc_strbuf *sb, const char *s);
void sc_strbuf_append_n(sc_strbuf *sb, const char *s, size_t n);
void sc_strbuf_printf(sc_strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends s as a JSON string literal, quotes included. */
void sc_strbuf_append_json_string(sc_strbuf *sb, const char *s);
/* Returns the contents ("" when empty); the buffer keeps ownership. */
const char *sc_strbuf_cstr(sc_strbuf *sb);
void sc_strbuf_free(sc_strbuf *sb);

#endif
