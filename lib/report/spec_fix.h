/* spec_fix.h - applies the structured fixes of constraint violations to a spec file and
 * returns the corrected spec in the same JSON format (for --fix-spec and the report). */
#ifndef SC_SPEC_FIX_H
#define SC_SPEC_FIX_H

#include <cjson/cJSON.h>

#include "lib/base/context.h"
#include "passes/shape_env.h"

/* Reads the spec at spec_path (NULL: an empty spec) and applies every violation's fix.
 * Returns the corrected tree (caller deletes) or NULL with an error recorded. */
cJSON *sc_spec_fix(sc_ctx *ctx, const char *spec_path, const sc_violation *violations, size_t n);
/* Gives every entry of "dims" the three keys torch's loader requires, in its order: min,
 * max (null where absent: the default) and derived, the leaves of dynamic_shapes that are expressions of
 * that Dim ("4*dy"), sorted; and an empty "dims" where there is none.  torch's loader
 * refuses a spec without them. */
void sc_spec_complete_dims(cJSON *root);
/* Applies every violation's fix to a spec tree in place. */
void sc_spec_fix_apply(sc_ctx *ctx, cJSON *root, const sc_violation *violations, size_t n);

#endif
