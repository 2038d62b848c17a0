// SPDX-License-Identifier: GPL-2.0-or-later
/* src_ethtool_ioctl.c: the "ethtool -S" counters through the SIOCETHTOOL ioctl
 * (ETHTOOL_GSSET_INFO, ETHTOOL_GSTRINGS, ETHTOOL_GSTATS): the only route to mlx5's
 * per-priority pause durations, discards, ECN marks and PCIe stall counters.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "lib/util.h"
#include "monitor/sources/sources.h"

/* The kernel sizes GSTRINGS/GSTATS replies by the driver's current count, not by the
 * length we pass (net/ethtool/ioctl.c), so buffers carry slack for a set that grows
 * between our GSSET_INFO and the next read; a reply larger than the slack is refused.
 */
#define ETHTOOL_SLACK 512

/* Re-read the string set this often even when its size stays: mlx5 swaps per-priority
 * pause strings when the PFC configuration changes.
 */
#define RECHECK_NS (1000 * 1000000ULL)
/* How often the ifindex is compared, to notice the interface was deleted and re-created
 * (its counters restart). Between checks a restart still shows as a reset (counter went
 * back); the check makes it a recorded gap.
 */
#define IFINDEX_CHECK_NS (100 * 1000000ULL)

struct ethtool_priv {
	int fd;
	int ifindex;
	uint32_t count;
	size_t cap;		/* entries the buffers hold */
	struct ethtool_stats *stats;
	struct ethtool_gstrings *strings;
	uint64_t last_check_ns;
	uint64_t last_ifindex_ns;
	struct ifreq ifr;	/* the device's name, set once; ifr_data per call */
};

static void ifr_name_set(struct ifreq *ifr, const char *dev)
{
	size_t n = strnlen(dev, IFNAMSIZ - 1);

	memcpy(ifr->ifr_name, dev, n);
	ifr->ifr_name[n] = '\0';
}

static int eioctl(struct mon_src *s, void *data)
{
	struct ethtool_priv *p = s->priv;

	p->ifr.ifr_data = data;
	if (ioctl(p->fd, SIOCETHTOOL, &p->ifr) < 0)
		return -errno;
	return 0;
}

static int ifindex_get(struct mon_src *s)
{
	struct ethtool_priv *p = s->priv;
	struct ifreq ifr = { 0 };

	ifr_name_set(&ifr, s->dev);
	if (ioctl(p->fd, SIOCGIFINDEX, &ifr) < 0)
		return -errno;
	return ifr.ifr_ifindex;
}

int src_ethtool_parse_sset(const void *buf, size_t len, uint32_t *count)
{
	struct rd r = rd_init(buf, len);
	uint32_t cmd;
	uint64_t mask;

	cmd = rd_h32(&r);
	rd_h32(&r);			/* reserved */
	mask = rd_h64(&r);
	if (!rd_ok(&r) || cmd != ETHTOOL_GSSET_INFO)
		return -EBADMSG;
	if (!(mask & (1ULL << ETH_SS_STATS)))
		return -EOPNOTSUPP;	/* the driver has no statistics string set */
	*count = rd_h32(&r);
	return rd_ok(&r) ? 0 : -EBADMSG;
}

int src_ethtool_parse_strings(const void *buf, size_t len, uint32_t count,
			      struct mon_field *out)
{
	struct rd r = rd_init(buf, len);
	uint32_t cmd, set, n, i;

	cmd = rd_h32(&r);
	set = rd_h32(&r);
	n = rd_h32(&r);
	if (!rd_ok(&r) || cmd != ETHTOOL_GSTRINGS || set != ETH_SS_STATS)
		return -EBADMSG;
	if (n != count)
		return -ESTALE;
	for (i = 0; i < n; i++) {
		char name[ETH_GSTRING_LEN + 1];

		if (!rd_bytes(&r, name, ETH_GSTRING_LEN))
			return -EBADMSG;
		name[ETH_GSTRING_LEN] = '\0';	/* a full-length name has no NUL */
		src_field_set(&out[i], name, MON_COUNTER, 64, "");
	}
	return 0;
}

int src_ethtool_parse_stats(const void *buf, size_t len, uint32_t count, uint64_t *vals)
{
	struct rd r = rd_init(buf, len);
	uint32_t cmd, n, i;

	cmd = rd_h32(&r);
	n = rd_h32(&r);
	if (!rd_ok(&r) || cmd != ETHTOOL_GSTATS)
		return -EBADMSG;
	if (n != count)
		return -ESTALE;
	for (i = 0; i < n; i++)
		vals[i] = rd_h64(&r);
	return rd_ok(&r) ? 0 : -EBADMSG;
}

static void ethtool_close(struct mon_src *s)
{
	struct ethtool_priv *p = s->priv;

	if (p) {
		if (p->fd >= 0)
			close(p->fd);
		free(p->stats);
		free(p->strings);
		free(p);
	}
	s->priv = NULL;
	src_fields_free(s);
}

static int ethtool_init(struct mon_src *s)
{
	struct ethtool_drvinfo di = { .cmd = ETHTOOL_GDRVINFO };
	struct ethtool_priv *p = calloc(1, sizeof(*p));
	int rc;

	if (!p)
		return -ENOMEM;
	s->priv = p;
	ifr_name_set(&p->ifr, s->dev);
	p->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (p->fd < 0)
		p->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (p->fd < 0) {
		rc = -errno;
		snprintf(s->err, sizeof(s->err), "socket for SIOCETHTOOL: %s", strerror(-rc));
		return rc;
	}
	p->ifindex = ifindex_get(s);
	if (p->ifindex < 0) {
		rc = p->ifindex;
		snprintf(s->err, sizeof(s->err), "interface %s: %s", s->dev,
			 rc == -ENODEV ? "no such interface (see 'ip link')" : strerror(-rc));
		return rc;
	}
	rc = eioctl(s, &di);
	if (rc == 0) {
		di.driver[sizeof(di.driver) - 1] = '\0';
		di.version[sizeof(di.version) - 1] = '\0';
		di.fw_version[sizeof(di.fw_version) - 1] = '\0';
		di.bus_info[sizeof(di.bus_info) - 1] = '\0';
		snprintf(s->driver, sizeof(s->driver), "%s", di.driver);
		src_info_add(s, "driver", di.driver);
		src_info_add(s, "driver_version", di.version);
		src_info_add(s, "firmware", di.fw_version);
		src_info_add(s, "bus_info", di.bus_info);
	}
	return 0;
}

static int ensure_cap(struct ethtool_priv *p, uint32_t count)
{
	size_t cap = (size_t)count + ETHTOOL_SLACK;
	void *a, *b;

	if (cap <= p->cap)
		return 0;
	a = realloc(p->stats, sizeof(*p->stats) + cap * sizeof(uint64_t));
	if (!a)
		return -ENOMEM;
	p->stats = a;
	b = realloc(p->strings, sizeof(*p->strings) + cap * ETH_GSTRING_LEN);
	if (!b)
		return -ENOMEM;
	p->strings = b;
	p->cap = cap;
	/* Zeroed so that no byte the kernel did not write is ever read as a name. */
	memset(p->stats, 0, sizeof(*p->stats) + cap * sizeof(uint64_t));
	memset(p->strings, 0, sizeof(*p->strings) + cap * ETH_GSTRING_LEN);
	return 0;
}

/* GSSET_INFO then GSTRINGS into p->strings; *count gets the set size. */
static int read_strings(struct mon_src *s, uint32_t *count)
{
	struct ethtool_priv *p = s->priv;
	struct {
		struct ethtool_sset_info hdr;
		uint32_t data[1];
	} ss = { .hdr = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ULL << ETH_SS_STATS } };
	int rc;

	rc = eioctl(s, &ss);
	if (rc)
		return rc;
	rc = src_ethtool_parse_sset(&ss, sizeof(ss), count);
	if (rc)
		return rc;
	rc = ensure_cap(p, *count);
	if (rc)
		return rc;
	memset(p->strings, 0, sizeof(*p->strings));
	p->strings->cmd = ETHTOOL_GSTRINGS;
	p->strings->string_set = ETH_SS_STATS;
	p->strings->len = *count;
	rc = eioctl(s, p->strings);
	if (rc)
		return rc;
	if (p->strings->len > p->cap)
		return -EOVERFLOW;
	return 0;
}

static int ethtool_discover(struct mon_src *s)
{
	struct ethtool_priv *p = s->priv;
	uint32_t count;
	int rc;

	if (!p)
		return -EOPNOTSUPP;
	rc = read_strings(s, &count);
	if (rc == -ESTALE || (!rc && p->strings->len != count))
		rc = read_strings(s, &count);	/* raced with a change: once more */
	if (rc)
		goto out;
	rc = src_fields_reserve(s, count);
	if (rc)
		goto out;
	rc = src_ethtool_parse_strings(p->strings, sizeof(*p->strings) +
				       (size_t)p->strings->len * ETH_GSTRING_LEN, count,
				       s->fields);
	p->count = count;
	p->last_check_ns = time_mono_ns();
out:
	if (rc && !s->err[0] && rc != -EOPNOTSUPP)
		snprintf(s->err, sizeof(s->err), "%s: reading ethtool string set: %s", s->dev,
			 strerror(-rc));
	return rc;
}

/* True when the string set differs from the fields we have. */
static bool strings_changed(struct mon_src *s)
{
	struct ethtool_priv *p = s->priv;
	uint32_t count, i;

	if (read_strings(s, &count) || count != p->count)
		return true;
	for (i = 0; i < count; i++)
		if (strncmp((const char *)p->strings->data + (size_t)i * ETH_GSTRING_LEN,
			    s->fields[i].raw, ETH_GSTRING_LEN))
			return true;
	return false;
}

static int ethtool_sample(struct mon_src *s, uint64_t *vals, uint8_t *valid)
{
	struct ethtool_priv *p = s->priv;
	uint64_t now = time_mono_ns();
	int idx, rc;
	uint32_t i;

	if (now - p->last_ifindex_ns >= IFINDEX_CHECK_NS) {
		p->last_ifindex_ns = now;
		idx = ifindex_get(s);
		if (idx < 0) {
			snprintf(s->err, sizeof(s->err), "interface %s: %s", s->dev,
				 strerror(-idx));
			return idx;
		}
		if (idx != p->ifindex) {
			snprintf(s->err, sizeof(s->err), "interface %s re-created (ifindex %d -> "
				 "%d)", s->dev, p->ifindex, idx);
			return -ENODEV;
		}
	}
	memset(p->stats, 0, sizeof(*p->stats));
	p->stats->cmd = ETHTOOL_GSTATS;
	p->stats->n_stats = p->count;
	rc = eioctl(s, p->stats);
	if (rc) {
		snprintf(s->err, sizeof(s->err), "%s: ETHTOOL_GSTATS: %s", s->dev, strerror(-rc));
		return rc;
	}
	if (p->stats->n_stats > p->cap)
		return -EOVERFLOW;
	rc = src_ethtool_parse_stats(p->stats, sizeof(*p->stats) +
				     (size_t)p->stats->n_stats * sizeof(uint64_t), p->count,
				     vals);
	if (rc)
		return rc;
	if (now - p->last_check_ns >= RECHECK_NS) {
		p->last_check_ns = now;
		if (strings_changed(s))
			return -ESTALE;
	}
	for (i = 0; i < p->count; i++)
		valid[i] = 1;
	return 0;
}

const struct mon_src_ops src_ethtool_ioctl_ops = {
	.name = "ethtool",
	.what = "ethtool statistics (SIOCETHTOOL)",
	.init = ethtool_init,
	.discover = ethtool_discover,
	.sample = ethtool_sample,
	.close = ethtool_close,
	.last_error = src_last_error,
};
