/* thread_slot.c - memory a thread keeps between its calls into the library (see
 * thread_slot.h). */
#include <stdalign.h>
#include <stdlib.h>

#include "thread_slot.h"

typedef struct sc_rt_slot {
  struct sc_rt_slot *prev, *next; /* on its kind's list */
  sc_rt_slot_kind *kind;
  alignas(max_align_t) unsigned char payload[];
} sc_rt_slot;

/* One lock for every kind's list: slots are made and freed once per thread. */
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* After fork() the child may inherit the lock held by a thread that no longer exists. */
static void reset_lock_in_child(void) { pthread_mutex_init(&slots_lock, NULL); }
static void install_atfork(void) { pthread_atfork(NULL, NULL, reset_lock_in_child); }

static void unlink_slot(sc_rt_slot *s) {
  if (s->prev) s->prev->next = s->next;
  else s->kind->live = s->next;
  if (s->next) s->next->prev = s->prev;
}

static void slot_at_thread_exit(void *arg) {
  sc_rt_slot *s = arg;
  s->kind->at_thread_exit(s->payload);
  pthread_mutex_lock(&slots_lock);
  unlink_slot(s);
  pthread_mutex_unlock(&slots_lock);
  free(s);
}

void *sc_rt_slot_make(sc_rt_slot_kind *kind) {
  pthread_once(&atfork_once, install_atfork);
  sc_rt_slot *s = calloc(1, sizeof *s + kind->payload_bytes);
  if (!s) return NULL;
  s->kind = kind;
  pthread_mutex_lock(&slots_lock);
  if (!kind->key_made) kind->key_made = pthread_key_create(&kind->key, slot_at_thread_exit) == 0;
  bool ok = kind->key_made && pthread_setspecific(kind->key, s) == 0;
  if (ok) {
    s->next = kind->live;
    if (kind->live) kind->live->prev = s;
    kind->live = s;
  }
  pthread_mutex_unlock(&slots_lock);
  if (!ok) {
    free(s);
    return NULL;
  }
  return s->payload;
}
