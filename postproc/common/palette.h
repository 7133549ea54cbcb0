/* palette.h - region colours: one named colour map, the same region the same
 * colour in every chart of a run. */
#ifndef SP_PALETTE_H
#define SP_PALETTE_H

/* 1 if name is a colour map --cmap accepts (tab10, tab20, viridis, plasma, Set3). */
int sp_palette_known(const char *name);
/* The names, comma-separated, for messages and --help. */
const char *sp_palette_names(void);

/* Colours for n region names: the names are sorted (byte order, duplicates
 * share a colour) and the map is sampled evenly over them, as
 * matplotlib's cmap(linspace(0, 1, n)) does; rgb[3 * i ..] receives the
 * colour of names[i]. cmap NULL chooses tab10 up to 10 distinct names,
 * tab20 up to 20, viridis beyond. Returns 0, or -1 when out of memory
 * (rgb then holds the unsorted sampling). */
int sp_palette_assign(const char *cmap, const char *const *names, int n, unsigned char *rgb);

/* Colours of names[0..n) when the map is sampled over the distinct names
 * of domain[0..ndomain) and names together: every chart of a run passes
 * the same domain (the selected regions of all files), so a region keeps
 * its colour whatever a chart shows. Returns 0 or -1 (out of memory). */
int sp_palette_for(const char *cmap, const char *const *domain, int ndomain,
                   const char *const *names, int n, unsigned char *rgb);

/* "#rrggbb" of rgb into out (8 bytes). */
void sp_palette_hex(const unsigned char *rgb, char out[8]);

#endif
