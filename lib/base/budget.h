/* budget.h - how much memory reading one input file may take.
 *
 * Compression and compact encodings let a file of kilobytes ask for gigabytes: a deflated
 * zip member inflates up to 1032 times, a zip inside a zip multiplies that again, one
 * pickle opcode byte builds a value of dozens of bytes, a stride-0 view unpacks one stored
 * element into many.  The readers charge a budget before each such allocation (the
 * inflated bytes of every member, at every zip level; the pickle machine's values; the
 * weights unpacked from their views) and stop with an error past its limit, so that
 * reading takes memory in proportion to the file's size, whatever the file says.
 *
 * The limit is SC_BUDGET_FLOOR + SC_BUDGET_RATIO x the file's size, or the bytes the
 * environment variable SHAPEC_MAX_INPUT_MEMORY gives (an integer with an optional K, M, G
 * or T suffix, powers of 1024).  Header only: lib/base's build lists stay as they are. */
#ifndef SC_BUDGET_H
#define SC_BUDGET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "arena.h"

#define SC_BUDGET_ENV "SHAPEC_MAX_INPUT_MEMORY"
#define SC_BUDGET_FLOOR ((uint64_t)64 << 20)
#define SC_BUDGET_RATIO 32

typedef struct sc_budget {
  uint64_t limit;      /* bytes the reading may take */
  uint64_t used;       /* bytes charged so far */
  uint64_t file_size;  /* the size the default limit came from */
  int source;          /* 0: the default; 1: the environment; -1: the environment's value was not a size */
} sc_budget;

/* A byte count from text: digits, then optionally K, M, G or T (and an optional "iB" or
 * "B"); false for anything else or a value past 2^63. */
static inline bool sc_budget_parse_size(const char *s, uint64_t *out) {
  if (!s || *s < '0' || *s > '9') return false;
  uint64_t v = 0;
  for (; *s >= '0' && *s <= '9'; s++) {
    if (v > (UINT64_MAX / 2 - (uint64_t)(*s - '0')) / 10) return false;
    v = v * 10 + (uint64_t)(*s - '0');
  }
  int shift = 0;
  switch (*s) {
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    case 't': case 'T': shift = 40; break;
    default: break;
  }
  if (shift) {
    s++;
    if (*s == 'i') s++;
    if (*s == 'B') s++;
  } else if (*s == 'B') {
    s++;
  }
  if (*s || v > (UINT64_MAX / 2) >> shift) return false;
  *out = v << shift;
  return true;
}

/* The budget of a file of file_size bytes: the environment's limit when it sets one. */
static inline void sc_budget_init(sc_budget *b, uint64_t file_size) {
  b->used = 0;
  b->file_size = file_size;
  b->source = 0;
  uint64_t ratio_part = file_size > (UINT64_MAX / 4) / SC_BUDGET_RATIO ? UINT64_MAX / 4 : file_size * SC_BUDGET_RATIO;
  b->limit = SC_BUDGET_FLOOR + ratio_part;
  const char *env = getenv(SC_BUDGET_ENV);
  uint64_t v;
  if (env && *env) {
    if (sc_budget_parse_size(env, &v)) {
      b->limit = v;
      b->source = 1;
    } else {
      b->source = -1;
    }
  }
}

/* Charges n bytes: false, charging nothing, when they would pass the limit. */
static inline bool sc_budget_charge(sc_budget *b, uint64_t n) {
  if (n > b->limit || b->used > b->limit - n) return false;
  b->used += n;
  return true;
}

/* n bytes in words: "812 bytes", "4.8 KiB", "64 MiB", "1 GiB". */
static inline const char *sc_budget_bytes(sc_arena *arena, uint64_t n) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (n < 1024) return sc_arena_printf(arena, "%llu bytes", (unsigned long long)n);
  int u = 0;
  while (u < 5 && n >> (10 * (u + 2))) u++;
  uint64_t unit = (uint64_t)1 << (10 * (u + 1));
  if (n % unit == 0) return sc_arena_printf(arena, "%llu %s", (unsigned long long)(n / unit), units[u]);
  return sc_arena_printf(arena, "%.1f %s", (double)n / (double)unit, units[u]);
}

/* The limit, where it comes from and what is taken, for an error message: "64.1 MiB (64 MiB
 * + 32 x the file's 4.8 KiB; 1 MiB already taken)", "2 GiB (SHAPEC_MAX_INPUT_MEMORY; ...)". */
static inline const char *sc_budget_describe(sc_arena *arena, const sc_budget *b) {
  const char *taken = sc_budget_bytes(arena, b->used);
  if (b->source == 1)
    return sc_arena_printf(arena, "%s (%s; %s already taken)", sc_budget_bytes(arena, b->limit), SC_BUDGET_ENV, taken);
  return sc_arena_printf(arena, "%s (%s + %d x the file's %s; %s already taken%s)", sc_budget_bytes(arena, b->limit),
                         sc_budget_bytes(arena, SC_BUDGET_FLOOR), SC_BUDGET_RATIO, sc_budget_bytes(arena, b->file_size),
                         taken, b->source < 0 ? "; " SC_BUDGET_ENV " is not a size and was ignored" : "");
}

/* The hint of a budget error: how to raise the limit. */
static inline const char *sc_budget_hint(sc_arena *arena, const sc_budget *b, uint64_t wanted) {
  uint64_t need = b->used + wanted;
  if (need < b->used) need = UINT64_MAX / 2;
  uint64_t gib = (need >> 30) + 1;
  return sc_arena_printf(arena, "a file this small cannot honestly hold that much (damaged or crafted?); if it does, "
                                "raise the limit: %s=%lluG", SC_BUDGET_ENV, (unsigned long long)gib);
}

#endif
