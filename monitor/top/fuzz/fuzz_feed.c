// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_feed.c: libFuzzer target for what the dashboard reads from a remote monitor (the
 * lines of "pfclab monitor --json --all" over ssh or srun): every input is split into
 * lines, each parsed as the reader thread parses it, and each sample goes into a
 * one-host model whose rows are then built, as the screen would show them. An event
 * must come with its text.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "monitor/top/feed.h"
#include "monitor/top/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct top_row rows[512];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct top_snap s = { 0 };
	struct top_model m;
	char msg[256];

	top_model_init(&m);
	if (top_model_add_host(&m, "a") < 0)
		__builtin_trap();
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		int rc;

		msg[0] = '\0';
		rc = top_remote_parse_line(p, len, &s, msg, sizeof(msg));
		if (rc == 1) {
			(void)top_model_update(&m, 0, &s);
			(void)top_model_rows(&m, rows, sizeof(rows) / sizeof(rows[0]));
		} else if (rc == 0 && !memchr(msg, '\0', sizeof(msg))) {
			__builtin_trap();	/* an event's text not terminated */
		}
		p += len + (nl != NULL);
	}
	top_snap_free(&s);
	top_model_free(&m);
	return 0;
}
