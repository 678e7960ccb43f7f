/* cpu_target.h - the CPU target: the machine the host code is built for and the link of
 * a model library.  Used by backends/library.c; built on the shared lowering
 * (backends/llvm/lower.h). */
#ifndef SC_CPU_TARGET_H
#define SC_CPU_TARGET_H

#include <stdbool.h>
#include <stddef.h>

#include "backends/llvm/lower.h"

/* The lowering's hooks for code that runs on the CPU (cpu_lowering.c). */
extern const cg_target sc_cpu_target;

/* Creates g->tm for the host CPU (cpu_name NULL) or a named one (sc_cpu_is_known), sets
 * the module's triple and layout and g->cpu_features.  False with SC0802 on failure. */
bool cpu_target_open(cg *g, const char *cpu_name);

/* Verifies and optimizes g->M, emits it as an object and links it with the runtime
 * archive (its bytes) into so_path, written under a temporary name and renamed.  False
 * with SC0802 (LLVM) or SC0803 (the link) on failure. */
bool cpu_target_link(cg *g, const char *so_path, const void *runtime, size_t runtime_size);

#endif
