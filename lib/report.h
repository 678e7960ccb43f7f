/* report.h - the machine-readable report (constraints.json): inputs with their dtypes,
 * sample shapes and dim specs, outputs, the spec's Dims, and diagnostics.  CI jobs diff
 * it against a baseline, so its layout is documented in docs/report.md and stable. */
#ifndef SC_REPORT_H
#define SC_REPORT_H

#include "../ir/dynspec.h"
#include "context.h"

#define SC_REPORT_FORMAT 1

/* Returns the report as JSON text (heap; free it). */
char *sc_report_render(sc_ctx *ctx, const sc_program *p, const sc_dynspec *spec);
/* Renders and writes it atomically; false with a file-write error. */
bool sc_report_write(sc_ctx *ctx, const char *path, const sc_program *p, const sc_dynspec *spec);

#endif
