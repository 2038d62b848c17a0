// SPDX-License-Identifier: GPL-2.0-or-later
/* craft.c: PAUSE (802.3 Annex 31B), PFC (802.1Qbb) and RoCEv2 (IBTA Annex A17) frame
 * builders, with the IPv4 header checksum and the RoCEv2 invariant CRC filled in.
 */
#include <string.h>

#include "lib/rd.h"
#include "monitor/frames/craft.h"
#include "monitor/frames/decode.h"

const uint8_t frames_macctl_dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

static void put_l2(struct wr *w, const struct frames_l2 *l2, uint16_t type)
{
	wr_bytes(w, l2->dst, 6);
	wr_bytes(w, l2->src, 6);
	if (l2->vlan >= 0) {
		wr_be16(w, FRAMES_ETH_8021Q);
		wr_be16(w, (uint16_t)((l2->pcp & 7) << 13 | (l2->vlan & 0xfff)));
	}
	wr_be16(w, type);
}

static size_t finish(struct wr *w)
{
	while (!w->bad && w->off < FRAMES_MIN_LEN)
		wr_u8(w, 0);
	return w->bad ? 0 : w->off;
}

size_t frames_craft_pause(uint8_t *buf, size_t cap, const struct frames_l2 *l2,
			  uint16_t quanta)
{
	struct wr w = wr_init(buf, cap);

	put_l2(&w, l2, FRAMES_ETH_MAC_CONTROL);
	wr_be16(&w, FRAMES_MAC_OP_PAUSE);
	wr_be16(&w, quanta);
	return finish(&w);
}

size_t frames_craft_pfc(uint8_t *buf, size_t cap, const struct frames_l2 *l2,
			uint8_t enable, const uint16_t quanta[8])
{
	struct wr w = wr_init(buf, cap);
	int i;

	put_l2(&w, l2, FRAMES_ETH_MAC_CONTROL);
	wr_be16(&w, FRAMES_MAC_OP_PFC);
	wr_be16(&w, enable);
	for (i = 0; i < 8; i++)
		wr_be16(&w, enable & (1u << i) ? quanta[i] : 0);
	return finish(&w);
}

static uint16_t ip_csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* CRC-32 (IEEE 802.3 polynomial, reflected), one table lookup per byte. */
static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
	static uint32_t table[256];
	size_t i;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			uint32_t c = (uint32_t)i;
			int k;

			for (k = 0; k < 8; k++)
				c = c >> 1 ^ (0xedb88320u & (0u - (c & 1)));
			table[i] = c;
		}
	}
	for (i = 0; i < n; i++)
		crc = crc >> 8 ^ table[(crc ^ p[i]) & 0xff];
	return crc;
}

/* RoCEv2 ICRC (IBTA Annex A17.3.3): CRC-32 over 8 bytes of 0xff standing for the
 * absent LRH, then the IP header with TOS, TTL and checksum set to all ones, the UDP
 * header with the checksum set to ones, the BTH with its reserved byte 4 set to ones,
 * and the rest of the packet. Stored least significant byte first, like the FCS. */
uint32_t frames_roce_icrc(const uint8_t *ip, size_t len)
{
	static const uint8_t ones[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t hdr[20 + 8 + 12];
	uint32_t crc;

	if (len < sizeof(hdr))
		return 0;
	memcpy(hdr, ip, sizeof(hdr));
	hdr[1] = 0xff;                 /* TOS */
	hdr[8] = 0xff;                 /* TTL */
	hdr[10] = hdr[11] = 0xff;      /* IPv4 checksum */
	hdr[26] = hdr[27] = 0xff;      /* UDP checksum */
	hdr[28 + 4] = 0xff;            /* BTH F/B/reserved byte */
	crc = crc32_update(0xffffffffu, ones, 8);
	crc = crc32_update(crc, hdr, sizeof(hdr));
	crc = crc32_update(crc, ip + sizeof(hdr), len - sizeof(hdr));
	return ~crc;
}

size_t frames_craft_roce(uint8_t *buf, size_t cap, const struct frames_l2 *l2,
			 const struct frames_roce *ro)
{
	struct wr w = wr_init(buf, cap);
	size_t ip_off, bth_len = 12, ext = 0, udp_len, ip_len, i;
	uint32_t icrc;
	uint16_t csum;

	if (ro->opcode == FRAMES_BTH_OP_CNP)
		ext = 16;
	else if (ro->opcode == 0x0a || ro->opcode == 0x2a)
		ext = 16;
	udp_len = 8 + bth_len + ext + ro->payload + 4;
	ip_len = 20 + udp_len;
	if (ip_len > 0xffff)
		return 0;
	put_l2(&w, l2, FRAMES_ETH_IPV4);
	ip_off = w.off;
	wr_u8(&w, 0x45);
	wr_u8(&w, (uint8_t)(ro->dscp << 2 | (ro->ecn & 3)));
	wr_be16(&w, (uint16_t)ip_len);
	wr_be16(&w, 0);          /* id */
	wr_be16(&w, 0x4000);     /* DF */
	wr_u8(&w, 64);
	wr_u8(&w, 17);
	wr_be16(&w, 0);          /* checksum, filled below */
	wr_be32(&w, ro->src_ip);
	wr_be32(&w, ro->dst_ip);
	wr_be16(&w, ro->sport);
	wr_be16(&w, FRAMES_ROCEV2_PORT);
	wr_be16(&w, (uint16_t)udp_len);
	wr_be16(&w, 0);          /* RoCEv2 sends UDP checksum 0 over IPv4 */
	wr_u8(&w, ro->opcode);
	wr_u8(&w, 0);            /* SE, M, pad 0, TVer 0 */
	wr_be16(&w, ro->pkey);
	/* Byte 4: FECN (bit 7), BECN (bit 6), reserved. A CNP carries BECN set (IBTA
	 * Annex A17.9.2; the CNP of NVIDIA's RoCEv2 CNP example has 0x40 there); data
	 * packets leave both clear. */
	wr_u8(&w, ro->opcode == FRAMES_BTH_OP_CNP ? FRAMES_BTH_BECN : 0);
	wr_be24(&w, ro->dqp);
	wr_u8(&w, ro->opcode == FRAMES_BTH_OP_CNP ? 0 : 0x80);
	wr_be24(&w, ro->psn);
	if (ext && ro->opcode != FRAMES_BTH_OP_CNP) {
		wr_be64(&w, ro->reth_va);
		wr_be32(&w, ro->reth_rkey);
		wr_be32(&w, ro->payload);
	} else {
		for (i = 0; i < ext; i++)
			wr_u8(&w, 0);
	}
	for (i = 0; i < ro->payload; i++)
		wr_u8(&w, (uint8_t)i);
	if (w.bad)
		return 0;
	csum = ip_csum(buf + ip_off, 20);
	buf[ip_off + 10] = (uint8_t)(csum >> 8);
	buf[ip_off + 11] = (uint8_t)csum;
	icrc = frames_roce_icrc(buf + ip_off, w.off - ip_off);
	wr_u8(&w, (uint8_t)icrc);
	wr_u8(&w, (uint8_t)(icrc >> 8));
	wr_u8(&w, (uint8_t)(icrc >> 16));
	wr_u8(&w, (uint8_t)(icrc >> 24));
	return finish(&w);
}
