// SPDX-License-Identifier: GPL-2.0-or-later
/* expval.c: a host of an experiment by its name, and ${var} substitution of sweep values
 * (expval.h), for every block of the experiment alike.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "expval.h"

int exp_host_find(const struct exp *e, const char *name)
{
	size_t i;

	for (i = 0; i < e->nhosts; i++)
		if (!strcmp(e->hosts[i].name, name))
			return (int)i;
	return -1;
}

/* The sweep variable named by the LEN characters at NAME, or -1. */
static int sweep_var(const struct exp *e, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < e->nsweep; i++)
		if (strlen(e->sweep[i].name) == len && !strncmp(e->sweep[i].name, name, len))
			return (int)i;
	return -1;
}

int exp_subst(const struct exp *e, const struct exp_point *p, const char *s, char **out,
	      int *var, const char **at)
{
	size_t cap = strlen(s) + 1, len = 0;
	const char *q;
	char *o;

	*out = NULL;
	*var = -1;
	o = malloc(cap);
	if (!o)
		return -ENOMEM;
	for (q = s; *q;) {
		const char *end, *val;
		size_t vl;
		int i;

		if (q[0] != '$' || q[1] != '{') {
			o[len++] = *q++;
			continue;
		}
		end = strchr(q, '}');
		i = end ? sweep_var(e, q + 2, (size_t)(end - q - 2)) : -1;
		if (i < 0) {
			*at = q;
			free(o);
			return -EINVAL;
		}
		val = p ? p->values[i] : e->sweep[i].values[0];
		vl = strlen(val);
		cap += vl;
		{
			char *no = realloc(o, cap);

			if (!no) {
				free(o);
				return -ENOMEM;
			}
			o = no;
		}
		memcpy(o + len, val, vl);
		len += vl;
		*var = i;
		q = end + 1;
	}
	o[len] = 0;
	*out = o;
	return 0;
}
