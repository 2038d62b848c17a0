/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run_main.h: the entry point of `pfclab run` for the command table in pfclab.c. */
#ifndef PFCLAB_RUN_MAIN_H
#define PFCLAB_RUN_MAIN_H

int run_main(int argc, char **argv);

#endif
