/* frozen_sizes.h - sizes a static program froze where a spec makes them dynamic.
 *
 * A program exported without dynamic_shapes holds every size it read in Python as a
 * number: `x.repeat(y.shape[0], 1)` became `repeat(x, [2, 1])`, `torch.zeros(n, 4)`
 * became `full([2, 4], 0)`.  A spec applied to such a file makes y.size()[0] dynamic, but
 * the 2 stays: with y.size()[0] = 3 the library would compute a differently shaped result
 * than torch's export with that spec, and nothing would say so.  This pass finds, for each
 * input dim the spec makes dynamic where the program has a number, the size arguments of
 * repeat, view/reshape, expand, full/zeros/ones/empty (and their new_* forms) and arange
 * that equal that number (2 or more), on nodes that do not take that input itself (a
 * literal equal to the operand's own dim is as likely a literal): a size that could have
 * flowed there.  For each such
 * dim it warns (SC0608, naming the node) and has the library refuse a call whose size
 * differs (a check of the dim against its export-time size, with the reason), so that the
 * library never silently computes what torch would not.
 *
 * requires: an analysed program with a spec (sc_analysis_run), its checks recorded
 * provides: warnings, and a->checks extended by one check per frozen dim */
#ifndef SC_FROZEN_SIZES_H
#define SC_FROZEN_SIZES_H

#include "passes/shape_analysis.h"

void sc_flag_frozen_sizes(sc_ctx *ctx, sc_analysis *a);

#endif
