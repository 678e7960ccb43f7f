/* einsum_equation.c - see einsum_equation.h. */
#include "einsum_equation.h"

#include <stdio.h>
#include <string.h>

static int letter(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + c - 'a';
  return -1;
}

static bool fail(char *err, size_t errlen, const char *what) {
  if (err && errlen) snprintf(err, errlen, "einsum(): %s", what);
  return false;
}

/* One term (an operand's or the output's) from s to end into labels; rank: the operand's,
 * or -1 for the output (whose "..." takes max_ellipsis dims). */
static bool term(const char *s, const char *end, int rank, int max_ellipsis, int *labels, int *n_out, int *ellipsis_dims,
                 char *err, size_t errlen) {
  int named = 0;
  bool dots = false;
  for (const char *p = s; p < end; p++) {
    if (*p == ' ') continue;
    if (*p == '.') {
      if (dots || end - p < 3 || p[1] != '.' || p[2] != '.') return fail(err, errlen, "found '.' that is not part of any ellipsis");
      dots = true;
      p += 2;
      continue;
    }
    if (letter(*p) < 0) return fail(err, errlen, "invalid subscript given in the equation string (letters only)");
    named++;
  }
  int ell = rank < 0 ? (dots ? max_ellipsis : 0) : rank - named;
  if (rank >= 0 && (ell < 0 || (!dots && ell != 0)))
    return fail(err, errlen, "the number of subscripts in the equation does not match the number of dimensions of an operand");
  if (named + ell > SC_EINSUM_MAX_DIMS) return fail(err, errlen, "too many dimensions");
  int k = 0;
  for (const char *p = s; p < end; p++) {
    if (*p == ' ') continue;
    if (*p == '.') {
      for (int i = 0; i < ell; i++) labels[k++] = SC_EINSUM_ELLIPSIS + (ell - 1 - i);
      p += 2;
      continue;
    }
    labels[k++] = letter(*p);
  }
  *n_out = k;
  if (ellipsis_dims) *ellipsis_dims = ell;
  return true;
}

bool sc_einsum_parse(const char *eq, const int *ranks, int n_operands, sc_einsum *e, char *err, size_t errlen) {
  memset(e, 0, sizeof *e);
  if (n_operands < 1 || n_operands > SC_EINSUM_MAX_OPERANDS) return fail(err, errlen, "must provide at least one operand");
  const char *arrow = strstr(eq, "->"), *lhs_end = arrow ? arrow : eq + strlen(eq);
  const char *s = eq;
  int max_ell = 0, count[SC_EINSUM_LABELS] = {0};
  for (int i = 0; i < n_operands; i++) {
    const char *comma = memchr(s, ',', (size_t)(lhs_end - s)), *end = i == n_operands - 1 ? lhs_end : comma;
    if (!end || (i == n_operands - 1 && comma))
      return fail(err, errlen, "more operands were provided than specified in the equation");
    int ell = 0;
    if (!term(s, end, ranks[i], 0, e->labels[i], &e->rank[i], &ell, err, errlen)) return false;
    if (ell > max_ell) max_ell = ell;
    for (int d = 0; d < e->rank[i]; d++) count[e->labels[i][d]]++;
    s = end + 1;
  }
  e->n_operands = n_operands;
  if (arrow) {
    if (!term(arrow + 2, arrow + strlen(arrow), -1, max_ell, e->out, &e->out_rank, NULL, err, errlen)) return false;
    for (int d = 0; d < e->out_rank; d++) {
      if (e->out[d] < SC_EINSUM_ELLIPSIS && !count[e->out[d]])
        return fail(err, errlen, "output subscript does not appear in the equation for any input operand");
      for (int k = 0; k < d; k++)
        if (e->out[k] == e->out[d]) return fail(err, errlen, "output subscript appears more than once in the output");
    }
    return true;
  }
  for (int i = 0; i < max_ell; i++) e->out[e->out_rank++] = SC_EINSUM_ELLIPSIS + (max_ell - 1 - i);
  for (int l = 0; l < 52; l++)
    if (count[l] == 1) e->out[e->out_rank++] = l;
  return true;
}
