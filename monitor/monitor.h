/* SPDX-License-Identifier: GPL-2.0-or-later */
/* monitor.h: entry point of "pfclab monitor". */
#ifndef PFCLAB_MONITOR_H
#define PFCLAB_MONITOR_H

int monitor_main(int argc, char **argv);

#endif
