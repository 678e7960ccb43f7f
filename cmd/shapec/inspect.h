/* inspect.h - `shapec inspect MODEL.so`: what a built library expects, from the library alone. */
#ifndef SC_INSPECT_H
#define SC_INSPECT_H

#include <stdbool.h>

/* Prints the library's inputs and outputs (dtype, symbolic shape), the ranges of its
 * symbols, its replacements, the guards it checks on every call and its runtime asserts,
 * its targets and how it was built, all read from the library (the report it embeds);
 * with as_json, the embedded report itself.  Returns the exit status. */
int sc_cmd_inspect(const char *path, bool as_json);

#endif
