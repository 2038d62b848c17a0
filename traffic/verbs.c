// SPDX-License-Identifier: GPL-2.0-or-later
/* verbs.c: RDMA resources of pfclab traffic (device, GID, MR, CQs, RC QPs) and the
 * post/poll loop. Setup follows rdma-core's rc_pingpong: explicit attribute masks,
 * a close that mirrors open, and every completion status checked and named.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/hw/pci.h"
#include "lib/hw/sysfs.h"
#include "lib/util.h"
#include "traffic/verbs.h"

#define WRID_QP_SHIFT 40
#define WRID_SEQ_MASK ((1ULL << WRID_QP_SHIFT) - 1)
#define POLL_BATCH 32

static int fail(struct traffic_verbs *tv, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct traffic_verbs *tv, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tv->why, sizeof(tv->why), fmt, ap);
	va_end(ap);
	return err;
}

/* 256..4096 bytes to the verbs enum (IBV_MTU_256 = 1 .. IBV_MTU_4096 = 5). */
static enum ibv_mtu mtu_enum(uint32_t bytes)
{
	enum ibv_mtu m = IBV_MTU_256;

	while (bytes > 256u && m < IBV_MTU_4096) {
		bytes >>= 1;
		m = (enum ibv_mtu)(m + 1);
	}
	return m;
}

static bool gid_is_v4(const union ibv_gid *g)
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(g->raw, pfx, sizeof(pfx));
}

int traffic_verbs_pick_gid(struct ibv_context *ctx, uint8_t port, const char *local_ip,
			   int *index, union ibv_gid *gid)
{
	struct ibv_port_attr pa;
	struct ibv_gid_entry e;
	struct in_addr want;
	int i, best = -1, best_score = 0, score;
	bool have_ip = local_ip && inet_pton(AF_INET, local_ip, &want) == 1;

	if (ibv_query_port(ctx, port, &pa))
		return -errno;
	for (i = 0; i < pa.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(ctx, port, (uint32_t)i, &e, 0))
			continue;	/* empty entry */
		if (e.gid_type != IBV_GID_TYPE_ROCE_V2)
			score = 1;
		else if (!gid_is_v4(&e.gid))
			score = 2;
		else if (have_ip && !memcmp(e.gid.raw + 12, &want, 4))
			score = 4;
		else
			score = 3;
		if (score > best_score) {
			best_score = score;
			best = i;
			*gid = e.gid;
		}
	}
	if (best < 0) {
		/* Devices without the extended query (or IB ports): index 0. */
		if (ibv_query_gid(ctx, port, 0, gid))
			return -ENOENT;
		best = 0;
	}
	*index = best;
	return 0;
}

static int numa_node_of(const char *dev)
{
	char v[16];
	int node = -1;

	if (hw_sysfs_readf(v, sizeof(v), "/sys/class/infiniband/%s/device/numa_node", dev) < 0 ||
	    sscanf(v, "%d", &node) != 1)
		return -1;
	return node;
}

/* No PCI function under the RDMA device: software RoCE (rxe) or another virtual one. */
static bool soft_device(const char *dev)
{
	char bdf[32], why[160];

	return hw_pci_class_bdf("infiniband", dev, bdf, sizeof(bdf), why, sizeof(why)) == -EOPNOTSUPP;
}

static int open_device(struct traffic_verbs *tv)
{
	struct ibv_device **list;
	char names[256] = "";
	size_t off = 0;
	int i, n = 0;

	list = ibv_get_device_list(&n);
	if (!list && errno == ENOSYS)
		return fail(tv, -ENOSYS, "%s; %s", PFC_NO_RDMA_KERNEL, PFC_NO_RDMA_KERNEL_FIX);
	if (!list)
		return fail(tv, -errno, "cannot list RDMA devices: %s (is rdma-core installed?)",
			    strerror(errno));
	for (i = 0; i < n; i++) {
		if (!strcmp(ibv_get_device_name(list[i]), tv->o->dev))
			break;
		off += (size_t)snprintf(names + off, off < sizeof(names) ? sizeof(names) - off : 0,
					"%s%s", i ? ", " : "", ibv_get_device_name(list[i]));
		if (off >= sizeof(names))
			off = sizeof(names) - 1;
	}
	if (i == n) {
		ibv_free_device_list(list);
		return fail(tv, -ENODEV, "no RDMA device '%s'; devices here: %s", tv->o->dev,
			    n ? names : "none (load a driver, or 'rdma link add rxe0 type rxe netdev IF')");
	}
	tv->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!tv->ctx)
		return fail(tv, -errno, "%s: cannot open: %s", tv->o->dev, strerror(errno));
	tv->soft = soft_device(tv->o->dev);
	return 0;
}

static int create_qp(struct traffic_verbs *tv, struct traffic_qp *q, uint32_t idx)
{
	const struct traffic_opts *o = tv->o;
	struct ibv_qp_init_attr ia = {
		.send_cq = tv->scq,
		.recv_cq = tv->rcq,
		.cap = {
			.max_send_wr = o->tx_depth,
			.max_recv_wr = o->imm ? o->rx_depth : 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = tv->inline_size,
		},
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 0,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = (uint8_t)o->ib_port,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE,
	};
	uint32_t j;

	q->qp = ibv_create_qp(tv->pd, &ia);
	if (!q->qp && tv->inline_size && o->inline_auto) {
		/* the default inline size, not asked for: do without on a device that
		 * refuses it (for every QP: they all use the same size) */
		tv->inline_size = 0;
		ia.cap.max_inline_data = 0;
		q->qp = ibv_create_qp(tv->pd, &ia);
	}
	if (!q->qp)
		return fail(tv, -errno, "%s: cannot create QP %u (tx depth %u, inline %u): %s; try a smaller -t or -I",
			    o->dev, idx, o->tx_depth, tv->inline_size, strerror(errno));
	if (ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		return fail(tv, -errno, "%s: QP 0x%x to INIT: %s", o->dev, q->qp->qp_num,
			    strerror(errno));
	q->psn = (uint32_t)lrand48() & 0xffffff;
	q->wr = calloc(o->post_list, sizeof(*q->wr));
	q->sge = calloc(o->post_list, sizeof(*q->sge));
	if (!q->wr || !q->sge)
		return fail(tv, -ENOMEM, "out of memory");
	for (j = 0; j < o->post_list; j++) {
		q->sge[j] = (struct ibv_sge){
			.addr = (uint64_t)(uintptr_t)tv->buf.addr + idx * tv->slot,
			.lkey = tv->mr->lkey,
		};
		q->wr[j] = (struct ibv_send_wr){
			.sg_list = &q->sge[j],
			.num_sge = 1,
			.opcode = o->imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE,
			.imm_data = htonl(idx),
			.next = j + 1 < o->post_list ? &q->wr[j + 1] : NULL,
		};
	}
	q->rwr = (struct ibv_recv_wr){ .wr_id = idx, .sg_list = NULL, .num_sge = 0 };
	if (o->imm) {
		struct ibv_recv_wr *bad;

		for (j = 0; j < o->rx_depth; j++)
			if (ibv_post_recv(q->qp, &q->rwr, &bad))
				return fail(tv, -errno, "%s: posting receives: %s", o->dev,
					    strerror(errno));
	}
	return 0;
}

int traffic_verbs_open(struct traffic_verbs *tv, const struct traffic_opts *o, const char *local_ip)
{
	const struct mem_ops *ops = mem_ops_find(o->mem);
	struct ibv_device_attr da;
	struct mem_req req;
	uint32_t i, cqe;
	int rc;

	memset(tv, 0, sizeof(*tv));
	tv->o = o;
	tv->nqps = o->qps;
	tv->gid_index = -1;
	srand48((long)time_mono_ns() ^ (long)getpid());
	rc = open_device(tv);
	if (rc)
		return rc;
	if (ibv_query_port(tv->ctx, (uint8_t)o->ib_port, &tv->port))
		return fail(tv, -errno, "%s: no port %u: %s", o->dev, o->ib_port, strerror(errno));
	if (tv->port.state != IBV_PORT_ACTIVE)
		return fail(tv, -ENETDOWN, "%s port %u is %s, not ACTIVE: check the link ('rdma link', 'ip link')",
			    o->dev, o->ib_port, ibv_port_state_str(tv->port.state));
	tv->roce = tv->port.link_layer == IBV_LINK_LAYER_ETHERNET;
	if (o->gid_index >= 0) {
		tv->gid_index = o->gid_index;
		if (ibv_query_gid(tv->ctx, (uint8_t)o->ib_port, o->gid_index, &tv->gid))
			return fail(tv, -EINVAL, "%s port %u: no GID at index %d (-x); 'rdma res show' or show_gids lists them",
				    o->dev, o->ib_port, o->gid_index);
	} else {
		rc = traffic_verbs_pick_gid(tv->ctx, (uint8_t)o->ib_port, local_ip, &tv->gid_index,
					    &tv->gid);
		if (rc)
			return fail(tv, rc, "%s port %u: no usable GID; set an IP address on its interface or pass -x",
				    o->dev, o->ib_port);
	}
	inet_ntop(AF_INET6, tv->gid.raw, tv->gid_str, sizeof(tv->gid_str));
	if (tv->roce && !memcmp(tv->gid.raw, (uint8_t[16]){ 0 }, 16))
		return fail(tv, -EINVAL, "%s port %u GID %d is empty; set an IP address or pass -x",
			    o->dev, o->ib_port, tv->gid_index);

	tv->pd = ibv_alloc_pd(tv->ctx);
	if (!tv->pd)
		return fail(tv, -errno, "%s: cannot allocate a protection domain: %s", o->dev,
			    strerror(errno));

	/* Buffer: [tx slot per QP][rx slot per QP]; the peer writes into the rx half. */
	tv->slot = (traffic_opts_max_size(o) + 63) & ~(size_t)63;
	req = (struct mem_req){
		.len = 2 * tv->slot * tv->nqps,
		.numa_node = o->numa_node >= 0 ? o->numa_node : numa_node_of(o->dev),
		.hugepages = o->hugepages,
		.gpu = o->gpu,
	};
	mem_buf_init(&tv->buf, ops);
	rc = ops->alloc(&tv->buf, &req);
	tv->buf_ok = true;
	if (rc)
		return fail(tv, rc, "--mem %s: %s", ops->name, tv->buf.why);
	if (ops->export && (rc = ops->export(&tv->buf)))
		return fail(tv, rc, "--mem %s: %s", ops->name, tv->buf.why);
	tv->mr = ops->reg(&tv->buf, tv->pd, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!tv->mr)
		return fail(tv, -EIO, "%s: --mem %s: %s", o->dev, ops->name, tv->buf.why);
	tv->inline_size = tv->buf.device ? 0 : o->inline_size;

	if (ibv_query_device(tv->ctx, &da))
		return fail(tv, -errno, "%s: query device: %s", o->dev, strerror(errno));
	if ((int)o->tx_depth > da.max_qp_wr)
		return fail(tv, -EINVAL, "%s: -t %u exceeds the device's %d work requests per QP",
			    o->dev, o->tx_depth, da.max_qp_wr);
	cqe = tv->nqps * o->tx_depth;
	if ((int)cqe > da.max_cqe)
		cqe = (uint32_t)da.max_cqe;
	if (o->poll_mode == TRAFFIC_POLL_AUTO) {
		tv->ch = ibv_create_comp_channel(tv->ctx);
		if (!tv->ch)
			return fail(tv, -errno, "%s: cannot create a completion channel: %s; "
				    "--poll spin does without one", o->dev, strerror(errno));
		if (fcntl(tv->ch->fd, F_SETFL, fcntl(tv->ch->fd, F_GETFL) | O_NONBLOCK) < 0)
			return fail(tv, -errno, "%s: completion channel: %s", o->dev,
				    strerror(errno));
	}
	tv->scq = ibv_create_cq(tv->ctx, (int)cqe, NULL, tv->ch, 0);
	cqe = o->imm ? tv->nqps * o->rx_depth : 1;
	if ((int)cqe > da.max_cqe)
		cqe = (uint32_t)da.max_cqe;
	tv->rcq = ibv_create_cq(tv->ctx, (int)cqe, NULL, tv->ch, 0);
	if (!tv->scq || !tv->rcq)
		return fail(tv, -errno, "%s: cannot create completion queues: %s", o->dev,
			    strerror(errno));
	tv->qps = calloc(tv->nqps, sizeof(*tv->qps));
	if (!tv->qps)
		return fail(tv, -ENOMEM, "out of memory");
	for (i = 0; i < tv->nqps; i++) {
		rc = create_qp(tv, &tv->qps[i], i);
		if (rc)
			return rc;
	}
	return 0;
}

void traffic_verbs_hello(const struct traffic_verbs *tv, struct xchg_hello *h)
{
	uint32_t i;

	h->lid = tv->port.lid;
	memcpy(h->gid, tv->gid.raw, sizeof(h->gid));
	h->mtu = (uint8_t)(tv->o->mtu ? mtu_enum(tv->o->mtu) : tv->port.active_mtu);
	h->rkey = tv->mr->rkey;
	h->addr = (uint64_t)(uintptr_t)tv->buf.addr + tv->slot * tv->nqps;
	h->len = tv->slot * tv->nqps;
	for (i = 0; i < tv->nqps; i++) {
		h->qp[i].qpn = tv->qps[i].qp->qp_num;
		h->qp[i].psn = tv->qps[i].psn;
	}
}

static const char *mtu_str(enum ibv_mtu m)
{
	static const char *s[] = { "?", "256", "512", "1024", "2048", "4096" };

	return (unsigned)m < 6 ? s[m] : "?";
}

int traffic_verbs_connect(struct traffic_verbs *tv, const struct xchg_hello *peer)
{
	const struct traffic_opts *o = tv->o;
	enum ibv_mtu mtu = o->mtu ? mtu_enum(o->mtu) : tv->port.active_mtu;
	uint32_t i, j;

	if ((enum ibv_mtu)peer->mtu < mtu)
		mtu = (enum ibv_mtu)peer->mtu;
	if (mtu > tv->port.active_mtu) {
		return fail(tv, -EINVAL, "%s: -m %u is above the port's active MTU %s", o->dev,
			    o->mtu, mtu_str(tv->port.active_mtu));
	}
	tv->mtu = mtu;
	for (i = 0; i < tv->nqps; i++) {
		struct traffic_qp *q = &tv->qps[i];
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_RTR,
			.path_mtu = mtu,
			.dest_qp_num = peer->qp[i].qpn,
			.rq_psn = peer->qp[i].psn,
			.max_dest_rd_atomic = 1,
			.min_rnr_timer = 12,
			.ah_attr = {
				.is_global = tv->roce ? 1 : 0,
				.dlid = peer->lid,
				.sl = (uint8_t)o->sl,
				.port_num = (uint8_t)o->ib_port,
				.grh = {
					.sgid_index = (uint8_t)tv->gid_index,
					.hop_limit = 64,
					.traffic_class = (uint8_t)(o->tclass < 0 ? 0 : o->tclass),
				},
			},
		};

		memcpy(a.ah_attr.grh.dgid.raw, peer->gid, 16);
		if (ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
			return fail(tv, -errno, "%s: QP 0x%x to RTR (peer QP 0x%x, GID index %d): %s; check that both GIDs are RoCEv2 and routable (-x)",
				    o->dev, q->qp->qp_num, peer->qp[i].qpn, tv->gid_index,
				    strerror(errno));
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.timeout = (uint8_t)o->qp_timeout;
		a.retry_cnt = (uint8_t)o->retry;
		a.rnr_retry = 7;
		a.sq_psn = q->psn;
		a.max_rd_atomic = 1;
		if (ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
			return fail(tv, -errno, "%s: QP 0x%x to RTS: %s", o->dev, q->qp->qp_num,
				    strerror(errno));
		for (j = 0; j < o->post_list; j++) {
			q->wr[j].wr.rdma.remote_addr = peer->addr + i * tv->slot;
			q->wr[j].wr.rdma.rkey = peer->rkey;
		}
	}
	if (o->rate_gbps > 0) {
		int err = EOPNOTSUPP;

		if (o->rate_mode != TRAFFIC_RATE_SW) {
			struct ibv_qp_rate_limit_attr rl = {
				.rate_limit = (uint32_t)(o->rate_gbps * 1e6),	/* kbps */
			};

			err = 0;
			for (i = 0; i < tv->nqps && !err; i++)
				if (ibv_modify_qp_rate_limit(tv->qps[i].qp, &rl))
					err = errno ? errno : EOPNOTSUPP;
		}
		if (!err) {
			tv->rate_how = "hardware";
		} else if (o->rate_mode == TRAFFIC_RATE_HW) {
			return fail(tv, -err, "%s: hardware rate limit of %.3f Gb/s per QP refused: %s; use --rate-mode sw",
				    o->dev, o->rate_gbps, strerror(err));
		} else {
			tv->rate_how = "software pacing";
			tv->pace_bytes_per_ns = o->rate_gbps / 8.0;
		}
	}
	return 0;
}

int traffic_verbs_query_path(struct traffic_verbs *tv, int *sl, int *tclass)
{
	const struct traffic_opts *o = tv->o;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	uint32_t i;
	int err, s, t;

	*sl = *tclass = -1;
	for (i = 0; i < tv->nqps; i++) {
		memset(&a, 0, sizeof(a));
		err = ibv_query_qp(tv->qps[i].qp, &a, IBV_QP_AV, &ia);
		if (err) {
			*sl = *tclass = -1;
			return fail(tv, -err, "%s: ibv_query_qp (address vector) of QP 0x%x: %s",
				    o->dev, tv->qps[i].qp->qp_num, strerror(err));
		}
		s = a.ah_attr.sl;
		t = a.ah_attr.is_global ? a.ah_attr.grh.traffic_class : -1;
		if (i && (s != *sl || t != *tclass)) {
			fail(tv, -EPROTO, "%s: QP 0x%x holds SL %d, traffic class %d, but QP 0x%x SL %d, traffic class %d",
			     o->dev, tv->qps[i].qp->qp_num, s, t, tv->qps[0].qp->qp_num, *sl, *tclass);
			*sl = *tclass = -1;
			return -EPROTO;
		}
		*sl = s;
		*tclass = t;
	}
	return 0;
}

/* Completion moderation follows the message size: a signalled send at least every
 * MOD_BYTES of data (and every -Q sends at most), and at least two per send window.
 * With a fixed count, 1 MiB messages gave one completion per 64 MiB: report intervals
 * with 0 bytes while data flowed, then 64 MiB at once, and a long tail after -D.
 * 256 KiB leaves messages up to 4 KiB at -Q (a completion every 64 KiB cost 4 KiB
 * messages 20-30% of their rate on Soft-RoCE, where each completion is software work);
 * at 100 Gb/s it is a completion every 21 us. (perftest signals every send above
 * 8 KiB.) */
#define MOD_BYTES (256u * 1024)

/* Bytes in flight per QP at most WINDOW_BYTES (and -t sends): 128 sends of 4 MiB are
 * half a gigabyte, seconds of data on a slow link, all of which had to complete after
 * -D ran out. 8 MiB keeps a 100 Gb/s link busy for 0.67 ms, far beyond its round trip. */
#define WINDOW_BYTES (8u << 20)

uint32_t traffic_verbs_window(const struct traffic_opts *o, uint32_t size)
{
	uint64_t w = size ? WINDOW_BYTES / size : o->tx_depth;

	if (w > o->tx_depth)
		w = o->tx_depth;
	if (w < 2)
		w = o->tx_depth < 2 ? o->tx_depth : 2;
	return (uint32_t)w;
}

uint32_t traffic_verbs_mod(const struct traffic_opts *o, uint32_t size)
{
	uint32_t mod = size ? MOD_BYTES / size : o->cq_mod, w = traffic_verbs_window(o, size);

	if (mod > o->cq_mod)
		mod = o->cq_mod;
	if (w >= 2 && mod > w / 2)
		mod = w / 2;
	return mod ? mod : 1;
}

/* The rate is sampled at most this often (and only when something completed since the
 * last sample, so that a large message completing now and then is not read as a stop). */
#define RATE_SAMPLE_NS 200000000ULL

uint32_t traffic_verbs_depth(uint32_t window, uint32_t mod, uint32_t size, uint32_t nqps,
			     double rate)
{
	uint64_t floor = 2ULL * mod > 2 ? 2ULL * mod : 2, d;

	/* a send that takes long goes alone (verbs.h); else TRAFFIC_INFLIGHT_MIN_BYTES */
	if (mod == 1 && rate > 0 && size && nqps &&
	    rate * (double)TRAFFIC_ALONE_NS / nqps < (double)size)
		floor = 1;
	else if (size && TRAFFIC_INFLIGHT_MIN_BYTES / size > floor)
		floor = TRAFFIC_INFLIGHT_MIN_BYTES / size;
	if (floor >= window || rate <= 0 || !size || !nqps)
		return floor < window ? (uint32_t)floor : window;
	d = (uint64_t)(rate * (double)TRAFFIC_INFLIGHT_NS / nqps / size) + 1;
	if (d < floor)
		d = floor;
	return d < window ? (uint32_t)d : window;
}

uint64_t traffic_verbs_end_limit(uint64_t now, uint64_t end_ns, uint32_t size, double rate,
				 uint32_t k)
{
	double l, capped;

	/* k sends posted at now with m in flight complete at now + (m + k) T (T = size /
	 * rate), the m without them at now + m T: they go when the end is nearer the first,
	 * i.e. when now + (m + k / 2) T <= end_ns, or 2m + k <= 2 (end_ns - now) / T; and
	 * when now + (m + k) T <= end_ns + TRAFFIC_END_SLACK_NS, or
	 * 2m + k <= 2 (end_ns + slack - now) / T - k, the smaller where k T / 2 > slack.
	 */
	if (rate <= 0)
		return UINT64_MAX;
	if (now >= end_ns)
		return 0;
	if (!size)
		return UINT64_MAX;
	l = 2.0 * (double)(end_ns - now) * rate / (double)size;
	capped = 2.0 * ((double)(end_ns - now) + (double)TRAFFIC_END_SLACK_NS) * rate /
		 (double)size - (double)k;
	if (capped < l)
		l = capped < 0 ? 0 : capped;
	return l >= 1.8e19 ? UINT64_MAX : (uint64_t)l;
}

static void rate_sample(struct traffic_verbs *tv, uint64_t now)
{
	double r;

	if (now - tv->rate_t < RATE_SAMPLE_NS || tv->ctr.bytes == tv->rate_b)
		return;
	r = (double)(tv->ctr.bytes - tv->rate_b) / (double)(now - tv->rate_t);
	tv->rate = tv->rate > 0 ? (tv->rate + r) / 2 : r;
	tv->rate_t = now;
	tv->rate_b = tv->ctr.bytes;
	tv->depth = traffic_verbs_depth(tv->window, tv->mod, tv->size, tv->nqps, tv->rate);
}

/* The end limit for the clock read at now (none without -D, or once stopping). */
static void end_limit_update(struct traffic_verbs *tv, uint64_t now)
{
	tv->end_limit = tv->end_ns && !tv->stopping ?
			traffic_verbs_end_limit(now, tv->end_ns, tv->size, tv->rate,
						 tv->plist) : UINT64_MAX;
}

/* The next signalled send from seq on: every mod-th, and the last one before target, so
 * that every posted send is accounted for by a completion. */
static inline uint64_t sig_next(uint64_t seq, uint32_t mod, uint64_t target)
{
	uint64_t s = seq / mod * mod + (mod - 1);

	return s < target ? s : target - 1;
}

void traffic_verbs_phase_begin(struct traffic_verbs *tv, uint32_t size, bool send, uint64_t iters,
			       uint64_t duration_ns)
{
	uint32_t i, j;

	tv->size = size;
	tv->mod = traffic_verbs_mod(tv->o, size);
	tv->window = traffic_verbs_window(tv->o, size);
	tv->depth = tv->window;
	tv->posted = 0;
	tv->rate = 0;
	tv->rate_b = 0;
	tv->clock_every = 1;	/* a new size: passes may take much longer than the last's */
	tv->plist = tv->o->post_list_auto && size > 4096 ? 1 : tv->o->post_list;
	tv->send = send;
	tv->stopping = false;
	memset(&tv->ctr, 0, sizeof(tv->ctr));
	for (i = 0; i < tv->nqps; i++) {
		struct traffic_qp *q = &tv->qps[i];

		q->posted = q->completed = 0;
		q->target = !send ? 0 : iters ? iters : UINT64_MAX;
		q->sig_next = sig_next(0, tv->mod, q->target);
		for (j = 0; j < tv->o->post_list; j++)
			q->sge[j].length = size;
	}
	tv->start_ns = tv->rate_t = time_mono_ns();
	tv->end_ns = duration_ns ? tv->start_ns + duration_ns : 0;
	end_limit_update(tv, tv->start_ns);
}

void traffic_verbs_phase_stop(struct traffic_verbs *tv)
{
	uint64_t m = tv->mod, t;
	uint32_t i;

	tv->stopping = true;
	tv->end_limit = UINT64_MAX;
	for (i = 0; i < tv->nqps; i++) {
		struct traffic_qp *q = &tv->qps[i];

		/* Finish on a signalled send so that every posted send is accounted for. */
		t = (q->posted + m - 1) / m * m;
		if (t < q->target) {
			q->target = t;
			q->sig_next = sig_next(q->posted, tv->mod, t);
		}
	}
}

static int wc_fail(struct traffic_verbs *tv, const struct ibv_wc *wc, const char *what)
{
	/* Soft-RoCE on several CPUs can deliver one QP's packets out of order; each NAK
	 * costs a retry and the count is reset only when a message completes, so a message
	 * of a few MiB can use them up with the peer well (7 retries without end there). */
	const bool soft_hint = wc->status == IBV_WC_RETRY_EXC_ERR && tv->soft && tv->o->retry < 7;

	tv->ctr.errors++;
	tv->wc_status = wc->status;
	return fail(tv, -EIO, "%s QP 0x%x: %s completion error: %s (status %d, vendor error 0x%x)%s%s",
		    tv->o->dev, wc->qp_num, what, ibv_wc_status_str(wc->status), wc->status,
		    wc->vendor_err,
		    wc->status == IBV_WC_RETRY_EXC_ERR ?
		    ": the peer stopped acknowledging (process gone or path broken)" :
		    wc->status == IBV_WC_REM_ACCESS_ERR ?
		    ": the peer refused the write (buffer or rkey mismatch)" :
		    wc->status == IBV_WC_WR_FLUSH_ERR ? ": QP already in error" : "",
		    soft_hint ? "; on software RoCE with several CPUs, packets arriving out of "
		    "order can also use up --retry within one large message: --retry 7 retries "
		    "without end there" : "");
}

/* Post as many sends on q as depth, run length and pacing allow. This runs once per
 * message: it compares integers (the end limit is worked out per clock read, the next
 * signalled send per moderation group) and touches the chain's end only for a short list.
 */
static inline int post_some(struct traffic_verbs *tv, struct traffic_qp *q, uint32_t qi,
			    uint64_t now)
{
	const uint32_t depth = tv->depth, plist = tv->plist, nwr = tv->o->post_list;
	const bool paced = tv->pace_bytes_per_ns > 0;
	const unsigned int inl = tv->size <= tv->inline_size ? IBV_SEND_INLINE : 0;
	const uint64_t qbits = (uint64_t)qi << WRID_QP_SHIFT;
	struct ibv_send_wr *bad;
	uint64_t k, j, seq;
	int posted = 0, rc;

	while (q->posted < q->target) {
		k = q->target - q->posted;
		if (k > plist)
			k = plist;
		if (q->posted - q->completed + k > depth)
			break;
		/* -D: stop posting when what is in flight would complete after the end;
		 * the stop rounds up to a signalled send, so look again. */
		if (2 * (tv->posted - tv->ctr.msgs) + k > tv->end_limit) {
			traffic_verbs_phase_stop(tv);
			continue;
		}
		if (paced &&
		    (double)(q->posted + k) * tv->size > (double)(now - tv->start_ns) * tv->pace_bytes_per_ns)
			break;
		for (j = 0, seq = q->posted; j < k; j++, seq++) {
			q->wr[j].wr_id = qbits | seq;
			q->wr[j].send_flags = inl;
			if (seq == q->sig_next) {
				q->wr[j].send_flags = inl | IBV_SEND_SIGNALED;
				q->sig_next = sig_next(seq + 1, tv->mod, q->target);
			}
		}
		/* the chain ends at its last request (set up so); a shorter list ends early */
		if (k < nwr)
			q->wr[k - 1].next = NULL;
		rc = ibv_post_send(q->qp, q->wr, &bad);
		if (k < nwr)
			q->wr[k - 1].next = &q->wr[k];
		if (rc)
			return fail(tv, -rc, "%s QP 0x%x: ibv_post_send: %s", tv->o->dev,
				    q->qp->qp_num, strerror(rc));
		q->posted += k;
		tv->posted += k;
		posted += (int)k;
	}
	return posted;
}

/* One batch of receive completions (--imm): count them and give each receive back. */
static inline int poll_rx(struct traffic_verbs *tv, struct ibv_wc *wc)
{
	int m = ibv_poll_cq(tv->rcq, POLL_BATCH, wc), k;

	if (m < 0)
		return fail(tv, -EIO, "%s: polling the receive CQ failed", tv->o->dev);
	for (k = 0; k < m; k++) {
		struct traffic_qp *q;
		struct ibv_recv_wr *bad;

		if (wc[k].status != IBV_WC_SUCCESS)
			return wc_fail(tv, &wc[k], "receive");
		tv->ctr.rx_cqes++;
		tv->ctr.rx_bytes += wc[k].byte_len;
		q = &tv->qps[wc[k].wr_id];
		if (ibv_post_recv(q->qp, &q->rwr, &bad))
			return fail(tv, -errno, "%s QP 0x%x: re-posting a receive: %s", tv->o->dev,
				    q->qp->qp_num, strerror(errno));
	}
	return m;
}

int traffic_verbs_drain_rx(struct traffic_verbs *tv)
{
	struct ibv_wc wc[POLL_BATCH];
	int m;

	if (!tv->o->imm)
		return 0;
	while ((m = poll_rx(tv, wc)) > 0)
		;
	return m;
}

/* --poll auto: how long the loop spins with nothing to post and nothing completing
 * before it sleeps on the completion channel. A NIC that keeps up completes a moderation
 * group in microseconds, so the loop never sleeps there; where completions come seldom
 * (a full window on a slow or paused link, software RoCE) the spinning core is given
 * back: to the kernel's RoCE work on the same host, to other processes. */
#define SPIN_NS 50000ULL

uint32_t traffic_verbs_clock_every(uint32_t every, uint64_t dt_ns)
{
	if (every < 1)
		return 1;
	if (dt_ns < TRAFFIC_CLOCK_NS / 2)
		return every < TRAFFIC_CLOCK_EVERY_MAX / 2 ? every * 2 : TRAFFIC_CLOCK_EVERY_MAX;
	if (dt_ns > 2 * TRAFFIC_CLOCK_NS)
		return (uint32_t)((uint64_t)every * TRAFFIC_CLOCK_NS / dt_ns) + 1;
	return every;
}

/* One step towards sleeping until a completion or deadline_ns: the first call asks both
 * CQs for an event and returns (the caller polls once more, for a completion that came
 * before the request); the next sleeps on the channel and takes the events. */
static int cq_sleep(struct traffic_verbs *tv, uint64_t now, uint64_t deadline_ns)
{
	struct pollfd pfd = { .fd = tv->ch->fd, .events = POLLIN };
	struct timespec ts;
	struct ibv_cq *cq;
	void *cctx;
	uint64_t left = deadline_ns - now;
	int r;

	if (!tv->armed) {
		if (ibv_req_notify_cq(tv->scq, 0) || (tv->o->imm && ibv_req_notify_cq(tv->rcq, 0)))
			return fail(tv, -EIO, "%s: asking for a completion event failed; "
				    "--poll spin does without", tv->o->dev);
		tv->armed = true;
		return 0;
	}
	ts = ns_timespec(left);
	r = ppoll(&pfd, 1, &ts, NULL);
	if (r < 0 && errno != EINTR)
		return fail(tv, -errno, "%s: waiting on the completion channel: %s", tv->o->dev,
			    strerror(errno));
	if (r > 0) {
		while (!ibv_get_cq_event(tv->ch, &cq, &cctx))
			ibv_ack_cq_events(cq, 1);
		tv->armed = false;
	}
	return 0;
}

int traffic_verbs_phase_run(struct traffic_verbs *tv, uint64_t deadline_ns)
{
	struct ibv_wc wc[POLL_BATCH];
	uint64_t now = time_mono_ns(), last_work = now, read_t = now;
	/* pacing keeps its own time: it reads the clock every pass and never sleeps */
	const bool paced = tv->pace_bytes_per_ns > 0, may_sleep = tv->ch && !paced;
	/* idle passes between clock reads: few where the loop may sleep */
	const unsigned int idle_mask = may_sleep ? 31 : 255;
	unsigned int idle = 0;
	uint32_t working = 0;	/* passes that did work since the clock was last read */
	uint32_t i;
	int n, k, rc;

	end_limit_update(tv, now);
	for (;;) {
		bool done = tv->send, busy = false;

		if (tv->send) {
			for (i = 0; i < tv->nqps; i++) {
				struct traffic_qp *q = &tv->qps[i];

				if (q->posted < q->target) {
					rc = post_some(tv, q, i, now);
					if (rc < 0)
						return rc;
					busy |= rc > 0;
				}
				if (q->completed < q->target)
					done = false;
			}
		}
		/* no sends of this side (a receive-only side, an abandoned phase): their
		 * completions are not this phase's */
		n = tv->send ? ibv_poll_cq(tv->scq, POLL_BATCH, wc) : 0;
		if (n < 0)
			return fail(tv, -EIO, "%s: polling the send CQ failed", tv->o->dev);
		for (k = 0; k < n; k++) {
			struct traffic_qp *q;
			uint64_t seq, d;

			if (wc[k].status != IBV_WC_SUCCESS)
				return wc_fail(tv, &wc[k], "RDMA WRITE");
			q = &tv->qps[wc[k].wr_id >> WRID_QP_SHIFT];
			seq = wc[k].wr_id & WRID_SEQ_MASK;
			d = seq + 1 - q->completed;
			q->completed = seq + 1;
			tv->ctr.msgs += d;
			tv->ctr.bytes += d * tv->size;
			tv->ctr.cqes++;
		}
		if (tv->o->imm) {
			int m = poll_rx(tv, wc);

			if (m < 0)
				return m;
			n += m;
		}
		if (done && n == 0)
			return 1;
		/* The clock is read every clock_every passes that did work, and every 32 or
		 * 256 idle passes (a poll of an empty CQ takes well under a microsecond):
		 * where the clock is a system call reading an emulated timer (QEMU guests
		 * with the HPET clocksource: 1.4-2.8 us a read) a read per message would add
		 * that to every small message. A pass count is no measure of time (a
		 * post call can take milliseconds on software RoCE), so clock_every follows
		 * the time between reads (traffic_verbs_clock_every): one read per pass where
		 * passes are slow, about one a millisecond where they are quick. Pacing reads
		 * the clock on every pass.
		 */
		if (busy || n > 0) {
			if (++working < tv->clock_every && !paced)
				continue;
		} else if (!paced && (++idle & idle_mask) != 0) {
			continue;
		}
		now = time_mono_ns();
		if (working >= tv->clock_every && !paced)
			tv->clock_every = traffic_verbs_clock_every(tv->clock_every, now - read_t);
		read_t = now;
		rate_sample(tv, now);
		end_limit_update(tv, now);
		if (now >= deadline_ns)
			return 0;
		if (working) {
			last_work = now;
			working = 0;
		} else if (may_sleep && now - last_work >= SPIN_NS) {
			rc = cq_sleep(tv, now, deadline_ns);
			if (rc)
				return rc;
			idle = idle_mask;	/* the clock again after the next pass */
		}
	}
}

uint64_t traffic_verbs_phase_abandon(struct traffic_verbs *tv)
{
	uint64_t left = tv->send ? tv->posted - tv->ctr.msgs : 0;

	traffic_verbs_phase_stop(tv);
	tv->unsettled = tv->send;
	tv->send = false;
	return left;
}

int traffic_verbs_settle(struct traffic_verbs *tv, uint64_t deadline_ns)
{
	int rc;

	if (!tv->unsettled)
		return 1;
	/* the stopped phase's loop goes on, its counters no longer reported: it posts what
	 * is left up to the last signalled send (phase_stop) and waits for its completion */
	tv->send = true;
	rc = traffic_verbs_phase_run(tv, deadline_ns);
	tv->send = false;
	if (rc == 1)
		tv->unsettled = false;
	return rc;
}

void traffic_verbs_close(struct traffic_verbs *tv)
{
	uint32_t i;

	for (i = 0; tv->qps && i < tv->nqps; i++) {
		if (tv->qps[i].qp)
			ibv_destroy_qp(tv->qps[i].qp);
		free(tv->qps[i].wr);
		free(tv->qps[i].sge);
	}
	free(tv->qps);
	tv->qps = NULL;
	if (tv->rcq)
		ibv_destroy_cq(tv->rcq);
	if (tv->scq)
		ibv_destroy_cq(tv->scq);
	if (tv->ch)
		ibv_destroy_comp_channel(tv->ch);
	tv->ch = NULL;
	if (tv->mr)
		ibv_dereg_mr(tv->mr);
	if (tv->buf_ok)
		tv->buf.ops->free(&tv->buf);
	if (tv->pd)
		ibv_dealloc_pd(tv->pd);
	if (tv->ctx)
		ibv_close_device(tv->ctx);
	tv->rcq = tv->scq = NULL;
	tv->mr = NULL;
	tv->pd = NULL;
	tv->ctx = NULL;
	tv->buf_ok = false;
}
