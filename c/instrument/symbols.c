/* symbols.c - resolving instrumented function addresses to names.
 *
 * dladdr only knows exported (dynamic) symbols and returns the nearest one
 * below an address, which for a static function or an executable built
 * without -rdynamic is some other function. So a dladdr answer is used only
 * when its symbol starts exactly at the address; otherwise the object's own
 * ELF symbol table (.symtab, else .dynsym) is read from its file (the
 * running program is /proc/self/exe), sorted once and binary-searched. */
#include "symbols.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct sp_sym {
  uintptr_t addr; /* run-time address */
  char *name;
} sp_sym_t;

typedef struct sp_symtab {
  uintptr_t base; /* dli_fbase of the object */
  sp_sym_t *syms;
  size_t n;
  struct sp_symtab *next;
} sp_symtab_t;

static pthread_mutex_t sp_sym_lock = PTHREAD_MUTEX_INITIALIZER;
static sp_symtab_t *sp_symtabs;

static int sp_sym_cmp(const void *a, const void *b) {
  const sp_sym_t *x = a, *y = b;
  return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Reads the function symbols of the ELF file at path, loaded at bias. */
static void sp_symtab_load(sp_symtab_t *t, const char *path, uintptr_t bias) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0) return;
  if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
    close(fd);
    return;
  }
  size_t size = (size_t)st.st_size;
  const unsigned char *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED) return;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_shoff == 0 || eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > size) {
    munmap((void *)m, size);
    return;
  }
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(m + eh->e_shoff);
  const Elf64_Shdr *symsec = NULL;
  for (int pass = 0; pass < 2 && !symsec; pass++)
    for (int i = 0; i < eh->e_shnum; i++)
      if (sh[i].sh_type == (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM)) symsec = &sh[i];
  if (symsec && symsec->sh_link < eh->e_shnum && symsec->sh_offset + symsec->sh_size <= size) {
    const Elf64_Shdr *strsec = &sh[symsec->sh_link];
    const Elf64_Sym *syms = (const Elf64_Sym *)(m + symsec->sh_offset);
    size_t nsyms = symsec->sh_size / sizeof(Elf64_Sym);
    const char *strs = (const char *)(m + strsec->sh_offset);
    t->syms = calloc(nsyms + 1, sizeof *t->syms);
    for (size_t i = 0; t->syms && i < nsyms; i++) {
      if (ELF64_ST_TYPE(syms[i].st_info) != STT_FUNC || syms[i].st_value == 0 ||
          syms[i].st_name >= strsec->sh_size)
        continue;
      t->syms[t->n].addr = bias + (uintptr_t)syms[i].st_value;
      t->syms[t->n].name = strdup(strs + syms[i].st_name);
      if (t->syms[t->n].name) t->n++;
    }
    if (t->syms) qsort(t->syms, t->n, sizeof *t->syms, sp_sym_cmp);
  }
  munmap((void *)m, size);
}

/* The loaded object holding an address: its bias and file. */
typedef struct sp_obj_query {
  uintptr_t addr;
  uintptr_t bias;
  const char *name;
  int found;
} sp_obj_query_t;

static int sp_obj_find(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  sp_obj_query_t *q = arg;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && q->addr >= lo && q->addr < lo + ph->p_memsz) {
      q->bias = info->dlpi_addr;
      q->name = info->dlpi_name;
      q->found = 1;
      return 1;
    }
  }
  return 0;
}

/* The symbol table of the object holding addr, loaded on first use. */
static sp_symtab_t *sp_symtab_for(uintptr_t addr) {
  sp_obj_query_t q = {addr, 0, NULL, 0};
  dl_iterate_phdr(sp_obj_find, &q);
  if (!q.found) return NULL;
  for (sp_symtab_t *t = sp_symtabs; t; t = t->next)
    if (t->base == q.bias) return t;
  sp_symtab_t *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->base = q.bias;
  /* The main program is listed with an empty name. */
  sp_symtab_load(t, (q.name && *q.name) ? q.name : "/proc/self/exe", q.bias);
  t->next = sp_symtabs;
  sp_symtabs = t;
  return t;
}

static const char *sp_symtab_lookup(const sp_symtab_t *t, uintptr_t addr) {
  size_t lo = 0, hi = t->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (t->syms[mid].addr < addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (lo < t->n && t->syms[lo].addr == addr) ? t->syms[lo].name : NULL;
}

void sp_sym_demangle_fortran(const char *sym, char *out, size_t cap) {
  const char *mod = strstr(sym, "_MOD_");
  if (strncmp(sym, "__", 2) == 0 && mod && mod > sym + 2 && mod[5]) {
    snprintf(out, cap, "%.*s::%s", (int)(mod - sym - 2), sym + 2, mod + 5);
  } else {
    snprintf(out, cap, "%s", sym);
  }
}

int sp_sym_resolve(const void *addr, char *out, size_t cap) {
  const char *name = NULL;
  Dl_info info;
  pthread_mutex_lock(&sp_sym_lock);
  if (dladdr(addr, &info) && info.dli_sname && info.dli_saddr == addr) {
    name = info.dli_sname;
  } else {
    sp_symtab_t *t = sp_symtab_for((uintptr_t)addr);
    if (t) name = sp_symtab_lookup(t, (uintptr_t)addr);
  }
  if (name) {
    sp_sym_demangle_fortran(name, out, cap);
  } else {
    snprintf(out, cap, "%p", addr);
  }
  pthread_mutex_unlock(&sp_sym_lock);
  return name != NULL;
}

void sp_sym_cache_free(void) {
  pthread_mutex_lock(&sp_sym_lock);
  while (sp_symtabs) {
    sp_symtab_t *t = sp_symtabs;
    sp_symtabs = t->next;
    for (size_t i = 0; i < t->n; i++) free(t->syms[i].name);
    free(t->syms);
    free(t);
  }
  pthread_mutex_unlock(&sp_sym_lock);
}
