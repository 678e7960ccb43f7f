/* shape_analysis.h - torch.export's dynamic-shape analysis over a program.
 *
 * requires: a verified program and a dynamic_shapes spec read against it
 * provides: a symbol per dynamic input dim, a symbolic shape on every tensor value and a
 *           symbolic value on every SymInt/SymBool, the guards with their decisions
 *           (replacements, specializations, ranges, runtime asserts) and, when the
 *           program cannot honour the spec, constraint violations with suggested fixes
 *           (error SC0601 per violation).  Without a spec (spec->from_program) the
 *           symbols, ranges and guards are the program's own (its metas, range_constraints
 *           and guards_code), and every node's derived shape is compared with its meta
 *           (warning SC0605 where they differ).  The program's guards_code holds either
 *           way (SC_GUARD_INPUT).  A program that no input satisfies (guards, asserts and
 *           ranges that contradict each other, a range with min > max, a size or guard
 *           dividing by zero) is error SC0607, naming the conflicting parts. */
#ifndef SC_SHAPE_ANALYSIS_H
#define SC_SHAPE_ANALYSIS_H

#include <stdbool.h>

#include "ir/dynspec.h"
#include "shape_env.h"

/* The range of an input size that is an expression of symbols ("2*s17 + 1", "s17*s77"),
 * as torch's range_constraints list it beside the symbols. */
typedef struct sc_derived_range {
  const sc_expr *expr;
  sc_range_iv range;
} sc_derived_range;

/* A guards_code entry as ep.module() checks it: on the sizes of each call, in order. */
typedef struct sc_program_check {
  const sc_expr *raw;    /* over symbols named by their source: x.size()[1], n */
  const char *text;      /* the failure message's text, as torch prints it */
} sc_program_check;

typedef struct sc_analysis {
  sc_shape_env env;
  sc_program_check *checks;    /* the program's guards_code that the library can check */
  size_t n_checks;
  sc_derived_range *derived;   /* without a spec: one per distinct derived input size */
  size_t n_derived;
  const sc_program *program;
  const sc_dynspec *spec;
  struct sc_root_orientation *orient; /* per spec root: the symbol torch writes it in (derived_roots.h) */
  bool completed;        /* every node was analysed (false after an error in a rule) */
} sc_analysis;

/* Runs the analysis.  Returns false when errors were recorded (violations included);
 * the analysis holds whatever was established either way.  Release with
 * sc_analysis_release. */
bool sc_analysis_run(sc_ctx *ctx, const sc_program *p, const sc_dynspec *spec, sc_analysis *out);

/* The violations as torch words them: "Constraints violated (dx)!", a "  - " line per
 * violation, "Suggested fixes:" and one "  dx = Dim('dx', max=16)" line per fix; with
 * explain, each bullet is followed by where shapec found its guard. */
const char *sc_analysis_violations_text(sc_ctx *ctx, const sc_analysis *a, bool explain);
/* The "Suggested fixes:" lines as torch writes them: one per Dim (a value, else a
 * relation, else a range), then the sizes to name after a Dim (L['y'].size()[1] = dx). */
size_t sc_analysis_fix_lines(sc_ctx *ctx, const sc_analysis *a, const char ***lines);
void sc_analysis_release(sc_analysis *a);
/* Appends the symbols (with their replacement or range) and the runtime asserts, for
 * people; the report holds the same facts for machines. */
void sc_analysis_print(sc_strbuf *sb, const sc_analysis *a);
/* The source of an input dim, "w.size()[0]". */
const char *sc_analysis_dim_source(sc_ctx *ctx, const sc_value *v, int dim);
/* A symbol's reported range: a named Dim keeps its declared lower bound below 2 unless a
 * guard raised it; a symbol of the program's own is reported with the program's range. */
sc_range_iv sc_analysis_reported_range(const sc_symbol *s);
/* The range the library checks on a call: the reported range (for a symbol of the
 * program's own dynamism, the range the analysis ends with), its lower bound checked only
 * above 2, as ep.module() does: the >= 2 of tracing is an assumption, not a rule of the
 * program, and torch accepts 0 and 1 even below a named Dim's min of 1. */
sc_range_iv sc_analysis_checked_range(const sc_symbol *s);

#endif
