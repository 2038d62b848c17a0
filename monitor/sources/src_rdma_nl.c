// SPDX-License-Identifier: GPL-2.0-or-later
/* src_rdma_nl.c: RDMA hw counters (np_cnp_sent, rp_cnp_handled, out_of_buffer, rxe's
 * sent_pkts ...) through NETLINK_RDMA RDMA_NLDEV_CMD_STAT_GET, the route `rdma statistic`
 * uses, with /sys/class/infiniband/DEV/ports/P/hw_counters as the fallback.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>

#include "lib/nl.h"
#include "lib/util.h"
#include "monitor/sources/sources.h"

#define RDMA_MAX_COUNTERS 512

struct rdma_priv {
	struct nl_sock nl;
	uint32_t index;
	bool sysfs;		/* netlink STAT_GET unavailable: read files */
	int *fds;		/* sysfs: one open file per counter */
	size_t nfds;
	struct src_rdma_counter *ctr;
	size_t nctr;
};

int src_rdma_parse_dev(struct rd *payload, uint32_t *index, char *name, size_t namesz)
{
	static const struct nl_policy pol[RDMA_NLDEV_ATTR_DEV_NAME + 1] = {
		[RDMA_NLDEV_ATTR_DEV_INDEX] = { NL_T_U32, 0 },
		[RDMA_NLDEV_ATTR_DEV_NAME] = { NL_T_STR, 0 },
	};
	struct nl_attr tb[RDMA_NLDEV_ATTR_DEV_NAME + 1];
	int rc = nl_attr_parse(payload, pol, RDMA_NLDEV_ATTR_DEV_NAME, tb);

	if (rc < 0)
		return rc;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX].present || !tb[RDMA_NLDEV_ATTR_DEV_NAME].present)
		return -EBADMSG;
	*index = nl_attr_u32(&tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	return nl_attr_str(&tb[RDMA_NLDEV_ATTR_DEV_NAME], name, namesz);
}

int src_rdma_parse_stat(struct rd *payload, struct src_rdma_counter *out, size_t max,
			size_t *n)
{
	static const struct nl_policy pol[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS + 1] = {
		[RDMA_NLDEV_ATTR_DEV_INDEX] = { NL_T_U32, 0 },
		[RDMA_NLDEV_ATTR_PORT_INDEX] = { NL_T_U32, 0 },
		[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS] = { NL_T_NEST, 0 },
	};
	static const struct nl_policy epol[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE + 1] = {
		[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] = { NL_T_STR, 0 },
		[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE] = { NL_T_U64, 0 },
	};
	struct nl_attr tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS + 1];
	struct nl_attr a, etb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE + 1];
	struct rd r;
	int rc;

	*n = 0;
	rc = nl_attr_parse(payload, pol, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS, tb);
	if (rc < 0)
		return rc;
	if (!tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS].present)
		return -ENODATA;
	r = tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS].val;
	while ((rc = nl_attr_next(&r, &a)) > 0) {
		struct rd e = a.val;

		if (a.type != RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY)
			continue;
		rc = nl_attr_parse(&e, epol, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, etb);
		if (rc < 0)
			return rc;
		if (!etb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME].present ||
		    !etb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE].present)
			return -EBADMSG;
		if (*n < max) {
			rc = nl_attr_str(&etb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME],
					 out[*n].name, sizeof(out[*n].name));
			if (rc)
				return rc;
			out[*n].value = nl_attr_u64(&etb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE]);
		}
		(*n)++;
	}
	return rc;
}

struct dev_find {
	const char *want;
	uint32_t index;
	bool found;
	char fw[64];
};

static int dev_cb(const struct nl_msg *m, void *arg)
{
	struct dev_find *f = arg;
	struct rd p = m->payload;
	char name[64];
	uint32_t idx;

	if (src_rdma_parse_dev(&p, &idx, name, sizeof(name)))
		return 0;	/* a device entry we cannot read is not ours */
	if (!strcmp(name, f->want)) {
		static const struct nl_policy pol[RDMA_NLDEV_ATTR_FW_VERSION + 1] = {
			[RDMA_NLDEV_ATTR_FW_VERSION] = { NL_T_STR, 0 },
		};
		struct nl_attr tb[RDMA_NLDEV_ATTR_FW_VERSION + 1];

		f->index = idx;
		f->found = true;
		p = m->payload;
		if (nl_attr_parse(&p, pol, RDMA_NLDEV_ATTR_FW_VERSION, tb) >= 0 &&
		    tb[RDMA_NLDEV_ATTR_FW_VERSION].present)
			nl_attr_str(&tb[RDMA_NLDEV_ATTR_FW_VERSION], f->fw, sizeof(f->fw));
	}
	return 0;
}

struct stat_ctx {
	struct rdma_priv *p;
	size_t n;
	int rc;
};

static int stat_cb(const struct nl_msg *m, void *arg)
{
	struct stat_ctx *c = arg;
	struct rd p = m->payload;

	c->rc = src_rdma_parse_stat(&p, c->p->ctr, RDMA_MAX_COUNTERS, &c->n);
	return c->rc;
}

static int stat_get(struct mon_src *s, size_t *n)
{
	struct rdma_priv *p = s->priv;
	struct nlmsghdr *nlh = nl_sock_req(&p->nl,
		RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET), 0);
	struct stat_ctx c = { .p = p };
	int rc;

	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, p->index);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, s->port);
	rc = nl_sock_talk(&p->nl, nlh, stat_cb, &c);
	if (!rc && c.n > RDMA_MAX_COUNTERS)
		rc = -E2BIG;
	*n = c.n;
	return rc;
}

static void sysfs_close(struct rdma_priv *p)
{
	size_t i;

	for (i = 0; i < p->nfds; i++)
		if (p->fds[i] >= 0)
			close(p->fds[i]);
	free(p->fds);
	p->fds = NULL;
	p->nfds = 0;
}

static void rdma_close(struct mon_src *s)
{
	struct rdma_priv *p = s->priv;

	if (p) {
		nl_sock_close(&p->nl);
		sysfs_close(p);
		free(p->ctr);
		free(p);
	}
	s->priv = NULL;
	src_fields_free(s);
}

static void driver_guess(struct mon_src *s)
{
	char path[256], link[256];
	ssize_t n;
	size_t i = 0;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/driver", s->dev);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		snprintf(s->driver, sizeof(s->driver), "%s", basename(link));
		return;
	}
	/* Soft devices (rxe, siw) have no parent: the name without its number ("rxe0"). */
	while (s->dev[i] && s->dev[i] != '_' && i < sizeof(s->driver) - 1)
		i++;
	if (s->dev[i] != '_')
		while (i && s->dev[i - 1] >= '0' && s->dev[i - 1] <= '9')
			i--;
	memcpy(s->driver, s->dev, i);
	s->driver[i] = '\0';
}

static int rdma_init(struct mon_src *s)
{
	struct rdma_priv *p = calloc(1, sizeof(*p));
	struct dev_find f = { .want = s->dev };
	struct nlmsghdr *nlh;
	char path[256];
	int rc;

	if (!p)
		return -ENOMEM;
	s->priv = p;
	p->ctr = calloc(RDMA_MAX_COUNTERS, sizeof(*p->ctr));
	if (!p->ctr)
		return -ENOMEM;
	if (!s->port)
		s->port = 1;
	driver_guess(s);
	src_info_add(s, "driver", s->driver);
	/* PFCLAB_RDMA_SYSFS=1 forces the sysfs route (tests; kernels whose RDMA netlink
	 * statistics misbehave).
	 */
	if (getenv("PFCLAB_RDMA_SYSFS") && !strcmp(getenv("PFCLAB_RDMA_SYSFS"), "1"))
		rc = -EPROTONOSUPPORT;
	else
		rc = nl_sock_open(&p->nl, NETLINK_RDMA);
	if (rc == 0) {
		nlh = nl_sock_req(&p->nl, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET),
				  NLM_F_DUMP);
		rc = nl_sock_talk(&p->nl, nlh, dev_cb, &f);
	}
	if (rc == 0 && !f.found) {
		snprintf(s->err, sizeof(s->err), "RDMA device %s: not found (see 'rdma link' "
			 "or ibv_devices)", s->dev);
		return -ENODEV;
	}
	if (rc == 0) {
		size_t n;

		p->index = f.index;
		if (f.fw[0])
			src_info_add(s, "firmware", f.fw);
		rc = stat_get(s, &n);
		if (rc == 0)
			return 0;
	}
	/* No RDMA netlink statistics here: fall back to sysfs. */
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/hw_counters", s->dev,
		 s->port);
	if (access(path, R_OK)) {
		int err = errno;

		if (rc == -EPROTONOSUPPORT && err == ENOENT &&
		    access("/sys/class/infiniband", F_OK))
			snprintf(s->err, sizeof(s->err), "RDMA device %s: this kernel has no RDMA "
				 "core loaded (modprobe ib_core, or rdma_rxe for Soft-RoCE)", s->dev);
		else
			snprintf(s->err, sizeof(s->err), "RDMA device %s port %u: no hw counters "
				 "(netlink: %s; %.100s: %s)", s->dev, s->port,
				 rc ? strerror(-rc) : "device not found", path, strerror(err));
		return err == ENOENT && access("/sys/class/infiniband", F_OK) == 0 &&
		       rc == 0 ? -EOPNOTSUPP : -ENODEV;
	}
	p->sysfs = true;
	src_info_add(s, "route", "sysfs");
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct src_rdma_counter *)a)->name,
		      ((const struct src_rdma_counter *)b)->name);
}

/* One counter field per hw counter name in p->ctr, in that order. */
static int set_fields(struct mon_src *s, struct rdma_priv *p, size_t n)
{
	size_t i;
	int rc = src_fields_reserve(s, n);

	if (rc)
		return rc;
	for (i = 0; i < n; i++)
		src_field_set(&s->fields[i], p->ctr[i].name, MON_COUNTER, 64, "");
	p->nctr = n;
	return 0;
}

static int sysfs_discover(struct mon_src *s)
{
	struct rdma_priv *p = s->priv;
	char path[512];
	struct dirent *de;
	DIR *d;
	size_t n = 0, i;

	sysfs_close(p);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/hw_counters", s->dev,
		 s->port);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < RDMA_MAX_COUNTERS) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "lifespan"))
			continue;
		snprintf(p->ctr[n++].name, sizeof(p->ctr[0].name), "%.95s", de->d_name);
	}
	closedir(d);
	qsort(p->ctr, n, sizeof(p->ctr[0]), name_cmp);
	p->fds = malloc((n ? n : 1) * sizeof(int));
	if (!p->fds)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/hw_counters/%s",
			 s->dev, s->port, p->ctr[i].name);
		p->fds[i] = open(path, O_RDONLY | O_CLOEXEC);
	}
	p->nfds = n;
	return set_fields(s, p, n);
}

static int rdma_discover(struct mon_src *s)
{
	struct rdma_priv *p = s->priv;
	size_t n;
	int rc;

	if (!p)
		return -EOPNOTSUPP;
	if (p->sysfs)
		return sysfs_discover(s);
	rc = stat_get(s, &n);
	if (rc)
		return rc;
	return set_fields(s, p, n);
}

static int sysfs_sample(struct mon_src *s, uint64_t *vals, uint8_t *valid)
{
	struct rdma_priv *p = s->priv;
	size_t i;

	if (access("/sys/class/infiniband", F_OK) == 0) {
		char path[256];

		snprintf(path, sizeof(path), "/sys/class/infiniband/%s", s->dev);
		if (access(path, F_OK))
			return -ENODEV;
	}
	for (i = 0; i < p->nfds; i++) {
		char buf[32];
		ssize_t n;

		if (p->fds[i] < 0)
			continue;
		n = pread(p->fds[i], buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			continue;	/* unreadable now: invalid, not 0 */
		buf[n] = '\0';
		if (parse_u64(strtok(buf, "\n"), 0, UINT64_MAX, &vals[i]) == 0)
			valid[i] = 1;
	}
	return 0;
}

static int rdma_sample(struct mon_src *s, uint64_t *vals, uint8_t *valid)
{
	struct rdma_priv *p = s->priv;
	size_t n, i;
	int rc;

	if (p->sysfs)
		return sysfs_sample(s, vals, valid);
	rc = stat_get(s, &n);
	if (rc) {
		snprintf(s->err, sizeof(s->err), "%s port %u: RDMA_NLDEV_CMD_STAT_GET: %s%s",
			 s->dev, s->port, strerror(-rc),
			 rc == -EINVAL || rc == -ENODEV ? " (device gone?)" : "");
		/* The kernel answers a vanished device index with EINVAL or ENODEV. */
		return rc == -EINVAL ? -ENODEV : rc;
	}
	if (n != p->nctr)
		return -ESTALE;
	for (i = 0; i < n; i++) {
		if (strcmp(p->ctr[i].name, s->fields[i].raw))
			return -ESTALE;
		vals[i] = p->ctr[i].value;
		valid[i] = 1;
	}
	return 0;
}

const struct mon_src_ops src_rdma_nl_ops = {
	.name = "rdma",
	.what = "RDMA hw counters (RDMA netlink)",
	.init = rdma_init,
	.discover = rdma_discover,
	.sample = rdma_sample,
	.close = rdma_close,
	.last_error = src_last_error,
};
