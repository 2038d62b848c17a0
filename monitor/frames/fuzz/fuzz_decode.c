// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_decode.c: libFuzzer target for the frame decoder. An input that starts like a
 * pcap or pcapng file is read as a whole capture (every record decoded and summed, in
 * file order and again through review's reorder window);
 * any other input is one frame: byte 0 picks the link type, byte 1 how many bytes the
 * "snaplen" cut off, the rest is the frame.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "monitor/frames/decode.h"
#include "monitor/frames/pcapfile.h"
#include "monitor/frames/reorder.h"
#include "monitor/frames/stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_file(const uint8_t *data, size_t size)
{
	struct pcapf_reader pr;
	struct pcapf_rec rec;
	struct frames_stats st;
	struct frames_pkt pk;
	int n = 0;

	if (pcapf_reader_init(&pr, data, size))
		return;
	frames_stats_init(&st, 0, 1000000, 1000000);
	while (n++ < 100000 && pcapf_reader_next(&pr, &rec) > 0) {
		frames_decode(rec.ifc->link, rec.data, rec.caplen, rec.wirelen, &pk);
		if (!rec.has_ts)	/* as review counts a frame without a time */
			frames_stats_add_untimed(&st, &pk);
		else
			frames_stats_add(&st, rec.ts_ns % (1ull << 30), &pk, rec.ifc->speed_bps);
	}
	frames_stats_finish(&st);
	frames_stats_free(&st);
}

/* The same capture through review's reorder window, as review feeds it: a window of
 * 0-2^24 ns and a cap of 1-64 records from the file's last two bytes (so that records go
 * early and frames come late), a flush at each new section. Every frame is counted once
 * whatever its order, and nothing is reordered or late without a step back. */
static void one_reordered(const uint8_t *data, size_t size)
{
	struct pcapf_reader pr;
	struct pcapf_rec rec;
	struct frames_stats st;
	struct frames_reorder ro;
	struct frames_pkt pk;
	uint64_t frames = 0, window = (uint64_t)data[size - 1] << 16;
	unsigned section;
	int n = 0;

	if (pcapf_reader_init(&pr, data, size))
		return;
	frames_stats_init(&st, 0, 1000000, 1000000);
	frames_reorder_init(&ro, window, 1 + data[size - 2] % 64);
	section = pr.sections;
	while (n++ < 100000 && pcapf_reader_next(&pr, &rec) > 0) {
		if (pr.sections != section) {
			section = pr.sections;
			frames_reorder_flush(&ro, &st);
		}
		frames_decode(rec.ifc->link, rec.data, rec.caplen, rec.wirelen, &pk);
		frames++;
		if (!rec.has_ts) {	/* as review: counted, not through the window */
			frames_stats_add_untimed(&st, &pk);
			continue;
		}
		frames_reorder_add(&ro, &st, rec.ts_ns % (1ull << 30), &pk, rec.ifc->speed_bps);
	}
	frames_reorder_flush(&ro, &st);
	frames_stats_finish(&st);
	if (st.frames != frames ||
	    (!ro.cnt.max_back_ns && (ro.cnt.reordered || ro.cnt.late)) || ro.n != 0)
		__builtin_trap();
	frames_reorder_free(&ro);
	frames_stats_free(&st);
}

/* The same bytes read as a stream through a 64-byte window: every refill, compaction
 * and growth of the window is taken, and must give what the whole buffer gives. */
static void one_stream(const uint8_t *data, size_t size)
{
	struct pcapf_reader pm, ps;
	struct pcapf_rec rm, rs;
	int fd, a, b, n = 0;

	fd = memfd_create("fuzz", 0);
	if (fd < 0)
		return;
	if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return;
	}
	a = pcapf_reader_init(&pm, data, size);
	b = pcapf_reader_open_fd(&ps, fd, 64);
	if ((a == 0) != (b == 0))
		__builtin_trap();
	while (!a && !b && n++ < 100000) {
		a = pcapf_reader_next(&pm, &rm);
		b = pcapf_reader_next(&ps, &rs);
		if (a != b)
			__builtin_trap();
		if (a <= 0)
			break;
		if (rm.caplen != rs.caplen || rm.ts_ns != rs.ts_ns ||
		    memcmp(rm.data, rs.data, rm.caplen))
			__builtin_trap();
	}
	pcapf_reader_free(&ps);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int links[] = { FRAMES_LINK_EN10MB, FRAMES_LINK_LINUX_SLL,
				     FRAMES_LINK_LINUX_SLL2, FRAMES_LINK_EN10MB };
	struct frames_pkt pk;
	struct frames_stats st;
	uint32_t cut, len;

	if (size >= 4) {
		one_file(data, size);
		one_reordered(data, size);
		one_stream(data, size);
	}
	if (size < 2)
		return 0;
	len = (uint32_t)(size - 2);
	cut = data[1] & 0x80 ? data[1] & 0x7f : 0;
	/* the frame in a buffer of its own size, so ASan sees any overread */
	{
		uint8_t *copy = __builtin_alloca(len ? len : 1);

		memcpy(copy, data + 2, len);
		frames_decode(links[data[0] & 3], copy, cut < len ? len - cut : 0, len, &pk);
	}
	frames_stats_init(&st, 25000000000ull, 1000, 0);
	frames_stats_add(&st, 1, &pk, 0);
	frames_stats_finish(&st);
	frames_stats_free(&st);
	return 0;
}
