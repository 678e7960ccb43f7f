/* cuda_stage.h - `shapec run --device cuda`: the inputs copied to a CUDA device and the
 * outputs back, through the CUDA driver loaded with dlopen (as the model libraries do). */
#ifndef SC_CUDA_STAGE_H
#define SC_CUDA_STAGE_H

#include <stdbool.h>
#include <stddef.h>

/* Makes device `device`'s primary context current; false with a message when there is no
 * driver or no such device. */
bool sc_stage_open(int device, char *err, size_t errlen);
/* Device memory holding a copy of host[0, bytes) (host NULL: uninitialized); NULL on failure. */
void *sc_stage_put(const void *host, size_t bytes, char *err, size_t errlen);
bool sc_stage_get(void *host, const void *dev, size_t bytes, char *err, size_t errlen);
void sc_stage_free(void *dev);

#endif
