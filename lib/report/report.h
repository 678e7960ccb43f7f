/* report.h - the machine-readable report (constraints.json): inputs and outputs with
 * their symbolic shapes, symbols, range constraints, replacements, specializations,
 * guards, runtime asserts and, for a rejected export, the error with suggested fixes and
 * the corrected spec.  CI jobs diff it against a baseline, so its layout is documented in
 * docs/report.md, stable, and byte-identical across runs. */
#ifndef SC_REPORT_H
#define SC_REPORT_H

#include <cjson/cJSON.h>

#include "ir/dynspec.h"
#include "lib/base/context.h"
#include "passes/shape_analysis.h"

#define SC_REPORT_FORMAT "shapec-constraints"
#define SC_REPORT_VERSION 1

/* Returns the report as JSON text (heap; free it).  `analysis` may be NULL (not run);
 * `fixed_spec` may be NULL. */
char *sc_report_render(sc_ctx *ctx, const sc_program *p, const sc_dynspec *spec, const sc_analysis *analysis,
                       const cJSON *fixed_spec);
/* Renders and writes it atomically; false with a file-write error. */
bool sc_report_write(sc_ctx *ctx, const char *path, const sc_program *p, const sc_dynspec *spec,
                     const sc_analysis *analysis, const cJSON *fixed_spec);
/* Pretty-prints any tree the way the report is printed (two-space indent, newline). */
char *sc_json_render(const cJSON *root);

#endif
