/* thread_state.h - what a thread keeps between its calls into the library: its workspace
 * (workspace.c) and its small scratch blocks (support.c).  A thread's state is made on its
 * first use, lives on the heap on a global list, so that what it keeps stays reachable (a
 * leak checker scans globals, not every thread-local block), and is released when the
 * thread exits: its workspace goes to the shared list, its blocks to the system.  The
 * library is linked with -z nodelete, so the exit hook stays mapped. */
#ifndef SC_RT_THREAD_STATE_H
#define SC_RT_THREAD_STATE_H

#include <stddef.h>

#include "kernels.h"

enum { SC_RT_SMALL_BLOCKS = 8 };

typedef struct sc_rt_thread_state {
  sc_rt_ws *ws;                          /* the workspace of the thread's last call, or NULL */
  void *block[SC_RT_SMALL_BLOCKS];       /* small blocks freed by the thread, for its next ones */
  size_t size[SC_RT_SMALL_BLOCKS];
  int n_blocks;
  struct sc_rt_thread_state *prev, *next; /* on the global list */
} sc_rt_thread_state;

/* The calling thread's state: NULL where it has none yet (make: false), or memory or
 * thread keys ran out (make: true). */
sc_rt_thread_state *sc_rt_thread_state_of_caller(bool make);
/* What a thread's exit does with its workspace (workspace.c: the shared list, or freed). */
void sc_rt_ws_share(sc_rt_ws *ws);

#endif
