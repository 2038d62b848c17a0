/* SPDX-License-Identifier: GPL-2.0-or-later */
/* traffic.h: entry point of 'pfclab traffic', the RDMA WRITE generator. */
#ifndef PFCLAB_TRAFFIC_H
#define PFCLAB_TRAFFIC_H

int traffic_main(int argc, char **argv);

#endif
