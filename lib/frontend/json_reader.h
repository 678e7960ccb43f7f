/* json_reader.h - cJSON parsing with diagnostics, and typed field access that tracks the
 * JSON path (`graph_module.graph.nodes[3].inputs[1].arg`) for every error it records.
 * Only the frontends in lib/ include this: the IR never sees JSON. */
#ifndef SC_JSON_READER_H
#define SC_JSON_READER_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/base/context.h"

#define SC_JSON_MAX_DEPTH 512

/* Parses text (len bytes, need not be NUL-terminated).  Bare NaN/Infinity, which Python's
 * json module writes for non-finite floats, are read as the strings "NaN"/"Infinity";
 * long integer literals are kept exact (see sc_json_exact_int).
 * Returns the tree (free with cJSON_Delete) or NULL with an error recorded
 * (file-empty, json-syntax with line and column, json-too-deep). */
cJSON *sc_json_parse(sc_ctx *ctx, const char *file, const char *text, size_t len);

/* Where a piece of text passed to sc_json_parse_in lies in its document, so that errors
 * carry the document's line and column: from piece offset `at` on, the piece continues
 * the document at `doc_at` (segments sorted by `at`, the first at 0). */
typedef struct sc_json_segment {
  size_t at, doc_at;
} sc_json_segment;

typedef struct sc_json_origin {
  const char *doc;
  size_t doc_len;
  const sc_json_segment *segments;
  size_t n_segments;
} sc_json_origin;

/* sc_json_parse of a piece of a document (see json_document.h). */
cJSON *sc_json_parse_in(sc_ctx *ctx, const char *file, const char *text, size_t len, const sc_json_origin *origin);

/* A reading session over one file: the current JSON path and where errors go. */
typedef struct sc_jr {
  sc_ctx *ctx;
  const char *file;
  char path[1024];
  size_t path_len;
} sc_jr;

void sc_jr_init(sc_jr *jr, sc_ctx *ctx, const char *file, const char *root_path);
/* Appends `.key` / `[i]` to the path and returns the length to restore with sc_jr_pop. */
size_t sc_jr_push_key(sc_jr *jr, const char *key);
size_t sc_jr_push_index(sc_jr *jr, size_t i);
void sc_jr_pop(sc_jr *jr, size_t saved);
/* Records an error (or warning) at the current path. */
sc_diag *sc_jr_error(sc_jr *jr, sc_diag_code code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
sc_diag *sc_jr_warn(sc_jr *jr, sc_diag_code code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Integer literals longer than a double holds exactly reach the tree as strings marked
 * with a leading \x01; these return the digits of such an item (or NULL), and whether an
 * item is a number of either form. */
const char *sc_json_exact_int(const cJSON *item);
bool sc_json_is_number(const cJSON *item);

/* The JSON type of an item, in words ("an object", "a string", ...). */
const char *sc_json_type_name(const cJSON *item);

/* Item-level conversions at the current path; false (with an error) on a wrong type. */
bool sc_jr_as_int(sc_jr *jr, const cJSON *item, int64_t *out);
bool sc_jr_as_float(sc_jr *jr, const cJSON *item, double *out);
bool sc_jr_as_bool(sc_jr *jr, const cJSON *item, bool *out);
bool sc_jr_as_string(sc_jr *jr, const cJSON *item, const char **out);
bool sc_jr_expect_object(sc_jr *jr, const cJSON *item);
bool sc_jr_expect_array(sc_jr *jr, const cJSON *item);

/* Field access: returns the member, or NULL.  A missing required member records
 * missing-field at path.key; a present member of the wrong type records wrong-type. */
const cJSON *sc_jr_field(sc_jr *jr, const cJSON *obj, const char *key, bool required);
const cJSON *sc_jr_object_field(sc_jr *jr, const cJSON *obj, const char *key, bool required);
const cJSON *sc_jr_array_field(sc_jr *jr, const cJSON *obj, const char *key, bool required);
bool sc_jr_int_field(sc_jr *jr, const cJSON *obj, const char *key, bool required, int64_t *out);
bool sc_jr_string_field(sc_jr *jr, const cJSON *obj, const char *key, bool required, const char **out);
bool sc_jr_bool_field(sc_jr *jr, const cJSON *obj, const char *key, bool required, bool *out);

#endif
