/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzzdir.h: files for the libFuzzer targets whose readers take a path: a private folder
 * made once per process, and an input written into it. Built into those targets only.
 */
#ifndef PFCLAB_FUZZDIR_H
#define PFCLAB_FUZZDIR_H

#include <stddef.h>

/* $TMPDIR (else /tmp)/pfclab-fuzz-WHAT-PID into buf, created with its parents; 0 or -1. */
int fuzz_dir(char *buf, size_t n, const char *what);
/* data written to dir/rel, replacing it; 0 or -1 (no room: the caller skips the input). */
int fuzz_put(const char *dir, const char *rel, const void *data, size_t size);

#endif
