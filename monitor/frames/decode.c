// SPDX-License-Identifier: GPL-2.0-or-later
/* decode.c: bounds-checked decoder for the frames pfclab cares about (PAUSE, PFC,
 * RoCEv2 with ECN, CNP), layered like tcpdump's printers but returning a struct.
 *
 *   Ethernet | [802.1ad/802.1Q tags] | 0x8808 MAC control: opcode 0x0001 PAUSE,
 *                                    |                     opcode 0x0101 PFC
 *                                    | 0x0800/0x86dd IP | UDP 4791 | BTH | [RETH|AETH|CNP]
 *
 * Two failure outcomes are kept apart: TRUNCATED means the capture stopped (snaplen)
 * before a header ended; INVALID means the frame's own lengths or fields disagree
 * (IP total length beyond the frame, UDP length beyond the IP payload, ...).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "lib/rd.h"
#include "monitor/frames/decode.h"

/* A read ran out of bytes: blame the snaplen if bytes were cut, else the frame. */
static enum frames_status short_read(struct frames_pkt *pk, const char *why)
{
	pk->why = why;
	pk->status = pk->caplen < pk->wirelen ? FRAMES_TRUNCATED : FRAMES_INVALID;
	return pk->status;
}

static enum frames_status invalid(struct frames_pkt *pk, const char *why)
{
	pk->why = why;
	pk->status = FRAMES_INVALID;
	return pk->status;
}

/* Bytes of the frame on the wire from the reader's position on. */
static size_t wire_left(const struct frames_pkt *pk, const struct rd *r)
{
	return r->off <= pk->wirelen ? pk->wirelen - r->off : 0;
}

/* IEEE 802.3 Annex 31B (PAUSE) and IEEE 802.1Qbb clause 36 (PFC):
 *   opcode(2) | PAUSE: time(2)
 *             | PFC:   class-enable vector(2, low byte used) | time[0..7](2 each) */
static enum frames_status decode_macctl(struct rd *r, struct frames_pkt *pk)
{
	int i;

	pk->mac_opcode = rd_be16(r);
	if (!rd_ok(r))
		return short_read(pk, "MAC control opcode");
	switch (pk->mac_opcode) {
	case FRAMES_MAC_OP_PAUSE:
		pk->pause_quanta = rd_be16(r);
		if (!rd_ok(r))
			return short_read(pk, "PAUSE time");
		pk->kind = FRAMES_KIND_PAUSE;
		break;
	case FRAMES_MAC_OP_PFC:
		pk->pfc_enable = (uint8_t)rd_be16(r);
		for (i = 0; i < 8; i++)
			pk->pfc_quanta[i] = rd_be16(r);
		if (!rd_ok(r))
			return short_read(pk, "PFC class-enable vector or times");
		pk->kind = FRAMES_KIND_PFC;
		break;
	default:
		pk->kind = FRAMES_KIND_MACCTL;
		break;
	}
	return pk->status = FRAMES_OK;
}

/* Whether a BTH opcode carries a RETH or an AETH (IBTA vol 1, 9.2 table 38). Only the
 * reliable (0x00-0x1f) and unreliable (0x20-0x3f) connected classes are handled. */
static bool op_has_reth(uint8_t op)
{
	uint8_t cls = op >> 5, code = op & 0x1f;

	if (cls > 1)
		return false;
	if (code == 0x06 || code == 0x0a || code == 0x0b)
		return true; /* RDMA WRITE first / only / only with immediate */
	return cls == 0 && code == 0x0c; /* RDMA READ request, RC only */
}

static bool op_has_aeth(uint8_t op)
{
	/* RC: READ response first/last/only, ACK, atomic ACK */
	return op == 0x0d || op == 0x0f || op == 0x10 || op == 0x11 || op == 0x12;
}

/* RoCEv2 (IBTA Annex A17): UDP payload = BTH(12) | ext headers | payload | ICRC(4).
 *   BTH: opcode(1) | SE M pad tver(1) | pkey(2) | F B rsvd(1) dest QP(3) | A rsvd(1) PSN(3) */
static enum frames_status decode_bth(struct rd *r, struct frames_pkt *pk, size_t udp_payload)
{
	uint8_t b;
	size_t need = 12 + 4;

	if (udp_payload < need)
		return invalid(pk, "UDP payload shorter than BTH + ICRC");
	pk->bth_opcode = rd_u8(r);
	rd_u8(r); /* SE, M, pad count, transport version */
	pk->bth_pkey = rd_be16(r);
	rd_u8(r);
	pk->bth_dqp = rd_be24(r);
	b = rd_u8(r);
	pk->bth_ackreq = b & 0x80;
	pk->bth_psn = rd_be24(r);
	if (!rd_ok(r))
		return short_read(pk, "BTH");
	pk->has_bth = true;
	pk->kind = FRAMES_KIND_ROCE;

	if (pk->bth_opcode == FRAMES_BTH_OP_CNP) {
		/* Annex A17.9.2: 16 reserved bytes after the BTH. */
		if (udp_payload < need + 16)
			return invalid(pk, "CNP shorter than BTH + 16 reserved bytes + ICRC");
		if (!rd_skip(r, 16))
			return short_read(pk, "CNP reserved bytes");
		pk->kind = FRAMES_KIND_CNP;
		return pk->status = FRAMES_OK;
	}
	if (op_has_reth(pk->bth_opcode)) {
		if (udp_payload < need + 16)
			return invalid(pk, "UDP payload shorter than BTH + RETH + ICRC");
		pk->reth_va = rd_be64(r);
		pk->reth_rkey = rd_be32(r);
		pk->reth_len = rd_be32(r);
		if (!rd_ok(r))
			return short_read(pk, "RETH");
		pk->has_reth = true;
	} else if (op_has_aeth(pk->bth_opcode)) {
		if (udp_payload < need + 4)
			return invalid(pk, "UDP payload shorter than BTH + AETH + ICRC");
		pk->aeth_syndrome = rd_u8(r);
		pk->aeth_msn = rd_be24(r);
		if (!rd_ok(r))
			return short_read(pk, "AETH");
		pk->has_aeth = true;
	}
	return pk->status = FRAMES_OK;
}

/* UDP (RFC 768); `ip_payload` is the payload length the IP header declared. */
static enum frames_status decode_udp(struct rd *r, struct frames_pkt *pk, size_t ip_payload)
{
	uint16_t len;

	if (ip_payload < 8)
		return invalid(pk, "IP payload shorter than a UDP header");
	pk->sport = rd_be16(r);
	pk->dport = rd_be16(r);
	len = rd_be16(r);
	rd_skip(r, 2);
	if (!rd_ok(r))
		return short_read(pk, "UDP header");
	if (len < 8 || len > ip_payload)
		return invalid(pk, "UDP length disagrees with the IP payload length");
	if (pk->dport != FRAMES_ROCEV2_PORT)
		return pk->status = FRAMES_OK;
	return decode_bth(r, pk, (size_t)len - 8);
}

/* IPv4 (RFC 791); ECN is the low two bits of the TOS byte (RFC 3168). */
static enum frames_status decode_ipv4(struct rd *r, struct frames_pkt *pk)
{
	size_t start = r->off, hlen;
	uint8_t vihl, tos, proto;
	uint16_t tot, frag;

	vihl = rd_u8(r);
	tos = rd_u8(r);
	tot = rd_be16(r);
	rd_skip(r, 2);
	frag = rd_be16(r);
	rd_u8(r);
	proto = rd_u8(r);
	rd_skip(r, 2);
	rd_bytes(r, pk->ip_src, 4);
	rd_bytes(r, pk->ip_dst, 4);
	if (!rd_ok(r))
		return short_read(pk, "IPv4 header");
	if (vihl >> 4 != 4)
		return invalid(pk, "IPv4 version field is not 4");
	hlen = (size_t)(vihl & 0xf) * 4;
	if (hlen < 20)
		return invalid(pk, "IPv4 header length below 20");
	if (tot < hlen || tot > pk->wirelen - start)
		return invalid(pk, "IPv4 total length disagrees with the frame length");
	pk->ipver = 4;
	pk->ip_off = (uint32_t)start;
	pk->dscp = tos >> 2;
	pk->ecn = tos & 3;
	if (!rd_skip(r, hlen - 20))
		return short_read(pk, "IPv4 options");
	if (frag & 0x1fff) /* a later fragment: no transport header here */
		return pk->status = FRAMES_OK;
	if (proto != 17)
		return pk->status = FRAMES_OK;
	return decode_udp(r, pk, tot - hlen);
}

/* IPv6 (RFC 8200); ECN is the low two bits of the traffic class. Hop-by-hop, routing
 * and destination options headers are skipped; a fragment header stops decoding. */
static enum frames_status decode_ipv6(struct rd *r, struct frames_pkt *pk)
{
	size_t start = r->off;
	uint32_t w;
	uint16_t plen;
	uint8_t nh, tc;
	int n;

	w = rd_be32(r);
	plen = rd_be16(r);
	nh = rd_u8(r);
	rd_u8(r);
	rd_bytes(r, pk->ip_src, 16);
	rd_bytes(r, pk->ip_dst, 16);
	if (!rd_ok(r))
		return short_read(pk, "IPv6 header");
	if (w >> 28 != 6)
		return invalid(pk, "IPv6 version field is not 6");
	if (plen > wire_left(pk, r))
		return invalid(pk, "IPv6 payload length beyond the frame");
	tc = (uint8_t)(w >> 20);
	pk->ipver = 6;
	pk->ip_off = (uint32_t)start;
	pk->dscp = tc >> 2;
	pk->ecn = tc & 3;
	for (n = 0; n < 8 && (nh == 0 || nh == 43 || nh == 60); n++) {
		size_t elen;

		nh = rd_u8(r);
		elen = ((size_t)rd_u8(r) + 1) * 8;
		if (!rd_ok(r))
			return short_read(pk, "IPv6 extension header");
		if (elen > plen)
			return invalid(pk, "IPv6 extension header beyond the payload length");
		plen = (uint16_t)(plen - elen);
		if (!rd_skip(r, elen - 2))
			return short_read(pk, "IPv6 extension header");
	}
	if (nh != 17)
		return pk->status = FRAMES_OK;
	return decode_udp(r, pk, plen);
}

static enum frames_status decode_l3(struct rd *r, struct frames_pkt *pk)
{
	switch (pk->ethertype) {
	case FRAMES_ETH_MAC_CONTROL:
		return decode_macctl(r, pk);
	case FRAMES_ETH_IPV4:
		return decode_ipv4(r, pk);
	case FRAMES_ETH_IPV6:
		return decode_ipv6(r, pk);
	default:
		return pk->status = FRAMES_OK;
	}
}

/* Up to two VLAN tags (802.1ad outer S-tag, 802.1Q C-tag) after pk->ethertype, then
 * the layer 3 header. */
static enum frames_status decode_tags_l3(struct rd *r, struct frames_pkt *pk)
{
	while (pk->ethertype == FRAMES_ETH_8021Q || pk->ethertype == FRAMES_ETH_8021AD) {
		uint16_t tci = rd_be16(r);

		pk->ethertype = rd_be16(r);
		if (!rd_ok(r))
			return short_read(pk, "VLAN tag");
		if (pk->ntags == 2)
			return invalid(pk, "more than two VLAN tags");
		pk->tci[pk->ntags++] = tci;
		pk->pcp = (uint8_t)(tci >> 13);
	}
	return decode_l3(r, pk);
}

/* Ethernet II with up to two VLAN tags. */
static enum frames_status decode_eth(struct rd *r, struct frames_pkt *pk)
{
	rd_bytes(r, pk->dst, 6);
	rd_bytes(r, pk->src, 6);
	pk->ethertype = rd_be16(r);
	if (!rd_ok(r))
		return short_read(pk, "Ethernet header");
	return decode_tags_l3(r, pk);
}

/* Linux cooked capture v1 (16 bytes) and v2 (20 bytes), as made by `-i any`. libpcap
 * puts a VLAN tag the kernel took off back in, where an Ethernet frame has it: in v1
 * the protocol field then says 0x8100 and the tag follows (`tcpdump -i any -y
 * LINUX_SLL`), as tshark reads it. */
static enum frames_status decode_sll(struct rd *r, struct frames_pkt *pk, bool v2)
{
	uint16_t alen;

	if (v2) {
		pk->ethertype = rd_be16(r);
		rd_skip(r, 2 + 4 + 2 + 1);
		alen = rd_u8(r);
	} else {
		rd_skip(r, 4);
		alen = rd_be16(r);
	}
	if (alen >= 6 && rd_need(r, 6))
		memcpy(pk->src, rd_ptr(r), 6);
	rd_skip(r, 8);
	if (!v2)
		pk->ethertype = rd_be16(r);
	if (!rd_ok(r))
		return short_read(pk, "Linux cooked header");
	return decode_tags_l3(r, pk);
}

enum frames_status frames_decode(int link, const uint8_t *p, uint32_t caplen,
				 uint32_t wirelen, struct frames_pkt *out)
{
	struct rd r = rd_init(p, caplen);

	memset(out, 0, sizeof(*out));
	out->caplen = caplen;
	out->wirelen = wirelen;
	if (caplen > wirelen)
		return invalid(out, "captured length above the wire length");
	switch (link) {
	case FRAMES_LINK_EN10MB:
		return decode_eth(&r, out);
	case FRAMES_LINK_LINUX_SLL:
		return decode_sll(&r, out, false);
	case FRAMES_LINK_LINUX_SLL2:
		return decode_sll(&r, out, true);
	default:
		return invalid(out, "unsupported link type");
	}
}

const char *frames_kind_name(enum frames_kind k)
{
	static const char *const names[FRAMES_KIND_MAX] = {
		[FRAMES_KIND_OTHER] = "other", [FRAMES_KIND_PAUSE] = "pause",
		[FRAMES_KIND_PFC] = "pfc", [FRAMES_KIND_MACCTL] = "macctl",
		[FRAMES_KIND_ROCE] = "roce", [FRAMES_KIND_CNP] = "cnp",
	};

	return (unsigned)k < FRAMES_KIND_MAX ? names[k] : "?";
}

const char *frames_ip_str(const struct frames_pkt *pk, bool dst, char *buf, size_t len)
{
	const uint8_t *a = dst ? pk->ip_dst : pk->ip_src;

	if (pk->ipver == 4)
		return inet_ntop(AF_INET, a, buf, (socklen_t)len) ? buf : "?";
	if (pk->ipver == 6)
		return inet_ntop(AF_INET6, a, buf, (socklen_t)len) ? buf : "?";
	snprintf(buf, len, "-");
	return buf;
}
