/* shape_env.h - the symbolic shape environment of one analysis: symbols with their
 * sources, hints and ranges; the guards that ops emit; and the decisions torch.export
 * takes on them (drop, replace, specialize, refine a range, defer to a runtime assert,
 * or report a constraint violation with suggested fixes).
 *
 * Replacements are kept fully resolved: no replacement mentions a replaced symbol, so
 * sc_env_resolve needs one substitution pass. */
#ifndef SC_SHAPE_ENV_H
#define SC_SHAPE_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/dynspec.h"
#include "ir/graph.h"
#include "ir/value_range.h"

typedef enum sc_sym_origin {
  SC_SYM_AUTO,      /* Dim.AUTO: anything goes, silently */
  SC_SYM_DYNAMIC,   /* Dim.DYNAMIC: only a constant is a violation */
  SC_SYM_NAMED,     /* a root Dim of the spec: its linear facts must be declared */
  SC_SYM_UNBACKED,  /* data-dependent (u0, u1, ...) */
  SC_SYM_PROGRAM,   /* no spec: a symbol of the program's own metas, its range from range_constraints */
} sc_sym_origin;

/* Where a guard came from. */
/* Guards that come from no node: the spec itself, and the program's guards_code (path
 * then names the entry, graph_module... guards_code[i]). */
#define SC_PROV_SPEC (-1)
#define SC_PROV_GUARDS_CODE (-2)

typedef struct sc_provenance {
  int node;                /* node index, or SC_PROV_SPEC / SC_PROV_GUARDS_CODE */
  const char *node_name;
  const char *op;          /* serialized target */
  const char *path;        /* JSON path of the node */
  const char *rule;        /* shape rule that emitted it: broadcast, matmul, view, assert, ... */
  const char *shown;       /* guards_code: the entry as ep.module() names it when it fails */
} sc_provenance;

typedef struct sc_symbol {
  const char *name;        /* s0, dx, u0 */
  sc_sym_origin origin;
  const sc_root_dim *dim;  /* NAMED */
  const char *source;      /* "w.size()[0]"; for unbacked, "item() at node 'x'" */
  const char *spec_path;   /* JSON path of its leaf in the spec, when any */
  bool has_hint;
  int64_t hint;
  sc_range_iv range;       /* current range, refined by guards */
  sc_range_iv declared;    /* as the spec gives it, before the >= 2 tracing assumption */
  bool is_int;             /* the value of an int input, not a size: no floor of 2 */
  bool unnamed_in_torch;   /* NAMED, equal to an earlier AUTO or DYNAMIC size: torch keeps that
                              size's symbol, so its messages name the size and suggest no range */
  const char *unnamed_as;  /* unnamed_in_torch: that size, x.size()[1], which torch names instead */
  /* the least value the library lets it take where its range starts at 2 or below: 0
   * (sizes 0 and 1 were not traced, ep.module() runs them), or below 0 for a root that only
   * derived input sizes hold (x: [r + 2] of 0 rows is r = -2, which ep.module() runs too) */
  int64_t untraced_lo;
  bool traced_floor;       /* NAMED, and an AUTO or DYNAMIC dim is this symbol too: torch's
                              range_constraints intersect that dim's traced range (>= 2) */
  /* NAMED, a derived size torch writes the Dim in (derived_roots.h): its name in torch's
   * messages ("r - 1"), the Dim = this symbol + dim_offset, and whether the Dim is a phantom
   * (then torch suggests no fix for it) */
  const char *label;
  int64_t dim_offset;
  bool phantom;
  /* a phantom Dim's own symbol (AUTO, dim set): its first derived size as the spec writes it
   * ("r0 + 1") and that size = phantom_a * the Dim + phantom_b; torch names a specialization
   * of the Dim by that size and its value */
  const char *phantom_text;
  int64_t phantom_a, phantom_b;
  const sc_expr *replacement;
  sc_provenance replaced_at;
  const sc_expr *replaced_guard;
} sc_symbol;

typedef enum sc_guard_outcome {
  SC_GUARD_TRUE,           /* statically true (constants or ranges) */
  SC_GUARD_REPLACEMENT,    /* solved into a replacement */
  SC_GUARD_SPECIALIZATION, /* pinned a symbol to a constant */
  SC_GUARD_RANGE,          /* refined a range */
  SC_GUARD_RUNTIME_ASSERT, /* kept as a runtime assert */
  SC_GUARD_VIOLATION,      /* conflicts with the spec */
  SC_GUARD_INPUT,          /* checked on the input sizes before the run: the program's guards_code, and
                              the range of a derived input size (torch's ep.module() checks both) */
} sc_guard_outcome;

typedef struct sc_guard {
  const sc_expr *expr;     /* as emitted (with the replacements known then applied) */
  sc_guard_outcome outcome;
  sc_provenance prov;
  const char *symbol;      /* the symbol replaced, specialized or refined */
  const char *text;        /* INPUT: the condition over the inputs, "x.size()[0] % 3 == 0" */
} sc_guard;

/* A change to the spec that removes a violation (applied by --fix-spec). */
typedef enum sc_fix_kind {
  SC_FIX_NONE,
  SC_FIX_STATIC_LEAF,   /* the leaf at spec_path becomes the int `value` */
  SC_FIX_DIM_RANGE,     /* Dim `dim` gets [min, max] (has_max false: unbounded) */
  SC_FIX_DIM_VALUE,     /* Dim `dim` is the constant `value`: every use becomes an int */
  SC_FIX_DIM_RELATE,    /* Dim `dim` = a*other + b: every use is rewritten in `other` */
  SC_FIX_DIM_DIVISIBLE, /* Dim `dim` = a*other where `other` is a new root with [min, max] */
} sc_fix_kind;

typedef struct sc_fix {
  sc_fix_kind kind;
  const char *spec_path;   /* STATIC_LEAF; DIM_RELATE: when set, this leaf first becomes the new Dim `other` */
  const char *dim, *other;
  int64_t value, a, b, min, max;
  bool has_max;
} sc_fix;

typedef struct sc_violation {
  sc_fix fix;
  const char *label;       /* what torch names in "Constraints violated (label)!": the Dim, or the size */
  const char *message;     /* torch's bullet sentence, over the inputs' sizes */
  const char *note;        /* shapec's explanation beyond where the guard came from, or NULL */
  const char **fixes;      /* torch's vocabulary: "dy = dx", "dx = Dim('dx', max=512)" */
  size_t n_fixes;
  sc_provenance prov;
  const sc_expr *guard;
  bool never_holds;        /* the guard is false for every value the ranges and facts allow: on
                              the program's own symbols alone, the program contradicts itself */
  const char *hint_conflict; /* a DYNAMIC hint on a size whose sample is 0 or 1: torch reports it
                                only when nothing else is violated, in other words (this is the
                                size as torch names it there, "inputs[1].shape[0]") */
} sc_violation;

typedef struct sc_shape_env {
  sc_ctx *ctx;
  uint64_t range_trials;  /* guard evaluations spent trying guards over whole ranges (shape_env.c) */
  sc_symbol *symbols;
  size_t n_symbols, cap_symbols;
  sc_guard *guards;
  size_t n_guards, cap_guards;
  const sc_expr **guarded; /* every condition a guard has held (a set, open addressing): a
                              condition not in it is in no guard, found without a scan */
  size_t n_guarded, cap_guarded;
  sc_violation *violations;
  size_t n_violations, cap_violations;
  int next_s, next_u;      /* numbering of new s / u symbols */
  const char **reserved;   /* names no new s / u symbol may take: the spec's Dims (a Dim named
                              "s2" is not the AUTO size shapec would call s2) */
  size_t n_reserved;
  const sc_expr **facts;   /* conditions known to hold (the program's own guards) */
  size_t n_facts, cap_facts;
  bool prefer_deferred_asserts; /* guards beyond the spec language on a named Dim become runtime
                                   asserts instead of violations (torch's export flag) */
#define SC_MAX_SUGGESTIONS 16
  const char *suggestions[SC_MAX_SUGGESTIONS]; /* fix lines that are no violation's own: a DYNAMIC
                                                  size equal to a named Dim (L['y'].size()[1] = dx) */
  size_t n_suggestions;
} sc_shape_env;

void sc_env_init(sc_shape_env *env, sc_ctx *ctx);
void sc_env_release(sc_shape_env *env);
sc_symbol *sc_env_find(sc_shape_env *env, const char *name);
/* Adds a symbol (name interned); returns it.  The pointer is stable until the next add. */
sc_symbol *sc_env_add_symbol(sc_shape_env *env, const char *name, sc_sym_origin origin, sc_range_iv range);
/* The next name s<k> that no symbol has (a program's own symbols may be s0, s1, ...). */
void sc_env_fresh_s(sc_shape_env *env, char name[32]);
/* A size or input as torch's messages write it: L['y'].size()[1], L['d']['y'].size()[0], L['n']. */
const char *sc_env_torch_source(sc_shape_env *env, const char *source);
/* A fresh unbacked symbol u<k>. */
const sc_expr *sc_env_new_unbacked(sc_shape_env *env, const char *source, bool size_like);

/* Applies the replacements. */
const sc_expr *sc_env_resolve(sc_shape_env *env, const sc_expr *e);
/* Range of an expression under the current symbol ranges (after resolving). */
sc_range_iv sc_env_range(sc_shape_env *env, const sc_expr *e);
/* Evaluates under the hints; false when a symbol has none. */
bool sc_env_hint(sc_shape_env *env, const sc_expr *e, int64_t *out);
/* Three-valued: decided by constants or ranges, else SC_UNKNOWN. */
sc_truth sc_env_decide(sc_shape_env *env, const sc_expr *cond);
/* True when e mentions an unbacked symbol. */
bool sc_env_is_unbacked(sc_shape_env *env, const sc_expr *e);

/* Declares a condition true for every input the program accepts (a conjunction gives
 * each of its parts): the guards torch recorded while tracing, which it re-derives no
 * more than shapec should. */
void sc_env_add_fact(sc_shape_env *env, const sc_expr *cond);
/* For a relation linear in one symbol (a*s + b REL 0 with REL one of == < <= > >=, after
 * resolving): returns the symbol's name and sets *out to the values of it that satisfy
 * the relation (empty when none does: 2*s == 3); NULL for any other condition. */
const char *sc_env_linear_bound(sc_shape_env *env, const sc_expr *cond, sc_range_iv *out);
/* Records a guard checked on the input sizes before the run (SC_GUARD_INPUT). */
void sc_env_input_guard(sc_shape_env *env, const sc_expr *cond, const char *text, const sc_provenance *prov);

/* Records a guard that must hold and takes torch.export's decision on it. */
void sc_env_guard(sc_shape_env *env, const sc_expr *cond, const sc_provenance *prov);
/* A rule relied on cond, which the ranges decide true without a guard (as torch's static
 * evaluation does); when only tracing's floor of 2 makes it true, it is checked on the
 * inputs, since the library lets sizes 0 and 1 through as ep.module() does. */
void sc_env_rely_on(sc_shape_env *env, const sc_expr *cond, const sc_provenance *prov);
/* e with every Min and Max the ranges decide taken as decided, as torch's program meta
 * shows a size: Min(2, s0) is 2 while s0 >= 2. */
const sc_expr *sc_env_as_traced(sc_shape_env *env, const sc_expr *e);
/* Whether cond, true by the ranges, is true only thanks to tracing's floor of 2. */
bool sc_env_needs_tracing_floor(sc_shape_env *env, const sc_expr *cond);
/* torch's sentence for a size marked dynamic that became a constant (%s: the Dim or the
 * size, %lld: the constant). */
#define SC_SPECIALIZED_SENTENCE                                                                                      \
  "You marked %s as dynamic but your code specialized it to be a constant (%lld). If you're using mark_dynamic, "    \
  "either remove it or use maybe_mark_dynamic. If you're using Dim.DYNAMIC, replace it with either Dim.STATIC or "   \
  "Dim.AUTO."

/* Records a constraint violation (message and fixes copied); returns it so the caller
 * can attach a structured fix.  The pointer is valid until the next violation. */
sc_violation *sc_env_violation(sc_shape_env *env, const sc_provenance *prov, const sc_expr *guard, const char **fixes,
                               size_t n_fixes, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Where a guard came from, in words: "node 'add' (torch.ops.aten.add.Tensor, broadcast
 * rule)", "the dynamic_shapes spec", "the program's guards_code". */
const char *sc_env_where(sc_shape_env *env, const sc_provenance *prov);

/* Completes the fixes that depend on the final ranges; call once, after the last guard. */
void sc_env_finalize(sc_shape_env *env);
const char *sc_sym_origin_name(sc_sym_origin origin);

#endif
