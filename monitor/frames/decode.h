/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decode.h: the frame decoder shared by capture, review and inject: Ethernet with
 * 802.1Q/802.1ad tags, MAC control PAUSE and PFC, IPv4/IPv6 with ECN, RoCEv2 BTH, CNP,
 * RETH and AETH. Every byte is read through lib/rd.h.
 */
#ifndef PFCLAB_FRAMES_DECODE_H
#define PFCLAB_FRAMES_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* pcap link types the decoder understands (values from the tcpdump.org registry). */
#define FRAMES_LINK_EN10MB     1
#define FRAMES_LINK_LINUX_SLL  113
#define FRAMES_LINK_LINUX_SLL2 276

#define FRAMES_ETH_MAC_CONTROL 0x8808
#define FRAMES_ETH_IPV4        0x0800
#define FRAMES_ETH_IPV6        0x86dd
#define FRAMES_ETH_8021Q       0x8100
#define FRAMES_ETH_8021AD      0x88a8
#define FRAMES_MAC_OP_PAUSE    0x0001 /* IEEE 802.3 Annex 31B */
#define FRAMES_MAC_OP_PFC      0x0101 /* IEEE 802.1Qbb */
#define FRAMES_ROCEV2_PORT     4791
#define FRAMES_BTH_OP_CNP      0x81   /* IBTA Annex A17.9.2 */
#define FRAMES_BTH_BECN        0x40   /* BTH byte 4 bit 6: set in every CNP */
#define FRAMES_ECN_CE          3

/* What a frame is, after the deepest layer that decoded cleanly. */
enum frames_kind {
	FRAMES_KIND_OTHER,   /* decoded, none of the kinds below */
	FRAMES_KIND_PAUSE,   /* 802.3x PAUSE */
	FRAMES_KIND_PFC,     /* 802.1Qbb per-priority PAUSE */
	FRAMES_KIND_MACCTL,  /* another MAC control opcode */
	FRAMES_KIND_ROCE,    /* RoCEv2 packet other than CNP */
	FRAMES_KIND_CNP,     /* RoCEv2 congestion notification packet */
	FRAMES_KIND_MAX,
};

/* Outcome of decoding one frame. */
enum frames_status {
	FRAMES_OK,
	FRAMES_TRUNCATED, /* ran out of captured bytes (snaplen) before the header ended */
	FRAMES_INVALID,   /* the frame itself disagrees with its lengths or fields */
	FRAMES_STATUS_MAX,
};

struct frames_pkt {
	enum frames_status status;
	enum frames_kind kind;
	const char *why; /* for TRUNCATED/INVALID: which header, static string */
	uint32_t caplen;
	uint32_t wirelen;

	uint8_t dst[6], src[6];
	uint8_t ntags;
	uint16_t tci[2];      /* outer first */
	uint8_t pcp;          /* priority of the innermost tag, valid when ntags */
	uint16_t ethertype;   /* after tags */

	uint16_t mac_opcode;
	uint16_t pause_quanta;     /* PAUSE */
	uint8_t pfc_enable;        /* PFC class-enable vector, bit p = priority p */
	uint16_t pfc_quanta[8];    /* PFC times, valid where pfc_enable has the bit */

	uint8_t ipver;             /* 4, 6 or 0 */
	uint8_t dscp, ecn;
	uint32_t ip_off;           /* offset of the IP header in the frame, when ipver */
	uint8_t ip_src[16], ip_dst[16]; /* IPv4 in the first 4 bytes */
	uint16_t sport, dport;

	bool has_bth;
	uint8_t bth_opcode;
	bool bth_ackreq;
	uint16_t bth_pkey;
	uint32_t bth_dqp;
	uint32_t bth_psn;
	bool has_reth;
	uint64_t reth_va;
	uint32_t reth_rkey, reth_len;
	bool has_aeth;
	uint8_t aeth_syndrome;
	uint32_t aeth_msn;
};

/* Decode one captured frame of link type `link` (FRAMES_LINK_*). caplen bytes are
 * present, wirelen were on the wire. Never reads past caplen. Returns out->status. */
enum frames_status frames_decode(int link, const uint8_t *p, uint32_t caplen,
				 uint32_t wirelen, struct frames_pkt *out);

const char *frames_kind_name(enum frames_kind k);
/* "10.0.0.1" or an IPv6 text form; buf of at least 46 bytes. */
const char *frames_ip_str(const struct frames_pkt *pk, bool dst, char *buf, size_t len);

#endif
