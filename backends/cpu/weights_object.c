/* weights_object.c - writes the weights object; see weights_object.h.
 *
 * Layout: the ELF header, the section's bytes at offset 64 (so already 64-byte aligned in
 * the file), then the symbol table, its names, the section names, and the section headers.
 * Only what a linker reads is there: no relocations, no debug data. */
#include "weights_object.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SEC_NULL, SEC_DATA, SEC_SYMTAB, SEC_STRTAB, SEC_SHSTRTAB, SEC_NOTE_STACK, N_SECTIONS };

static const char section_names[] = "\0.rodata.shapec_weights\0.symtab\0.strtab\0.shstrtab\0.note.GNU-stack";
enum { NAME_DATA = 1, NAME_SYMTAB = 24, NAME_STRTAB = 32, NAME_SHSTRTAB = 40, NAME_NOTE_STACK = 50 };

static size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

/* Writes n bytes, or n zero bytes when data is NULL. */
static bool put(FILE *f, const void *data, size_t n) {
  static const char zeros[4096];
  if (data) return fwrite(data, 1, n, f) == n;
  for (size_t done = 0; done < n;) {
    size_t k = n - done < sizeof zeros ? n - done : sizeof zeros;
    if (fwrite(zeros, 1, k, f) != k) return false;
    done += k;
  }
  return true;
}

static Elf64_Shdr section(Elf64_Word name, Elf64_Word type, Elf64_Xword flags, size_t offset, size_t size,
                          Elf64_Xword align) {
  return (Elf64_Shdr){.sh_name = name, .sh_type = type, .sh_flags = flags, .sh_offset = offset, .sh_size = size,
                      .sh_addralign = align};
}

bool cpu_write_weights_object(cg *g, const char *path, const void *like_object, size_t like_size) {
  const unsigned char *like = like_object;
  if (like_size < sizeof(Elf64_Ehdr) || memcmp(like, ELFMAG, SELFMAG) != 0 || like[EI_CLASS] != ELFCLASS64 ||
      like[EI_DATA] != ELFDATA2LSB)
    return cg_error(g, SC_DIAG_LINK, NULL, "internal error: the code's object is not a 64-bit little-endian ELF "
                    "object, which the weights object is written as");
  /* symbols: the null one and the blob's start */
  static const char names[] = "\0shapec_weights";
  Elf64_Sym syms[2] = {{0}, {.st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT), .st_other = STV_HIDDEN,
                            .st_shndx = SEC_DATA, .st_size = g->weights_total}};
  size_t names_size = sizeof names;

  size_t data_at = sizeof(Elf64_Ehdr); /* 64 */
  size_t symtab_at = round_up(data_at + g->weights_total, 8), symtab_size = sizeof syms;
  size_t strtab_at = symtab_at + symtab_size, shstrtab_at = strtab_at + names_size;
  size_t shdr_at = round_up(shstrtab_at + sizeof section_names, 8);
  Elf64_Ehdr eh;
  memcpy(&eh, like, sizeof eh);
  eh.e_type = ET_REL;
  eh.e_entry = 0;
  eh.e_phoff = 0;
  eh.e_shoff = shdr_at;
  eh.e_ehsize = sizeof eh;
  eh.e_phentsize = 0;
  eh.e_phnum = 0;
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = N_SECTIONS;
  eh.e_shstrndx = SEC_SHSTRTAB;
  Elf64_Shdr sh[N_SECTIONS] = {
      [SEC_DATA] = section(NAME_DATA, SHT_PROGBITS, SHF_ALLOC, data_at, g->weights_total, 64),
      [SEC_SYMTAB] = section(NAME_SYMTAB, SHT_SYMTAB, 0, symtab_at, symtab_size, 8),
      [SEC_STRTAB] = section(NAME_STRTAB, SHT_STRTAB, 0, strtab_at, names_size, 1),
      [SEC_SHSTRTAB] = section(NAME_SHSTRTAB, SHT_STRTAB, 0, shstrtab_at, sizeof section_names, 1),
      [SEC_NOTE_STACK] = section(NAME_NOTE_STACK, SHT_PROGBITS, 0, shdr_at, 0, 1),
  };
  sh[SEC_SYMTAB].sh_link = SEC_STRTAB;
  sh[SEC_SYMTAB].sh_info = 1; /* the first global symbol */
  sh[SEC_SYMTAB].sh_entsize = sizeof *syms;

  FILE *f = fopen(path, "wb");
  bool ok = f != NULL && put(f, &eh, sizeof eh);
  size_t end = 0;
  for (size_t i = 0; ok && i < g->n_pieces; i++) {
    const cg_blob_piece *p = &g->pieces[i];
    if (!p->kept) continue;
    ok = put(f, NULL, p->offset - end) && put(f, p->data, p->nbytes);
    end = p->offset + p->nbytes;
  }
  ok = ok && put(f, NULL, symtab_at - data_at - end) && put(f, syms, symtab_size) && put(f, names, names_size) &&
       put(f, section_names, sizeof section_names) && put(f, NULL, shdr_at - shstrtab_at - sizeof section_names) &&
       put(f, sh, sizeof sh);
  int saved = errno;
  if (f && fclose(f) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (!ok) {
    unlink(path);
    return cg_error(g, SC_DIAG_LINK, NULL, "cannot write the weights object %s: %s%s", path, strerror(saved),
                    saved == ENOSPC ? " (free some space and export again; the previous outputs are kept)" : "");
  }
  return true;
}
