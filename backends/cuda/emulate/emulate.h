/* emulate.h - the controls of the host emulation of cuda_rt.h (emulate.c). */
#ifndef SC_EMULATE_H
#define SC_EMULATE_H

#include <stdint.h>

/* Threads each launch runs, one after another (default 1); launches run so far. */
extern int64_t sc_emu_launch_threads, sc_emu_launches;
/* The first recorded error's message ("" when none). */
const char *sc_emu_message(void);
/* Clears the recorded error. */
void sc_emu_reset(void);
/* The current emulated thread's sc_thread() and sc_threads() (fused kernels call these). */
int64_t sc_emu_thread_index(void);
int64_t sc_emu_thread_count(void);
/* cuBLAS's entry points that cublas.c calls, computed on the host (cublas_host.c). */
void *sc_emu_cublas_symbol(const char *name);
/* Products it computed: [0] float32, [1] float16, [2] bfloat16 operands. */
extern int64_t sc_emu_cublas_calls[3];

#endif
