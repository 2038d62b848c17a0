/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src_frames.h: the capture engine as a monitor counter source ("frames"), so captured
 * PAUSE/PFC/CNP/CE counts sit next to the NIC counters in one run, on one clock. */
#ifndef PFCLAB_FRAMES_SRC_FRAMES_H
#define PFCLAB_FRAMES_SRC_FRAMES_H

#include "monitor/mon.h"

/* mon_engine_add(e, &src_frames_ops, "eth2", 0, -1): captures on eth2 with the default
 * filter plus CE-marked RoCEv2 (mlx5_0-style RDMA sniffer names work too). */
extern const struct mon_src_ops src_frames_ops;

#endif
