/* context.c - compilation context; see context.h. */
#include "context.h"

#include <stdlib.h>
#include <string.h>

sc_ctx *sc_ctx_new(void) {
  sc_ctx *ctx = sc_xcalloc(1, sizeof *ctx);
  sc_diags_init(&ctx->diags, &ctx->arena);
  sc_strmap_init(&ctx->names, &ctx->arena);
  return ctx;
}

void sc_ctx_free(sc_ctx *ctx) {
  if (!ctx) return;
  sc_diags_release(&ctx->diags);
  sc_arena_free(&ctx->arena);
  free(ctx);
}

const char *sc_ctx_intern_n(sc_ctx *ctx, const char *s, size_t n) {
  char stackbuf[128];
  char *key = n < sizeof stackbuf ? stackbuf : sc_xmalloc(n + 1);
  memcpy(key, s, n);
  key[n] = '\0';
  const char *found = sc_strmap_get(&ctx->names, key);
  if (!found) {
    found = sc_arena_strndup(&ctx->arena, s, n);
    sc_strmap_put(&ctx->names, found, (void *)found);
  }
  if (key != stackbuf) free(key);
  return found;
}

const char *sc_ctx_intern(sc_ctx *ctx, const char *s) { return sc_ctx_intern_n(ctx, s, strlen(s)); }
