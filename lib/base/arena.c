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

/* size bytes at the next multiple of align (a power of two) in the head block, or in a new
 * block: objects at 16, strings packed at 1, so a name or a JSON path of 33 bytes takes 33,
 * not 48 (a program of a million nodes holds several million of them).  An allocation
 * larger than a block gets one of its own, behind the head, so the head's free space is
 * not left behind. */
static void *arena_take(sc_arena *arena, size_t size, size_t align) {
  if (size > SIZE_MAX - 15u) sc_fatal_oom();
  if (size > SC_ARENA_BLOCK_SIZE && arena->head) { /* a block of its own, behind the head, which stays in use */
    sc_arena_block *big = sc_xmalloc(sizeof *big + size);
    big->size = big->used = size;
    big->next = arena->head->next;
    arena->head->next = big;
    return big->data;
  }
  sc_arena_block *b = arena->head;
  size_t at = b ? (b->used + align - 1) & ~(align - 1) : 0;
  if (!b || at > b->size || b->size - at < size) {
    size_t cap = size > SC_ARENA_BLOCK_SIZE ? size : SC_ARENA_BLOCK_SIZE;
    b = sc_xmalloc(sizeof *b + cap);
    b->size = cap;
    b->next = arena->head;
    arena->head = b;
    at = 0;
  }
  b->used = at + size;
  return b->data + at;
}

void *sc_arena_alloc(sc_arena *arena, size_t size) {
  void *p = arena_take(arena, size, 16);
  memset(p, 0, size);
  return p;
}

char *sc_arena_strndup(sc_arena *arena, const char *s, size_t n) {
  if (!s) return NULL;
  char *d = arena_take(arena, n + 1, 1);
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
  char *d = arena_take(arena, (size_t)n + 1, 1);
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
