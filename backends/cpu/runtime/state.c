/* state.c - state handles: each a copy of the buffers a program updates (a KV cache, a
 * counter), so that one loaded library carries several independent conversations.
 *
 * The library's table (sc_rt_state_table, written by backends/llvm/cg_state.c) names each
 * buffer, its size and its exported value.  shapec_model_run works on the library's own
 * copy; shapec_model_run_with_state makes a handle's copy the calling thread's for the
 * length of the call (sc_rt_state_enter/leave), and the run asks for it once
 * (sc_rt_state_buffers).  A handle is used by one call at a time: two threads may run on
 * two handles at once, never on one. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

enum { STATE_MAGIC = 0x53484150u }; /* "SHAP": a handle of some library, not freed */

struct shapec_model_state {
  uint32_t magic;
  const sc_rt_state_table *table; /* the library it belongs to */
  void *buffers[];                /* one per state buffer, 64-byte aligned */
};

static __thread void *const *current; /* the calling thread's run's state, NULL: the library's */

void *const *sc_rt_state_buffers(const sc_rt_state_table *t) { return current ? current : t->defaults; }

static int refuse(char *err, size_t errlen, const char *what) {
  if (err && errlen) snprintf(err, errlen, "%s", what);
  return SHAPEC_ERR_ARGUMENT;
}

/* A handle's check: NULL, freed, or from another library are refused. */
static int check_handle(const sc_rt_state_table *t, const struct shapec_model_state *s, char *err, size_t errlen) {
  if (!s) return refuse(err, errlen, "state is NULL; make one with shapec_model_state_new");
  if (s->magic != STATE_MAGIC) return refuse(err, errlen, "state is not a live state handle (freed, or not one)");
  if (s->table != t) return refuse(err, errlen, "state belongs to another model library; make one with this "
                                                "library's shapec_model_state_new");
  return SHAPEC_OK;
}

int sc_rt_state_enter(const sc_rt_state_table *t, struct shapec_model_state *s, void *const **prev, char *err,
                      size_t errlen) {
  int rc = check_handle(t, s, err, errlen);
  if (rc) return rc;
  *prev = current;
  current = s->buffers;
  return SHAPEC_OK;
}

void sc_rt_state_leave(void *const *prev) { current = prev; }

int32_t sc_rt_state_count(const sc_rt_state_table *t) { return t->n; }

const char *sc_rt_state_name(const sc_rt_state_table *t, int32_t i) {
  return i >= 0 && i < t->n ? t->names[i] : NULL;
}

static void start_as_exported(const sc_rt_state_table *t, void *const *buffers) {
  for (int32_t i = 0; i < t->n; i++) {
    if (t->init[i]) memcpy(buffers[i], t->init[i], (size_t)t->nbytes[i]);
    else memset(buffers[i], 0, (size_t)t->nbytes[i]);
  }
}

void sc_rt_state_free(const sc_rt_state_table *t, struct shapec_model_state *s) {
  if (!s || check_handle(t, s, NULL, 0)) return;
  for (int32_t i = 0; i < t->n; i++) free(s->buffers[i]);
  s->magic = 0;
  free(s);
}

struct shapec_model_state *sc_rt_state_new(const sc_rt_state_table *t) {
  struct shapec_model_state *s = calloc(1, sizeof *s + (size_t)t->n * sizeof(void *));
  if (!s) return NULL;
  s->magic = STATE_MAGIC;
  s->table = t;
  for (int32_t i = 0; i < t->n; i++) {
    size_t bytes = ((size_t)t->nbytes[i] + 63) / 64 * 64;
    s->buffers[i] = aligned_alloc(64, bytes ? bytes : 64);
    if (!s->buffers[i]) {
      sc_rt_state_free(t, s);
      return NULL;
    }
  }
  start_as_exported(t, s->buffers);
  return s;
}

int sc_rt_state_reset(const sc_rt_state_table *t, struct shapec_model_state *s) {
  if (s && check_handle(t, s, NULL, 0)) return SHAPEC_ERR_ARGUMENT;
  start_as_exported(t, s ? s->buffers : t->defaults);
  return SHAPEC_OK;
}

int sc_rt_state_tensor(const sc_rt_state_table *t, struct shapec_model_state *s, int32_t i, shapec_tensor *out) {
  if (!out || i < 0 || i >= t->n || (s && check_handle(t, s, NULL, 0))) return SHAPEC_ERR_ARGUMENT;
  memset(out, 0, sizeof *out);
  out->data = (s ? s->buffers : t->defaults)[i];
  out->device.device_type = 1;
  out->ndim = t->ranks[i];
  out->dtype.code = (uint8_t)(t->dtypes[i] >> 8);
  out->dtype.bits = (uint8_t)(t->dtypes[i] & 0xff);
  out->dtype.lanes = 1;
  out->shape = (int64_t *)t->shapes[i];
  return SHAPEC_OK;
}
