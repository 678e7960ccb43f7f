/* library_file.h - whether a file is a whole shared library for this machine, checked
 * before dlopen maps it: a truncated model.so would be mapped past its end and kill the
 * process with SIGBUS on the first access; a foreign file should be named as such. */
#ifndef SC_LIBRARY_FILE_H
#define SC_LIBRARY_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* NULL when path holds a complete 64-bit little-endian x86-64 ELF shared object, else
 * what is wrong with it (a static string, or `why`, filled). */
const char *sc_library_file_problem(const char *path, char *why, size_t why_len);

/* The function `shapec_<name>_<fn>` of a loaded model library, <name> read from its SONAME:
 * model.so for `shapec_model_*`, NAME.so for a library exported with --name NAME. */
void *sc_library_function(void *handle, const char *fn);

#endif
