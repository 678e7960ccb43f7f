/* fit_check.h - whether observed calls fit an export's contract (its report): the sizes
 * the library would accept, checked the way it checks them on each call (static sizes,
 * relations between dims, ranges, the program's guards, runtime asserts over inputs). */
#ifndef SC_FIT_CHECK_H
#define SC_FIT_CHECK_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "lib/base/context.h"
#include "observations.h"

/* True when every call of every file fits; else one error per call that does not (at most
 * max_errors), naming the file, its rank, the call's JSON path, the dim and the rule. */
bool sc_obs_fit_report(sc_ctx *ctx, const sc_obs_set *set, const cJSON *report, int max_errors);

#endif
