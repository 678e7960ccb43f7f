/* conv_padding.h - convolutions with a padding mode rewritten as the int-padding overloads
 * (conv_padding.c). */
#ifndef SHAPEC_FRONTEND_CONV_PADDING_H
#define SHAPEC_FRONTEND_CONV_PADDING_H

#include <stdbool.h>

#include "ir/graph.h"
#include "lib/base/context.h"

/* The int-padding overload of a padding-mode convolution's target, or NULL. */
const char *sc_conv_padding_overload(const char *target);

/* Rewrites every such node of g in place; false with a diagnostic for a mode or kernel the
 * int form cannot express. */
bool sc_normalize_conv_padding(sc_ctx *ctx, const char *file, sc_graph *g);

#endif
