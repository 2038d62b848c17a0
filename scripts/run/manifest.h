/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifest.h: what each host was when the run started and ended (manifest.c): the version
 * check that must pass before anything runs, and each host's entry of manifest.json.
 */
#ifndef PFCLAB_RUN_MANIFEST_H
#define PFCLAB_RUN_MANIFEST_H

#include <stddef.h>

#include <json-c/json.h>

struct run_ctx;

int manifest_check_versions(struct run_ctx *c, char *err, size_t errlen);
/* What host H answered `pfclab version`: its exit code (-1: it did not run), stdout and
 * stderr (either may be NULL; each may be cut at its first newline, in place). 0 with the
 * version in hosts[h].version, or -EHOSTUNREACH (ssh failed; the host is marked lost),
 * -ENOENT (no pfclab there), -EIO (it failed or said something else), -EPROTO (another
 * version), with the reason in ERR. */
int manifest_version_answer(struct run_ctx *c, size_t h, int code, char *out, char *errs,
			    char *err, size_t errlen);
/* Host H's manifest entry: pfclab version, netdev and what the probe found there. */
json_object *manifest_probe(struct run_ctx *c, size_t h);
/* Adds to O what a host printed for the probe (OUT, its sections "@@NAME" lines; cut up in
 * place): hostname, kernel, driver (ethtool -i), carrier_changes (each null where absent)
 * and doctor (its items by section, or a string saying there was no report), the NIC
 * settings, and gpu: the GPU GPU (the host's --gpu, NULL: none) as the doctor found it,
 * {given, bdf, rdma: RDMA (NULL: none), distance: PIX .. SYS}, each null where not said. */
void manifest_parse_probe(json_object *o, char *out, const char *gpu, const char *rdma);

#endif
