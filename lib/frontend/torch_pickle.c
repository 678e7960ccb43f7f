/* torch_pickle.c - torch.save files through a pickle machine that builds tensors and
 * nothing else; see torch_pickle.h.
 *
 * The machine knows the opcodes of pickle protocols 2 to 5 that torch.save emits (and a
 * few neighbours), keeps its values in an arena of its own that goes when the file is
 * read, and bounds its stack and memo; every value it builds is charged to the budget of
 * the file being read (lib/base/budget.h), so a pickle inflated from a few kilobytes
 * cannot take gigabytes.  A GLOBAL only names one of the known callables; REDUCE applies
 * it to its arguments by shapec's own rules. */
#include "torch_pickle.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "lib/base/budget.h"
#include "zip_member.h"

typedef enum pv_kind {
  PV_NONE, PV_BOOL, PV_INT, PV_FLOAT, PV_STR, PV_TUPLE, PV_LIST, PV_DICT, PV_GLOBAL, PV_STORAGE, PV_TENSOR, PV_MARK
} pv_kind;

/* The callables a GLOBAL may name. */
typedef enum pv_fn {
  FN_ORDERED_DICT, FN_REBUILD_TENSOR_V2, FN_REBUILD_PARAMETER, FN_REBUILD_PARAMETER_WITH_STATE, FN_STORAGE_TYPE
} pv_fn;

/* One value: 40 bytes.  Tuples, marks, None and the booleans are never changed once built,
 * so the machine keeps one of each that carries nothing (its `shared` values). */
typedef struct pv {
  pv_kind kind;
  sc_dtype dtype;         /* GLOBAL of a storage type, STORAGE, TENSOR */
  uint32_t n, cap;        /* TUPLE, LIST, DICT: items used and allocated */
  union {
    int64_t i;            /* BOOL, INT; GLOBAL: its pv_fn; STORAGE, TENSOR: the storage's declared
                             element count (-1: not an integer) */
    double f;
  };
  const char *s;          /* STR; GLOBAL: "module.name"; STORAGE, TENSOR: the storage's key */
  union {
    struct pv **items;    /* TUPLE, LIST; DICT: key, value, key, value ... */
    sc_strided *view;     /* TENSOR: storage is still unset (the key is in s) */
  };
} pv;

enum { MAX_STACK = 1 << 16, MAX_MEMO = 1 << 20, MAX_ITEMS = 1 << 30 };

typedef struct machine {
  sc_ctx *ctx;
  sc_arena *arena;        /* the values; freed when the file is read */
  const char *display;
  const unsigned char *p, *end, *start;
  pv **stack;
  size_t depth;
  pv **memo;              /* heap, cap_memo slots; n_memo of them set */
  size_t n_memo, cap_memo;
  pv mark, none, yes, no, empty_tuple;
  bool failed;
} machine;

static bool fail_hint(machine *m, const char *hint, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail_hint(machine *m, const char *hint, const char *fmt, ...) {
  if (m->failed) return false;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *where = sc_arena_printf(&m->ctx->arena, "data.pkl@%ld", (long)(m->p - m->start));
  sc_diag_code code = hint ? SC_DIAG_PT2_PAYLOAD_SIZE : SC_DIAG_PT2_PICKLED;
  sc_diag *d = sc_diags_add(&m->ctx->diags, code, SC_SEV_ERROR, m->display, where, "%s", msg);
  sc_diag_set_hint(&m->ctx->diags, d, "%s", hint ? hint : "shapec reads plain tensors saved by torch.save; save the weights as a "
                                                          "state dict of tensors (no tensor subclasses or custom objects)");
  m->failed = true;
  return false;
}

#define fail(m, ...) fail_hint(m, NULL, __VA_ARGS__)

/* Memory for the machine's values, charged to the file's budget: NULL (with an error)
 * past it. */
static void *m_alloc(machine *m, size_t size) {
  sc_budget *b = m->ctx->budget;
  size_t rounded = (size + 15u) & ~(size_t)15u;
  if (rounded < size || (b && !sc_budget_charge(b, rounded))) {
    sc_arena *a = &m->ctx->arena;
    fail_hint(m, b ? sc_budget_hint(a, b, rounded) : "the pickle is damaged",
              "the pickle builds more than reading this file may take%s%s", b ? ", " : "", b ? sc_budget_describe(a, b) : "");
    return NULL;
  }
  return sc_arena_alloc(m->arena, size);
}

static pv *pv_new(machine *m, pv_kind kind) {
  pv *v = m_alloc(m, sizeof *v);
  if (v) v->kind = kind;
  return v;
}

/* A new container of `kind` with room for cap items. */
static pv *pv_container(machine *m, pv_kind kind, size_t cap) {
  if (cap > MAX_ITEMS) {
    fail(m, "a container of the pickle holds more than %d items", MAX_ITEMS);
    return NULL;
  }
  pv *c = pv_new(m, kind);
  if (!c || !cap) return c;
  c->items = m_alloc(m, cap * sizeof *c->items);
  c->cap = (uint32_t)cap;
  return c->items ? c : NULL;
}

static bool pv_append(machine *m, pv *c, pv *item) {
  if (c->n == c->cap) {
    size_t cap = c->cap ? (size_t)c->cap * 2 : 4;
    if (cap > MAX_ITEMS) return fail(m, "a container of the pickle holds more than %d items", MAX_ITEMS);
    pv **items = m_alloc(m, cap * sizeof *items);
    if (!items) return false;
    if (c->n) memcpy(items, c->items, c->n * sizeof *items);
    c->items = items;
    c->cap = (uint32_t)cap;
  }
  c->items[c->n++] = item;
  return true;
}

/* Pushes v; false when v is NULL (its allocation failed, already reported). */
static bool push(machine *m, pv *v) {
  if (!v) return false;
  if (m->depth == MAX_STACK) return fail(m, "the pickle's stack grows past %d values", MAX_STACK);
  m->stack[m->depth++] = v;
  return true;
}

static pv *pop(machine *m) {
  if (m->depth == 0 || m->stack[m->depth - 1]->kind == PV_MARK) {
    fail(m, "the pickle pops from an empty stack");
    return NULL;
  }
  return m->stack[--m->depth];
}

static pv *top(machine *m) {
  if (m->depth == 0 || m->stack[m->depth - 1]->kind == PV_MARK) {
    fail(m, "the pickle reads an empty stack");
    return NULL;
  }
  return m->stack[m->depth - 1];
}

/* The values above the topmost mark, as a new container of `kind`; the mark is popped. */
static pv *pop_to_mark(machine *m, pv_kind kind) {
  size_t mark = m->depth;
  while (mark > 0 && m->stack[mark - 1]->kind != PV_MARK) mark--;
  if (mark == 0) {
    fail(m, "the pickle has no MARK where one is needed");
    return NULL;
  }
  size_t n = m->depth - mark;
  pv *c = kind == PV_TUPLE && n == 0 ? &m->empty_tuple : pv_container(m, kind, n);
  if (!c) return NULL;
  if (n) memcpy(c->items, m->stack + mark, n * sizeof *c->items);
  c->n = (uint32_t)n;
  m->depth = mark - 1;
  return c;
}

static bool need(machine *m, size_t n) {
  if ((size_t)(m->end - m->p) < n) return fail(m, "the pickle ends in the middle of an opcode");
  return true;
}

static uint64_t read_le(machine *m, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) v |= (uint64_t)m->p[i] << (8 * i);
  m->p += n;
  return v;
}

static bool push_string(machine *m, uint64_t len) {
  if (!need(m, len)) return false;
  pv *v = pv_new(m, PV_STR);
  char *s = v ? m_alloc(m, (size_t)len + 1) : NULL;
  if (!s) return false;
  memcpy(s, m->p, (size_t)len);
  s[len] = '\0';
  m->p += len;
  v->s = s;
  return push(m, v);
}

/* memo[index] = the top of the stack; the memo grows by doubling (it was one slot per
 * MEMOIZE, which copied it each time). */
static bool memo_put(machine *m, uint64_t index) {
  pv *v = top(m);
  if (!v) return false;
  if (index >= MAX_MEMO) return fail(m, "memo index %llu is out of range", (unsigned long long)index);
  if (index >= m->cap_memo) {
    size_t cap = m->cap_memo ? m->cap_memo : 64;
    while (cap <= index) cap *= 2;
    if (cap > MAX_MEMO) cap = MAX_MEMO;
    sc_budget *b = m->ctx->budget;
    if (b && !sc_budget_charge(b, (cap - m->cap_memo) * sizeof *m->memo)) {
      sc_arena *a = &m->ctx->arena;
      return fail_hint(m, sc_budget_hint(a, b, (cap - m->cap_memo) * sizeof *m->memo),
                       "the pickle's memo grows past what reading this file may take, %s", sc_budget_describe(a, b));
    }
    pv **memo = realloc(m->memo, cap * sizeof *memo);
    if (!memo) return fail(m, "out of memory");
    memset(memo + m->cap_memo, 0, (cap - m->cap_memo) * sizeof *memo);
    m->memo = memo;
    m->cap_memo = cap;
  }
  if (!m->memo[index]) m->n_memo++;
  m->memo[index] = v;
  return true;
}

static bool memo_get(machine *m, uint64_t index) {
  if (index >= m->cap_memo || !m->memo[index]) return fail(m, "memo index %llu was never stored", (unsigned long long)index);
  return push(m, m->memo[index]);
}

static const struct {
  const char *name;
  sc_dtype dtype;
} storage_types[] = {
    {"FloatStorage", SC_DTYPE_F32}, {"DoubleStorage", SC_DTYPE_F64}, {"HalfStorage", SC_DTYPE_F16},
    {"BFloat16Storage", SC_DTYPE_BF16}, {"LongStorage", SC_DTYPE_I64}, {"IntStorage", SC_DTYPE_I32},
    {"ShortStorage", SC_DTYPE_I16}, {"CharStorage", SC_DTYPE_I8}, {"ByteStorage", SC_DTYPE_U8},
    {"BoolStorage", SC_DTYPE_BOOL},
};

/* "module.name" in the machine's arena, charged; NULL past the budget. */
static const char *global_name(machine *m, const char *module, const char *name) {
  size_t lm = strlen(module), ln = strlen(name);
  char *s = m_alloc(m, lm + ln + 2);
  if (!s) return NULL;
  memcpy(s, module, lm);
  s[lm] = '.';
  memcpy(s + lm + 1, name, ln + 1);
  return s;
}

/* GLOBAL module name: one of the known callables, else refused by name. */
static bool push_global(machine *m, const char *module, const char *name) {
  pv *g = pv_new(m, PV_GLOBAL);
  if (!g || !(g->s = global_name(m, module, name))) return false;
  if (strcmp(module, "collections") == 0 && strcmp(name, "OrderedDict") == 0) g->i = FN_ORDERED_DICT;
  else if (strcmp(module, "torch._utils") == 0 && strcmp(name, "_rebuild_tensor_v2") == 0) g->i = FN_REBUILD_TENSOR_V2;
  else if (strcmp(module, "torch._utils") == 0 && strcmp(name, "_rebuild_parameter") == 0) g->i = FN_REBUILD_PARAMETER;
  else if (strcmp(module, "torch._utils") == 0 && strcmp(name, "_rebuild_parameter_with_state") == 0)
    g->i = FN_REBUILD_PARAMETER_WITH_STATE;
  else {
    g->i = -1;
    if (strcmp(module, "torch") == 0)
      for (size_t k = 0; k < sizeof storage_types / sizeof storage_types[0]; k++)
        if (strcmp(name, storage_types[k].name) == 0) {
          g->i = FN_STORAGE_TYPE;
          g->dtype = storage_types[k].dtype;
        }
    if (g->i < 0)
      return fail(m, "the pickle refers to %s.%s; shapec reads only torch.save's tensor-rebuild protocol and never "
                     "imports or runs anything else", module, name);
  }
  return push(m, g);
}

/* A line of the GLOBAL opcode's text form. */
static const char *read_line(machine *m) {
  const unsigned char *nl = memchr(m->p, '\n', (size_t)(m->end - m->p));
  if (!nl || nl - m->p > 256) {
    fail(m, "a GLOBAL name is not terminated");
    return NULL;
  }
  char *s = m_alloc(m, (size_t)(nl - m->p) + 1);
  if (!s) return NULL;
  memcpy(s, m->p, (size_t)(nl - m->p));
  s[nl - m->p] = '\0';
  m->p = nl + 1;
  return s;
}

static bool int_items(machine *m, const pv *t, int64_t *out, int *rank, const char *what) {
  if (!t || (t->kind != PV_TUPLE && t->kind != PV_LIST)) return fail(m, "a tensor's %s is not a tuple", what);
  if (t->n > SC_STRIDED_MAX_RANK) return fail(m, "a tensor has %u dims; shapec handles at most %d", t->n, SC_STRIDED_MAX_RANK);
  for (size_t i = 0; i < t->n; i++) {
    if (t->items[i]->kind != PV_INT) return fail(m, "a tensor's %s holds something other than integers", what);
    out[i] = t->items[i]->i;
  }
  *rank = (int)t->n;
  return true;
}

/* _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, hooks[, metadata]) */
static pv *rebuild_tensor(machine *m, const pv *args) {
  if (args->n < 4 || args->items[0]->kind != PV_STORAGE || args->items[1]->kind != PV_INT) {
    fail(m, "_rebuild_tensor_v2 is called with arguments it does not take");
    return NULL;
  }
  pv *t = pv_new(m, PV_TENSOR);
  if (!t || !(t->view = m_alloc(m, sizeof *t->view))) return NULL;
  t->view->dtype = args->items[0]->dtype;
  t->view->offset = args->items[1]->i;
  t->s = args->items[0]->s;
  t->i = args->items[0]->i;
  int stride_rank = 0;
  if (!int_items(m, args->items[2], t->view->sizes, &t->view->rank, "size") ||
      !int_items(m, args->items[3], t->view->strides, &stride_rank, "stride"))
    return NULL;
  if (stride_rank != t->view->rank) {
    fail(m, "a tensor has %d sizes but %d strides", t->view->rank, stride_rank);
    return NULL;
  }
  t->dtype = t->view->dtype;
  return t;
}

static bool reduce(machine *m) {
  pv *args = pop(m), *fn = args ? pop(m) : NULL;
  if (!fn) return false;
  if (fn->kind != PV_GLOBAL || args->kind != PV_TUPLE) return fail(m, "REDUCE applies something that is not a known callable");
  switch ((pv_fn)fn->i) {
    case FN_ORDERED_DICT: return push(m, pv_new(m, PV_DICT));
    case FN_REBUILD_TENSOR_V2: return push(m, rebuild_tensor(m, args));
    case FN_REBUILD_PARAMETER:
    case FN_REBUILD_PARAMETER_WITH_STATE:
      if (args->n < 1 || args->items[0]->kind != PV_TENSOR) return fail(m, "%s is not given a tensor", fn->s);
      return push(m, args->items[0]);
    case FN_STORAGE_TYPE: break;
  }
  return fail(m, "the pickle calls %s, which builds no tensor", fn->s);
}

/* BINPERSID: ('storage', torch.XStorage, key, location, numel) names a storage. */
static bool persistent_load(machine *m) {
  pv *pid = pop(m);
  if (!pid) return false;
  if (pid->kind != PV_TUPLE || pid->n < 5 || pid->items[0]->kind != PV_STR || strcmp(pid->items[0]->s, "storage") != 0 ||
      pid->items[1]->kind != PV_GLOBAL || pid->items[1]->i != FN_STORAGE_TYPE || pid->items[2]->kind != PV_STR)
    return fail(m, "a persistent id is not a torch storage");
  pv *s = pv_new(m, PV_STORAGE);
  if (!s) return false;
  s->dtype = pid->items[1]->dtype;
  s->s = pid->items[2]->s;
  s->i = pid->items[4]->kind == PV_INT && pid->items[4]->i >= 0 ? pid->items[4]->i : -1;
  return push(m, s);
}

/* The n values on top of the stack go into the dict (n even) or list below them. */
static bool add_items(machine *m, size_t n, pv_kind kind) {
  if (m->depth < n + 1 || m->stack[m->depth - n - 1]->kind == PV_MARK) return fail(m, "the pickle reads an empty stack");
  pv *c = m->stack[m->depth - n - 1];
  if (c->kind != kind)
    return fail(m, kind == PV_DICT ? "SETITEMS on something that is not a dict" : "APPENDS on something that is not a list");
  for (size_t i = m->depth - n; i < m->depth; i++) {
    if (m->stack[i]->kind == PV_MARK) return fail(m, "the pickle pops from an empty stack");
    if (!pv_append(m, c, m->stack[i])) return false;
  }
  m->depth -= n;
  return true;
}

/* SETITEMS, APPENDS: the values above the topmost mark go into the container below it. */
static bool add_marked(machine *m, pv_kind kind) {
  size_t mark = m->depth;
  while (mark > 0 && m->stack[mark - 1]->kind != PV_MARK) mark--;
  if (mark == 0) return fail(m, "the pickle has no MARK where one is needed");
  size_t n = m->depth - mark;
  if (kind == PV_DICT && n % 2) return fail(m, "SETITEMS with a key but no value");
  /* the mark goes: the values move down over it */
  memmove(m->stack + mark - 1, m->stack + mark, n * sizeof *m->stack);
  m->depth--;
  return add_items(m, n, kind);
}

static bool step(machine *m, unsigned char op) {
  pv *v, *a, *b;
  switch (op) {
    case 0x80: /* PROTO */ return need(m, 1) && (m->p++, true);
    case 0x95: /* FRAME */ return need(m, 8) && (m->p += 8, true);
    case '(': return push(m, &m->mark);
    case '}': return push(m, pv_new(m, PV_DICT));
    case ']': return push(m, pv_new(m, PV_LIST));
    case ')': return push(m, &m->empty_tuple);
    case 'N': return push(m, &m->none);
    case 0x88: case 0x89: /* NEWTRUE, NEWFALSE */ return push(m, op == 0x88 ? &m->yes : &m->no);
    case 'K': case 'M': case 'J': { /* BININT1, BININT2, BININT */
      size_t n = op == 'K' ? 1 : op == 'M' ? 2 : 4;
      if (!need(m, n) || !(v = pv_new(m, PV_INT))) return false;
      uint64_t raw = read_le(m, n);
      v->i = op == 'J' ? (int64_t)(int32_t)(uint32_t)raw : (int64_t)raw;
      return push(m, v);
    }
    case 0x8a: { /* LONG1 */
      if (!need(m, 1)) return false;
      size_t n = *m->p++;
      if (n > 8) return fail(m, "an integer of %zu bytes does not fit in 64 bits", n);
      if (!need(m, n) || !(v = pv_new(m, PV_INT))) return false;
      uint64_t raw = read_le(m, n);
      if (n && n < 8 && (raw >> (8 * n - 1)) & 1) raw |= ~0ull << (8 * n); /* sign-extend */
      v->i = (int64_t)raw;
      return push(m, v);
    }
    case 'G': { /* BINFLOAT: big-endian double */
      if (!need(m, 8) || !(v = pv_new(m, PV_FLOAT))) return false;
      uint64_t raw = 0;
      for (int i = 0; i < 8; i++) raw = raw << 8 | m->p[i];
      m->p += 8;
      memcpy(&v->f, &raw, sizeof v->f);
      return push(m, v);
    }
    case 'X': case 'T': /* BINUNICODE, BINSTRING */ return need(m, 4) && push_string(m, read_le(m, 4));
    case 0x8c: case 'U': /* SHORT_BINUNICODE, SHORT_BINSTRING */ return need(m, 1) && push_string(m, *m->p++);
    case 0x8d: /* BINUNICODE8 */ return need(m, 8) && push_string(m, read_le(m, 8));
    case 'q': return need(m, 1) && memo_put(m, read_le(m, 1));
    case 'r': return need(m, 4) && memo_put(m, read_le(m, 4));
    case 0x94: /* MEMOIZE */ return memo_put(m, m->n_memo);
    case 'h': return need(m, 1) && memo_get(m, read_le(m, 1));
    case 'j': return need(m, 4) && memo_get(m, read_le(m, 4));
    case 'c': { /* GLOBAL */
      const char *module = read_line(m), *name = module ? read_line(m) : NULL;
      return name && push_global(m, module, name);
    }
    case 0x93: /* STACK_GLOBAL */
      b = pop(m);
      a = b ? pop(m) : NULL;
      if (!a) return false;
      if (a->kind != PV_STR || b->kind != PV_STR) return fail(m, "STACK_GLOBAL names are not strings");
      return push_global(m, a->s, b->s);
    case 'Q': return persistent_load(m);
    case 'R': return reduce(m);
    case 'b': /* BUILD: the state of an OrderedDict or a parameter; nothing shapec needs */
      return pop(m) && top(m);
    case 't': return push(m, pop_to_mark(m, PV_TUPLE));
    case 'l': return push(m, pop_to_mark(m, PV_LIST));
    case 'd': /* DICT */
      if (!(v = pop_to_mark(m, PV_TUPLE))) return false;
      if (v->n % 2) return fail(m, "DICT with a key but no value");
      if (v != &m->empty_tuple) v->kind = PV_DICT; /* the tuple just built becomes the dict */
      else v = pv_new(m, PV_DICT);
      return push(m, v);
    case 0x85: case 0x86: case 0x87: { /* TUPLE1..3 */
      size_t n = (size_t)(op - 0x84);
      if (m->depth < n) return fail(m, "the pickle pops from an empty stack");
      for (size_t i = m->depth - n; i < m->depth; i++)
        if (m->stack[i]->kind == PV_MARK) return fail(m, "the pickle pops from an empty stack");
      if (!(v = pv_container(m, PV_TUPLE, n))) return false;
      memcpy(v->items, m->stack + m->depth - n, n * sizeof *v->items);
      v->n = (uint32_t)n;
      m->depth -= n;
      return push(m, v);
    }
    case 's': /* SETITEM */ return add_items(m, 2, PV_DICT);
    case 'u': /* SETITEMS */ return add_marked(m, PV_DICT);
    case 'a': /* APPEND */ return add_items(m, 1, PV_LIST);
    case 'e': /* APPENDS */ return add_marked(m, PV_LIST);
    case '0': return pop(m) != NULL;
    case '2': return (v = top(m)) && push(m, v);
    case '1': return pop_to_mark(m, PV_TUPLE) != NULL;
    default:
      return fail(m, "opcode 0x%02x is not one torch.save writes for tensors", op);
  }
}

/* Runs data.pkl; returns the value STOP leaves, or NULL.  The values live in m->arena. */
static pv *run_pickle(machine *m) {
  m->mark.kind = PV_MARK;
  m->none.kind = PV_NONE;
  m->yes.kind = m->no.kind = PV_BOOL;
  m->yes.i = 1;
  m->empty_tuple.kind = PV_TUPLE;
  m->stack = malloc(MAX_STACK * sizeof *m->stack);
  if (!m->stack) {
    fail(m, "out of memory");
    return NULL;
  }
  pv *result = NULL;
  while (!m->failed) {
    if (m->p >= m->end) {
      fail(m, "the pickle ends without STOP");
      break;
    }
    unsigned char op = *m->p++;
    if (op == '.') {
      result = pop(m);
      break;
    }
    step(m, op);
  }
  free(m->stack);
  free(m->memo);
  return m->failed ? NULL : result;
}

/* ---- the zip around data.pkl ------------------------------------------------------------ */

/* Records that reading `what` would take `wanted` bytes more than the file's budget. */
static void budget_error(sc_ctx *ctx, const char *display, const char *member, const char *what, uint64_t wanted) {
  sc_budget *b = ctx->budget;
  sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_PT2_PAYLOAD_SIZE, SC_SEV_ERROR, display, member,
                            "%s: more than reading this file may take, %s", what, sc_budget_describe(&ctx->arena, b));
  sc_diag_set_hint(&ctx->diags, d, "%s", sc_budget_hint(&ctx->arena, b, wanted));
}

/* A member's bytes (heap); expect: the size it must have, or -1.  NULL with an error. */
static unsigned char *read_zip_member(sc_ctx *ctx, const char *display, zip_t *z, const char *name, int64_t expect,
                                      size_t *len) {
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat(z, name, 0, &st) != 0) {
    sc_diags_add(&ctx->diags, SC_DIAG_PT2_MISSING_MEMBER, SC_SEV_ERROR, display, name,
                 "the torch.save file has no readable member %s", name);
    return NULL;
  }
  if (!sc_zip_size_plausible(&st)) {
    sc_diags_add(&ctx->diags, SC_DIAG_PT2_CORRUPT, SC_SEV_ERROR, display, name,
                 "member %s of the torch.save file declares %llu bytes, more than its compressed data can hold", name,
                 (unsigned long long)st.size);
    return NULL;
  }
  if (expect >= 0 && st.size != (zip_uint64_t)expect) { /* checked before anything is inflated */
    sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_PT2_PAYLOAD_SIZE, SC_SEV_ERROR, display, name,
                              "member %s holds %llu bytes, but the pickle declares its storage as %lld bytes", name,
                              (unsigned long long)st.size, (long long)expect);
    sc_diag_set_hint(&ctx->diags, d, "torch.save writes each storage whole; the file is damaged or crafted");
    return NULL;
  }
  if (ctx->budget && !sc_budget_charge(ctx->budget, st.size + 1)) {
    budget_error(ctx, display, name, sc_arena_printf(&ctx->arena, "member %s inflates to %s", name,
                                                     sc_budget_bytes(&ctx->arena, st.size)), st.size + 1);
    return NULL;
  }
  zip_file_t *f = zip_fopen(z, name, 0);
  unsigned char *buf = f ? malloc((size_t)st.size + 1) : NULL;
  zip_int64_t got = buf ? zip_fread(f, buf, st.size) : -1;
  if (f) zip_fclose(f);
  if (got < 0 || (zip_uint64_t)got != st.size) {
    free(buf);
    sc_diags_add(&ctx->diags, SC_DIAG_PT2_CORRUPT, SC_SEV_ERROR, display, name, "member %s of the torch.save file is damaged",
                 name);
    return NULL;
  }
  *len = (size_t)st.size;
  return buf;
}

/* The folder holding data.pkl ("archive/", "model/"); false when there is none. */
static bool find_prefix(zip_t *z, char *prefix, size_t cap) {
  zip_int64_t n = zip_get_num_entries(z, 0);
  for (zip_int64_t i = 0; i < n; i++) {
    const char *e = zip_get_name(z, (zip_uint64_t)i, 0);
    size_t len = e ? strlen(e) : 0;
    if (len >= 8 && strcmp(e + len - 8, "data.pkl") == 0 && (len == 8 || e[len - 9] == '/') && len - 8 < cap) {
      snprintf(prefix, cap, "%.*s", (int)(len - 8), e);
      return true;
    }
  }
  return false;
}

typedef struct keyed {
  const char *key;
  size_t i;
} keyed;

static int compare_keyed(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

/* For each of n keys, the first index that holds an equal key (its own when none before
 * it): by sorting, so that n keys take O(n log n) comparisons whatever they are. */
static size_t *first_equal(const char *const *keys, size_t n) {
  keyed *sorted = sc_xmalloc((n ? n : 1) * sizeof *sorted);
  size_t *first = sc_xmalloc((n ? n : 1) * sizeof *first);
  for (size_t i = 0; i < n; i++) sorted[i] = (keyed){keys[i], i};
  qsort(sorted, n, sizeof *sorted, compare_keyed);
  for (size_t k = 0; k < n; k++)
    first[sorted[k].i] = k && strcmp(sorted[k - 1].key, sorted[k].key) == 0 ? first[sorted[k - 1].i] : sorted[k].i;
  free(sorted);
  return first;
}

/* Gives each view the bytes of its storage, reading each storage once; numels[i]: the
 * element count the pickle declares for keys[i]'s storage (-1: none), whose bytes its member
 * must hold exactly. */
static bool attach_storages(sc_ctx *ctx, const char *display, zip_t *z, const char *prefix, sc_torch_tensors *out,
                            size_t first, const char **keys, const int64_t *numels) {
  size_t n = out->n - first;
  size_t *same = first_equal(keys, n);
  bool ok = true;
  for (size_t k = 0; k < n && ok; k++) {
    sc_strided *s = &out->views[first + k];
    if (same[k] != k) {
      s->storage = out->views[first + same[k]].storage;
      s->storage_len = out->views[first + same[k]].storage_len;
      continue;
    }
    const char *member = sc_arena_printf(&ctx->arena, "%sdata/%s", prefix, keys[k]);
    int64_t expect = -1;
    if (numels[k] >= 0 && __builtin_mul_overflow(numels[k], (int64_t)sc_dtype_size(s->dtype), &expect)) expect = INT64_MAX;
    size_t len = 0;
    unsigned char *bytes = read_zip_member(ctx, display, z, member, expect, &len);
    if (!bytes) {
      ok = false;
      break;
    }
    out->storages = sc_xrealloc(out->storages, (out->n_storages + 1) * sizeof *out->storages);
    out->storages[out->n_storages++] = bytes;
    s->storage = bytes;
    s->storage_len = len;
  }
  free(same);
  return ok;
}

/* Appends a view, doubling the array as it fills (charged to the budget). */
static bool add_view(sc_ctx *ctx, const char *display, sc_torch_tensors *out, const char *name, const sc_strided *view) {
  if (out->n == out->cap) {
    size_t cap = out->cap ? out->cap * 2 : 16;
    if (ctx->budget && !sc_budget_charge(ctx->budget, (cap - out->cap) * sizeof *out->views)) {
      budget_error(ctx, display, name,
                   sc_arena_printf(&ctx->arena, "the table of %zu saved tensors", cap), (cap - out->cap) * sizeof *out->views);
      return false;
    }
    out->views = sc_xrealloc(out->views, cap * sizeof *out->views);
    out->cap = cap;
  }
  out->views[out->n] = *view;
  out->views[out->n].name = name;
  out->n++;
  return true;
}

/* The saved dict's entries as views, named; a name given twice keeps its last tensor in its
 * first place, as Python's dict does. */
static bool add_dict(sc_ctx *ctx, const char *display, const pv *dict, sc_torch_tensors *out, const char ***keys,
                     int64_t **numels) {
  size_t n = dict->n / 2;
  const char **names = sc_xmalloc((n ? n : 1) * sizeof *names);
  bool ok = true;
  for (size_t i = 0; i < n && ok; i++) {
    const pv *k = dict->items[2 * i], *v = dict->items[2 * i + 1];
    if (k->kind != PV_STR || v->kind != PV_TENSOR) {
      sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_PT2_PICKLED, SC_SEV_ERROR, display, k->kind == PV_STR ? k->s : NULL,
                                "entry %zu of the saved dict is not a named tensor", i);
      sc_diag_set_hint(&ctx->diags, d, "save a state dict: names to tensors");
      ok = false;
    } else {
      names[i] = k->s;
    }
  }
  size_t *same = ok ? first_equal(names, n) : NULL;
  size_t *slot = ok ? sc_xmalloc((n ? n : 1) * sizeof *slot) : NULL;
  size_t first = out->n;
  *keys = ok ? sc_xmalloc((n ? n : 1) * sizeof **keys) : NULL;
  *numels = ok ? sc_xmalloc((n ? n : 1) * sizeof **numels) : NULL;
  for (size_t i = 0; i < n && ok; i++) {
    const pv *v = dict->items[2 * i + 1];
    if (same[i] != i) { /* a name seen before: its tensor replaces the earlier one */
      sc_strided *at = &out->views[slot[same[i]]];
      const char *name = at->name;
      *at = *v->view;
      at->name = name;
      (*keys)[slot[same[i]] - first] = v->s;
      (*numels)[slot[same[i]] - first] = v->i;
      continue;
    }
    slot[i] = out->n;
    (*keys)[out->n - first] = v->s;
    (*numels)[out->n - first] = v->i;
    ok = add_view(ctx, display, out, sc_ctx_intern(ctx, names[i]), v->view);
  }
  free(slot);
  free(same);
  free(names);
  return ok;
}

/* Runs data.pkl and appends its tensors to out (their storages still unset); keys[i] is the
 * storage key of the i-th new view, kept in `values` with the machine's other values, and
 * numels[i] its storage's declared element count (both heap). */
static bool read_pickle(sc_ctx *ctx, const char *display, const unsigned char *pkl, size_t pkl_len, const char *lone_name,
                        sc_arena *values, sc_torch_tensors *out, const char ***keys, int64_t **numels) {
  machine m = {.ctx = ctx, .arena = values, .display = display, .p = pkl, .start = pkl, .end = pkl + pkl_len};
  pv *result = run_pickle(&m);
  *keys = NULL;
  *numels = NULL;
  if (!result) return false;
  if (result->kind == PV_TENSOR && lone_name) {
    *keys = sc_xmalloc(sizeof **keys);
    *numels = sc_xmalloc(sizeof **numels);
    (*keys)[0] = result->s;
    (*numels)[0] = result->i;
    return add_view(ctx, display, out, lone_name, result->view);
  }
  if (result->kind == PV_DICT) return add_dict(ctx, display, result, out, keys, numels);
  sc_diags_add(&ctx->diags, SC_DIAG_PT2_PICKLED, SC_SEV_ERROR, display, NULL, "the torch.save file holds %s, not %s",
               result->kind == PV_TENSOR ? "one tensor" : "something else", lone_name ? "a tensor" : "a dict of tensors");
  return false;
}

bool sc_torch_save_read(sc_ctx *ctx, const char *display, const unsigned char *data, size_t len, const char *lone_name,
                        sc_torch_tensors *out) {
  /* read alone (not from an archive, which has its budget): a budget of its own */
  sc_budget own, *outer = ctx->budget;
  if (!outer) {
    sc_budget_init(&own, len);
    ctx->budget = &own;
  }
  zip_error_t zerr;
  zip_error_init(&zerr);
  zip_source_t *src = zip_source_buffer_create(data, len, 0, &zerr);
  zip_t *z = src ? zip_open_from_source(src, ZIP_RDONLY, &zerr) : NULL;
  if (!z) {
    sc_diag *d = sc_diags_add(&ctx->diags, SC_DIAG_PT2_PICKLED, SC_SEV_ERROR, display, NULL,
                              "not a torch.save file (a zip): %s", zip_error_strerror(&zerr));
    sc_diag_set_hint(&ctx->diags, d, "torch.save files from torch 1.6 on are zips; save the weights again");
    if (src) zip_source_free(src);
    zip_error_fini(&zerr);
    ctx->budget = outer;
    return false;
  }
  zip_error_fini(&zerr);
  char prefix[256];
  bool ok = find_prefix(z, prefix, sizeof prefix);
  if (!ok)
    sc_diags_add(&ctx->diags, SC_DIAG_PT2_MISSING_MEMBER, SC_SEV_ERROR, display, NULL,
                 "the torch.save file has no data.pkl");
  size_t pkl_len = 0;
  unsigned char *pkl = NULL;
  if (ok) {
    const char *byteorder = sc_arena_printf(&ctx->arena, "%sbyteorder", prefix);
    size_t bo_len = 0;
    unsigned char *bo = zip_name_locate(z, byteorder, 0) >= 0 ? read_zip_member(ctx, display, z, byteorder, -1, &bo_len) : NULL;
    if (bo && !(bo_len >= 6 && memcmp(bo, "little", 6) == 0)) {
      sc_diags_add(&ctx->diags, SC_DIAG_PT2_FORMAT, SC_SEV_ERROR, display, byteorder,
                   "the tensors were saved big-endian; shapec reads little-endian files");
      ok = false;
    }
    free(bo);
    pkl = ok ? read_zip_member(ctx, display, z, sc_arena_printf(&ctx->arena, "%sdata.pkl", prefix), -1, &pkl_len) : NULL;
    ok = pkl != NULL;
  }
  sc_arena values = {0};
  const char **keys = NULL;
  int64_t *numels = NULL;
  size_t first = out->n;
  if (ok) ok = read_pickle(ctx, display, pkl, pkl_len, lone_name, &values, out, &keys, &numels);
  free(pkl);
  if (ok) ok = attach_storages(ctx, display, z, prefix, out, first, keys, numels);
  free(keys);
  free(numels);
  sc_arena_free(&values);
  zip_discard(z);
  ctx->budget = outer;
  return ok;
}

void sc_torch_tensors_free(sc_torch_tensors *t) {
  for (size_t i = 0; i < t->n_storages; i++) free(t->storages[i]);
  free(t->storages);
  free(t->views);
  memset(t, 0, sizeof *t);
}
