/* arena.h - bump allocator that owns every IR object of one compilation.
 *
 * Objects are never freed one by one: the whole arena goes at once when the
 * context is freed.  Allocation failure is the one fatal condition in shapec
 * (see sc_fatal_oom): it prints a message and exits with code 4. */
#ifndef SC_ARENA_H
#define SC_ARENA_H

#include <stdarg.h>
#include <stddef.h>

typedef struct sc_arena_block sc_arena_block;

typedef struct sc_arena {
  sc_arena_block *head;
} sc_arena;

/* Returns zeroed memory aligned to 16 bytes, owned by the arena. */
void *sc_arena_alloc(sc_arena *arena, size_t size);
/* Returns a copy of s (which may be NULL, giving NULL). */
char *sc_arena_strdup(sc_arena *arena, const char *s);
char *sc_arena_strndup(sc_arena *arena, const char *s, size_t n);
char *sc_arena_printf(sc_arena *arena, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
char *sc_arena_vprintf(sc_arena *arena, const char *fmt, va_list ap);
/* Gives back an allocation bigger than the arena's blocks (those get a block of their own,
 * like a hash table that grew); smaller ones stay until the arena goes. */
void sc_arena_release(sc_arena *arena, void *p);
void sc_arena_free(sc_arena *arena);

/* Heap helpers that never return NULL. */
void *sc_xmalloc(size_t size);
void *sc_xcalloc(size_t n, size_t size);
void *sc_xrealloc(void *p, size_t size);
_Noreturn void sc_fatal_oom(void);

#endif
