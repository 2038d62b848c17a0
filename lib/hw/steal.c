// SPDX-License-Identifier: GPL-2.0-or-later
/* steal.c: this machine's steal time from /proc/stat (see steal.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "lib/hw/steal.h"
#include "lib/hw/sysfs.h"

/* The "cpu" line comes first, before the per-CPU lines and the long "intr" line: its
 * ten numbers fit well within this (hw_sysfs_read, the one reader of such files, takes
 * what one read gives; a line it cuts has no end and is refused). */
#define STEAL_READ_MAX 1024
/* user nice system idle iowait irq softirq steal: steal is the eighth number */
#define STEAL_FIELD 8

int hw_steal_parse(const char *buf, size_t n, uint64_t *ticks)
{
	const char *end, *p = buf;
	unsigned field = 0;
	uint64_t v = 0;

	/* the aggregate line: "cpu" and blanks, where the per-CPU ones have a number */
	for (;;) {
		const char *nl = memchr(p, '\n', n - (size_t)(p - buf));

		if (!nl)
			return -ENODATA;	/* no whole "cpu" line */
		if (nl - p > 3 && !memcmp(p, "cpu", 3) && (p[3] == ' ' || p[3] == '\t')) {
			end = nl;
			p += 3;
			break;
		}
		p = nl + 1;
	}
	while (field < STEAL_FIELD) {
		bool digits = false;

		if (p == end || (*p != ' ' && *p != '\t'))
			return p == end ? -ENODATA : -EINVAL;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end)
			return -ENODATA;
		v = 0;
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			unsigned d = (unsigned)(*p - '0');

			if (v > (UINT64_MAX - d) / 10)
				return -ERANGE;
			v = v * 10 + d;
			digits = true;
		}
		if (!digits)
			return -EINVAL;
		field++;
	}
	if (p < end && *p != ' ' && *p != '\t')
		return -EINVAL;
	*ticks = v;
	return 0;
}

int hw_steal_read_ns(uint64_t *ns)
{
	char buf[STEAL_READ_MAX];
	uint64_t ticks;
	long hz;
	int rc;

	if ((rc = hw_sysfs_read("/proc/stat", buf, sizeof(buf))))
		return rc;
	if ((rc = hw_steal_parse(buf, strlen(buf), &ticks)))
		return rc;
	hz = sysconf(_SC_CLK_TCK);
	if (hz <= 0 || hz > 1000000000L)
		return -EINVAL;
	if (ticks > UINT64_MAX / (1000000000ULL / (uint64_t)hz))
		return -ERANGE;
	*ns = ticks * (1000000000ULL / (uint64_t)hz);
	return 0;
}
