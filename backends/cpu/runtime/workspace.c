/* workspace.c - the memory a call computes in.
 *
 * A workspace is a list of regions; the export decided which of the call's buffers share
 * which region (backends/llvm/cg_workspace.c).  A region is one block that grows to the
 * largest size a call asks of it and then stays, so calls at shapes seen before touch no
 * allocator and no fresh page.  Each call holds a workspace of its own from entry to exit;
 * each thread keeps its own between its calls, a few more are shared (enough for that
 * many callers whose threads come and go), and a caller that finds none makes one.
 * shapec_model_release_workspace frees the shared ones and the calling thread's. */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "kernels.h"
#include "thread_slot.h"

struct sc_rt_ws {
  int64_t n;       /* regions */
  void **block;    /* per region: its block, or NULL */
  int64_t *bytes;  /* per region: what its block holds */
};

enum { KEPT = 8 };
static _Atomic(sc_rt_ws *) kept[KEPT];

static void destroy(sc_rt_ws *ws) {
  for (int64_t r = 0; r < ws->n; r++) free(ws->block[r]);
  free(ws->block);
  free(ws->bytes);
  free(ws);
}

/* Makes room for `regions` regions; false when memory runs out (ws is unchanged). */
static bool reserve(sc_rt_ws *ws, int64_t regions) {
  if (regions <= ws->n) return true;
  if (regions > INT64_MAX / 16) return false;
  void **block = realloc(ws->block, (size_t)regions * sizeof *block);
  if (!block) return false;
  ws->block = block;
  int64_t *bytes = realloc(ws->bytes, (size_t)regions * sizeof *bytes);
  if (!bytes) return false;
  ws->bytes = bytes;
  for (int64_t r = ws->n; r < regions; r++) {
    block[r] = NULL;
    bytes[r] = 0;
  }
  ws->n = regions;
  return true;
}

static void share(sc_rt_ws *ws) {
  for (int i = 0; i < KEPT; i++) {
    sc_rt_ws *none = NULL;
    if (atomic_compare_exchange_strong(&kept[i], &none, ws)) return;
  }
  destroy(ws);
}

/* The calling thread's workspace between its calls, taken and given back without the
 * shared list's two locked instructions (8% of a tiny encoder layer's call), in a slot of
 * the thread's (thread_slot.h); when the thread exits, it goes to the shared list. */
typedef struct {
  sc_rt_ws *ws;
} ws_slot;
static __thread ws_slot *mine;

static void ws_slot_at_thread_exit(void *payload) {
  ws_slot *s = payload;
  if (s->ws) share(s->ws);
  mine = NULL;
}
static sc_rt_slot_kind ws_slots = SC_RT_SLOT_KIND(ws_slot, ws_slot_at_thread_exit);

/* The calling thread's slot, made on its first call; NULL when memory or keys run out. */
static ws_slot *my_slot(void) {
  if (!mine) mine = sc_rt_slot_make(&ws_slots);
  return mine;
}

sc_rt_ws *sc_rt_ws_acquire(int64_t regions) {
  sc_rt_ws *ws = NULL;
  if (mine) {
    ws = mine->ws;
    mine->ws = NULL;
  }
  for (int i = 0; !ws && i < KEPT; i++)
    if (atomic_load_explicit(&kept[i], memory_order_relaxed)) ws = atomic_exchange(&kept[i], NULL); /* NULL: another caller took it first */
  if (ws) {
    if (reserve(ws, regions)) return ws;
    destroy(ws);
    return NULL;
  }
  ws = calloc(1, sizeof *ws);
  if (ws && !reserve(ws, regions)) {
    destroy(ws);
    return NULL;
  }
  return ws;
}

void *sc_rt_ws_take(sc_rt_ws *ws, int64_t region, int64_t bytes) {
  if (region < 0 || region >= ws->n || bytes < 0 || bytes > INT64_MAX - 4096) return NULL;
  if (ws->block[region] && ws->bytes[region] >= bytes) return ws->block[region];
  /* the region's earlier buffer is dead (the plan says so): its contents need not move */
  free(ws->block[region]);
  int64_t n = bytes ? (bytes + 63) / 64 * 64 : 64;
  ws->block[region] = aligned_alloc(64, (size_t)n);
  ws->bytes[region] = ws->block[region] ? n : 0;
  return ws->block[region];
}

void sc_rt_ws_release(sc_rt_ws *ws) {
  if (!ws) return;
  ws_slot *t = my_slot();
  if (!t || t->ws) {
    share(ws);
    return;
  }
  t->ws = ws;
}

void sc_rt_ws_free_kept(void) {
  if (mine && mine->ws) destroy(mine->ws);
  if (mine) mine->ws = NULL;
  for (int i = 0; i < KEPT; i++) {
    sc_rt_ws *ws = atomic_exchange(&kept[i], NULL);
    if (ws) destroy(ws);
  }
}
