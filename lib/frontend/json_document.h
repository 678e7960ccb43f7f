/* json_document.h - a JSON document whose biggest containers are read one member at a time.
 *
 * A cJSON tree takes about ten times the text it comes from: 64-byte items, a malloc'd key
 * per object member.  For a program of a million nodes that is gigabytes, almost all of it
 * in two containers, graph.nodes and graph.tensor_values.  Here the document is parsed with
 * those containers left empty (the "skeleton"), and each of their members is parsed alone
 * when the reader asks for it and freed once read, so reading takes little more than the
 * text and the IR.
 *
 * A structural scan finds the containers and their members first.  Anything unusual in
 * the structure around them (a truncated file, a missing comma, an escaped key, nesting too
 * deep) makes the document parse whole instead, as before, so every error is reported
 * exactly as a whole parse reports it; errors inside one member carry the document's own
 * line and column. */
#ifndef SC_JSON_DOCUMENT_H
#define SC_JSON_DOCUMENT_H

#include "json_reader.h"
#include "lib/base/fileio.h"

/* One member of a deferred container: its value's span, and for an object its key's span
 * (quotes included). */
typedef struct sc_json_member {
  size_t key_start, key_end;
  size_t start, end;
} sc_json_member;

typedef struct sc_json_container {
  bool deferred;             /* false: the container is in the skeleton tree as usual */
  size_t n_members;
  sc_json_member *members;
} sc_json_container;

typedef struct sc_json_document {
  sc_ctx *ctx;
  const char *file;
  const char *text;          /* not owned; must outlive the document */
  size_t len;
  cJSON *root;               /* deferred containers are empty in it */
  size_t n_containers;
  sc_json_container *containers; /* one per path asked for, in that order */
  const sc_file_view *view;  /* where text lies, or NULL: pages are given back once read */
} sc_json_document;

/* Parses text, deferring the containers at `paths` (NULL-terminated dotted key paths from
 * the root object, e.g. "graph_module.graph.nodes").  view, when not NULL, is the file the
 * text lies in; the deferred containers' pages are given back after the scan and come back
 * one member at a time.  False with an error recorded when the text is not JSON (then
 * nothing needs freeing). */
bool sc_json_document_parse(sc_json_document *doc, sc_ctx *ctx, const char *file, const char *text, size_t len,
                            const sc_file_view *view, const char *const *paths);

/* The tree of member i of a deferred container (free with cJSON_Delete); an object's member
 * has its key in ->string.  NULL with a syntax error recorded when the member is not JSON.
 * Members are meant to be read in order, each once: with a view, the pages before the
 * member's end are given back (the page it ends in stays for the next member). */
cJSON *sc_json_document_member(const sc_json_document *doc, const sc_json_container *c, size_t i);

void sc_json_document_free(sc_json_document *doc);

#endif
