// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_manifest.c: libFuzzer target for what `pfclab run` reads from each host before a
 * run: its answer to the manifest probe (manifest_parse_probe: the "@@NAME" sections,
 * `ethtool -i`, the doctor's JSON report) and to `pfclab version` (manifest_version_answer).
 * Byte 0 picks the version answer's exit code (bits 0-2), the launcher (bit 3: ssh, else
 * local) and no stdout at all (bit 4); the rest is the host's stdout for both and its
 * stderr for the version. The manifest entry must come out as UTF-8 JSON that reads back
 * the same, its one-line values never running into the next section's marker; the version
 * check must pass only for this pfclab's version, and say why it fails.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scripts/run/manifest.h"
#include "scripts/run/run.h"
#include "version.h" /* generated: $(BUILD)/gen */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *text_of(const uint8_t *data, size_t size)
{
	char *t = malloc(size + 1);

	if (t) {
		memcpy(t, data, size);
		t[size] = '\0';
	}
	return t;
}

/* null, or a string of one line that is no section marker (a section ends at one) */
static void check_line(json_object *o, const char *key)
{
	json_object *v;
	const char *s;

	if (!json_object_object_get_ex(o, key, &v))
		__builtin_trap();	/* every key is there, null where the host said nothing */
	if (!v)
		return;
	if (!json_object_is_type(v, json_type_string))
		__builtin_trap();
	s = json_object_get_string(v);
	if (strchr(s, '\n') || !strncmp(s, "@@", 2))
		__builtin_trap();
}

static void check_probe(json_object *o)
{
	json_object *again, *d;
	struct json_tokener *tok;
	const char *s;

	check_line(o, "hostname");
	check_line(o, "kernel");
	check_line(o, "carrier_changes");
	if (json_object_object_get_ex(o, "driver", &d) && d) {
		if (!json_object_is_type(d, json_type_object))
			__builtin_trap();
		json_object_object_foreach(d, k, v) {
			if (strcmp(k, "driver") && strcmp(k, "version") && strcmp(k, "firmware-version") &&
			    strcmp(k, "bus-info"))
				__builtin_trap();
			if (v && strchr(json_object_get_string(v), '\n'))
				__builtin_trap();
		}
	}
	if (!json_object_object_get_ex(o, "doctor", &d) || !d)
		__builtin_trap();
	/* manifest.json is read again by the summary and by other tools: the same object, in
	 * UTF-8 as JSON must be (RFC 8259, section 8.1), whatever bytes the host sent */
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	if (!s || !(tok = json_tokener_new()))
		return;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	again = json_tokener_parse_ex(tok, s, (int)strlen(s) + 1);
	if (!again || !json_object_equal(o, again))
		__builtin_trap();
	json_object_put(again);
	json_tokener_free(tok);
}

static void check_version(uint8_t pick, const uint8_t *data, size_t size)
{
	static const int codes[8] = { 0, 1, 127, 255, -1, 2, 0, 0 };
	struct exp_host eh = { .name = (char *)"a" };
	struct run_host rh = { .h = &eh };
	struct run_ctx c = {
		.lops = pick & 8 ? &launch_ssh_ops : &launch_local_ops,
		.hosts = &rh, .nhosts = 1,
	};
	char *out = text_of(data, size), *errs = text_of(data, size), err[1024] = "";
	int code = codes[pick & 7], rc;

	snprintf(rh.reach, sizeof(rh.reach), "%s", pick & 8 ? "a" : "");
	snprintf(rh.pfclab, sizeof(rh.pfclab), "pfclab");
	rc = manifest_version_answer(&c, 0, code, pick & 0x10 ? NULL : out, errs, err, sizeof(err));
	if (rc != 0 && rc != -EHOSTUNREACH && rc != -ENOENT && rc != -EIO && rc != -EPROTO)
		__builtin_trap();
	if (rc ? !err[0] : strcmp(rh.version, PFCLAB_VERSION) != 0)
		__builtin_trap();	/* a failure says why; a pass is this very version */
	if (rh.lost != (rc == -EHOSTUNREACH))
		__builtin_trap();
	free(out);
	free(errs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_object *o;
	char *out;

	if (!size)
		return 0;
	check_version(data[0], data + 1, size - 1);
	out = text_of(data + 1, size - 1);
	o = json_object_new_object();
	if (!out || !o) {
		free(out);
		json_object_put(o);
		return 0;
	}
	manifest_parse_probe(o, out, (data[0] & 0x20) ? "0000:17:00.0" : "0", "mlx5_0");
	check_probe(o);
	json_object_put(o);
	free(out);
	return 0;
}
