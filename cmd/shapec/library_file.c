/* library_file.c - the ELF checks before dlopen, and a loaded library's entry points by
 * its name; see library_file.h. */
#define _GNU_SOURCE 1 /* dlinfo */
#include "library_file.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* off + len within size, without overflow */
static bool fits(uint64_t off, uint64_t len, uint64_t size) { return off <= size && len <= size - off; }

const char *sc_library_file_problem(const char *path, char *why, size_t why_len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(why, why_len, "cannot open it: %s", strerror(errno));
    return why;
  }
  struct stat st;
  Elf64_Ehdr eh;
  const char *problem = NULL;
  size_t got = fstat(fileno(f), &st) == 0 ? fread(&eh, 1, sizeof eh, f) : 0;
  const unsigned char *head = eh.e_ident;
  size_t lead = 0; /* a JSON document may start with white space */
  while (lead < got && (head[lead] == ' ' || head[lead] == '\n' || head[lead] == '\r' || head[lead] == '\t')) lead++;
  if (got >= 4 && memcmp(head, "PK\x03\x04", 4) == 0) {
    problem = "a zip archive (a .pt2 that torch.export.save wrote?), not a built library: build one with `shapec "
              "export FILE -o OUTDIR`, then use OUTDIR/model.so";
  } else if (lead < got && head[lead] == '{') {
    problem = "a JSON document (an ExportedProgram's model.json?), not a built library: build one with `shapec "
              "export FILE -o OUTDIR`, then use OUTDIR/model.so";
  } else if (got != sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    problem = "not a shared library (no ELF header): a library `shapec export` built is OUTDIR/model.so";
  } else if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64) {
    problem = "a library for another kind of machine (shapec builds 64-bit x86-64 libraries)";
  } else if (eh.e_type != ET_DYN) {
    problem = "an ELF file but not a shared library";
  } else {
    uint64_t size = (uint64_t)st.st_size;
    if (!fits(eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr), size) ||
        (eh.e_shnum && !fits(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), size))) {
      problem = why;
    } else {
      for (int i = 0; i < eh.e_phnum && !problem; i++) {
        Elf64_Phdr ph;
        if (fseek(f, (long)(eh.e_phoff + (uint64_t)i * sizeof ph), SEEK_SET) != 0 || fread(&ph, 1, sizeof ph, f) != sizeof ph ||
            (ph.p_type == PT_LOAD && !fits(ph.p_offset, ph.p_filesz, size)))
          problem = why;
      }
    }
    if (problem)
      snprintf(why, why_len, "the file is truncated or damaged (%llu bytes; its headers describe more): export it "
               "again", (unsigned long long)size);
  }
  fclose(f);
  return problem;
}

/* The stem of a loaded library's SONAME ("model" for model.so), from its dynamic section. */
static const char *soname_stem(void *handle, char *buf, size_t n) {
  struct link_map *lm = NULL;
  snprintf(buf, n, "model");
  if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_ld) return buf;
  const char *strtab = NULL;
  size_t soname = (size_t)-1;
  for (const ElfW(Dyn) *d = lm->l_ld; d->d_tag != DT_NULL; d++) {
    if (d->d_tag == DT_STRTAB) strtab = (const char *)d->d_un.d_ptr; /* relocated by the loader */
    if (d->d_tag == DT_SONAME) soname = d->d_un.d_val;
  }
  if (!strtab || soname == (size_t)-1) return buf;
  const char *name = strtab + soname, *dot = strstr(name, ".so");
  if (dot && dot > name && (size_t)(dot - name) < n) snprintf(buf, n, "%.*s", (int)(dot - name), name);
  return buf;
}

void *sc_library_function(void *handle, const char *fn) {
  char stem[256], symbol[400];
  snprintf(symbol, sizeof symbol, "shapec_%s_%s", soname_stem(handle, stem, sizeof stem), fn);
  return dlsym(handle, symbol);
}
