/* strmap.h - string-keyed hash map living in an arena (names to IR objects). */
#ifndef SC_STRMAP_H
#define SC_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"

typedef struct sc_strmap_entry {
  const char *key;
  void *value;
} sc_strmap_entry;

typedef struct sc_strmap {
  sc_arena *arena;
  sc_strmap_entry *slots;
  size_t n_slots; /* a power of two, or 0 */
  size_t n_items;
} sc_strmap;

void sc_strmap_init(sc_strmap *map, sc_arena *arena);
/* Returns the value stored under key, or NULL. */
void *sc_strmap_get(const sc_strmap *map, const char *key);
/* Stores value under key unless the key exists; returns false if it did. The key is not copied. */
bool sc_strmap_put(sc_strmap *map, const char *key, void *value);
/* Gives the table back to the arena when it can (a map used only while reading). */
void sc_strmap_release(sc_strmap *map);
uint64_t sc_hash_bytes(const void *data, size_t n, uint64_t seed);

#endif
