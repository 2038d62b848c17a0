// SPDX-License-Identifier: GPL-2.0-or-later
/* doctor_rdma.c: the doctor's RDMA and QoS checks: each verbs device and port (state,
 * active MTU, link layer), its RoCEv2 GIDs (sysfs gid_attrs), the netdev under it, that
 * netdev's PFC priorities (DCB netlink, IEEE 802.1Qbb pfc_en) and the mlx5 ECN (DCQCN)
 * switches where the driver exposes them.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>
#include <libmnl/libmnl.h>
#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>

#include "lab/doctor/doctor.h"
#include "lib/hw/dcb.h"
#include "lib/hw/pci.h"
#include "lib/hw/sysfs.h"
#include "lib/nl.h"
#include "lib/util.h"

#define GID_SCAN_MAX 256

/* "0000:0000:0000:0000:0000:ffff:0a4d:0001" -> "10.77.0.1"; else the GID as given. */
static void gid_to_text(const char *gid, char *out, size_t len)
{
	unsigned int a, b;

	if (!strncmp(gid, "0000:0000:0000:0000:0000:ffff:", 30) &&
	    sscanf(gid + 30, "%4x:%4x", &a, &b) == 2)
		snprintf(out, len, "%u.%u.%u.%u", a >> 8, a & 0xff, b >> 8, b & 0xff);
	else
		snprintf(out, len, "%s", gid);
}

/* RoCEv2 GIDs of one port: how many, the first few, and the netdev of the first. */
static int port_gids(const char *dev, int port, int tbl_len, char *list, size_t listlen,
		     char *ndev, size_t ndevlen)
{
	char path[PATH_MAX], type[32], gid[64], text[64], nd[IFNAMSIZ + 1];
	int i, n = 0;
	size_t used = 0;

	list[0] = '\0';
	if (tbl_len > GID_SCAN_MAX)
		tbl_len = GID_SCAN_MAX;
	for (i = 0; i < tbl_len; i++) {
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/gid_attrs/types/%d",
			 dev, port, i);
		if (hw_sysfs_read(path, type, sizeof(type)) < 0 || strcmp(type, "RoCE v2"))
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/gids/%d", dev, port, i);
		if (hw_sysfs_read(path, gid, sizeof(gid)) < 0 ||
		    !strcmp(gid, "0000:0000:0000:0000:0000:0000:0000:0000"))
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/gid_attrs/ndevs/%d",
			 dev, port, i);
		if (hw_sysfs_read(path, nd, sizeof(nd)) < 0)
			snprintf(nd, sizeof(nd), "?");
		if (n == 0)
			snprintf(ndev, ndevlen, "%s", nd);
		gid_to_text(gid, text, sizeof(text));
		if (n < 4 && used < listlen)
			used += (size_t)snprintf(list + used, listlen - used, "%s%d=%s(%s)",
						 n ? " " : "", i, text, nd);
		n++;
	}
	return n;
}

/* PCI function under an RDMA device, or "" for a virtual one (rxe, siw). */
static void rdma_pci_bdf(const char *dev, char *bdf, size_t len)
{
	char why[160];

	if (hw_pci_class_bdf("infiniband", dev, bdf, len, why, sizeof(why)))
		bdf[0] = '\0';
}

/* pfc_en of ifname; -EOPNOTSUPP when the netdev has no DCB (veth, rxe's netdev). */
static int dcb_pfc_en(struct nl_sock *nl, const char *ifname, uint8_t *pfc_en)
{
	struct hw_dcb_pfc pfc;
	int rc = hw_dcb_pfc_get(nl, ifname, &pfc);

	if (!rc)
		*pfc_en = pfc.pfc_en;
	return rc;
}

static void prio_list(uint8_t mask, char *buf, size_t len)
{
	size_t used = 0;
	int p;

	buf[0] = '\0';
	for (p = 0; p < 8 && used < len; p++)
		if (mask & (1u << p))
			used += (size_t)snprintf(buf + used, len - used, "%s%d", used ? "," : "", p);
	if (!mask)
		snprintf(buf, len, "none");
}

/* mlx5: /sys/class/net/IF/ecn/roce_{np,rp}/enable/<prio> hold 0/1 per priority. */
static int ecn_mask(const char *ifname, const char *role, uint8_t *mask)
{
	char path[PATH_MAX], v[8];
	int p, seen = 0;

	*mask = 0;
	for (p = 0; p < 8; p++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/ecn/%s/enable/%d", ifname, role, p);
		if (hw_sysfs_read(path, v, sizeof(v)) < 0)
			continue;
		seen++;
		if (!strcmp(v, "1"))
			*mask |= (uint8_t)(1u << p);
	}
	return seen ? 0 : -ENOENT;
}

static void check_qos(struct doctor_report *r, struct nl_sock *nl, bool nl_ok, const char *ifname)
{
	char item[48], prios[32], np[32], rp[32];
	uint8_t pfc_en = 0, npm, rpm;
	int rc;

	snprintf(item, sizeof(item), "%s pfc", ifname);
	rc = nl_ok ? dcb_pfc_en(nl, ifname, &pfc_en) : -ENOTSOCK;
	if (rc == -EOPNOTSUPP || rc == -ENODEV)
		doctor_add(r, "qos", item, DOCTOR_WARN,
			   "PFC needs a NIC driver with DCB (mlx5, ...): Soft-RoCE and veth have none",
			   "PFC not supported: %s has no DCB (RTM_GETDCB: %s)", ifname, strerror(-rc));
	else if (rc < 0)
		doctor_add(r, "qos", item, DOCTOR_WARN, "run as root, or check 'dcb pfc show dev IF'",
			   "PFC state not readable: RTM_GETDCB on %s: %s", ifname, strerror(-rc));
	else if (!pfc_en)
		doctor_add(r, "qos", item, DOCTOR_WARN,
			   "lab/qos apply IF --prio 3 (or: dcb pfc set dev IF prio-pfc 3:on)",
			   "PFC enabled on no priority: congestion drops instead of pausing");
	else {
		prio_list(pfc_en, prios, sizeof(prios));
		doctor_add(r, "qos", item, DOCTOR_OK, NULL, "PFC enabled on priorit%s %s",
			   __builtin_popcount(pfc_en) == 1 ? "y" : "ies", prios);
	}

	snprintf(item, sizeof(item), "%s ecn", ifname);
	if (ecn_mask(ifname, "roce_np", &npm) < 0 || ecn_mask(ifname, "roce_rp", &rpm) < 0) {
		/* /sys/class/net/IF/ecn/roce_np|roce_rp/enable/PRIO is MLNX_OFED's mlx5; the
		 * inbox mlx5 driver has no such switches and keeps the DCQCN parameters in
		 * debugfs (mlx5/PCI/cc_params, drivers/infiniband/hw/mlx5/cong.c). */
		doctor_add(r, "qos", item, DOCTOR_INFO,
			   "with inbox mlx5: DCQCN parameters in /sys/kernel/debug/mlx5/PCI/cc_params",
			   "ECN (DCQCN) switches not exposed: /sys/class/net/%s/ecn/roce_np|roce_rp "
			   "come with MLNX_OFED's mlx5 only", ifname);
		return;
	}
	prio_list(npm, np, sizeof(np));
	prio_list(rpm, rp, sizeof(rp));
	doctor_add(r, "qos", item, npm && rpm ? DOCTOR_OK : DOCTOR_WARN,
		   npm && rpm ? NULL : "echo 1 > /sys/class/net/IF/ecn/roce_{np,rp}/enable/PRIO",
		   "ECN notification point on priorities %s, reaction point on %s", np, rp);
}

static void check_port(struct doctor_report *r, struct ibv_context *ctx, const char *dev, int port,
		       char *ndev, size_t ndevlen)
{
	struct ibv_port_attr pa;
	char item[48], gids[320];
	int mtu, n;

	snprintf(item, sizeof(item), "%s port %d", dev, port);
	if (ibv_query_port(ctx, (uint8_t)port, &pa)) {
		doctor_add(r, "rdma", item, DOCTOR_WARN, NULL, "ibv_query_port failed: %s",
			   strerror(errno));
		return;
	}
	mtu = pa.active_mtu >= IBV_MTU_256 && pa.active_mtu <= IBV_MTU_4096 ?
		      128 << pa.active_mtu : 0;
	if (pa.state != IBV_PORT_ACTIVE)
		doctor_add(r, "rdma", item, DOCTOR_FAIL,
			   "bring the link up: ip link set dev NETDEV up, check the cable/peer",
			   "state %s, link layer %s", ibv_port_state_str(pa.state),
			   pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand");
	else
		doctor_add(r, "rdma", item, DOCTOR_OK, NULL, "state ACTIVE, link layer %s",
			   pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet (RoCE)" : "InfiniBand");
	snprintf(item, sizeof(item), "%s port %d mtu", dev, port);
	if (mtu >= 4096)
		doctor_add(r, "rdma", item, DOCTOR_OK, NULL, "active MTU %d", mtu);
	else
		doctor_add(r, "rdma", item, DOCTOR_WARN,
			   "raise the netdev MTU (ip link set dev NETDEV mtu 9000) for a 4096-byte RDMA MTU",
			   "active MTU %d: goodput ceiling lower than with 4096", mtu);
	if (pa.link_layer != IBV_LINK_LAYER_ETHERNET)
		return;
	snprintf(item, sizeof(item), "%s port %d gids", dev, port);
	ndev[0] = '\0';
	n = port_gids(dev, port, pa.gid_tbl_len, gids, sizeof(gids), ndev, ndevlen);
	if (n == 0)
		doctor_add(r, "rdma", item, DOCTOR_FAIL,
			   "give the netdev an IPv4/IPv6 address (ip addr add ... dev NETDEV)",
			   "no RoCEv2 GID: RoCEv2 traffic cannot be addressed");
	else
		doctor_add(r, "rdma", item, DOCTOR_OK, NULL, "%d RoCEv2 GID%s: %s%s", n,
			   n == 1 ? "" : "s", gids, n > 4 ? " ..." : "");
}

void doctor_check_rdma(struct doctor_report *r)
{
	struct ibv_device **list;
	struct ibv_device_attr da;
	struct ibv_context *ctx;
	struct nl_sock nl;
	char ndev[IFNAMSIZ + 1], bdf[16], done[DOCTOR_MAX_DEVS][IFNAMSIZ + 1];
	int n = 0, i, p, ndone = 0, j;
	bool nl_ok;

	list = ibv_get_device_list(&n);
	if (!list && errno == ENOSYS) {
		doctor_add(r, "rdma", "devices", DOCTOR_FAIL, PFC_NO_RDMA_KERNEL_FIX, "%s",
			   PFC_NO_RDMA_KERNEL);
		doctor_add(r, "qos", "pfc/ecn", DOCTOR_INFO, NULL,
			   "n/a: no RDMA device, so no netdev to read PFC and ECN from");
		return;
	}
	if (!list || n == 0) {
		doctor_add(r, "rdma", "devices", DOCTOR_FAIL,
			   "load the NIC's RDMA driver (mlx5_ib) or, to try things out, Soft-RoCE: "
			   "rdma link add rxe0 type rxe netdev IF",
			   "no RDMA device (ibv_get_device_list: %s)",
			   list ? "empty list" : strerror(errno));
		doctor_add(r, "qos", "pfc/ecn", DOCTOR_INFO, NULL,
			   "n/a: no RDMA device, so no netdev to read PFC and ECN from");
		if (list)
			ibv_free_device_list(list);
		return;
	}
	nl_ok = nl_sock_open(&nl, NETLINK_ROUTE) == 0;
	for (i = 0; i < n; i++) {
		const char *dev = ibv_get_device_name(list[i]);

		rdma_pci_bdf(dev, bdf, sizeof(bdf));
		if (bdf[0] && r->nnics < DOCTOR_MAX_DEVS) {
			snprintf(r->nics[r->nnics].bdf, sizeof(r->nics[0].bdf), "%s", bdf);
			snprintf(r->nics[r->nnics].name, sizeof(r->nics[0].name), "%s", dev);
			r->nnics++;
		}
		ctx = ibv_open_device(list[i]);
		if (!ctx || ibv_query_device(ctx, &da)) {
			doctor_add(r, "rdma", dev, DOCTOR_WARN, "check dmesg for the driver's messages",
				   "cannot open or query the device: %s", strerror(errno));
			if (ctx)
				ibv_close_device(ctx);
			continue;
		}
		doctor_add(r, "rdma", dev, DOCTOR_OK, NULL, "%s, firmware %s, %u port%s, %s",
			   bdf[0] ? bdf : "virtual (no PCI function)", da.fw_ver[0] ? da.fw_ver : "n/a",
			   da.phys_port_cnt, da.phys_port_cnt == 1 ? "" : "s",
			   ibv_node_type_str(list[i]->node_type));
		for (p = 1; p <= da.phys_port_cnt; p++) {
			check_port(r, ctx, dev, p, ndev, sizeof(ndev));
			for (j = 0; j < ndone && strcmp(done[j], ndev); j++)
				;
			if (ndev[0] && strcmp(ndev, "?") && j == ndone && ndone < DOCTOR_MAX_DEVS) {
				snprintf(done[ndone++], sizeof(done[0]), "%s", ndev);
				check_qos(r, &nl, nl_ok, ndev);
				doctor_check_nicqos(r, ndev);
			}
		}
		ibv_close_device(ctx);
	}
	if (nl_ok)
		nl_sock_close(&nl);
	ibv_free_device_list(list);
}
