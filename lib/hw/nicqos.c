// SPDX-License-Identifier: GPL-2.0-or-later
/* nicqos.c: read a NIC's DCQCN parameters, receive buffer split and PFC storm-prevention
 * timeout (nicqos.h), from sysfs, debugfs and the ethtool tunable ioctl.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "lib/hw/nicqos.h"
#include "lib/hw/sysfs.h"
#include "lib/linkstat.h"
#include "lib/util.h"

/* drivers/infiniband/hw/mlx5/cong.c (mlx5_ib_dbg_cc_name): the debugfs cc_params files
 * the experiment's DCQCN depends on, reaction point then notification point. */
static const char *const debugfs_names[] = {
	"rp_time_reset", "rp_byte_reset", "rp_ai_rate", "rp_hai_rate", "rp_dce_tcp_g",
	"rp_threshold", "rp_min_rate", "rp_min_dec_fac", "rp_initial_alpha_value",
	"rp_rate_reduce_monitor_period", "rp_clamp_tgt_rate", "rp_rate_to_set_on_first_cnp",
	"np_min_time_between_cnps", "np_cnp_dscp", "np_cnp_prio_mode", "np_cnp_prio",
};

static const char *const qos_files[HW_QOS_NFILES] = {
	[HW_QOS_BUFFER_SIZE] = "buffer_size", [HW_QOS_PRIO2BUFFER] = "prio2buffer",
	[HW_QOS_TRUST] = "trust", [HW_QOS_DSCP2PRIO] = "dscp2prio",
};

const char *hw_nicqos_file_name(int i)
{
	return i >= 0 && i < HW_QOS_NFILES ? qos_files[i] : "?";
}

const char *const *hw_dcqcn_debugfs_names(size_t *n)
{
	*n = ARRAY_SIZE(debugfs_names);
	return debugfs_names;
}

static bool read_i64(const char *path, int64_t *v)
{
	char buf[64], *end;
	long long x;

	if (hw_sysfs_read(path, buf, sizeof(buf)) || !buf[0])
		return false;
	errno = 0;
	x = strtoll(buf, &end, 0);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

static void param_add(struct hw_nicqos *q, const char *name, const char *path)
{
	struct hw_dcqcn_param *p;

	if (q->nparam >= HW_DCQCN_MAX_PARAMS)
		return;
	p = &q->param[q->nparam++];
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->valid = read_i64(path, &p->value);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct hw_dcqcn_param *)a)->name,
		      ((const struct hw_dcqcn_param *)b)->name);
}

/* MLNX_OFED: every file of ecn/roce_rp|roce_np/params, named "roce_rp.<file>", sorted;
 * enable/0..7. True when either params folder exists. */
static bool read_ofed(struct hw_nicqos *q, const char *root, const char *ifname)
{
	static const char *const pt[] = { "roce_rp", "roce_np" };
	char path[PATH_MAX], name[64];
	bool any = false;
	size_t i, first = q->nparam;
	int p;

	for (i = 0; i < ARRAY_SIZE(pt); i++) {
		struct dirent *e;
		DIR *d;

		snprintf(path, sizeof(path), "%s/sys/class/net/%s/ecn/%s/params", root, ifname, pt[i]);
		d = opendir(path);
		if (d) {
			any = true;
			while ((e = readdir(d))) {
				char fp[PATH_MAX];

				if (e->d_name[0] == '.' ||
				    snprintf(name, sizeof(name), "%s.%s", pt[i], e->d_name) >= (int)sizeof(name) ||
				    snprintf(fp, sizeof(fp), "%s/%s", path, e->d_name) >= (int)sizeof(fp))
					continue;
				param_add(q, name, fp);
			}
			closedir(d);
		}
		for (p = 0; p < 8; p++) {
			int64_t v;

			snprintf(path, sizeof(path), "%s/sys/class/net/%s/ecn/%s/enable/%d", root,
				 ifname, pt[i], p);
			if (read_i64(path, &v))
				(i ? q->np_enable : q->rp_enable)[p] = v ? 1 : 0;
		}
	}
	qsort(q->param + first, q->nparam - first, sizeof(q->param[0]), cmp_name);
	return any;
}

/* Inbox mlx5: debugfs mlx5/<PCI address of IF's device>/cc_params. */
static bool read_debugfs(struct hw_nicqos *q, const char *root, const char *ifname)
{
	char path[PATH_MAX + 64], link[PATH_MAX], dir[PATH_MAX];
	const char *bdf;
	ssize_t n;
	size_t i;

	snprintf(path, sizeof(path), "%s/sys/class/net/%s/device", root, ifname);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	bdf = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	if (snprintf(dir, sizeof(dir), "%s/sys/kernel/debug/mlx5/%s/cc_params", root, bdf) >=
	    (int)sizeof(dir) || access(dir, F_OK))
		return false;
	for (i = 0; i < ARRAY_SIZE(debugfs_names); i++) {
		if (snprintf(path, sizeof(path), "%s/%s", dir, debugfs_names[i]) < (int)sizeof(path))
			param_add(q, debugfs_names[i], path);
	}
	return true;
}

/* The emulated link (pfclab link --dcqcn): "name value" lines in LINKSTAT_DIR/IF.dcqcn,
 * lines starting with # skipped, in the file's order. */
static bool read_link(struct hw_nicqos *q, const char *root, const char *ifname)
{
	char path[PATH_MAX], line[160];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s/%s.dcqcn", root, LINKSTAT_DIR, ifname);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f) && q->nparam < HW_DCQCN_MAX_PARAMS) {
		struct hw_dcqcn_param *p;
		char *sp = strchr(line, ' '), *end;
		long long x;

		if (line[0] == '#' || !sp || sp == line || (size_t)(sp - line) >= sizeof(p->name))
			continue;
		*sp++ = '\0';
		p = &q->param[q->nparam++];
		snprintf(p->name, sizeof(p->name), "%.63s", line);
		errno = 0;
		x = strtoll(sp, &end, 10);
		p->valid = !errno && end != sp && (*end == '\n' || !*end);
		p->value = p->valid ? x : 0;
	}
	fclose(f);
	return true;
}

/* ETHTOOL_GTUNABLE with ETHTOOL_PFC_PREVENTION_TOUT (include/uapi/linux/ethtool.h: a u16
 * in ms, PFC_STORM_PREVENTION_AUTO 0xffff, _DISABLE 0; mlx5 en_ethtool.c). */
static int read_storm(struct hw_nicqos *q, const char *ifname)
{
	struct {
		struct ethtool_tunable t;
		uint16_t v;
	} req = { .t = { .cmd = ETHTOOL_GTUNABLE, .id = ETHTOOL_PFC_PREVENTION_TOUT,
			 .type_id = ETHTOOL_TUNABLE_U16, .len = sizeof(uint16_t) } };
	struct ifreq ifr = { 0 };
	int fd, err = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&req;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		err = -errno;
	close(fd);
	if (err)
		return err;
	if (req.v == PFC_STORM_PREVENTION_AUTO)
		q->storm_auto = true;
	else
		q->storm_ms = req.v;
	q->storm_valid = !q->storm_auto;
	return 0;
}

int hw_nicqos_read(const char *root, const char *ifname, struct hw_nicqos *q)
{
	char path[PATH_MAX];
	bool real = !root || !*root || !strcmp(root, "/");
	int i;

	memset(q, 0, sizeof(*q));
	for (i = 0; i < 8; i++)
		q->rp_enable[i] = q->np_enable[i] = -1;
	q->storm_err = -ENODATA;
	if (!pfc_ifname_valid(ifname))
		return -EINVAL;
	if (real)
		root = "";
	if (read_ofed(q, root, ifname))
		q->dcqcn_source = HW_DCQCN_MLNX_OFED;
	else if (read_debugfs(q, root, ifname))
		q->dcqcn_source = HW_DCQCN_DEBUGFS;
	else if (read_link(q, root, ifname))
		q->dcqcn_source = HW_DCQCN_PFCLAB_LINK;
	for (i = 0; i < HW_QOS_NFILES; i++) {
		snprintf(path, sizeof(path), "%s/sys/class/net/%s/qos/%s", root, ifname, qos_files[i]);
		q->qos_valid[i] = !hw_sysfs_read(path, q->qos[i], sizeof(q->qos[i]));
	}
	/* the tunable is an ioctl on the live interface, which a fixture tree has not */
	q->storm_err = real ? read_storm(q, ifname) : -ENOTSUP;
	return 0;
}
