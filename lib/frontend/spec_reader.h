/* spec_reader.h - reads a dynamic_shapes spec in the form torch's
 * torch/_export/serde/dynamic_shapes.py dumps it:
 *   {"dynamic_shapes": [...] or {"x": [...]}, "dims": {"dx": {"min": 4, "max": 256,
 *    "derived": ["2*dx"]}}}
 * and checks it against the program's user inputs and their sample sizes. */
#ifndef SC_SPEC_READER_H
#define SC_SPEC_READER_H

#include "ir/dynspec.h"
#include "lib/base/context.h"

/* Returns the spec, or NULL with errors recorded. */
sc_dynspec *sc_spec_read(sc_ctx *ctx, const sc_program *p, const char *file, const char *text, size_t len);
sc_dynspec *sc_spec_read_file(sc_ctx *ctx, const sc_program *p, const char *path);
/* The spec of a fully static export (no --dynamic). */
sc_dynspec *sc_spec_static(sc_ctx *ctx, const sc_program *p);
/* No --dynamic: the program's own dynamism (from_program).  Each user input dim whose
 * tensor meta is symbolic keeps that expression (SC_DIM_PROGRAM), the others are static. */
sc_dynspec *sc_spec_from_program(sc_ctx *ctx, const sc_program *p);

#endif
