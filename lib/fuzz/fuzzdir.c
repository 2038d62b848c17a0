// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzzdir.c: files for the libFuzzer targets whose readers take a path. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/fuzz/fuzzdir.h"
#include "lib/util.h"

int fuzz_dir(char *buf, size_t n, const char *what)
{
	const char *tmp = getenv("TMPDIR");
	int w = snprintf(buf, n, "%s/pfclab-fuzz-%s-%d", tmp && *tmp ? tmp : "/tmp", what,
			 (int)getpid());

	return w < 0 || (size_t)w >= n || pfc_mkdir_p(buf) ? -1 : 0;
}

int fuzz_put(const char *dir, const char *rel, const void *data, size_t size)
{
	char path[1024];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ok = fwrite(data, 1, size, f) == size;
	return fclose(f) || !ok ? -1 : 0;
}
