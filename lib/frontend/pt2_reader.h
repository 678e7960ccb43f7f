/* pt2_reader.h - reads the zip archive that torch.export.save writes (the "PT2 archive"):
 *   <root>/archive_format                       "pt2"
 *   <root>/models/<name>.json                   the serialized ExportedProgram
 *   <root>/data/weights/<name>_weights_config.json   PayloadConfig: fqn -> payload + meta
 *   <root>/data/weights/weight_<k>              raw storage bytes
 *   <root>/data/constants/<name>_constants_config.json, tensor_<k>   likewise
 * Raw payloads are read through libzip and laid out contiguously; pickled payloads are
 * refused with their name. */
#ifndef SC_PT2_READER_H
#define SC_PT2_READER_H

#include <stdbool.h>

#include "ir/graph.h"
#include "ir/weights.h"
#include "lib/base/context.h"

/* True when the file starts with a zip signature. */
bool sc_pt2_looks_like_archive(const char *path);
/* Reads the program and its weights (NULL when the archive holds none).  Everything the
 * archive makes shapec allocate (its members inflated, the torch.save files inside them
 * and their pickles, the weights unpacked) is charged to one budget for the file
 * (lib/base/budget.h): past it, SC0703 naming the member and the limit.  Returns false
 * with errors recorded (pt2-*, or file-read when the file cannot be opened). */
bool sc_pt2_read(sc_ctx *ctx, const char *path, sc_program **program, sc_weights **weights);

#endif
