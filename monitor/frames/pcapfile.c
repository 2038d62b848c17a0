// SPDX-License-Identifier: GPL-2.0-or-later
/* pcapfile.c: pcap (classic, micro- and nanosecond, and the modified format) and pcapng
 * readers over a memory buffer, and writers for both with nanosecond timestamps.
 *
 * Formats: tcpdump.org pcap-savefile(5); the modified pcap format of Alexey Kuznetsov's
 * patched tcpdump (magic 0xa1b2cd34, microseconds, a 24-byte record header: ts_sec,
 * ts_usec, caplen, len, then ifindex u32, protocol u16, pkt_type u8 and a pad byte, which
 * libpcap reads and skips, as here); and the IETF pcapng draft
 * (draft-ietf-opsawg-pcapng): SHB 0x0A0D0D0A, IDB 1, SPB 3, EPB 6, options
 * if_name (2), if_speed (8), if_tsresol (9), if_filter (11: a filter-type octet,
 * 0 = libpcap expression, 1 = BPF code, then the filter) and if_tsoffset (14: signed
 * seconds to add to each timestamp, as Wireshark does). Every field is read through
 * lib/rd.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/rd.h"
#include "monitor/frames/pcapfile.h"

#define PCAP_MAGIC_US 0xa1b2c3d4u
#define PCAP_MAGIC_NS 0xa1b23c4du
#define PCAP_MAGIC_MODIFIED 0xa1b2cd34u
#define PCAP_REC_HDR 16u
#define PCAP_MODIFIED_REC_HDR 24u
#define NG_SHB 0x0a0d0d0au
#define NG_IDB 1u
#define NG_OPB 2u
#define NG_SPB 3u
#define NG_EPB 6u
#define NG_BOM 0x1a2b3c4du

static uint16_t get16(struct rd *r, bool le)
{
	uint16_t v = rd_be16(r);

	return le ? (uint16_t)(v >> 8 | v << 8) : v;
}

static uint32_t get32(struct rd *r, bool le)
{
	uint32_t v = rd_be32(r);

	return le ? __builtin_bswap32(v) : v;
}

static uint64_t get64(struct rd *r, bool le)
{
	uint64_t v = rd_be64(r);

	return le ? __builtin_bswap64(v) : v;
}

static int fail(struct pcapf_reader *pr, const char *why)
{
	pr->why = why;
	pr->r.bad = true;
	return -EINVAL;
}

#define WINDOW (1u << 20)
#define RECORD_MAX 0x4000000u /* 64 MiB: larger records or blocks are corrupt */

/* At least n bytes from the cursor in pr->r, reading more from the descriptor when
 * needed; false when the stream ends (or fails) first. */
static bool more_slow(struct pcapf_reader *pr, size_t n)
{
	size_t left = pr->r.len - pr->r.off;

	if (pr->fd < 0 || pr->eof || pr->r.bad)
		return false;
	if (n > pr->cap || pr->r.off) {
		size_t ncap = pr->cap;
		uint8_t *b = pr->buf;

		while (ncap < n)
			ncap *= 2;
		if (ncap != pr->cap) {
			b = malloc(ncap);
			if (!b) {
				pr->read_err = -ENOMEM;
				return false;
			}
		}
		memmove(b, pr->r.p + pr->r.off, left);
		if (b != pr->buf) {
			free(pr->buf);
			pr->buf = b;
			pr->cap = ncap;
		}
		pr->r = rd_init(pr->buf, left);
	}
	while (pr->r.len < n) {
		ssize_t got = read(pr->fd, pr->buf + pr->r.len, pr->cap - pr->r.len);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			pr->read_err = -errno;
			return false;
		}
		if (got == 0) {
			pr->eof = true;
			return false;
		}
		pr->r.len += (size_t)got;
	}
	return true;
}

static inline bool more(struct pcapf_reader *pr, size_t n)
{
	return pr->r.len - pr->r.off >= n || more_slow(pr, n);
}

static int reader_start(struct pcapf_reader *pr)
{
	struct rd r;
	uint32_t magic;

	more(pr, 24);
	r = pr->r;
	magic = rd_be32(&r);
	if (!rd_ok(&r))
		return fail(pr, "file shorter than a pcap header");
	if (magic == NG_SHB) {
		pr->ng = true;
		return 0; /* the SHB is parsed by pcapf_reader_next like any block */
	}
	if (magic == PCAP_MAGIC_US || magic == PCAP_MAGIC_NS || magic == PCAP_MAGIC_MODIFIED)
		pr->le = false;
	else if (__builtin_bswap32(magic) == PCAP_MAGIC_US ||
		 __builtin_bswap32(magic) == PCAP_MAGIC_NS ||
		 __builtin_bswap32(magic) == PCAP_MAGIC_MODIFIED)
		pr->le = true;
	else
		return fail(pr, "not a pcap or pcapng file (unknown magic)");
	if (pr->le)
		magic = __builtin_bswap32(magic);
	rd_skip(&pr->r, 4 + 2 + 2); /* magic, version */
	pr->thiszone = (int32_t)get32(&pr->r, pr->le);
	rd_skip(&pr->r, 4); /* sigfigs */
	pr->ifs[0].snaplen = get32(&pr->r, pr->le);
	pr->ifs[0].link = (int)(get32(&pr->r, pr->le) & 0xffff);
	if (!rd_ok(&pr->r))
		return fail(pr, "file shorter than a pcap header");
	pr->ifs[0].ts_mul = magic == PCAP_MAGIC_NS ? 1 : 1000;
	pr->rec_hdr = magic == PCAP_MAGIC_MODIFIED ? PCAP_MODIFIED_REC_HDR : PCAP_REC_HDR;
	pr->ifs[0].ts_div = 1;
	pr->nifs = 1;
	return 0;
}

int pcapf_reader_init(struct pcapf_reader *pr, const void *buf, size_t len)
{
	memset(pr, 0, sizeof(*pr));
	pr->fd = -1;
	pr->r = rd_init(buf, len);
	return reader_start(pr);
}

int pcapf_reader_open_fd(struct pcapf_reader *pr, int fd, size_t window)
{
	int rc;

	memset(pr, 0, sizeof(*pr));
	pr->fd = fd;
	pr->cap = window ? window : WINDOW;
	pr->buf = malloc(pr->cap);
	if (!pr->buf)
		return -ENOMEM;
	pr->r = rd_init(pr->buf, 0);
	rc = reader_start(pr);
	if (rc && pr->read_err)
		return pr->read_err;
	return rc;
}

void pcapf_reader_free(struct pcapf_reader *pr)
{
	free(pr->buf);
	pr->buf = NULL;
	pr->cap = 0;
}

/* The end of the bytes: 0 at a record boundary, else the file was cut short. */
static int at_end(struct pcapf_reader *pr)
{
	if (pr->read_err) {
		pr->why = "read failed";
		pr->r.bad = true;
		return pr->read_err;
	}
	return 0;
}

static int cut(struct pcapf_reader *pr, const char *why)
{
	if (pr->read_err)
		return at_end(pr);
	pr->cut_short = true;
	return fail(pr, why);
}

static int next_pcap(struct pcapf_reader *pr, struct pcapf_rec *rec)
{
	struct rd *r = &pr->r;
	uint32_t sec, frac;

	if (!more(pr, 1))
		return at_end(pr);
	if (!more(pr, pr->rec_hdr))
		return cut(pr, "record header cut short (file truncated)");
	sec = get32(r, pr->le);
	frac = get32(r, pr->le);
	rec->caplen = get32(r, pr->le);
	rec->wirelen = get32(r, pr->le);
	rd_skip(r, pr->rec_hdr - PCAP_REC_HDR); /* modified: ifindex, protocol, pkt_type */
	if (!rd_ok(r))
		return cut(pr, "record header cut short (file truncated)");
	if (rec->caplen > RECORD_MAX)
		return fail(pr, "record length above 64 MiB (corrupt file)");
	if (!more(pr, rec->caplen) || !rd_need(r, rec->caplen))
		return cut(pr, "record data cut short (file truncated)");
	rec->data = rd_ptr(r);
	rd_skip(r, rec->caplen);
	if (frac >= 1000000000u / pr->ifs[0].ts_mul)
		pr->bad_frac++; /* counted; the time is still sec + frac as written */
	rec->ts_ns = (uint64_t)sec * 1000000000ull + (uint64_t)frac * pr->ifs[0].ts_mul;
	rec->has_ts = true;
	rec->ifidx = 0;
	rec->ifc = &pr->ifs[0];
	return 1;
}

/* false when the resolution is beyond what a 64-bit nanosecond clock can use (it is
 * then clamped). */
static bool tsresol_set(struct pcapf_if *ifc, uint8_t v)
{
	unsigned n = v & 0x7f;
	unsigned i;

	ifc->ts_mul = 1;
	ifc->ts_div = 1;
	if (v & 0x80) { /* 2^-n seconds */
		bool ok = n <= 63;

		if (!ok)
			n = 63;
		ifc->ts_mul = 1000000000ull;
		ifc->ts_div = 1ull << n;
		return ok;
	}
	if (n > 19) {
		n = 19;
		ifc->ts_div = 10000000000ull;
		return false;
	}
	for (i = n; i < 9; i++)
		ifc->ts_mul *= 10;
	for (i = 9; i < n; i++)
		ifc->ts_div *= 10;
	return true;
}

/* if_filter: the first one of the block is kept; a libpcap expression as a string
 * (trailing NULs, as some writers add, dropped), anything else marked unusable. */
static void filter_set(struct pcapf_if *ifc, struct rd *v)
{
	uint8_t type = rd_u8(v);
	size_t n = rd_left(v);
	const uint8_t *s = rd_ptr(v);

	if (!rd_ok(v) || ifc->has_filter)
		return;
	ifc->has_filter = true;
	while (n && !s[n - 1])
		n--;
	if (type != 0 || n >= sizeof(ifc->filter) || (n && memchr(s, 0, n))) {
		ifc->filter_unusable = true;
		return;
	}
	if (n)
		memcpy(ifc->filter, s, n);
	ifc->filter[n] = 0;
}

static int parse_idb(struct pcapf_reader *pr, struct rd *b)
{
	struct pcapf_if *ifc;

	if (pr->nifs >= PCAPF_MAX_IFS)
		return fail(pr, "more pcapng interfaces than supported (64)");
	ifc = &pr->ifs[pr->nifs];
	memset(ifc, 0, sizeof(*ifc));
	ifc->link = get16(b, pr->le);
	rd_skip(b, 2);
	ifc->snaplen = get32(b, pr->le);
	if (!rd_ok(b))
		return fail(pr, "interface description block too short");
	ifc->ts_mul = 1000; /* default if_tsresol = 6 (microseconds) */
	ifc->ts_div = 1;
	while (rd_left(b) >= 4) {
		uint16_t code = get16(b, pr->le), len = get16(b, pr->le);
		struct rd v;

		if (code == 0)
			break;
		if (!rd_sub(b, len, &v) || !rd_skip(b, (4 - len % 4) % 4))
			return fail(pr, "interface option runs past its block");
		if (code == 9 && len >= 1 && !tsresol_set(ifc, rd_u8(&v)))
			pr->bad_tsresol++;
		else if (code == 8 && len >= 8)
			ifc->speed_bps = get64(&v, pr->le);
		else if (code == 14 && len >= 8)
			ifc->ts_offset_s = (int64_t)get64(&v, pr->le);
		else if (code == 2)
			memcpy(ifc->name, v.p, len < sizeof(ifc->name) - 1 ? len : sizeof(ifc->name) - 1);
		else if (code == 11 && len >= 1)
			filter_set(ifc, &v);
	}
	pr->nifs++;
	return 0;
}

static uint64_t ts_to_ns(struct pcapf_reader *pr, unsigned ifidx, uint64_t ts)
{
	const struct pcapf_if *ifc = &pr->ifs[ifidx];
	__int128 ns = (__int128)((unsigned __int128)ts * ifc->ts_mul / ifc->ts_div);

	ns += (__int128)ifc->ts_offset_s * 1000000000;
	if (ns < 0) { /* an if_tsoffset before 1970 */
		pr->ts_overflow++;
		ns = 0;
	} else if (ns > UINT64_MAX) { /* an if_tsresol the 64-bit ns clock cannot hold */
		pr->ts_overflow++;
		ns = UINT64_MAX;
	}
	return (uint64_t)ns;
}

static int next_ng(struct pcapf_reader *pr, struct pcapf_rec *rec)
{
	struct rd *r = &pr->r;

	for (;;) {
		uint32_t type, blen;
		struct rd b;
		int rc;

		if (!more(pr, 1))
			return at_end(pr);
		if (!more(pr, 12))
			return cut(pr, "block header cut short (file truncated)");
		{
			/* the whole block into the window first */
			struct rd peek = *r;
			uint32_t t = rd_be32(&peek), l = rd_be32(&peek), bom = rd_be32(&peek);
			bool le = pr->le;

			if (t == NG_SHB)
				le = bom != NG_BOM;
			if (le)
				l = __builtin_bswap32(l);
			if (l > RECORD_MAX)
				return fail(pr, "block length above 64 MiB (corrupt file)");
			if (l >= 12 && !more(pr, l))
				return cut(pr, "block runs past the end of the file (file truncated)");
		}
		type = rd_be32(r);
		if (type == NG_SHB) {
			/* The byte-order magic decides how this section is read. */
			struct rd peek = *r;
			uint32_t bom;

			rd_skip(&peek, 4);
			bom = rd_be32(&peek);
			if (bom == NG_BOM)
				pr->le = false;
			else if (bom == __builtin_bswap32(NG_BOM))
				pr->le = true;
			else
				return fail(pr, "section header with an unknown byte-order magic");
			pr->nifs = 0;
			pr->sections++;
		} else if (pr->le) {
			type = __builtin_bswap32(type);
		}
		blen = get32(r, pr->le);
		if (!rd_ok(r))
			return cut(pr, "block header cut short (file truncated)");
		if (blen < 12 || blen % 4)
			return fail(pr, "block length below 12 or not a multiple of 4");
		if (!rd_sub(r, blen - 12, &b) || !rd_skip(r, 4))
			return fail(pr, "block runs past the end of the file");
		switch (type) {
		case NG_SHB:
			continue;
		case NG_IDB:
			rc = parse_idb(pr, &b);
			if (rc)
				return rc;
			continue;
		case NG_EPB: {
			uint32_t hi, lo;

			rec->ifidx = get32(&b, pr->le);
			hi = get32(&b, pr->le);
			lo = get32(&b, pr->le);
			rec->caplen = get32(&b, pr->le);
			rec->wirelen = get32(&b, pr->le);
			if (!rd_ok(&b))
				return fail(pr, "enhanced packet block too short");
			if (rec->ifidx >= pr->nifs)
				return fail(pr, "packet for an interface never described");
			if (!rd_need(&b, rec->caplen))
				return fail(pr, "packet data runs past its block");
			rec->data = rd_ptr(&b);
			rec->ifc = &pr->ifs[rec->ifidx];
			rec->ts_ns = ts_to_ns(pr, rec->ifidx, (uint64_t)hi << 32 | lo);
			rec->has_ts = true;
			return 1;
		}
		case NG_SPB:
			if (pr->nifs == 0)
				return fail(pr, "simple packet block before any interface");
			rec->ifidx = 0;
			rec->ifc = &pr->ifs[0];
			rec->wirelen = get32(&b, pr->le);
			if (!rd_ok(&b))
				return fail(pr, "simple packet block too short");
			rec->caplen = (uint32_t)rd_left(&b);
			if (rec->wirelen < rec->caplen)
				rec->caplen = rec->wirelen;
			if (rec->ifc->snaplen && rec->caplen > rec->ifc->snaplen)
				rec->caplen = rec->ifc->snaplen;
			rec->data = rd_ptr(&b);
			rec->ts_ns = 0;
			rec->has_ts = false; /* SPBs carry no timestamp */
			return 1;
		case NG_OPB: {
			uint32_t hi, lo;

			rec->ifidx = get16(&b, pr->le);
			rd_skip(&b, 2);
			hi = get32(&b, pr->le);
			lo = get32(&b, pr->le);
			rec->caplen = get32(&b, pr->le);
			rec->wirelen = get32(&b, pr->le);
			if (!rd_ok(&b) || rec->ifidx >= pr->nifs || !rd_need(&b, rec->caplen))
				return fail(pr, "corrupt obsolete packet block");
			rec->data = rd_ptr(&b);
			rec->ifc = &pr->ifs[rec->ifidx];
			rec->ts_ns = ts_to_ns(pr, rec->ifidx, (uint64_t)hi << 32 | lo);
			rec->has_ts = true;
			return 1;
		}
		default:
			continue; /* name resolution, statistics, custom blocks */
		}
	}
}

int pcapf_reader_next(struct pcapf_reader *pr, struct pcapf_rec *rec)
{
	if (pr->r.bad)
		return -EINVAL;
	return pr->ng ? next_ng(pr, rec) : next_pcap(pr, rec);
}

int pcapf_map_open(struct pcapf_map *m, const char *path)
{
	struct stat st;
	int fd, err;

	m->p = NULL;
	m->len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	m->len = (size_t)st.st_size;
	if (m->len) {
		m->p = mmap(NULL, m->len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
		if (m->p == MAP_FAILED) {
			err = -errno;
			close(fd);
			m->p = NULL;
			return err;
		}
		madvise(m->p, m->len, MADV_SEQUENTIAL);
	}
	close(fd);
	return 0;
}

void pcapf_map_close(struct pcapf_map *m)
{
	if (m->p)
		munmap(m->p, m->len);
	m->p = NULL;
}

/* ---- writers (host byte order, as readers of both formats expect) ---- */

#define PCAPF_WRITE_BUF (1u << 20)

static int put(struct pcapf_writer *w, const void *p, size_t n)
{
	/* a writer belongs to one thread: no stream lock per record */
	if (fwrite_unlocked(p, 1, n, w->f) != n)
		return errno ? -errno : -EIO;
	w->bytes += n;
	return 0;
}

/* Records go out in 1 MiB writes rather than the stream's default (a page or a pipe's
 * size): glibc takes setvbuf's size only with a buffer given. A file's own; standard
 * output keeps its buffer (it outlives the writer). Without memory: the default. */
static void big_buffer(struct pcapf_writer *w)
{
	if (w->f == stdout || !(w->buf = malloc(PCAPF_WRITE_BUF)))
		return;
	if (setvbuf(w->f, w->buf, _IOFBF, PCAPF_WRITE_BUF)) {
		free(w->buf);
		w->buf = NULL;
	}
}

int pcapf_writer_open(struct pcapf_writer *w, const char *path, bool ng, int link,
		      uint32_t snaplen)
{
	int rc;

	memset(w, 0, sizeof(*w));
	w->ng = ng;
	w->link = link;
	w->f = strcmp(path, "-") ? fopen(path, "wbe") : stdout;
	if (!w->f)
		return -errno;
	big_buffer(w);
	if (ng) {
		struct {
			uint32_t type, len, bom;
			uint16_t major, minor;
			int64_t seclen;
			uint32_t len2;
		} __attribute__((packed)) shb = { NG_SHB, 28, NG_BOM, 1, 0, -1, 28 };

		rc = put(w, &shb, sizeof(shb));
	} else {
		struct {
			uint32_t magic;
			uint16_t major, minor;
			int32_t zone;
			uint32_t sigfigs, snaplen, link;
		} hdr = { PCAP_MAGIC_NS, 2, 4, 0, 0, snaplen, (uint32_t)link };

		w->nifs = 1;
		rc = put(w, &hdr, sizeof(hdr));
	}
	if (rc)
		pcapf_writer_close(w);
	return rc;
}

int pcapf_writer_append(struct pcapf_writer *w, const char *path)
{
	struct pcapf_reader pr;
	struct pcapf_rec rec;
	struct pcapf_map m;
	uint32_t magic = 0;
	int rc;

	memset(w, 0, sizeof(*w));
	rc = pcapf_map_open(&m, path);
	if (rc)
		return rc;
	rc = pcapf_reader_init(&pr, m.p, m.len);
	if (!rc && !pr.ng)
		memcpy(&magic, m.p, 4);
	if (!rc && !pr.ng && magic != PCAP_MAGIC_NS)
		rc = -EINVAL; /* microseconds or foreign byte order */
	while (!rc && (rc = pcapf_reader_next(&pr, &rec)) > 0)
		rc = 0;
	if (!rc) {
		w->ng = pr.ng;
		w->nifs = pr.nifs;
		w->link = pr.ifs[0].link;
	}
	pcapf_map_close(&m);
	if (rc)
		return rc < 0 ? rc : -EINVAL;
	w->f = fopen(path, "abe");
	if (!w->f)
		return -errno;
	big_buffer(w);
	return 0;
}

static int put_opt(uint8_t *buf, size_t *off, uint16_t code, const void *v, uint16_t len)
{
	static const uint8_t zero[4];

	memcpy(buf + *off, &code, 2);
	memcpy(buf + *off + 2, &len, 2);
	if (len)
		memcpy(buf + *off + 4, v, len);
	memcpy(buf + *off + 4 + len, zero, (4 - len % 4) % 4);
	*off += 4 + len + (4 - len % 4) % 4;
	return 0;
}

#define FILTER_OPT_MAX 65000

int pcapf_writer_add_if(struct pcapf_writer *w, int link, uint32_t snaplen,
			const char *name, uint64_t speed_bps, const char *filter)
{
	uint8_t *buf;
	uint32_t v32;
	uint16_t v16;
	size_t off = 8, nlen, flen = filter ? strlen(filter) : 0;
	uint8_t res = 9;
	int rc;

	if (!w->ng)
		return link == w->link ? 0 : -EINVAL;
	if (flen > FILTER_OPT_MAX)
		return -E2BIG;
	/* header and trailer 12, link/snaplen 8, if_name 36, if_tsresol 8, if_speed 12,
	 * if_filter 4 + 1 + flen + 3 of padding, end of options 4 */
	buf = malloc(96 + flen);
	if (!buf)
		return -ENOMEM;
	v16 = (uint16_t)link;
	memcpy(buf + off, &v16, 2);
	v16 = 0;
	memcpy(buf + off + 2, &v16, 2);
	memcpy(buf + off + 4, &snaplen, 4);
	off += 8;
	nlen = name ? strnlen(name, 31) : 0;
	if (nlen)
		put_opt(buf, &off, 2, name, (uint16_t)nlen);
	put_opt(buf, &off, 9, &res, 1);
	if (speed_bps)
		put_opt(buf, &off, 8, &speed_bps, 8);
	if (filter) { /* if_filter: type 0 (a libpcap expression), then the expression */
		uint16_t code = 11, len = (uint16_t)(flen + 1), pad = (4 - len % 4) % 4;

		memcpy(buf + off, &code, 2);
		memcpy(buf + off + 2, &len, 2);
		buf[off + 4] = 0;
		memcpy(buf + off + 5, filter, flen);
		memset(buf + off + 4 + len, 0, pad);
		off += 4u + len + pad;
	}
	put_opt(buf, &off, 0, NULL, 0);
	v32 = NG_IDB;
	memcpy(buf, &v32, 4);
	v32 = (uint32_t)off + 4;
	memcpy(buf + 4, &v32, 4);
	memcpy(buf + off, &v32, 4);
	rc = put(w, buf, off + 4);
	free(buf);
	if (rc)
		return rc;
	return (int)w->nifs++;
}

int pcapf_writer_write(struct pcapf_writer *w, unsigned ifidx, uint64_t ts_ns,
		       const uint8_t *p, uint32_t caplen, uint32_t wirelen)
{
	static const uint8_t zero[4];
	int rc;

	if (ifidx >= w->nifs)
		return -EINVAL;
	w->frames++;
	if (w->ng) {
		uint32_t pad = (4 - caplen % 4) % 4;
		uint32_t h[7] = { NG_EPB, 32 + caplen + pad, ifidx,
				  (uint32_t)(ts_ns >> 32), (uint32_t)ts_ns, caplen, wirelen };
		uint32_t tail = h[1];

		rc = put(w, h, sizeof(h));
		if (!rc)
			rc = put(w, p, caplen);
		if (!rc && pad)
			rc = put(w, zero, pad);
		if (!rc)
			rc = put(w, &tail, 4);
		return rc;
	} else {
		uint32_t h[4] = { (uint32_t)(ts_ns / 1000000000ull),
				  (uint32_t)(ts_ns % 1000000000ull), caplen, wirelen };

		rc = put(w, h, sizeof(h));
		return rc ? rc : put(w, p, caplen);
	}
}

int pcapf_writer_flush(struct pcapf_writer *w)
{
	if (w->f && fflush_unlocked(w->f))
		return errno ? -errno : -EIO;
	return 0;
}

int pcapf_writer_close(struct pcapf_writer *w)
{
	int rc = 0;

	if (!w->f)
		return 0;
	if (w->f == stdout)
		rc = fflush(w->f) ? -errno : 0;
	else if (fclose(w->f))
		rc = -errno;
	w->f = NULL;
	free(w->buf);
	w->buf = NULL;
	return rc;
}
