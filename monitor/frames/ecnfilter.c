// SPDX-License-Identifier: GPL-2.0-or-later
/* ecnfilter.c: runs a recorded capture filter (pcapng if_filter) over a copy of a
 * captured RoCEv2 packet with each ECN value in turn, through libpcap's compiler and
 * BPF interpreter, to tell whether the filter chose packets by their ECN field.
 *
 * The ECN field (RFC 3168) is the low two bits of the IPv4 TOS byte (byte 1 of the
 * header) and of the IPv6 traffic class, which straddles bytes 0 and 1:
 *
 *   IPv6  | version(4) | traffic class(8) | flow label(20) ...
 *                       `- ECN: bits 0x30 of byte 1
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcap/pcap.h>

#include "monitor/frames/ecnfilter.h"

static void ecn_set(uint8_t *ip, uint8_t ipver, unsigned ecn)
{
	if (ipver == 4)
		ip[1] = (uint8_t)((ip[1] & ~3u) | ecn);
	else
		ip[1] = (uint8_t)((ip[1] & ~0x30u) | ecn << 4);
}

int frames_filter_ecn_kept(int link, const char *filter, const uint8_t *p, uint32_t caplen,
			   uint32_t wirelen, const struct frames_pkt *pk, char *why, size_t whylen)
{
	struct pcap_pkthdr h = { .caplen = caplen, .len = wirelen };
	struct bpf_program prog;
	unsigned e, kept = 0;
	uint8_t *copy;
	pcap_t *pd;
	int rc;

	if ((pk->ipver != 4 && pk->ipver != 6) || pk->ip_off > caplen ||
	    caplen - pk->ip_off < 2) {
		snprintf(why, whylen, "no IP header to set the ECN field in");
		return -EINVAL;
	}
	pd = pcap_open_dead(link, 262144);
	if (!pd)
		return -ENOMEM;
	if (pcap_compile(pd, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		snprintf(why, whylen, "%s", pcap_geterr(pd));
		pcap_close(pd);
		return -EINVAL;
	}
	copy = malloc(caplen);
	if (!copy) {
		pcap_freecode(&prog);
		pcap_close(pd);
		return -ENOMEM;
	}
	memcpy(copy, p, caplen);
	for (e = 0; e < 4; e++) {
		ecn_set(copy + pk->ip_off, pk->ipver, e);
		if (pcap_offline_filter(&prog, &h, copy))
			kept |= 1u << e;
	}
	rc = (int)kept;
	if (!(kept & (1u << (pk->ecn & 3)))) {
		snprintf(why, whylen, "the filter drops the packet as stored (it reads bytes "
			 "the snaplen cut off)");
		rc = -ENODATA;
	}
	free(copy);
	pcap_freecode(&prog);
	pcap_close(pd);
	return rc;
}
