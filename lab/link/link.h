/* SPDX-License-Identifier: GPL-2.0-or-later */
/* link.h: `pfclab link`, the emulated lossless link between two Soft-RoCE ports. */
#ifndef PFCLAB_LINK_LINK_H
#define PFCLAB_LINK_LINK_H

int link_main(int argc, char **argv);

#endif
