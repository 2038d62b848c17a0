/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capture.h: entry point of `pfclab capture`. */
#ifndef PFCLAB_FRAMES_CAPTURE_H
#define PFCLAB_FRAMES_CAPTURE_H

int capture_main(int argc, char **argv);

#endif
