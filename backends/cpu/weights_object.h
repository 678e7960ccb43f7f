/* weights_object.h - the embedded weights as an object file of their own.
 *
 * LLVM would take the blob as a constant of the module and copy it at each step (the
 * constant, the machine code layer, the object in memory); a 45 MB resnet18 then costs a
 * quarter of its export.  Instead the pieces (cg_weights.c) are written straight from
 * where they are into a minimal ELF relocatable object: one read-only section, 64-byte
 * aligned, and one hidden symbol, shapec_weights, at its start.  The link places it in
 * the library beside the code that reads the pieces at their offsets from that symbol. */
#ifndef SC_WEIGHTS_OBJECT_H
#define SC_WEIGHTS_OBJECT_H

#include <stdbool.h>

#include "backends/llvm/lower.h"

/* Writes g's laid-out pieces to path as an object for the machine of like_object (the
 * code's object, whose ELF class, byte order and machine it copies).  False with SC0803
 * (and no file) on failure. */
bool cpu_write_weights_object(cg *g, const char *path, const void *like_object, size_t like_size);

#endif
