/* ompt_lines.c - the source file and line of a code pointer, from the
 * DWARF line table (.debug_line, versions 2 to 5) of the object holding it.
 *
 * What `addr2line` does for one address, without a dependency: the object
 * (the program is /proc/self/exe) is mapped read-only, its section headers
 * give .debug_line and .debug_line_str, and the line programs run until a
 * row covers the address. An object without debug information, or one
 * this reader does not follow (compressed sections, a split DWARF), gives
 * no answer and the name falls back to function + offset. Run once per
 * code pointer in a process (ompt_names.c caches the names); every read
 * is bounds-checked against the section, so a damaged file gives no
 * answer, never a crash. */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ompt_lines.h"

typedef struct sp_rd {
  const unsigned char *p, *end;
  int bad;
} sp_rd_t;

static uint64_t sp_rd_n(sp_rd_t *r, int n) {
  if (r->bad || r->end - r->p < n) {
    r->bad = 1;
    return 0;
  }
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v |= (uint64_t)r->p[i] << (8 * i);
  r->p += n;
  return v;
}

static uint64_t sp_rd_uleb(sp_rd_t *r) {
  uint64_t v = 0;
  for (int shift = 0; !r->bad; shift += 7) {
    if (r->p >= r->end || shift > 63) {
      r->bad = 1;
      break;
    }
    unsigned char b = *r->p++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
  }
  return v;
}

static int64_t sp_rd_sleb(sp_rd_t *r) {
  int64_t v = 0;
  int shift = 0;
  unsigned char b = 0;
  do {
    if (r->p >= r->end || shift > 63) {
      r->bad = 1;
      return 0;
    }
    b = *r->p++;
    v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
    shift += 7;
  } while (b & 0x80);
  if (shift < 64 && (b & 0x40)) v |= -(int64_t)((uint64_t)1 << shift);
  return v;
}

static const char *sp_rd_str(sp_rd_t *r) {
  const unsigned char *s = r->p;
  while (r->p < r->end && *r->p) r->p++;
  if (r->p >= r->end) {
    r->bad = 1;
    return "";
  }
  r->p++;
  return (const char *)s;
}

typedef struct sp_sections {
  const unsigned char *line, *line_str, *str;
  size_t nline, nline_str, nstr;
} sp_sections_t;

/* A string of a form (DW_FORM_string, _line_strp, _strp); NULL for others. */
static const char *sp_rd_form_str(sp_rd_t *r, uint64_t form, int off8, const sp_sections_t *s) {
  if (form == 0x08) return sp_rd_str(r); /* DW_FORM_string */
  if (form == 0x1f || form == 0x0e) {    /* DW_FORM_line_strp, DW_FORM_strp */
    uint64_t off = sp_rd_n(r, off8 ? 8 : 4);
    const unsigned char *base = form == 0x1f ? s->line_str : s->str;
    size_t n = form == 0x1f ? s->nline_str : s->nstr;
    if (!base || off >= n || !memchr(base + off, 0, n - off)) return NULL;
    return (const char *)base + off;
  }
  return NULL;
}

/* Skips a value of form (the forms of DWARF 5 line headers). */
static void sp_rd_skip_form(sp_rd_t *r, uint64_t form, int off8) {
  switch (form) {
  case 0x0b:
    sp_rd_n(r, 1);
    break; /* data1 */
  case 0x05:
    sp_rd_n(r, 2);
    break; /* data2 */
  case 0x06:
    sp_rd_n(r, 4);
    break; /* data4 */
  case 0x07:
    sp_rd_n(r, 8);
    break; /* data8 */
  case 0x1e:
    sp_rd_n(r, 8), sp_rd_n(r, 8);
    break; /* data16 */
  case 0x0f:
    sp_rd_uleb(r);
    break; /* udata */
  case 0x08:
    sp_rd_str(r);
    break; /* string */
  case 0x1f:
  case 0x0e:
    sp_rd_n(r, off8 ? 8 : 4);
    break;     /* line_strp, strp */
  case 0x09: { /* block */
    uint64_t n = sp_rd_uleb(r);
    if ((uint64_t)(r->end - r->p) < n)
      r->bad = 1;
    else
      r->p += n;
    break;
  }
  default:
    r->bad = 1;
  }
}

enum { SP_MAX_FILES = 4096 };

/* The file names of one unit's header (index -> name), DWARF 2 to 5. */
typedef struct sp_unit_files {
  const char *name[SP_MAX_FILES];
  int n;
  int first; /* the index of the first entry: 1 before DWARF 5, 0 from 5 */
} sp_unit_files_t;

static void sp_files_v5(sp_rd_t *r, int off8, const sp_sections_t *s, sp_unit_files_t *f) {
  /* Directories: formats, then entries (skipped: the name is enough). */
  for (int pass = 0; pass < 2 && !r->bad; pass++) {
    uint64_t fmt[16][2];
    int nfmt = (int)sp_rd_n(r, 1);
    if (nfmt > 16) {
      r->bad = 1;
      return;
    }
    for (int i = 0; i < nfmt; i++) fmt[i][0] = sp_rd_uleb(r), fmt[i][1] = sp_rd_uleb(r);
    uint64_t count = sp_rd_uleb(r);
    for (uint64_t e = 0; e < count && !r->bad; e++)
      for (int i = 0; i < nfmt; i++) {
        if (pass == 1 && fmt[i][0] == 1) { /* DW_LNCT_path of a file */
          const char *name = sp_rd_form_str(r, fmt[i][1], off8, s);
          if (f->n < SP_MAX_FILES) f->name[f->n++] = name;
        } else {
          sp_rd_skip_form(r, fmt[i][1], off8);
        }
      }
  }
  f->first = 0;
}

static void sp_files_v4(sp_rd_t *r, sp_unit_files_t *f) {
  while (!r->bad && r->p < r->end && *r->p) sp_rd_str(r); /* include directories */
  sp_rd_n(r, 1);
  while (!r->bad && r->p < r->end && *r->p) {
    const char *name = sp_rd_str(r);
    sp_rd_uleb(r), sp_rd_uleb(r), sp_rd_uleb(r); /* directory, time, size */
    if (f->n < SP_MAX_FILES) f->name[f->n++] = name;
  }
  sp_rd_n(r, 1);
  f->first = 1;
}

typedef struct sp_row {
  uint64_t addr;
  uint64_t file, line;
} sp_row_t;

/* Runs one unit's line program from r (its header read) to its end; 1
 * with *out when a row covers target. */
static int sp_run_program(sp_rd_t *r, const unsigned char *hdr, sp_row_t *out, uint64_t target,
                          int addr8) {
  const unsigned min_inst = hdr[0], line_range = hdr[4], opcode_base = hdr[5];
  const int line_base = (signed char)hdr[3];
  const unsigned char *std_len = hdr + 6;
  if (line_range == 0 || opcode_base == 0) return 0;
  sp_row_t st = {0, 1, 1}, prev = {0, 0, 0};
  int have_prev = 0;
#define SP_EMIT()                                               \
  do {                                                          \
    if (have_prev && prev.addr <= target && st.addr > target) { \
      *out = prev;                                              \
      return 1;                                                 \
    }                                                           \
    prev = st;                                                  \
    have_prev = 1;                                              \
  } while (0)
  while (!r->bad && r->p < r->end) {
    unsigned op = (unsigned)sp_rd_n(r, 1);
    if (op >= opcode_base) { /* special */
      unsigned adj = op - opcode_base;
      st.addr += (uint64_t)(adj / line_range) * min_inst;
      st.line += (uint64_t)(int64_t)(line_base + (int)(adj % line_range));
      SP_EMIT();
      continue;
    }
    switch (op) {
    case 0: { /* extended */
      uint64_t len = sp_rd_uleb(r);
      if (len == 0 || (uint64_t)(r->end - r->p) < len) return 0;
      const unsigned char *next = r->p + len;
      unsigned sub = (unsigned)sp_rd_n(r, 1);
      if (sub == 1) { /* end_sequence */
        SP_EMIT();
        st = (sp_row_t){0, 1, 1};
        have_prev = 0;
      } else if (sub == 2) { /* set_address */
        st.addr = sp_rd_n(r, addr8 ? 8 : 4);
      }
      r->p = next;
      break;
    }
    case 1:
      SP_EMIT();
      break; /* copy */
    case 2:
      st.addr += sp_rd_uleb(r) * min_inst;
      break; /* advance_pc */
    case 3:
      st.line += (uint64_t)sp_rd_sleb(r);
      break; /* advance_line */
    case 4:
      st.file = sp_rd_uleb(r);
      break; /* set_file */
    case 8:
      st.addr += (uint64_t)((255 - opcode_base) / line_range) * min_inst;
      break;
    case 9:
      st.addr += sp_rd_n(r, 2);
      break; /* fixed_advance_pc */
    default: /* operands skipped */
      for (unsigned i = 0; op < opcode_base && i < std_len[op - 1]; i++) sp_rd_uleb(r);
      break;
    }
  }
#undef SP_EMIT
  return 0;
}

/* One unit's file names: 32 KiB, not on the stack of a runtime's thread;
 * the caller holds the lock that makes sp__omp_line one at a time. */
static sp_unit_files_t files;

/* Looks target up in every unit of .debug_line. */
static int sp_lines_find(const sp_sections_t *s, uint64_t target, char *out, size_t cap) {
  sp_rd_t all = {s->line, s->line + s->nline, 0};
  while (!all.bad && all.p < all.end) {
    int off8 = 0;
    uint64_t len = sp_rd_n(&all, 4);
    if (len == 0xffffffffu) len = sp_rd_n(&all, 8), off8 = 1;
    if (all.bad || len > (uint64_t)(all.end - all.p)) return 0;
    sp_rd_t r = {all.p, all.p + len, 0};
    all.p += len;
    unsigned version = (unsigned)sp_rd_n(&r, 2);
    int addr8 = 1;
    if (version < 2 || version > 5) continue;
    if (version >= 5) addr8 = sp_rd_n(&r, 1) == 8, sp_rd_n(&r, 1);
    uint64_t hlen = sp_rd_n(&r, off8 ? 8 : 4);
    if (r.bad || hlen > (uint64_t)(r.end - r.p)) continue;
    const unsigned char *prog = r.p + hlen;
    /* min_inst, [max_ops (v4+)], default_is_stmt, line_base, line_range, opcode_base */
    unsigned char hdr[6];
    hdr[0] = (unsigned char)sp_rd_n(&r, 1);
    if (version >= 4) sp_rd_n(&r, 1);
    hdr[1] = 0;
    hdr[2] = (unsigned char)sp_rd_n(&r, 1);
    hdr[3] = (unsigned char)sp_rd_n(&r, 1);
    hdr[4] = (unsigned char)sp_rd_n(&r, 1);
    hdr[5] = (unsigned char)sp_rd_n(&r, 1);
    if (r.bad || hdr[5] == 0 || (uint64_t)(r.end - r.p) < (uint64_t)hdr[5] - 1) continue;
    const unsigned char *std_len = r.p;
    r.p += hdr[5] - 1;
    files.n = 0;
    if (version >= 5)
      sp_files_v5(&r, off8, s, &files);
    else
      sp_files_v4(&r, &files);
    if (r.bad) continue;
    r.p = prog;
    /* sp_run_program reads the standard opcodes' lengths after hdr. */
    unsigned char h[6 + 256];
    memcpy(h, hdr, 6);
    memcpy(h + 6, std_len, (size_t)hdr[5] - 1);
    sp_row_t row;
    if (!sp_run_program(&r, h, &row, target, addr8)) continue;
    int64_t i = (int64_t)row.file - files.first;
    const char *name = i >= 0 && i < files.n ? files.name[i] : NULL;
    if (!name || !*name || row.line == 0) return 0;
    const char *base = strrchr(name, '/');
    snprintf(out, cap, "%s:%llu", base ? base + 1 : name, (unsigned long long)row.line);
    return 1;
  }
  return 0;
}

/* The sections of the mapped ELF64 file at m (size n); 0 when it is none. */
static int sp_elf_sections(const unsigned char *m, size_t n, sp_sections_t *s, int *is_exec) {
  if (n < sizeof(Elf64_Ehdr) || memcmp(m, ELFMAG, SELFMAG) || m[EI_CLASS] != ELFCLASS64) return 0;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
  *is_exec = eh->e_type == ET_EXEC;
  if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > n ||
      (n - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum || eh->e_shstrndx >= eh->e_shnum)
    return 0;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(m + eh->e_shoff);
  const Elf64_Shdr *strs = &sh[eh->e_shstrndx];
  if (strs->sh_offset > n || strs->sh_size > n - strs->sh_offset) return 0;
  memset(s, 0, sizeof *s);
  for (int i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_name >= strs->sh_size || sh[i].sh_offset > n ||
        sh[i].sh_size > n - sh[i].sh_offset || sh[i].sh_type == SHT_NOBITS ||
        (sh[i].sh_flags & SHF_COMPRESSED))
      continue;
    const char *name = (const char *)m + strs->sh_offset + sh[i].sh_name;
    size_t left = strs->sh_size - sh[i].sh_name;
    const unsigned char *at = m + sh[i].sh_offset;
    if (!strncmp(name, ".debug_line", left) && left > 11 && !name[11])
      s->line = at, s->nline = sh[i].sh_size;
    else if (!strncmp(name, ".debug_line_str", left) && left > 15 && !name[15])
      s->line_str = at, s->nline_str = sh[i].sh_size;
    else if (!strncmp(name, ".debug_str", left) && left > 10 && !name[10])
      s->str = at, s->nstr = sh[i].sh_size;
  }
  return s->line != NULL;
}

static int sp_omp_line_own(const char *object, uintptr_t base, uintptr_t addr, char *out,
                           size_t cap);

/* The library's own reads of the program's ELF file: never recorded. */
int sp__omp_line(const char *object, uintptr_t base, uintptr_t addr, char *out, size_t cap) {
  int rc;
  SP_OWN_IO(rc = sp_omp_line_own(object, base, addr, out, cap));
  return rc;
}

static int sp_omp_line_own(const char *object, uintptr_t base, uintptr_t addr, char *out,
                           size_t cap) {
  int fd = open(object && *object ? object : "/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  struct stat stt;
  int found = 0;
  if (fstat(fd, &stt) == 0 && stt.st_size > 0) {
    size_t n = (size_t)stt.st_size;
    void *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m != MAP_FAILED) {
      sp_sections_t s;
      int is_exec = 0;
      /* The address in the file's terms: a position-independent object's
       * addresses start at 0, an ET_EXEC's are where it runs. The code
       * pointer is a return address: the call is one byte before. */
      if (sp_elf_sections(m, n, &s, &is_exec))
        found = sp_lines_find(&s, (is_exec ? addr : addr - base) - 1, out, cap);
      munmap(m, n);
    }
  }
  close(fd);
  return found;
}
