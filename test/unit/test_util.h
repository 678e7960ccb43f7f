/* test_util.h - helpers shared by the unit tests: fixture files, JSON mutation by path,
 * and running the readers on text. */
#ifndef SC_TEST_UTIL_H
#define SC_TEST_UTIL_H

#include <check.h>
#include <cjson/cJSON.h>
#include <stddef.h>

#include "lib/base/context.h"
#include "lib/frontend/model_reader.h"
#include "lib/frontend/spec_reader.h"
#include "run_suite.h"

/* Reads SHAPEC_SOURCE_DIR/relpath into a heap string (fails the test if missing). */
char *tu_read_source(const char *relpath, size_t *len);
/* SHAPEC_SOURCE_DIR/relpath as a heap string. */
char *tu_source_path(const char *relpath);
/* The tutorial example model as a cJSON tree (caller deletes). */
cJSON *tu_example_model(void);
/* Replaces the value at a dotted/indexed path (`a.b[2].c`) with `json_value` (JSON text),
 * or deletes it when json_value is NULL.  Fails the test if the path does not exist. */
void tu_mutate(cJSON *root, const char *path, const char *json_value);
/* Prints the tree and reads it as a model into ctx. */
sc_program *tu_read_model_tree(sc_ctx *ctx, cJSON *root);
/* Asserts that ctx holds an error with this code and, when path is not NULL, this path. */
void tu_assert_diag(sc_ctx *ctx, sc_diag_code code, const char *path);

#endif
