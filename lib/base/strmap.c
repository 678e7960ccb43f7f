/* strmap.c - open-addressing string map; see strmap.h. */
#include "strmap.h"

#include <string.h>

uint64_t sc_hash_bytes(const void *data, size_t n, uint64_t seed) {
  /* FNV-1a: small, deterministic, good enough for names and expression nodes. */
  const unsigned char *p = data;
  uint64_t h = 1469598103934665603ull ^ seed;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

void sc_strmap_init(sc_strmap *map, sc_arena *arena) {
  memset(map, 0, sizeof *map);
  map->arena = arena;
}

static sc_strmap_entry *strmap_find(const sc_strmap *map, const char *key) {
  size_t mask = map->n_slots - 1;
  size_t i = sc_hash_bytes(key, strlen(key), 0) & mask;
  for (;;) {
    sc_strmap_entry *e = &map->slots[i];
    if (!e->key || strcmp(e->key, key) == 0) return e;
    i = (i + 1) & mask;
  }
}

void *sc_strmap_get(const sc_strmap *map, const char *key) {
  if (!map->n_slots) return NULL;
  sc_strmap_entry *e = strmap_find(map, key);
  return e->key ? e->value : NULL;
}

static void strmap_grow(sc_strmap *map) {
  sc_strmap old = *map;
  map->n_slots = old.n_slots ? old.n_slots * 2 : 16;
  map->slots = sc_arena_alloc(map->arena, map->n_slots * sizeof *map->slots);
  map->n_items = 0;
  for (size_t i = 0; i < old.n_slots; i++)
    if (old.slots[i].key) sc_strmap_put(map, old.slots[i].key, old.slots[i].value);
  if (old.slots) sc_arena_release(map->arena, old.slots);
}

void sc_strmap_release(sc_strmap *map) {
  if (map->slots) sc_arena_release(map->arena, map->slots);
  sc_strmap_init(map, map->arena);
}

bool sc_strmap_put(sc_strmap *map, const char *key, void *value) {
  if ((map->n_items + 1) * 2 > map->n_slots) strmap_grow(map);
  sc_strmap_entry *e = strmap_find(map, key);
  if (e->key) return false;
  e->key = key;
  e->value = value;
  map->n_items++;
  return true;
}
