/* cpu_features.c - the instruction sets of the CPU a library runs on, checked against
 * those it was built for. */
#include <cpuid.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

/* Whether this CPU (and the OS, for the AVX register state) supports an instruction set;
 * -1 for a name we do not check.  cpuid directly: the library links no libgcc. */
int sc_rt_cpu_has(const char *name, size_t n) {
  unsigned a, b, c, d, b7 = 0, c1 = 0, d7 = 0, a71 = 0;
  if (__get_cpuid(1, &a, &b, &c, &d)) c1 = c;
  if (__get_cpuid_max(0, NULL) >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    b7 = b, d7 = d;
    if (a >= 1) { /* subleaf 1: the bfloat16 instructions */
      __cpuid_count(7, 1, a, b, c, d);
      a71 = a;
    }
  }
  unsigned long long xcr0 = 0;
  if (c1 & (1u << 27)) { /* OSXSAVE: xgetbv is available */
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    xcr0 = ((unsigned long long)hi << 32) | lo;
  }
  bool avx_state = (xcr0 & 6) == 6, avx512_state = avx_state && (xcr0 & 0xe0) == 0xe0;
  bool amx_state = (xcr0 & 0x60000) == 0x60000; /* the tile configuration and data */
  static const struct {
    const char *name;
    int leaf;      /* 1: cpuid(1).ecx, 7: cpuid(7).ebx, 70: cpuid(7).edx, 71: cpuid(7, 1).eax */
    int bit;
    int state;     /* 0 none, 1 AVX, 2 AVX-512, 3 AMX */
  } table[] = {{"sse4.2", 1, 20, 0}, {"avx", 1, 28, 1}, {"fma", 1, 12, 1}, {"f16c", 1, 29, 1},
               {"avx2", 7, 5, 1},    {"bmi2", 7, 8, 0},  {"avx512f", 7, 16, 2}, {"avx512dq", 7, 17, 2},
               {"avx512cd", 7, 28, 2}, {"avx512bw", 7, 30, 2}, {"avx512vl", 7, 31, 2},
               {"avx512_bf16", 71, 5, 2}, {"amx_bf16", 70, 22, 3}};
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    if (strlen(table[i].name) != n || strncmp(name, table[i].name, n) != 0) continue;
    int leaf = table[i].leaf;
    unsigned reg = leaf == 1 ? c1 : leaf == 7 ? b7 : leaf == 70 ? d7 : a71;
    bool has = (reg >> table[i].bit) & 1u;
    if (table[i].state == 1) has = has && avx_state;
    if (table[i].state == 2) has = has && avx512_state;
    if (table[i].state == 3) has = has && amx_state;
    return has;
  }
  return -1;
}

/* features: comma-separated names such as "avx2,fma"; each must be supported here, or
 * code built for it would fault or, through the vector ABI, compute garbage. */
static int check_features(const char *features, char *err, size_t errlen) {
  for (const char *p = features; p && *p;) {
    size_t n = strcspn(p, ",");
    if (sc_rt_cpu_has(p, n) == 0) {
      if (err && errlen)
        snprintf(err, errlen, "this CPU lacks %.*s, which the library was built for; export again with --cpu for "
                              "this machine", (int)n, p);
      return SHAPEC_ERR_CPU;
    }
    p += n + (p[n] == ',');
  }
  return SHAPEC_OK;
}

/* Whether the library was built for a CPU with AVX-512 (set with the verdict, from the
 * library's own feature list): the runtime's kernels take 16 lanes only then, so a library
 * built for an AVX2 CPU (--cpu haswell) computes as it would there. */
static _Atomic int library_avx512;
/* Whether the library was built for a CPU with AVX2 and FMA; -1 until a library says (the
 * unit tests call kernels without one): then this CPU's. */
static _Atomic int library_avx2 = -1;

/* cpuid traps to the hypervisor on virtual machines (tens of microseconds), so the answer,
 * which cannot change while the process runs, is computed once.  A library checks one
 * fixed feature list, so one cached verdict per library is enough. */
int sc_rt_cpu_supported(const char *features, char *err, size_t errlen) {
  static _Atomic int verdict = -1; /* -1 unknown, else the return code */
  int v = verdict;
  if (v == SHAPEC_OK) return SHAPEC_OK;
  v = check_features(features, err, errlen);
  if (v == SHAPEC_OK) {
    library_avx512 = features && strstr(features, "avx512f") != NULL;
    library_avx2 = features && strstr(features, "avx2") != NULL && strstr(features, "fma") != NULL;
  }
  verdict = v;
  return v;
}

int sc_rt_has_avx512(void) { return library_avx512 && sc_rt_has_avx2(); }

int sc_rt_library_has_avx2(void) { return library_avx2 != 0 && sc_rt_has_avx2(); }

/* SHAPEC_NO_AVX2 (set, not "0") makes the kernels take their paths for CPUs without AVX2 on
 * one that has it: the tests run those paths so, and a user can compare the two. */
int sc_rt_has_avx2(void) {
  static _Atomic int known = -1; /* cpuid is slow on virtual machines: ask once */
  int v = known;
  if (v < 0) {
    const char *off = getenv("SHAPEC_NO_AVX2");
    bool held = off && *off && strcmp(off, "0") != 0;
    known = v = !held && sc_rt_cpu_has("avx2", 4) == 1 && sc_rt_cpu_has("fma", 3) == 1;
  }
  return v;
}
