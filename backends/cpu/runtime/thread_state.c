/* thread_state.c - what a thread keeps between its calls into the library (see
 * thread_state.h). */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "thread_state.h"

static __thread sc_rt_thread_state *caller;
static sc_rt_thread_state *states;
static pthread_mutex_t states_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t state_key;
static pthread_once_t state_key_once = PTHREAD_ONCE_INIT;

static void at_thread_exit(void *arg) {
  sc_rt_thread_state *t = arg;
  pthread_mutex_lock(&states_lock);
  if (t->prev) t->prev->next = t->next;
  else states = t->next;
  if (t->next) t->next->prev = t->prev;
  pthread_mutex_unlock(&states_lock);
  if (t->ws) sc_rt_ws_share(t->ws);
  for (int i = 0; i < t->n_blocks; i++) free(t->block[i]);
  free(t);
  caller = NULL;
}

/* After fork() the child may inherit the lock held by a thread that no longer exists. */
static void reset_lock_in_child(void) { pthread_mutex_init(&states_lock, NULL); }

static void make_key(void) {
  pthread_key_create(&state_key, at_thread_exit);
  pthread_atfork(NULL, NULL, reset_lock_in_child);
}

sc_rt_thread_state *sc_rt_thread_state_of_caller(bool make) {
  if (caller || !make) return caller;
  pthread_once(&state_key_once, make_key);
  sc_rt_thread_state *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  if (pthread_setspecific(state_key, t) != 0) {
    free(t);
    return NULL;
  }
  pthread_mutex_lock(&states_lock);
  t->next = states;
  if (states) states->prev = t;
  states = t;
  pthread_mutex_unlock(&states_lock);
  return caller = t;
}
