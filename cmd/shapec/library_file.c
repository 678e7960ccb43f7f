/* library_file.c - the ELF checks before dlopen; see library_file.h. */
#include "library_file.h"

#include <elf.h>
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
  if (fstat(fileno(f), &st) != 0 || fread(&eh, 1, sizeof eh, f) != sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    problem = "not a shared library (no ELF header): export it again with `shapec export`";
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
