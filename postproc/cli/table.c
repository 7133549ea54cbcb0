/* table.c - the text outputs' rows in one of four formats (--format
 * text|tsv|csv|json), so that names with spaces stay one field.
 *
 * text: aligned columns for people, the name last and unpadded, header
 *       notes as '#' lines; tsv and csv: one header line, no padding, no
 *       notes; json: an array of objects with numbers as numbers and
 *       missing values as null. */
#include <stdio.h>
#include <string.h>

#include "pproc.h"

/* CSV field per RFC 4180: quoted only when it holds a comma, quote or newline. */
static void sp_csv_put(const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, stdout);
    return;
  }
  putchar('"');
  for (; *s; s++) {
    if (*s == '"') putchar('"');
    putchar(*s);
  }
  putchar('"');
}

void sp_json_put_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

/* TSV has no quoting: tabs and newlines inside a name become spaces. */
static void sp_tsv_put(const char *s) {
  for (; *s; s++) putchar(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

void sp_table_begin(sp_table_t *t, sp_table_format_t fmt, const sp_col_t *cols, int ncols,
                    const char *note) {
  t->fmt = fmt;
  t->cols = cols;
  t->ncols = ncols;
  t->nrows = 0;
  if (fmt == SP_TABLE_JSON) {
    fputs("[", stdout);
    return;
  }
  if (fmt == SP_TABLE_TEXT && note && *note) printf("%s\n", note);
  for (int c = 0; c < ncols; c++) {
    const char *sep = c ? (fmt == SP_TABLE_TSV ? "\t" : fmt == SP_TABLE_CSV ? "," : " ") : "";
    fputs(sep, stdout);
    if (fmt == SP_TABLE_TEXT && c < ncols - 1) printf("%*s", cols[c].width, cols[c].name);
    else fputs(cols[c].name, stdout);
  }
  putchar('\n');
}

/* One number or text of a text/tsv/csv row; "-" when missing. */
static void sp_cell_text(const sp_table_t *t, const sp_col_t *col, const sp_cell_t *v, int last) {
  char buf[64];
  const char *s = buf;
  if (v->missing) s = "-";
  else if (col->kind == SP_COL_INT) snprintf(buf, sizeof buf, "%lld", (long long)v->i);
  else if (col->kind == SP_COL_SEC) snprintf(buf, sizeof buf, "%.9f", v->d);
  else if (col->kind == SP_COL_RATIO) snprintf(buf, sizeof buf, "%.4f", v->d);
  else if (col->kind == SP_COL_PCT) snprintf(buf, sizeof buf, "%.2f", v->d);
  else s = v->s;
  if (t->fmt == SP_TABLE_CSV) sp_csv_put(s);
  else if (t->fmt == SP_TABLE_TSV) sp_tsv_put(s);
  else if (!last) printf("%*s", col->width, s);
  else fputs(s, stdout);
}

static void sp_cell_json(const sp_col_t *col, const sp_cell_t *v) {
  if (v->missing) fputs("null", stdout);
  else if (col->kind == SP_COL_INT) printf("%lld", (long long)v->i);
  else if (col->kind == SP_COL_STR) sp_json_put_string(stdout, v->s);
  else printf("%.15g", v->d);
}

void sp_table_row(sp_table_t *t, const sp_cell_t *cells) {
  if (t->fmt == SP_TABLE_JSON) {
    fputs(t->nrows ? ",\n{" : "\n{", stdout);
    for (int c = 0; c < t->ncols; c++) {
      if (c) putchar(',');
      sp_json_put_string(stdout, t->cols[c].name);
      putchar(':');
      sp_cell_json(&t->cols[c], &cells[c]);
    }
    putchar('}');
  } else {
    const char *sep = t->fmt == SP_TABLE_TSV ? "\t" : t->fmt == SP_TABLE_CSV ? "," : " ";
    for (int c = 0; c < t->ncols; c++) {
      if (c) fputs(sep, stdout);
      sp_cell_text(t, &t->cols[c], &cells[c], c == t->ncols - 1);
    }
    putchar('\n');
  }
  t->nrows++;
}

void sp_table_end(sp_table_t *t) {
  if (t->fmt == SP_TABLE_JSON) fputs(t->nrows ? "\n]\n" : "]\n", stdout);
}
