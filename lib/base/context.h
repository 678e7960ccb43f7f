/* context.h - one compilation's state: its arena, its diagnostics, its interned names
 * and symbolic expressions.  Nothing is global: two contexts never share anything. */
#ifndef SC_CONTEXT_H
#define SC_CONTEXT_H

#include <stdbool.h>

#include "arena.h"
#include "diag.h"
#include "strmap.h"

struct sc_expr_table;

typedef struct sc_ctx {
  sc_arena arena;
  sc_diags diags;
  sc_strmap names;               /* interned strings */
  struct sc_expr_table *exprs;   /* hash-consed expressions, see ir/symexpr.c */
  struct sc_budget *budget;      /* the input file being read: what it may still allocate (budget.h), or NULL */
  bool verbose;                  /* print each phase's time as it ends (phase.h) */
  double started;                /* when the first timed phase began */
} sc_ctx;

/* Returns a new context; free it with sc_ctx_free. */
sc_ctx *sc_ctx_new(void);
void sc_ctx_free(sc_ctx *ctx);
/* Returns the unique arena copy of s: equal strings give equal pointers. */
const char *sc_ctx_intern(sc_ctx *ctx, const char *s);
const char *sc_ctx_intern_n(sc_ctx *ctx, const char *s, size_t n);

#endif
