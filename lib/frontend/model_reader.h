/* model_reader.h - reads the JSON that torch.export writes for an ExportedProgram
 * (schema major version 8, any minor) into the program IR.
 *
 * Every error carries the file and the JSON path.  The reader keeps going after an error
 * where it can, so one run reports as many problems as possible. */
#ifndef SC_MODEL_READER_H
#define SC_MODEL_READER_H

#include <stddef.h>

#include "ir/graph.h"
#include "lib/base/context.h"

#define SC_SCHEMA_MAJOR 8

/* Reads a program from text; `file` names it in diagnostics.  Returns the program, or
 * NULL when an error was recorded. */
sc_program *sc_model_read(sc_ctx *ctx, const char *file, const char *text, size_t len);
/* Reads one TensorMeta (JSON text); errors carry `file` and the JSON path `path`. */
bool sc_model_read_tensor_meta(sc_ctx *ctx, const char *file, const char *path, const char *json_text,
                               sc_tensor_meta *out);
/* Reads a program from a file path. */
sc_program *sc_model_read_file(sc_ctx *ctx, const char *path);

#endif
