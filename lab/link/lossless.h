/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lossless.h: the arithmetic and the two state machines of pfclab's emulated lossless
 * link, with no I/O: a unit test drives them with made-up times and fill levels.
 *
 *   sender port (egress)                           receiver port (ingress)
 *   +--------------------+    data, prio p         +-----------------------------+
 *   | struct link_pause  |  -------------------->  | buffer B, drained at rate R |
 *   | per priority:      |                         | struct link_buf:            |
 *   | paused until t     |  <--------------------  | fill > XOFF thr: XOFF       |
 *   +--------------------+   PFC (802.1Qbb)        | fill < XON thr:  XON        |
 *                                                  +-----------------------------+
 *
 * link_buf is the receiving NIC's PFC logic: it watches the fill of its receive buffer,
 * asks the peer to pause with XOFF, refreshes the XOFF before it lapses, releases it with
 * XON (time 0) and, when a pause lasts past the storm timeout, stops sending pauses as
 * mlx5's PFC storm prevention does. link_pause is the sending NIC's MAC: an XOFF of
 * priority p stops p's frames for quanta x 512 bit times, a further XOFF sets a new end,
 * XON ends it at once. Times are CLOCK_MONOTONIC nanoseconds.
 */
#ifndef PFCLAB_LINK_LOSSLESS_H
#define PFCLAB_LINK_LOSSLESS_H

#include <stdbool.h>
#include <stdint.h>

#define LINK_PRIOS 8

/* mlx5 en/port_buffer.c: xoff headroom = (301 + 2.16 x cable m) x Gb/s + 2.72 x MTU bytes
 * (the driver floors the speed at 40 Gb/s; here the emulated speed is used as given). The
 * constants are in bytes per Gb/s: 301 B/(Gb/s) is the 2.4 us the NIC and the peer's MAC
 * take to react, 2.16 B/(Gb/s) a metre of cable there and back. Plus the emulation's own
 * reaction time (poll period, the frame's way, the peer's qdisc change) at that speed:
 * react_ns x speed / 8. Rounded up to whole bytes.
 */
uint64_t link_headroom(uint64_t speed_bps, double cable_m, uint32_t mtu, uint64_t react_ns);

/* Time of one PFC pause of `quanta` quanta: quanta x 512 bit times at speed_bps (802.1Qbb;
 * 20.48 ns a quantum at 25 Gb/s), rounded up; 0 for speed 0.
 */
uint64_t link_quanta_ns(uint32_t quanta, uint64_t speed_bps);

/* The receive buffer's configuration. link_buf_config fills xoff/xon/thres from buffer,
 * headroom and mtu when they are 0 (given values are kept, as overrides).
 */
struct link_buf_cfg {
	uint64_t buffer;	/* B: bytes the receive buffer holds */
	uint64_t headroom;	/* bytes above the XOFF threshold (link_headroom) */
	uint32_t mtu;
	uint64_t xoff;		/* fill above this: XOFF (buffer - headroom) */
	uint64_t xon;		/* fill below this after an XOFF: XON (xoff - mtu) */
	uint64_t thres;		/* rx_buffer_passed_thres_phy level: 85% of buffer */
	bool pfc;		/* PFC on: send pauses; off: a lossy port, only counts drops */
	uint8_t prios;		/* priorities the pauses name (class-enable vector) */
	uint16_t quanta;	/* pause time of an XOFF */
	uint64_t quanta_ns;	/* that time at the link speed (link_quanta_ns) */
	uint64_t refresh_ns;	/* resend an XOFF this long after the last (< quanta_ns) */
	uint64_t storm_ns;	/* storm prevention: stop pausing after this (0: never) */
	uint64_t storm_warn_ns;	/* warning event after this (mlx5: 85% of storm_ns) */
	uint64_t max_gap_ns;	/* a longer gap between two readings counts this much
				 * toward the storm timeout: a stall of the emulation (the
				 * VM descheduled) is no storm (0: 10 ms) */
};

/* 0, or -EINVAL when the thresholds do not fit (headroom + mtu at least the buffer, XON
 * not below XOFF, a refresh not shorter than the pause it refreshes).
 */
int link_buf_config(struct link_buf_cfg *c);

enum link_buf_act {
	LINK_BUF_NONE,
	LINK_BUF_XOFF,		/* send a PFC frame with quanta for cfg.prios */
	LINK_BUF_XON,		/* send a PFC frame with time 0 for cfg.prios */
};

/* Counters in mlx5's names; durations in ns (published in us). */
struct link_buf_counters {
	uint64_t tx_pause;		/* PFC frames sent (XOFF and XON), per named priority */
	uint64_t tx_xoff, tx_xon;
	uint64_t tx_pause_duration_ns;	/* time the peer was asked to pause */
	uint64_t discards;		/* frames the full buffer dropped */
	uint64_t passed_thres;		/* times the fill rose past cfg.thres */
	uint64_t storm_warning, storm_error;
	uint64_t pauses;		/* XOFF episodes begun */
};

struct link_buf {
	struct link_buf_cfg cfg;
	bool asserted;		/* an XOFF episode is on: the peer was asked to pause */
	bool storm;		/* storm prevention stopped this episode's pauses */
	bool warned;
	bool above_thres;
	bool have_drops;
	bool have_step;
	uint32_t last_drops;	/* the buffer's own (32-bit) drop counter, last reading */
	uint64_t since_ns;	/* the episode's first XOFF */
	uint64_t last_xoff_ns;	/* the last XOFF sent */
	uint64_t last_step_ns;
	uint64_t storm_clock_ns;	/* time asserted, gaps capped at cfg.max_gap_ns */
	uint64_t fill, fill_max;
	struct link_buf_counters c;
};

void link_buf_init(struct link_buf *b, const struct link_buf_cfg *cfg);
/* A reading of the buffer at `now`: its fill in bytes and its cumulative drop counter
 * (wraps at 2^32). Returns what to send; the caller sends it and then calls
 * link_buf_sent (a frame that could not be sent is not counted and is asked for again at
 * the next step).
 */
enum link_buf_act link_buf_step(struct link_buf *b, uint64_t now, uint64_t fill, uint32_t drops);
void link_buf_sent(struct link_buf *b, uint64_t now, enum link_buf_act a);
/* PFC turned off (a lossy port from then on) or on again at `now`. Turned off during an
 * episode, the next step asks for its XON (until it is sent); after a storm the episode
 * ends at once, without a frame.
 */
void link_buf_set_pfc(struct link_buf *b, uint64_t now, bool pfc);
/* tx_pause_duration including the episode in progress, at `now`. */
uint64_t link_buf_pause_ns(const struct link_buf *b, uint64_t now);
/* When the next step is due at the latest for a refresh or the storm timeout
 * (UINT64_MAX: none).
 */
uint64_t link_buf_next(const struct link_buf *b);

/* The sender's pause state, per priority. */
struct link_pause_prio {
	bool paused;
	uint64_t start_ns, until_ns;
	uint64_t frames;	/* rx_prio{p}_pause: PFC frames naming p received */
	uint64_t xoff, xon;
	uint64_t transitions;	/* rx_prio{p}_pause_transition: pause ends (XOFF -> XON) */
	uint64_t pauses;	/* pauses begun */
	uint64_t paused_ns;	/* rx_prio{p}_pause_duration: ended pauses */
	uint64_t by_xon, by_expiry;
};

struct link_pause {
	uint8_t honour;		/* priorities whose pauses are obeyed (PFC enabled) */
	uint64_t speed_bps;	/* for the quanta */
	struct link_pause_prio p[LINK_PRIOS];
};

void link_pause_init(struct link_pause *lp, uint8_t honour, uint64_t speed_bps);
/* A PFC frame received at `now` (class-enable vector, 8 times). *block gets the priorities
 * whose pause begins now (stop sending them), *release those whose pause ends now (an
 * XON); a refreshed pause is in neither.
 */
void link_pause_frame(struct link_pause *lp, uint64_t now, uint8_t enable,
		      const uint16_t quanta[LINK_PRIOS], uint8_t *block, uint8_t *release);
/* Pauses whose time ran out by `now`: *release gets them. */
void link_pause_expire(struct link_pause *lp, uint64_t now, uint8_t *release);
/* Ends the pauses of `prios` in progress at `now` with no frame (the link stopping):
 * *release gets those that were paused. Not a transition of the frames' making: counted
 * in neither by_xon nor by_expiry.
 */
void link_pause_stop(struct link_pause *lp, uint8_t prios, uint64_t now, uint8_t *release);
/* The earliest end of a pause in progress (UINT64_MAX: none). */
uint64_t link_pause_next(const struct link_pause *lp);
/* Paused time of priority p including a pause in progress, at `now` (or at the end of
 * its time, where that is earlier: it never counts past what the pause will have had). */
uint64_t link_pause_ns(const struct link_pause *lp, unsigned p, uint64_t now);

/* A frame's kernel receive time (SO_TIMESTAMPNS: CLOCK_REALTIME ns, 0 when the kernel
 * gave none) on the CLOCK_MONOTONIC axis, from the two clocks read together just after
 * it was received: mono_now less the frame's age. The age is never negative (a stamp a
 * clock step put ahead counts as now) and never reaches back past 0; no stamp: mono_now.
 */
uint64_t link_kernel_mono(uint64_t stamp_real_ns, uint64_t real_now, uint64_t mono_now);

#endif
