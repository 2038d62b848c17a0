/* SPDX-License-Identifier: GPL-2.0-or-later */
/* record.h: records a monitor run into a folder: samples.csv (one row per sample, a new
 * numbered segment when columns are added), samples.jsonl (samples and events) and
 * meta.json (host, kernel, devices, interval, version), the latter replaced atomically.
 */
#ifndef PFCLAB_MON_RECORD_H
#define PFCLAB_MON_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "monitor/sampler.h"

struct mon_rec;

/* -EEXIST when dir already holds a recorded run (meta.json or samples), 0 otherwise:
 * callers refuse to overwrite one unless told to. */
int mon_rec_check_dir(const char *dir);
/* argv is kept in the metadata (may be NULL). mon_rec_sample copies the values; a
 * writer thread turns batches of them (every 100 ms or 1 MiB) into lines and writes
 * them, and mon_rec_close waits for it; a failed write ends the recording (the next call
 * returns its -errno, every later one -EIO) and its reason goes into meta.json's "error".
 */
int mon_rec_open(const char *dir, struct mon_engine *e, int argc, char **argv,
		 struct mon_rec **out);
int mon_rec_sample(struct mon_rec *r, const struct mon_sample *s);
int mon_rec_event(struct mon_rec *r, const struct mon_event *ev);
/* The machine's steal time over the run (lib/hw/steal.h), for the final metadata's
 * "host_steal_ns" (null unless given and valid). */
void mon_rec_host_steal(struct mon_rec *r, uint64_t ns, bool valid);
/* Final metadata (finished, counts) and close. */
int mon_rec_close(struct mon_rec *r);
/* CPU spent so far by the writer thread (the sampling thread's share is the caller's to
 * measure). */
uint64_t mon_rec_cpu_ns(const struct mon_rec *r);
/* The error text of the last failure. */
const char *mon_rec_error(const struct mon_rec *r);

#endif
