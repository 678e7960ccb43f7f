/* arena.c - bump allocator; see arena.h. */
#include "arena.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SC_ARENA_BLOCK_SIZE (64u * 1024u)

struct sc_arena_block {
  sc_arena_block *next;
  size_t used;
  size_t size;
  _Alignas(16) unsigned char data[];
};

_Noreturn void sc_fatal_oom(void) {
  fputs("shapec: fatal: out of memory\n", stderr);
  exit(4);
}

void *sc_xmalloc(size_t size) {
  void *p = malloc(size ? size : 1);
  if (!p) sc_fatal_oom();
  return p;
}

void *sc_xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) sc_fatal_oom();
  return p;
}

void *sc_xrealloc(void *p, size_t size) {
  void *q = realloc(p, size ? size : 1);
  if (!q) sc_fatal_oom();
  return q;
}

void *sc_arena_alloc(sc_arena *arena, size_t size) {
  size_t rounded = (size + 15u) & ~(size_t)15u;
  if (rounded < size) sc_fatal_oom();
  sc_arena_block *b = arena->head;
  if (!b || b->size - b->used < rounded) {
    size_t cap = rounded > SC_ARENA_BLOCK_SIZE ? rounded : SC_ARENA_BLOCK_SIZE;
    b = sc_xmalloc(sizeof *b + cap);
    b->size = cap;
    b->used = 0;
    b->next = arena->head;
    arena->head = b;
  }
  void *p = b->data + b->used;
  b->used += rounded;
  memset(p, 0, size);
  return p;
}

char *sc_arena_strndup(sc_arena *arena, const char *s, size_t n) {
  if (!s) return NULL;
  char *d = sc_arena_alloc(arena, n + 1);
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

char *sc_arena_strdup(sc_arena *arena, const char *s) {
  return s ? sc_arena_strndup(arena, s, strlen(s)) : NULL;
}

char *sc_arena_vprintf(sc_arena *arena, const char *fmt, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  int n = vsnprintf(NULL, 0, fmt, copy);
  va_end(copy);
  if (n < 0) n = 0;
  char *d = sc_arena_alloc(arena, (size_t)n + 1);
  vsnprintf(d, (size_t)n + 1, fmt, ap);
  return d;
}

char *sc_arena_printf(sc_arena *arena, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *d = sc_arena_vprintf(arena, fmt, ap);
  va_end(ap);
  return d;
}

void sc_arena_release(sc_arena *arena, void *p) {
  for (sc_arena_block **link = &arena->head; *link; link = &(*link)->next) {
    sc_arena_block *b = *link;
    if ((void *)b->data == p) {
      if (b->size > SC_ARENA_BLOCK_SIZE) {
        *link = b->next;
        free(b);
      }
      return;
    }
  }
}

void sc_arena_free(sc_arena *arena) {
  sc_arena_block *b = arena->head;
  while (b) {
    sc_arena_block *next = b->next;
    free(b);
    b = next;
  }
  arena->head = NULL;
}
