/* SPDX-License-Identifier: GPL-2.0-or-later */
/* craft.h: builds PAUSE, PFC and RoCEv2 (data and CNP) frames byte by byte, for
 * inject and for tests.
 */
#ifndef PFCLAB_FRAMES_CRAFT_H
#define PFCLAB_FRAMES_CRAFT_H

#include <stddef.h>
#include <stdint.h>

#define FRAMES_MIN_LEN 60 /* Ethernet minimum without FCS */

/* Addresses and tags shared by every crafted frame. vlan < 0: untagged. */
struct frames_l2 {
	uint8_t src[6];
	uint8_t dst[6];
	int vlan;
	uint8_t pcp;
};

/* A RoCEv2 packet over IPv4: BTH with the given opcode; CNP when opcode == 0x81
 * (16 reserved bytes), RDMA WRITE only (0x0a) gets a RETH, others plain payload. */
struct frames_roce {
	uint32_t src_ip, dst_ip; /* host order */
	uint16_t sport;
	uint8_t dscp, ecn;
	uint8_t opcode;
	uint16_t pkey;
	uint32_t dqp, psn;
	uint16_t payload;       /* bytes after the BTH/RETH, before the ICRC */
	uint64_t reth_va;
	uint32_t reth_rkey;
};

/* Each returns the frame length (padded to 60), or 0 when cap is too small. */
size_t frames_craft_pause(uint8_t *buf, size_t cap, const struct frames_l2 *l2,
			  uint16_t quanta);
size_t frames_craft_pfc(uint8_t *buf, size_t cap, const struct frames_l2 *l2,
			uint8_t enable, const uint16_t quanta[8]);
size_t frames_craft_roce(uint8_t *buf, size_t cap, const struct frames_l2 *l2,
			 const struct frames_roce *ro);

/* RoCEv2 ICRC over an IPv4 packet without its ICRC (ip..end of payload, len bytes,
 * 20-byte IP header); stored in the frame least significant byte first. */
uint32_t frames_roce_icrc(const uint8_t *ip, size_t len);

/* The PAUSE/PFC destination 01:80:C2:00:00:01 (802.3 Annex 31B). */
extern const uint8_t frames_macctl_dst[6];

#endif
