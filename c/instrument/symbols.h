/* symbols.h - function addresses to readable names, for the instrument
 * library. Never installed. */
#ifndef SP_INSTRUMENT_SYMBOLS_H
#define SP_INSTRUMENT_SYMBOLS_H

#include <stddef.h>

/* Writes the name of the function starting at addr to out (NUL-terminated,
 * cut to cap): the dynamic symbol (dladdr) when it starts exactly there,
 * else the ELF symbol table (.symtab) of the object holding addr, which
 * also names static functions; gfortran module procedures are shown as
 * "module::procedure". Falls back to "0x<hex>". Returns 1 when a symbol was
 * found. Takes a lock; loads each object's table once. */
int sp_sym_resolve(const void *addr, char *out, size_t cap);

/* "__heat_MOD_step" -> "heat::step"; other names are copied unchanged. */
void sp_sym_demangle_fortran(const char *sym, char *out, size_t cap);

/* Frees the loaded symbol tables. */
void sp_sym_cache_free(void);

#endif
