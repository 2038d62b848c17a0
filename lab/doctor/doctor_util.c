// SPDX-License-Identifier: GPL-2.0-or-later
/* doctor_util.c: the doctor's finding list and the module check its checks share. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lab/doctor/doctor.h"

void doctor_add(struct doctor_report *r, const char *section, const char *item,
		enum doctor_level level, const char *fix, const char *fmt, ...)
{
	struct doctor_finding *f;
	va_list ap;

	if (r->n >= DOCTOR_MAX_FINDINGS) {
		r->dropped++;
		return;
	}
	f = &r->f[r->n++];
	memset(f, 0, sizeof(*f));
	snprintf(f->section, sizeof(f->section), "%s", section);
	snprintf(f->item, sizeof(f->item), "%s", item);
	f->level = level;
	snprintf(f->fix, sizeof(f->fix), "%s", fix ? fix : "");
	va_start(ap, fmt);
	vsnprintf(f->detail, sizeof(f->detail), fmt, ap);
	va_end(ap);
}

const char *doctor_level_name(enum doctor_level l)
{
	switch (l) {
	case DOCTOR_OK:
		return "OK";
	case DOCTOR_INFO:
		return "INFO";
	case DOCTOR_WARN:
		return "WARN";
	case DOCTOR_FAIL:
		return "FAIL";
	}
	return "?";
}

bool doctor_module_loaded(const char *name)
{
	char line[512];
	size_t len = strlen(name);
	bool found = false;
	FILE *f = fopen("/proc/modules", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, name, len) && line[len] == ' ';
	fclose(f);
	return found;
}
