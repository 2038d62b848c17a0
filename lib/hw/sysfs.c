// SPDX-License-Identifier: GPL-2.0-or-later
/* sysfs.c: read one small sysfs/procfs attribute file into a buffer. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/hw/sysfs.h"
#include "lib/util.h"

int hw_sysfs_read(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd, err;

	if (size == 0)
		return -EINVAL;
	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

int hw_sysfs_readf(char *buf, size_t size, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		if (size)
			buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	return hw_sysfs_read(path, buf, size);
}

const char *hw_sysfs_root(void)
{
	const char *r = getenv("PFCLAB_SYSFS_ROOT");

	return r ? r : "";
}

int hw_netdev_speed_bps(const char *name, uint64_t *bps)
{
	char v[32];
	long mbps = -1;
	int rc;

	if (!pfc_ifname_valid(name))	/* no such interface can exist: no path built */
		return -ENODEV;
	rc = hw_sysfs_readf(v, sizeof(v), "/sys/class/net/%s/speed", name);
	if (rc == -ENOENT || rc == -ENAMETOOLONG)
		return -ENODEV;
	/* the driver's answer while it knows none is EINVAL (lo, a veth that is down) */
	if (rc < 0 || sscanf(v, "%ld", &mbps) != 1 || mbps <= 0)
		return -ENODATA;
	*bps = (uint64_t)mbps * 1000000ull;
	return 0;
}
