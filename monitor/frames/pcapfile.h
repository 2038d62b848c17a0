/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pcapfile.h: reading pcap (and its modified form) and pcapng from memory
 * (bounds-checked, for review and the fuzzer) and writing them with nanosecond
 * timestamps (for capture and inject).
 */
#ifndef PFCLAB_FRAMES_PCAPFILE_H
#define PFCLAB_FRAMES_PCAPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/rd.h"

#define PCAPF_MAX_IFS 64
#define PCAPF_FILTER_MAX 1024 /* bytes of an if_filter kept, with its NUL */

struct pcapf_if {
	int link;          /* pcap link type */
	uint32_t snaplen;
	uint64_t speed_bps; /* pcapng if_speed, 0 when absent */
	uint64_t ts_mul;   /* ns = ts * ts_mul / ts_div */
	uint64_t ts_div;
	int64_t ts_offset_s; /* pcapng if_tsoffset: seconds added to every timestamp */
	char name[32];
	/* pcapng if_filter, the capture filter the frames passed (classic pcap records
	 * none): has_filter when the interface block carries one; filter is its libpcap
	 * expression (filter type 0), "" when it is empty or unusable: another type (BPF
	 * code), longer than PCAPF_FILTER_MAX - 1 bytes, or a NUL inside. */
	bool has_filter;
	bool filter_unusable;
	char filter[PCAPF_FILTER_MAX];
};

struct pcapf_reader {
	struct rd r;      /* the bytes at hand: the whole file, or the current window */
	/* Reading from a descriptor (pcapf_reader_open_fd): a window of the stream, so
	 * memory stays fixed however long the file; fd < 0 for a buffer in memory. */
	int fd;
	uint8_t *buf;
	size_t cap;
	bool eof;
	int read_err;     /* -errno of a failed read() */
	/* Records whose timestamps cannot be right, counted for one warning per file. */
	uint64_t bad_frac;   /* pcap: fraction >= 1 s (us >= 1e6, ns >= 1e9) */
	uint64_t ts_overflow;/* pcapng: timestamp * if_tsresol beyond 64-bit ns */
	uint64_t bad_tsresol;/* pcapng: interfaces with an if_tsresol beyond 10^-19 s or 2^-63 s */
	/* Classic pcap: the header's thiszone, seconds (pcap-savefile(5): UTC minus the
	 * local time the records were stamped in). Kept, not applied: libpcap, tcpdump and
	 * Wireshark ignore it, writers put 0, and the IETF pcap draft (Reserved1) says a
	 * reader must ignore it, so records are taken as UTC as every other tool takes
	 * them; review warns when it is not 0. */
	int32_t thiszone;
	bool cut_short;   /* the file ends inside a record */
	bool ng;
	bool le;          /* byte order of the current section / file */
	unsigned rec_hdr; /* classic pcap: bytes of a record header, 16; 24 in the modified
			   * format (ifindex, protocol, packet type after the four fields) */
	unsigned nifs;    /* interfaces of the current pcapng section (pcap: 1) */
	unsigned sections;/* pcapng section headers read so far: a new one describes its
			   * interfaces afresh, under the same indexes */
	struct pcapf_if ifs[PCAPF_MAX_IFS];
	const char *why;  /* why the last call returned an error */
};

struct pcapf_rec {
	uint64_t ts_ns;
	/* false for a pcapng simple packet block, which carries no timestamp (ts_ns is then
	 * 0, no time at all): such a frame has no place in time-based figures */
	bool has_ts;
	uint32_t caplen;
	uint32_t wirelen;
	const uint8_t *data;
	unsigned ifidx;
	const struct pcapf_if *ifc;
};

/* 0, or -EINVAL when the buffer holds neither pcap nor pcapng (r->why says more). */
int pcapf_reader_init(struct pcapf_reader *pr, const void *buf, size_t len);
/* The same over a file descriptor (a file, a pipe, a FIFO, standard input), read in
 * windows of `window` bytes (0: 1 MiB), more for a record that needs it, up to 64 MiB:
 * 0, -EINVAL (not a capture, pr->why), or -errno of a failed read.
 * pcapf_reader_free releases it. */
int pcapf_reader_open_fd(struct pcapf_reader *pr, int fd, size_t window);
void pcapf_reader_free(struct pcapf_reader *pr);
/* 1 and *rec filled, 0 at the end, -EINVAL on a corrupt record (pr->why; cut_short
 * when the file ends inside one), -errno when reading failed; after an error the rest
 * of the file is not trusted. rec->data stays valid until the next call. */
int pcapf_reader_next(struct pcapf_reader *pr, struct pcapf_rec *rec);

/* A read-only mapping of a whole file. */
struct pcapf_map {
	void *p;
	size_t len;
};
int pcapf_map_open(struct pcapf_map *m, const char *path);
void pcapf_map_close(struct pcapf_map *m);

struct pcapf_writer {
	FILE *f;
	char *buf;	/* the file's 1 MiB stdio buffer (glibc sizes a NULL one itself) */
	bool ng;
	int link;
	unsigned nifs;
	uint64_t bytes;
	uint64_t frames;
};

/* Opens path for writing ("-" = stdout). pcap: one link type, nanosecond magic.
 * pcapng: a section header; interfaces are added with pcapf_writer_add_if. */
int pcapf_writer_open(struct pcapf_writer *w, const char *path, bool ng, int link,
		      uint32_t snaplen);
/* Opens an existing file written with nanosecond pcap or pcapng for appending;
 * -EINVAL when it is another format (microsecond pcap cannot take ns records). */
int pcapf_writer_append(struct pcapf_writer *w, const char *path);
/* pcapng: adds an interface description (ns resolution; if_name, if_speed when
 * speed_bps, if_filter when filter: the libpcap expression the frames passed) and
 * returns its index; -E2BIG for a filter above 65000 bytes, -errno when writing fails.
 * pcap: returns 0 when the link type matches, -EINVAL otherwise (it records no name,
 * speed or filter). */
int pcapf_writer_add_if(struct pcapf_writer *w, int link, uint32_t snaplen,
			const char *name, uint64_t speed_bps, const char *filter);
int pcapf_writer_write(struct pcapf_writer *w, unsigned ifidx, uint64_t ts_ns,
		       const uint8_t *p, uint32_t caplen, uint32_t wirelen);
/* Pushes buffered bytes to the file now: 0 or -errno (ENOSPC, EIO, EBADF...). */
int pcapf_writer_flush(struct pcapf_writer *w);
int pcapf_writer_close(struct pcapf_writer *w);

#endif
