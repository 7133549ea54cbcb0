/* otf2_comms.c - the communicators of the MPI events.
 *
 * A file recorded with tags and communicators (issue 50) stores per call
 * the id of its communicator, and per rank the members of each id
 * (rank<N>/mpi, sp_reader_mpi_comms: world ranks in the communicator's
 * rank order). A message's peer and a collective's root are ranks of that
 * communicator, so each communicator becomes an OTF2 communicator of its
 * own whose group lists those world ranks: an OTF2 reader then maps the
 * peer to the right process. Ids are agreed by the members at creation;
 * two communicators made apart (the halves of one MPI_Comm_split) can share
 * an id, so one is known by its id and its members together. Id 0 is
 * MPI_COMM_WORLD (the existing definition 0). A call of unknown
 * communicator (-1, or a file without the table) stays on MPI_COMM_WORLD,
 * as before tags were recorded. */
#include <stdlib.h>
#include <string.h>

#include "otf2_internal.h"

static uint64_t sp_comm_hash(int32_t id, const int32_t *members, int32_t size) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)(uint32_t)id;
  for (int32_t m = 0; m < size; m++) h = (h ^ (uint64_t)(uint32_t)members[m]) * 1099511628211ull;
  return h;
}

/* Puts communicator i (0-based in all) into the hash table of cap slots. */
static void sp_comm_slot(sp_otf2_comms_t *cs, int i) {
  uint64_t mask = (uint64_t)cs->hcap - 1;
  for (uint64_t s = cs->all[i].hash & mask;; s = (s + 1) & mask)
    if (!cs->slot[s]) {
      cs->slot[s] = i + 1;
      return;
    }
}

/* The one of the run's communicators with this id and members, added when new:
 * its OTF2 ref (its index + 1), or OTF2_UNDEFINED_COMM when out of memory. */
static OTF2_CommRef sp_comm_intern(sp_otf2_comms_t *cs, int32_t id, const int32_t *members,
                                   int32_t size) {
  uint64_t h = sp_comm_hash(id, members, size);
  if (cs->hcap) {
    uint64_t mask = (uint64_t)cs->hcap - 1;
    for (uint64_t s = h & mask; cs->slot[s]; s = (s + 1) & mask) {
      const sp_otf2_comm_t *c = &cs->all[cs->slot[s] - 1];
      if (c->hash == h && c->id == id && c->size == size &&
          !memcmp(c->members, members, (size_t)size * sizeof *members))
        return (OTF2_CommRef)cs->slot[s];
    }
  }
  if (cs->n == cs->cap) {
    int cap = cs->cap ? 2 * cs->cap : 8;
    sp_otf2_comm_t *all = realloc(cs->all, (size_t)cap * sizeof *all);
    if (!all) return OTF2_UNDEFINED_COMM;
    cs->all = all;
    cs->cap = cap;
  }
  if (2 * (cs->n + 1) > cs->hcap) { /* at most half full */
    int hcap = cs->hcap ? 2 * cs->hcap : 16;
    int *slot = calloc((size_t)hcap, sizeof *slot);
    if (!slot) return OTF2_UNDEFINED_COMM;
    free(cs->slot);
    cs->slot = slot;
    cs->hcap = hcap;
    for (int i = 0; i < cs->n; i++) sp_comm_slot(cs, i);
  }
  int32_t *copy = malloc((size_t)(size ? size : 1) * sizeof *copy);
  if (!copy) return OTF2_UNDEFINED_COMM;
  memcpy(copy, members, (size_t)size * sizeof *copy);
  for (int32_t m = 0; m < size; m++)
    if (members[m] > cs->max_member) cs->max_member = members[m];
  cs->all[cs->n] = (sp_otf2_comm_t){id, size, copy, h};
  sp_comm_slot(cs, cs->n);
  return (OTF2_CommRef)++cs->n;
}

int sp__otf2_comms_rank(sp_otf2_run_t *run, int k, OTF2_CommRef **map, int *n) {
  *map = NULL;
  *n = 0;
  sp_reader_mpi_comms_t c;
  int e = sp_reader_mpi_comms(run->sel->reader, k, &c);
  if (e != 0) {
    sp_msg(SP_QUIET, "%s", sp_reader_errmsg(run->sel->reader));
    return sp_exit_for_reader(e);
  }
  int rc = 0;
  if (c.present && c.n > 0) {
    *map = malloc((size_t)c.n * sizeof **map);
    if (!*map) rc = SP_EXIT_IO;
    for (int id = 0; rc == 0 && id < c.n; id++) {
      OTF2_CommRef ref = SP_OTF2_COMM_WORLD;
      if (id > 0 && c.sizes[id] > 0) {
        ref = sp_comm_intern(&run->comms, id, c.members + c.offsets[id], c.sizes[id]);
        if (ref == OTF2_UNDEFINED_COMM) rc = SP_EXIT_IO;
      }
      (*map)[id] = ref;
    }
    if (rc == 0) *n = c.n;
  }
  if (rc) {
    free(*map);
    *map = NULL;
  }
  sp_reader_mpi_comms_free(&c);
  return rc;
}

void sp__otf2_comms_free(sp_otf2_run_t *run) {
  for (int i = 0; i < run->comms.n; i++) free(run->comms.all[i].members);
  free(run->comms.all);
  free(run->comms.slot);
  run->comms = (sp_otf2_comms_t){0};
}
