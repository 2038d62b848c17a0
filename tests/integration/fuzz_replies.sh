#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz_replies.sh: the libFuzzer target (tests/fuzz.sh) for the parsers of what the kernel
# answers the counter sources, for FUZZ_SECONDS (default 15), seeded with this kernel's
# own RTM_GETSTATS and RTM_GETQDISC replies for lo (their payloads after the netlink
# header, as the parsers get them), and the start of its /proc/stat.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../fuzz.sh"
plan 1

fuzz_start fuzz_replies || finish
need_cmd fuzz_replies python3 || finish
python3 - "$FUZZ_CORPUS" <<'PY'
import os, socket, struct, sys

def talk(msgtype, flags, body):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)	# NETLINK_ROUTE
    s.bind((0, 0))
    s.send(struct.pack("=IHHII", 16 + len(body), msgtype, flags, 1, 0) + body)
    out, done = [], False
    while not done:
        data, off = s.recv(65536), 0
        while off + 16 <= len(data):
            ln, ty = struct.unpack_from("=IH", data, off)
            if ty in (2, 3):	# NLMSG_ERROR, NLMSG_DONE
                done = True
                break
            out.append(data[off + 16:off + ln])
            off += (ln + 3) & ~3
        done = done or not flags & 0x300
    s.close()
    return out

lo = socket.if_nametoindex("lo")
# RTM_GETSTATS for lo, IFLA_STATS_LINK_64 only (struct if_stats_msg)
replies = talk(94, 1, struct.pack("=BBHII", 0, 0, 0, lo, 1))
# RTM_GETQDISC, a dump (NLM_F_DUMP; struct tcmsg)
replies += talk(38, 1 | 0x300, struct.pack("=BBHiIII", 0, 0, 0, 0, 0, 0, 0))
for i, p in enumerate(replies):
    open(os.path.join(sys.argv[1], "kernel-reply-%d" % i), "wb").write(p)
PY
head -c 1024 /proc/stat >"$FUZZ_CORPUS/proc-stat"
if ls "$FUZZ_CORPUS"/kernel-reply-* >/dev/null 2>&1; then
	fuzz_run -max_len=4096
else
	fail fuzz_replies "no seed: this kernel answered no RTM_GETSTATS or RTM_GETQDISC for lo"
fi
finish
