/* derived_roots.c - see derived_roots.h.
 *
 * The group of a Dim: its own symbol (index 0: the first input dim that is the Dim, or the
 * phantom) and one symbol per input dim that is a derived size of it, each with its
 * sample.  Each symbol is written as c*base + e of a base symbol; the derived equalities
 * are solved in spec order, as torch solves them, and the Dim's symbol ends up written in
 * the base.  A group torch would leave unsolved (an equality with no integer solution, a
 * size equal to itself) keeps shapec's writing in the Dim. */
#include "derived_roots.h"

#include <string.h>

enum { MAX_GROUP = 32 };

typedef struct member {
  const sc_input_dims *input;
  int dim;
  int64_t a, b;       /* its size = a*root + b (the root's own symbol: 1, 0) */
  int64_t hint;
  int64_t c, e;       /* as solved: c*base + e */
  int base;
} member;

/* Replaces symbol `from` by c*to + e in every member written in it. */
static void substitute(member *m, int n, int from, int64_t c, int64_t e, int to) {
  for (int i = 0; i < n; i++)
    if (m[i].base == from) {
      m[i].e = m[i].c * e + m[i].e;
      m[i].c = m[i].c * c;
      m[i].base = to;
    }
}

/* Solves lhs = rhs (each c*base + e, different bases) for the base with the larger sample
 * (the later one on a tie); false when its solution has a fraction. */
static bool solve(member *m, int n, int64_t lc, int64_t le, int lb, int64_t rc, int64_t re, int rb) {
  int64_t lh = m[lb].hint, rh = m[rb].hint;
  bool left = lh > rh || (lh == rh && lb > rb);
  if (!left) { /* the same equation, the other way round */
    int64_t tc = lc, te = le;
    int tb = lb;
    lc = rc, le = re, lb = rb, rc = tc, re = te, rb = tb;
  }
  /* lc*L + le = rc*R + re  ->  L = (rc/lc) R + (re - le)/lc */
  if (lc == 0 || rc % lc != 0 || (re - le) % lc != 0) return false;
  substitute(m, n, lb, rc / lc, (re - le) / lc, rb);
  return true;
}

static void orient(const sc_dynspec *spec, const sc_root_dim *root, sc_root_orientation *o) {
  member m[MAX_GROUP];
  int n = 1;
  memset(m, 0, sizeof m);
  m[0] = (member){NULL, -1, 1, 0, root->sample, 1, 0, 0};
  o->root = root;
  o->phantom = true;
  for (size_t i = 0; i < spec->n_inputs; i++) {
    const sc_input_dims *in = &spec->inputs[i];
    for (int k = 0; in->value && k < in->rank; k++) {
      const sc_dim_spec *d = &in->dims[k];
      if (d->kind != SC_DIM_NAMED || d->root != root) continue;
      if (d->sample < 0) return; /* torch needs the samples; the error comes elsewhere */
      if (d->coeff == 1 && d->offset == 0) {
        if (o->phantom) m[0].hint = d->sample;
        o->phantom = false;
        continue;
      }
      if (n == MAX_GROUP) return;
      m[n] = (member){in, k, d->coeff, d->offset, d->sample, 1, 0, n};
      n++;
    }
  }
  if (!root->has_sample && o->phantom) return;
  for (int j = 1; j < n; j++) {
    /* the size's own symbol, as solved so far, against a*root + b */
    member l = m[j], r = m[0];
    if (l.base == r.base) return; /* decided already: a guard, not a new equality */
    if (!solve(m, n, l.c, l.e, l.base, m[j].a * r.c, m[j].a * r.e + m[j].b, r.base)) return;
  }
  if (m[0].base == 0 || m[0].c != 1) return;
  o->base_input = m[m[0].base].input;
  o->base_dim = m[m[0].base].dim;
  o->delta = m[0].e;
}

sc_root_orientation *sc_orient_derived_roots(sc_ctx *ctx, const sc_dynspec *spec) {
  if (!spec->n_roots) return NULL;
  sc_root_orientation *out = sc_arena_alloc(&ctx->arena, spec->n_roots * sizeof *out);
  memset(out, 0, spec->n_roots * sizeof *out);
  for (size_t i = 0; i < spec->n_roots; i++) orient(spec, &spec->roots[i], &out[i]);
  return out;
}
