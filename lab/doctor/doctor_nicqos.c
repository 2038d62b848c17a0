// SPDX-License-Identifier: GPL-2.0-or-later
/* doctor_nicqos.c: a NIC's DCQCN parameters, receive buffer split and PFC storm-prevention
 * timeout (lib/hw/nicqos.h) as doctor findings, and as one object ("nic") that a run's
 * manifest keeps from before and after the run.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lab/doctor/doctor.h"
#include "lib/hw/nicqos.h"
#include "lib/out.h"

static const char *source_name(enum hw_dcqcn_source s)
{
	return s == HW_DCQCN_MLNX_OFED ? "mlnx_ofed" : s == HW_DCQCN_DEBUGFS ? "debugfs" :
	       s == HW_DCQCN_PFCLAB_LINK ? "pfclab_link" : NULL;
}

bool doctor_netdev_checked(const struct doctor_report *r, const char *ifname)
{
	char item[48];
	unsigned int i;

	snprintf(item, sizeof(item), "%s dcqcn", ifname);
	for (i = 0; i < r->n; i++)
		if (!strcmp(r->f[i].section, "qos") && !strcmp(r->f[i].item, item))
			return true;
	return false;
}

void doctor_check_nicqos(struct doctor_report *r, const char *ifname)
{
	struct hw_nicqos q;
	char item[48], buf[320];
	size_t i, nvalid = 0, len = 0;
	int k;

	if (hw_nicqos_read(r->sysroot, ifname, &q))
		return;
	snprintf(item, sizeof(item), "%s dcqcn", ifname);
	for (i = 0; i < q.nparam; i++) {
		const struct hw_dcqcn_param *p = &q.param[i];

		nvalid += p->valid;
		if (len < sizeof(buf) - 1)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s=", i ? " " : "",
						p->name);
		if (len < sizeof(buf) - 1)
			len += (size_t)(p->valid ? snprintf(buf + len, sizeof(buf) - len, "%" PRId64,
							     p->value) :
					      snprintf(buf + len, sizeof(buf) - len, "n/a"));
	}
	if (q.dcqcn_source == HW_DCQCN_NONE)
		doctor_add(r, "qos", item, DOCTOR_INFO, NULL,
			   "DCQCN parameters n/a: no MLNX_OFED ecn/roce_rp|roce_np/params, no "
			   "mlx5 debugfs cc_params and no pfclab link --dcqcn for %s", ifname);
	else
		doctor_add(r, "qos", item, DOCTOR_INFO, NULL, "%s, %zu of %zu read: %s",
			   source_name(q.dcqcn_source), nvalid, q.nparam, len ? buf : "none");
	snprintf(item, sizeof(item), "%s buffer", ifname);
	len = 0;
	buf[0] = '\0';
	for (k = 0; k < HW_QOS_NFILES; k++) {
		char one[160], *nl;

		if (!q.qos_valid[k])
			continue;
		snprintf(one, sizeof(one), "%s", q.qos[k]);
		while ((nl = strchr(one, '\n')))
			*nl = '|';
		if (len < sizeof(buf) - 1)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s: %s", len ? "; " : "",
						hw_nicqos_file_name(k), one);
	}
	doctor_add(r, "qos", item, DOCTOR_INFO, NULL, "%s", len ? buf :
		   "buffer split n/a: no qos/buffer_size, prio2buffer, trust or dscp2prio "
		   "(MLNX_OFED's mlx5 sysfs)");
	snprintf(item, sizeof(item), "%s pfc storm", ifname);
	if (q.storm_auto)
		doctor_add(r, "qos", item, DOCTOR_INFO, NULL,
			   "PFC storm prevention: the driver's default (auto; mlx5: 100 ms)");
	else if (q.storm_valid && !q.storm_ms)
		doctor_add(r, "qos", item, DOCTOR_WARN,
			   "ethtool --set-tunable IF pfc-prevention-tout 100 (or lab/qos apply "
			   "--storm-timeout 100)",
			   "PFC storm prevention off: a stuck receiver can pause the link forever");
	else if (q.storm_valid)
		doctor_add(r, "qos", item, DOCTOR_INFO, NULL,
			   "PFC storm prevention after %" PRIu32 " ms of pausing", q.storm_ms);
	else
		doctor_add(r, "qos", item, DOCTOR_INFO, NULL,
			   "PFC storm-prevention timeout n/a: ETHTOOL_PFC_PREVENTION_TOUT: %s",
			   strerror(-q.storm_err));
}

void doctor_nicqos_render(struct out *o, const char *root, const char *ifname)
{
	static const char *const pt[2] = { "rp", "np" };
	struct hw_nicqos q;
	size_t i;
	int k, p;

	hw_nicqos_read(root, ifname, &q);
	out_obj_open(o, "nic");
	out_str(o, "netdev", "nic %s:\n", ifname);
	out_obj_open(o, "dcqcn");
	if (source_name(q.dcqcn_source))
		out_str(o, "source", "  dcqcn  %s\n", source_name(q.dcqcn_source));
	else
		out_na(o, "source", "  dcqcn  n/a\n");
	out_obj_open(o, "params");
	for (i = 0; i < q.nparam; i++) {
		out_text(o, "    %-40s", q.param[i].name);
		if (q.param[i].valid)
			out_int(o, q.param[i].name, " %" PRId64 "\n", q.param[i].value);
		else
			out_na(o, q.param[i].name, " n/a\n");
	}
	out_obj_close(o);
	if (q.dcqcn_source == HW_DCQCN_MLNX_OFED) {
		out_obj_open(o, "enable");
		for (k = 0; k < 2; k++) {
			out_text(o, "    %s enable by priority ", pt[k]);
			out_arr_open(o, pt[k]);
			for (p = 0; p < 8; p++) {
				int v = (k ? q.np_enable : q.rp_enable)[p];

				if (v >= 0)
					out_int(o, NULL, " %" PRId64, v);
				else
					out_na(o, NULL, " n/a");
			}
			out_obj_close(o);
			out_text(o, "\n");
		}
		out_obj_close(o);
	} else {
		out_na(o, "enable", NULL);
	}
	out_obj_close(o);
	out_obj_open(o, "buffer");
	for (k = 0; k < HW_QOS_NFILES; k++) {
		out_text(o, "  %-12s", hw_nicqos_file_name(k));
		if (q.qos_valid[k])
			out_str(o, hw_nicqos_file_name(k), " %s\n", q.qos[k]);
		else
			out_na(o, hw_nicqos_file_name(k), " n/a\n");
	}
	out_obj_close(o);
	out_text(o, "  pfc storm timeout");
	if (q.storm_valid)
		out_uint(o, "pfc_storm_timeout_ms", " %" PRIu64 " ms", q.storm_ms);
	else
		out_na(o, "pfc_storm_timeout_ms", q.storm_auto ? "" : " n/a");
	out_bool(o, "pfc_storm_timeout_auto", q.storm_auto ? " auto (the driver's default)" : NULL,
		 q.storm_auto);
	out_text(o, "\n");
	out_obj_close(o);
}
