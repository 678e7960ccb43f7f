/* thread_slot.h - memory a thread keeps between its calls into the library.
 *
 * A kind of slot (the workspace of workspace.c, the small blocks of support.c) gives a
 * payload size and what a thread's exit does with the payload.  A thread's slot is made on
 * its first use: on the heap and on a global list, so that what it keeps stays reachable (a
 * leak checker scans globals, not every thread-local block).  When the thread exits, the
 * kind's at_thread_exit empties the payload and the slot is freed.  The library is linked
 * with -z nodelete, so the exit hook stays mapped.  Each user keeps its own thread-local
 * pointer to its payload for the fast path; this file is only the slow one. */
#ifndef SC_RT_THREAD_SLOT_H
#define SC_RT_THREAD_SLOT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct sc_rt_slot;

typedef struct sc_rt_slot_kind {
  size_t payload_bytes;
  void (*at_thread_exit)(void *payload); /* runs on the exiting thread */
  /* kept by thread_slot.c */
  pthread_key_t key;
  bool key_made;
  struct sc_rt_slot *live; /* every thread's slot of this kind */
} sc_rt_slot_kind;

#define SC_RT_SLOT_KIND(payload_type, exit_fn) {sizeof(payload_type), (exit_fn), 0, false, NULL}

/* The calling thread's new slot of `kind`, zeroed: its payload, or NULL where memory or
 * thread keys ran out (the caller then does without). */
void *sc_rt_slot_make(sc_rt_slot_kind *kind);

#endif
