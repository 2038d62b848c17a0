/* SPDX-License-Identifier: GPL-2.0-or-later */
/* top.h: entry point of "pfclab top", the live dashboard. */
#ifndef PFCLAB_TOP_H
#define PFCLAB_TOP_H

int top_main(int argc, char **argv);

#endif
