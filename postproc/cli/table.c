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

/* CSV field per RFC 4180: quoted only when it holds a comma, quote or
 * newline; bytes outside UTF-8 as \xNN (text_safe.c). */
static void sp_csv_put(const char *s) {
  int quote = strpbrk(s, ",\"\r\n") != NULL;
  if (quote) putchar('"');
  sp_text_put(stdout, s, SP_TEXT_CSV);
  if (quote) putchar('"');
}

/* A JSON string: escapes as text_safe.c's JSON mode (valid UTF-8 always). */
void sp_json_put_string(FILE *f, const char *s) {
  fputc('"', f);
  sp_text_put(f, s, SP_TEXT_JSON);
  fputc('"', f);
}

/* u / 10^digits as a decimal number, trailing zeros dropped, minus first if neg. */
static void sp_json_put_fixed(FILE *f, int neg, uint64_t u, int digits, uint64_t scale) {
  uint64_t whole = u / scale, frac = u % scale;
  char buf[48], *p = buf + sizeof buf;
  int d = digits;
  while (d > 0 && frac % 10 == 0) {
    frac /= 10;
    d--;
  }
  for (int i = 0; i < d; i++, frac /= 10) *--p = (char)('0' + frac % 10);
  if (d > 0) *--p = '.';
  do {
    *--p = (char)('0' + whole % 10);
    whole /= 10;
  } while (whole);
  if (neg) *--p = '-';
  fwrite(p, 1, (size_t)(buf + sizeof buf - p), f);
}

void sp_json_put_seconds(FILE *f, int64_t ns) {
  /* Exact, and written digit by digit: several times cheaper than printf
   * (the JSON files hold several numbers per region and rank). */
  sp_json_put_fixed(f, ns < 0, ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns, 9, 1000000000u);
}

/* TSV has no quoting: controls (tab, newline) inside a name are written as
 * \xNN as in the text format, so a name stays one field. */
static void sp_tsv_put(const char *s) { sp_text_put(stdout, s, SP_TEXT_PLAIN); }

/* Text: a name padded to width, controls and bytes outside UTF-8 as \xNN. */
static void sp_plain_put(const char *s, int width) {
  int len = (int)strlen(s);
  if (width > len) printf("%*s", width - len, "");
  sp_text_put(stdout, s, SP_TEXT_PLAIN);
}

/* Which file of several the rows belong to: the CLI's one piece of table state. */
static int sp_file_k, sp_file_n = 1;
static const char *sp_file_label;
static int64_t sp_json_rows; /* rows printed into the JSON array so far */

void sp_table_set_file(int k, int nfiles, const char *label) {
  sp_file_k = k;
  sp_file_n = nfiles;
  sp_file_label = label;
  if (k == 0) sp_json_rows = 0;
}

void sp_table_begin(sp_table_t *t, sp_table_format_t fmt, const sp_col_t *cols, int ncols,
                    const char *note) {
  t->fmt = fmt;
  t->cols = cols;
  t->ncols = ncols;
  t->nrows = 0;
  int many = sp_file_n > 1;
  if (fmt == SP_TABLE_JSON) {
    if (sp_file_k == 0) fputs("[", stdout);
    return;
  }
  if (fmt == SP_TABLE_TEXT && many) {
    printf("%s== ", sp_file_k ? "\n" : "");
    sp_plain_put(sp_file_label ? sp_file_label : "", 0);
    fputs(" ==\n", stdout);
  }
  if (fmt == SP_TABLE_TEXT && note && *note) printf("%s\n", note);
  if (fmt != SP_TABLE_TEXT && many && sp_file_k > 0) return; /* one header for all files */
  if (fmt != SP_TABLE_TEXT && many) fputs(fmt == SP_TABLE_TSV ? "file\t" : "file,", stdout);
  for (int c = 0; c < ncols; c++) {
    const char *sep = c ? (fmt == SP_TABLE_TSV ? "\t" : fmt == SP_TABLE_CSV ? "," : " ") : "";
    fputs(sep, stdout);
    /* Names of compared columns hold file labels: escaped like any name. */
    if (fmt == SP_TABLE_CSV)
      sp_csv_put(cols[c].name);
    else
      sp_plain_put(cols[c].name, fmt == SP_TABLE_TEXT && c < ncols - 1 ? cols[c].width : 0);
  }
  putchar('\n');
}

/* One number or text of a text/tsv/csv row; "-" when missing. */
static void sp_cell_text(const sp_table_t *t, const sp_col_t *col, const sp_cell_t *v, int last) {
  char buf[64];
  const char *s = buf;
  if (v->missing)
    s = "-";
  else if (col->kind == SP_COL_INT)
    snprintf(buf, sizeof buf, "%lld", (long long)v->i);
  else if (col->kind == SP_COL_SEC)
    snprintf(buf, sizeof buf, "%.9f", v->d);
  else if (col->kind == SP_COL_RATIO)
    snprintf(buf, sizeof buf, "%.4f", v->d);
  else if (col->kind == SP_COL_PCT)
    snprintf(buf, sizeof buf, "%.2f", v->d);
  else if (col->kind == SP_COL_NUM) /* tsv and csv are read by programs: every digit */
    snprintf(buf, sizeof buf, t->fmt == SP_TABLE_TEXT ? "%.10g" : "%.17g", v->d);
  else
    s = v->s;
  if (t->fmt == SP_TABLE_CSV)
    sp_csv_put(s);
  else if (t->fmt == SP_TABLE_TSV)
    sp_tsv_put(s);
  else
    sp_plain_put(s, last ? 0 : col->width);
}

static void sp_cell_json(const sp_col_t *col, const sp_cell_t *v) {
  if (v->missing)
    fputs("null", stdout);
  else if (col->kind == SP_COL_INT)
    printf("%lld", (long long)v->i);
  else if (col->kind == SP_COL_STR)
    sp_json_put_string(stdout, v->s);
  else if (col->kind == SP_COL_NUM)
    printf("%.17g", v->d);
  else
    printf("%.15g", v->d);
}

void sp_table_row(sp_table_t *t, const sp_cell_t *cells) {
  int many = sp_file_n > 1;
  const char *label = sp_file_label ? sp_file_label : "";
  if (t->fmt == SP_TABLE_JSON) {
    fputs(sp_json_rows++ ? ",\n{" : "\n{", stdout);
    if (many) {
      fputs("\"file\":", stdout);
      sp_json_put_string(stdout, label);
      putchar(',');
    }
    for (int c = 0; c < t->ncols; c++) {
      if (c) putchar(',');
      sp_json_put_string(stdout, t->cols[c].name);
      putchar(':');
      sp_cell_json(&t->cols[c], &cells[c]);
    }
    putchar('}');
  } else {
    const char *sep = t->fmt == SP_TABLE_TSV ? "\t" : t->fmt == SP_TABLE_CSV ? "," : " ";
    if (many && t->fmt != SP_TABLE_TEXT) {
      if (t->fmt == SP_TABLE_CSV)
        sp_csv_put(label);
      else
        sp_tsv_put(label);
      fputs(sep, stdout);
    }
    for (int c = 0; c < t->ncols; c++) {
      if (c) fputs(sep, stdout);
      sp_cell_text(t, &t->cols[c], &cells[c], c == t->ncols - 1);
    }
    putchar('\n');
  }
  t->nrows++;
}

void sp_table_end(sp_table_t *t) {
  if (t->fmt == SP_TABLE_JSON && sp_file_k == sp_file_n - 1)
    fputs(sp_json_rows ? "\n]\n" : "]\n", stdout);
}
