// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_rm.c: libFuzzer target for the parsers of NVIDIA RM control replies (lib/hw/rm.c):
 * every input is given, as it is and at its own length, to each of them (GET_PROBED_IDS,
 * GET_PCI_INFO, GET_ID_INFO_V2, GET_PEX_UTIL_COUNTERS), its first four bytes to the
 * NV_STATUS namer, and the input as text to the "Device Minor" reader of
 * /proc/driver/nvidia/gpus/BDF/information. None may read outside the input, and what
 * each gives must hold to its contract: no more ids than RM has GPUs, none of them the
 * invalid id; a device instance accepted only below that count; a minor within 0..255.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hw/rm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t ids[HW_RM_MAX_GPUS], inst, tx, rx, st = 0;
	struct hw_rm_pci_info pci;
	size_t i, n = 99;
	char *text;
	int rc, minor;

	rc = hw_rm_parse_probed_ids(data, size, ids, &n);
	if ((rc && rc != -EBADMSG) || n > HW_RM_MAX_GPUS || (rc && n))
		__builtin_trap();
	for (i = 0; i < n; i++)
		if (ids[i] == 0xffffffffu)
			__builtin_trap();
	rc = hw_rm_parse_pci_info(data, size, &pci);
	if (rc && rc != -EBADMSG)
		__builtin_trap();
	rc = hw_rm_parse_id_info(data, size, &inst);
	if ((rc && rc != -EBADMSG) || (!rc && inst >= HW_RM_MAX_GPUS))
		__builtin_trap();
	rc = hw_rm_parse_pex_bytes(data, size, &tx, &rx);
	if ((rc && rc != -EBADMSG) || (rc && (tx || rx)))
		__builtin_trap();
	memcpy(&st, data, size < sizeof(st) ? size : sizeof(st));
	if (!hw_rm_status_name(st)[0])
		__builtin_trap();
	text = malloc(size + 1);	/* the text reader takes what a read() gave, ended */
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	minor = hw_rm_parse_minor(text);
	if (minor < -1 || minor > 255)
		__builtin_trap();
	free(text);
	return 0;
}
