/* zip_member.h - whether a zip member's declared size can be true, before anything is
 * allocated for it: a crafted archive can declare gigabytes for a member of a few bytes.
 * A stored member is as large as its compressed bytes; a deflated one at most 1032 times
 * (deflate's limit); either at most 16 GiB. */
#ifndef SC_ZIP_MEMBER_H
#define SC_ZIP_MEMBER_H

#include <stdbool.h>
#include <zip.h>

static inline bool sc_zip_size_plausible(const zip_stat_t *st) {
  const zip_uint64_t max_member = (zip_uint64_t)1 << 34;
  if (!(st->valid & ZIP_STAT_SIZE) || st->size > max_member) return false;
  if (!(st->valid & ZIP_STAT_COMP_SIZE) || !(st->valid & ZIP_STAT_COMP_METHOD)) return true;
  if (st->comp_method == ZIP_CM_STORE) return st->size == st->comp_size;
  return st->size / 1032 <= st->comp_size;
}

#endif
