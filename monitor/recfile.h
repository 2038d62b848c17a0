/* SPDX-License-Identifier: GPL-2.0-or-later */
/* recfile.h: the files of a monitor record, as the monitor's recorder (record.c) and
 * top's recorder of a remote host (top/rec.c) both write them: the CSV segments' names,
 * the fields of meta.json they share, and meta.json replaced atomically.
 */
#ifndef PFCLAB_MON_RECFILE_H
#define PFCLAB_MON_RECFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/* What a record's meta.json says it is. Format 2 gives each sample's values and rates as
 * arrays in the order of a "columns" line written before the first sample of each set of
 * columns; format 1 gave them as objects keyed by name on every line. Readers take both.
 */
#define REC_FORMAT "pfclab-monitor-2"
#define REC_FORMAT_1 "pfclab-monitor-1"
#define REC_FORMATS_READ REC_FORMAT " or " REC_FORMAT_1	/* in messages */
#define REC_JSONL "samples.jsonl"

/* Whether a reader here takes a record of format fmt (REC_FORMAT or REC_FORMAT_1). */
bool rec_format_known(const char *fmt);

/* The columns of the sample lines that follow, from samples.jsonl's last "columns" line:
 * {"type":"columns","names":[...],"kinds":["counter"|"gauge",...]}. Zeroed to start. */
struct rec_cols {
	json_object *names, *kinds;
};

/* samples.jsonl's "columns" line, with no column yet: rec_columns_add each column in the
 * order of the values that follow, then write it as one line. */
json_object *rec_columns_new(void);
void rec_columns_add(json_object *line, const char *name, bool counter);

/* One parsed line of samples.jsonl (any format). A "columns" line is kept in c: 1 (no
 * line for the caller). A format-2 sample gets its "values" and "rates" arrays replaced
 * by objects keyed by the columns' names, as format 1 wrote them (rates for counters
 * only, null where the line has none): 0, as for every other line. -EPROTO for a sample
 * whose arrays do not match the columns before it (none, or another count): the caller
 * leaves the line out.
 */
int rec_line_keyed(struct rec_cols *c, json_object *o);
void rec_cols_free(struct rec_cols *c);

/* samples.csv for the first segment, samples-N.csv for the Nth. */
void rec_seg_name(unsigned seg, char *buf, size_t n);
/* Removes DIR's samples-2.csv, samples-3.csv ... (up to the first one missing): the
 * segments of a run a new one replaces, which readers would otherwise take for its own.
 * 0 or -errno of the first that could not be removed, its name in err.
 */
int rec_segments_clear(const char *dir, char *err, size_t errlen);
/* A new meta.json object with its first fields: format, pfclab_version, host. */
json_object *rec_meta_new(const char *host);
/* One entry of meta.json's "columns" added to cols; metric may be NULL (JSON null). */
void rec_meta_column(json_object *cols, const char *name, const char *key, const char *metric,
		     const char *raw, const char *unit, bool counter, int bits);
/* The fields that name the files and their state: csv_segments (1..segments), jsonl,
 * finished, samples. */
void rec_meta_files(json_object *m, unsigned segments, bool finished, uint64_t samples);
/* Writes m to DIR/meta.json through a temporary file, fsync and rename, then syncs the
 * folder: a reader sees the old file or the new one, never a part. 0 or -errno, with the
 * path that failed in err. */
int rec_meta_replace(const char *dir, json_object *m, char *err, size_t errlen);

#endif
