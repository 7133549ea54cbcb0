/* ompt_lines.h - the source file and line of a code pointer from the DWARF
 * line table of its object (ompt_lines.c). */
#ifndef SP_OMPT_LINES_H
#define SP_OMPT_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "sp_internal.h"

/* Writes "file.c:120" (the file's base name) of the instruction before
 * the return address addr, in the object at path object ("" or NULL: the
 * program) loaded at base, to out. Returns 1 when found, 0 when the object
 * has no line table for it. Not thread-safe: one call at a time. Reads the
 * object's file (mapped, then unmapped). */
SP_HIDDEN int sp__omp_line(const char *object, uintptr_t base, uintptr_t addr, char *out,
                           size_t cap);

#endif
