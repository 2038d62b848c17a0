/* SPDX-License-Identifier: GPL-2.0-or-later */
/* linkstat.h: the counter page `pfclab link` publishes per port, and its reader (the
 * monitor's "lossless" source). One file per port, LINKSTAT_DIR/<iface>.stats, mapped
 * shared by the writer; host byte order:
 *
 *   0  u32 magic "PLNK"   4  u32 version   8  u32 nfields   12 u32 entry size (64)
 *   16 u64 seq (odd while the writer updates)   24 u64 epoch (writer's start, mono ns)
 *   32 u64 updated (mono ns)                    40 entries[nfields]:
 *      char name[48] (NUL-terminated)  u64 value  u8 kind (0 counter, 1 gauge)
 *      u8 unit (0 "", 1 frames, 2 us, 3 B, 4 events, 5 packets, 6 b/s)  6 bytes zero
 */
#ifndef PFCLAB_LINK_LINKSTAT_H
#define PFCLAB_LINK_LINKSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LINKSTAT_DIR "/run/pfclab/link"
#define LINKSTAT_MAGIC 0x4b4e4c50u	/* "PLNK" little-endian */
#define LINKSTAT_VERSION 1u
#define LINKSTAT_HDR 40u
#define LINKSTAT_ENTRY 64u
#define LINKSTAT_NAME 48u
#define LINKSTAT_MAX 128u

enum linkstat_unit { LS_U_NONE, LS_U_FRAMES, LS_U_US, LS_U_B, LS_U_EVENTS, LS_U_PACKETS,
		     LS_U_BPS };

struct linkstat_entry {
	char name[LINKSTAT_NAME];
	uint64_t value;
	uint8_t kind;	/* 0 counter, 1 gauge */
	uint8_t unit;	/* enum linkstat_unit */
};

struct linkstat_view {
	uint64_t seq, epoch, updated;
	uint32_t n;
	struct linkstat_entry e[LINKSTAT_MAX];
};

/* The page's path for a port ("va"): dir may be NULL (LINKSTAT_DIR, or $PFCLAB_LINK_DIR). */
int linkstat_path(const char *dir, const char *iface, char *buf, size_t size);
const char *linkstat_unit_name(uint8_t unit);

/* Parse a page's bytes: 0, -EBADMSG (bad magic, entry size, lengths disagree, a name
 * not terminated), -EPROTO (another version), -EAGAIN (seq odd: the writer is updating).
 */
int linkstat_parse(const void *buf, size_t len, struct linkstat_view *v);
/* Read the page at path and parse it, again while the writer is in the middle of an
 * update (seq odd or changed meanwhile), at most a few times. -ENOENT when absent.
 */
int linkstat_read(const char *path, struct linkstat_view *v);

/* The writer. */
struct linkstat_writer {
	int fd;
	uint8_t *map;
	size_t len;
	uint32_t n;
	char path[256];
};

/* Create (replace) the page with these entries' names, kinds and units. 0 or -errno. */
int linkstat_create(struct linkstat_writer *w, const char *path,
		    const struct linkstat_entry *e, uint32_t n, uint64_t epoch);
/* Publish values[0..n) (in create's order). */
void linkstat_update(struct linkstat_writer *w, const uint64_t *values, uint64_t now);
/* Unmap and remove the page. */
void linkstat_remove(struct linkstat_writer *w);

#endif
