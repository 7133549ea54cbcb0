/* html_report.c - --backend html: DIR/report.html, one self-contained file.
 *
 * The page is the template of postproc/report/ with the viewer's styles,
 * the data (html_data.c) and the viewer's script put in place of its
 * markers: nothing is fetched when the file is opened (file:// works, no
 * network). Written to a temporary name and renamed once it is complete,
 * as the charts are (output_file.c). */
#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "html.h"
#include "output_file.h"

extern char **environ;

#define SP_HTML_PATH_MAX 4096

/* Writes the template with its markers replaced; returns 0 or an exit code. */
static int sp_html_page(FILE *f, const sp_selection_t *sels, int nfiles, const char *const *labels,
                        const sp_options_t *o, const sp_html_dist_t *d, sp_html_counts_t *c) {
  const char *t = (const char *)sp_report_template;
  for (;;) {
    const char *m = strstr(t, "<!--SP_");
    if (!m) {
      fputs(t, f);
      return 0;
    }
    fwrite(t, 1, (size_t)(m - t), f);
    const char *end = strstr(m, "-->");
    if (!end) return SP_EXIT_IO; /* a broken template is a build error */
    size_t len = (size_t)(end - m);
    if (len == 12 && memcmp(m, "<!--SP_STYLE", 12) == 0) {
      fputs((const char *)sp_report_css, f);
    } else if (len == 11 && memcmp(m, "<!--SP_DATA", 11) == 0) {
      int rc = sp_html_data_write(f, sels, nfiles, labels, o, d, c);
      if (rc) return rc;
    } else if (len == 13 && memcmp(m, "<!--SP_SCRIPT", 13) == 0) {
      fputs((const char *)sp_report_js, f);
    } else {
      fwrite(m, 1, len + 3, f);
    }
    t = end + 3;
  }
}

/* 1 if an executable named name is on $PATH. */
static int sp_on_path(const char *name) {
  const char *path = getenv("PATH");
  char buf[SP_HTML_PATH_MAX];
  while (path && *path) {
    const char *colon = strchr(path, ':');
    size_t n = colon ? (size_t)(colon - path) : strlen(path);
    if (n > 0 && snprintf(buf, sizeof buf, "%.*s/%s", (int)n, path, name) < (int)sizeof buf &&
        access(buf, X_OK) == 0)
      return 1;
    path = colon ? colon + 1 : NULL;
  }
  return 0;
}

/* --show: xdg-open when there is one (waited for at most 2 s: some
 * handlers keep running while the browser is open), else the path on
 * stdout. Never fails: the report is written either way. */
static void sp_html_show(const char *path) {
  pid_t pid;
  char *argv[] = {"xdg-open", (char *)path, NULL};
  if (!sp_on_path("xdg-open") || posix_spawnp(&pid, "xdg-open", NULL, NULL, argv, environ) != 0) {
    printf("%s\n", path);
    return;
  }
  for (int i = 0; i < 200; i++) {
    int st;
    pid_t w = waitpid(pid, &st, WNOHANG);
    if (w == pid) {
      if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        sp_msg(SP_NORMAL, "xdg-open could not open %s (exit %d); open it in a browser", path,
               WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        printf("%s\n", path);
      }
      return;
    }
    if (w < 0 && errno != EINTR) return;
    nanosleep(&(struct timespec){0, 10000000}, NULL);
  }
}

int sp_html_render(const sp_selection_t *sels, int nfiles, const char *const *labels,
                   const sp_options_t *o, sp_html_counts_t *c) {
  const char *dir = o->outdir ? o->outdir : ".";
  char path[SP_HTML_PATH_MAX], tmp[SP_HTML_PATH_MAX + 32];
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--;
  if (n + sizeof "/report.html" > sizeof path) {
    sp_msg(SP_QUIET, "output directory name too long (%zu bytes, at most %zu)", strlen(dir),
           sizeof path - sizeof "/report.html");
    return SP_EXIT_IO;
  }
  if (sp_output_mkdirs(dir) != 0) {
    sp_msg(SP_QUIET, "cannot create output directory %s: %s", dir, strerror(errno));
    return SP_EXIT_IO;
  }
  snprintf(path, sizeof path, "%.*s%sreport.html", (int)n, dir, dir[n - 1] == '/' ? "" : "/");
  if (sp_output_temp(path, tmp, sizeof tmp) != 0) {
    sp_msg(SP_QUIET, "cannot write %s: %s", path, strerror(errno));
    return SP_EXIT_IO;
  }
  /* More ranks than fit: representative ranks and distributions. */
  sp_html_dist_t d;
  int rc = sp_html_dist_build(&sels[0], o, &d);
  FILE *f = NULL;
  int werr = 0;
  if (rc == 0 && !(f = fopen(tmp, "w"))) werr = errno ? errno : EIO;
  if (f) rc = sp_html_page(f, sels, nfiles, labels, o, &d, c);
  sp_html_dist_free(&d);
  if (f && ferror(f)) werr = errno ? errno : EIO;
  if (f && fclose(f) != 0 && werr == 0) werr = errno ? errno : EIO;
  if (werr != 0) {
    sp_msg(SP_QUIET, "cannot write %s: %s%s", path, strerror(werr),
           access(path, F_OK) == 0 ? " (the existing file is kept)" : "");
    rc = SP_EXIT_IO;
  }
  if (rc != 0) {
    remove(tmp);
    return rc;
  }
  rc = sp_output_commit_text(tmp, path, "</html>");
  if (rc != 0) return rc;
  sp_msg(SP_NORMAL, "wrote %s", path);
  sp_msg(SP_VERBOSE, "%lld intervals in %d lanes: %lld embedded exactly, %d lanes binned (%d bins)",
         (long long)c->intervals, c->lanes, (long long)c->exact, c->binned_lanes, c->fine_bins);
  if (o->show) sp_html_show(path);
  return 0;
}
