/* op_table.c - operator table lookups; see op_table.h. */
#include "op_table.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const sc_op_info ops[SC_OP_COUNT] = {
#define SC_OP(id, target, cls) {SC_OP_##id, target, SC_OPC_##cls},
#include "ops.def"
#undef SC_OP
};

/* other serialized names of ops of the table (op_aliases.def) */
static const struct {
  const char *target;
  sc_op_id id;
} aliases[] = {
#define SC_OP_ALIAS(target, id) {target, SC_OP_##id},
#include "op_aliases.def"
#undef SC_OP_ALIAS
};

const sc_op_info *sc_op_lookup(const char *target) {
  for (size_t i = 0; i < SC_OP_COUNT; i++)
    if (strcmp(ops[i].target, target) == 0) return &ops[i];
  for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
    if (strcmp(aliases[i].target, target) == 0) return &ops[aliases[i].id];
  return NULL;
}

const sc_op_info *sc_op_lookup_inplace(const char *target) {
  static const char prefix[] = "torch.ops.aten.";
  size_t np = sizeof prefix - 1;
  if (strncmp(target, prefix, np) != 0) return NULL;
  const char *dot = strchr(target + np, '.');
  if (!dot || dot - target < (ptrdiff_t)np + 2 || dot[-1] != '_' || dot[-2] == '_') return NULL;
  char functional[128];
  int n = snprintf(functional, sizeof functional, "%.*s%s", (int)(dot - 1 - target), target, dot);
  if (n < 0 || (size_t)n >= sizeof functional) return NULL;
  const sc_op_info *op = sc_op_lookup(functional);
  /* elementwise ops, and the indexing ops whose result is self updated (a KV cache's
   * index_copy_, index_put_; scatter_ and its reductions) */
  if (!op) return NULL;
  switch (op->id) {
    case SC_OP_INDEX_COPY: case SC_OP_INDEX_PUT: case SC_OP_SCATTER_SRC: case SC_OP_SCATTER_VALUE: case SC_OP_SCATTER_ADD:
    case SC_OP_SCATTER_REDUCE: case SC_OP_TRIU: case SC_OP_TRIL: return op;
    default: return op->op_class == SC_OPC_ELEMENTWISE ? op : NULL;
  }
}

bool sc_op_only_in_place(const sc_op_info *op) { return op && op->id == SC_OP_FILL_DIAGONAL_; }

const char *sc_op_self_name(const sc_op_info *op) { return op->id == SC_OP_DROPOUT ? "input" : "self"; }

const sc_op_info *sc_op_get(sc_op_id id) { return (unsigned)id < SC_OP_COUNT ? &ops[id] : NULL; }

/* Levenshtein distance with a two-row table; names are short. */
static size_t edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 200) la = 200;
  if (lb > 200) lb = 200;
  size_t prev[201], cur[201];
  for (size_t j = 0; j <= lb; j++) prev[j] = j;
  for (size_t i = 1; i <= la; i++) {
    cur[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
      size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
      cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
    }
    memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
  }
  return prev[lb];
}

size_t sc_op_closest(const char *target, const char **out, size_t max) {
  size_t dist[SC_OP_COUNT];
  size_t order[SC_OP_COUNT];
  for (size_t i = 0; i < SC_OP_COUNT; i++) {
    dist[i] = edit_distance(target, ops[i].target);
    order[i] = i;
  }
  for (size_t i = 1; i < SC_OP_COUNT; i++) {
    size_t x = order[i], j = i;
    while (j > 0 && dist[order[j - 1]] > dist[x]) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = x;
  }
  size_t n = max < SC_OP_COUNT ? max : SC_OP_COUNT;
  for (size_t i = 0; i < n; i++) out[i] = ops[order[i]].target;
  return n;
}

const char *sc_op_class_name(sc_op_class cls) {
  static const char *names[] = {"elementwise", "matmul",   "conv",           "pool",     "norm",  "reduction",
                                "view",        "indexing", "creation", "data-dependent", "symbolic", "assert"};
  return (unsigned)cls < sizeof names / sizeof names[0] ? names[cls] : "?";
}
