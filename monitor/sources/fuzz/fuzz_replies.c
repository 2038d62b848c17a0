// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_replies.c: libFuzzer target for the parsers of what the kernel answers the counter
 * sources: every input is given, as it is, to each of them (SIOCETHTOOL string-set,
 * string and statistics replies; ethtool netlink PAUSE_GET; RDMA netlink STAT_GET and
 * GET; RTM_GETSTATS; RTM_NEWQDISC, then its value list and name; DCB IEEE_GET) and, as a
 * text, to the sysfs and /proc readers (AER totals, link speed, PCI address, device
 * minor); and, not terminated, to /proc/stat's steal reader. None may read outside the
 * input or trust a length it gives.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hw/dcb.h"
#include "lib/hw/pci.h"
#include "lib/hw/rm.h"
#include "lib/hw/steal.h"
#include "lib/rd.h"
#include "monitor/sources/sources.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct mon_field fields[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct src_rdma_counter ctr[16];
	struct src_pause_reply pause;
	struct src_link_stats link;
	struct src_qdisc_stats q;
	struct src_qdisc_val vals[32];
	struct hw_dcb_pfc pfc;
	struct hw_pci_speed speed;
	struct rd r;
	uint64_t stats[64], total, ticks;
	uint32_t count = 0, idx;
	unsigned int dom, bus, dev, fn;
	char name[64], *text;
	size_t n;

	if (!src_ethtool_parse_sset(data, size, &count) && count <= 64) {
		(void)src_ethtool_parse_strings(data, size, count, fields);
		(void)src_ethtool_parse_stats(data, size, count, stats);
	}
	r = rd_init(data, size);
	(void)src_ethtool_nl_parse_pause(&r, &pause);
	r = rd_init(data, size);
	(void)src_rdma_parse_stat(&r, ctr, 16, &n);
	r = rd_init(data, size);
	(void)src_rdma_parse_dev(&r, &idx, name, sizeof(name));
	r = rd_init(data, size);
	(void)src_link_parse_stats(&r, &link);
	r = rd_init(data, size);
	if (!src_qdisc_parse(&r, &q)) {
		(void)src_qdisc_values(&q, vals, 32);
		src_qdisc_name(&q, name, sizeof(name));
	}
	r = rd_init(data, size);
	(void)hw_dcb_parse_ieee(&r, &pfc);
	(void)hw_steal_parse((const char *)data, size, &ticks);
	text = malloc(size + 1);	/* the text readers take what a read() gave, ended */
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	(void)src_pci_parse_aer(text, &total);
	(void)hw_pci_parse_speed(text, &speed);
	(void)hw_pci_parse_bdf(text, &dom, &bus, &dev, &fn);
	(void)hw_rm_parse_minor(text);
	free(text);
	return 0;
}
