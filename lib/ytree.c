// SPDX-License-Identifier: GPL-2.0-or-later
/* ytree.c: libyaml's event stream turned into a tree of maps, sequences and scalars with lines. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "lib/ytree.h"

#define YTREE_MAX_DEPTH 32

const char *ytree_type_name(enum ynode_type t)
{
	return t == YN_SCALAR ? "a value" : t == YN_MAP ? "a mapping" : "a list";
}

void ytree_free(struct ynode *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->n; i++) {
		ytree_free(n->v[i]);
		if (n->keys)
			free(n->keys[i]);
	}
	free(n->keys);
	free(n->key_lines);
	free(n->v);
	free(n->str);
	free(n);
}

struct ynode *ytree_get(const struct ynode *m, const char *key)
{
	size_t i;

	if (!m || m->type != YN_MAP)
		return NULL;
	for (i = 0; i < m->n; i++)
		if (!strcmp(m->keys[i], key))
			return m->v[i];
	return NULL;
}

struct yparse {
	yaml_parser_t p;
	const char *name;
	const char *text;	/* the input, for hints on the line of a syntax error */
	size_t len;
	char *err;
	size_t errlen;
};

static int fail(struct yparse *y, int line, const char *what)
{
	snprintf(y->err, y->errlen, "%s:%d: %s", y->name, line, what);
	return -EINVAL;
}

/* Whether the line of a syntax error holds an unquoted ${ after a { or [: in YAML's flow
 * style the $ starts a plain value and the { after it opens a mapping, which libyaml
 * reports without a word about the ${. */
static bool flow_ref_hint(const struct yparse *y)
{
	size_t line = y->p.problem_mark.line, b = 0, e, i;
	bool flow = false;
	char quote = 0;

	if (!y->text)
		return false;
	/* by line: libyaml's index counts characters, not bytes */
	while (line && b < y->len) {
		if (y->text[b++] == '\n')
			line--;
	}
	for (e = b; e < y->len && y->text[e] != '\n'; e++)
		;
	for (i = b; i + 1 < e; i++) {
		char c = y->text[i];

		if (quote) {	/* inside "..." or '...': not this */
			if (c == quote)
				quote = 0;
		} else if (c == '"' || c == '\'') {
			quote = c;
		} else if (c == '#') {
			return false;	/* the rest is a comment */
		} else if (c == '{' || c == '[') {
			flow = true;
		} else if (flow && c == '$' && y->text[i + 1] == '{') {
			return true;
		}
	}
	return false;
}

static int next(struct yparse *y, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&y->p, ev)) {
		char why[256];

		snprintf(why, sizeof(why), "not valid YAML: %s%s%s%s", y->p.problem ? y->p.problem : "?",
			 y->p.context ? " " : "", y->p.context ? y->p.context : "",
			 flow_ref_hint(y) ? "; a value that starts with ${ inside { } or [ ] is "
			 "quoted: {size: \"${s}\"}" : "");
		return fail(y, (int)y->p.problem_mark.line + 1, why);
	}
	return 0;
}

static int add_item(struct ynode *n, char *key, int key_line, struct ynode *v)
{
	struct ynode **nv = realloc(n->v, (n->n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	n->v = nv;
	if (n->type == YN_MAP) {
		char **nk = realloc(n->keys, (n->n + 1) * sizeof(*nk));
		int *nl;

		if (!nk)
			return -ENOMEM;
		n->keys = nk;
		nl = realloc(n->key_lines, (n->n + 1) * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		n->key_lines = nl;
		n->keys[n->n] = key;
		n->key_lines[n->n] = key_line;
	}
	n->v[n->n++] = v;
	return 0;
}

/* Builds the node whose first event is EV (consumed). */
static int node(struct yparse *y, yaml_event_t *ev, int depth, struct ynode **out)
{
	struct ynode *n = calloc(1, sizeof(*n));
	int rc = 0;

	if (!n) {
		yaml_event_delete(ev);
		return -ENOMEM;
	}
	n->line = (int)ev->start_mark.line + 1;
	if (depth > YTREE_MAX_DEPTH) {
		rc = fail(y, n->line, "nested too deeply");
		goto out;
	}
	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		rc = fail(y, n->line, "aliases (*name) are not supported; write the value out");
		goto out;
	case YAML_SCALAR_EVENT:
		n->type = YN_SCALAR;
		n->str = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
		if (!n->str)
			rc = -ENOMEM;
		else if (strlen(n->str) != ev->data.scalar.length)
			rc = fail(y, n->line, "a value holds a NUL byte");
		goto out;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT: {
		bool map = ev->type == YAML_MAPPING_START_EVENT;

		n->type = map ? YN_MAP : YN_SEQ;
		yaml_event_delete(ev);
		for (;;) {
			yaml_event_t e;
			char *key = NULL;
			int key_line = 0;
			struct ynode *child;

			rc = next(y, &e);
			if (rc)
				break;
			if (e.type == YAML_SEQUENCE_END_EVENT || e.type == YAML_MAPPING_END_EVENT) {
				yaml_event_delete(&e);
				break;
			}
			if (map) {
				key_line = (int)e.start_mark.line + 1;
				if (e.type != YAML_SCALAR_EVENT) {
					yaml_event_delete(&e);
					rc = fail(y, key_line, "a key must be a plain word");
					break;
				}
				key = strndup((const char *)e.data.scalar.value, e.data.scalar.length);
				yaml_event_delete(&e);
				if (!key) {
					rc = -ENOMEM;
					break;
				}
				if (ytree_get(n, key)) {
					char why[256];

					snprintf(why, sizeof(why), "key '%.100s' given twice", key);
					free(key);
					rc = fail(y, key_line, why);
					break;
				}
				rc = next(y, &e);
				if (rc) {
					free(key);
					break;
				}
			}
			rc = node(y, &e, depth + 1, &child);
			if (rc) {
				free(key);
				break;
			}
			rc = add_item(n, key, key_line, child);
			if (rc) {
				free(key);
				ytree_free(child);
				break;
			}
		}
		if (rc) {
			ytree_free(n);
			return rc;
		}
		*out = n;
		return 0;
	}
	default:
		rc = fail(y, n->line, "unexpected YAML structure");
		goto out;
	}
out:
	yaml_event_delete(ev);
	if (rc) {
		ytree_free(n);
		return rc;
	}
	*out = n;
	return 0;
}

int ytree_parse(const char *name, const char *text, size_t len, struct ynode **root, char *err,
		size_t errlen)
{
	struct yparse y = { .name = name, .text = text, .len = len, .err = err, .errlen = errlen };
	yaml_event_t ev;
	int rc;

	*root = NULL;
	if (!yaml_parser_initialize(&y.p))
		return -ENOMEM;
	yaml_parser_set_input_string(&y.p, (const unsigned char *)text, len);
	/* stream start, document start */
	do {
		rc = next(&y, &ev);
		if (rc)
			goto out;
		if (ev.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			rc = fail(&y, 1, "the file is empty; an experiment is a mapping (name:, hosts:, phases:)");
			goto out;
		}
		if (ev.type == YAML_STREAM_START_EVENT || ev.type == YAML_DOCUMENT_START_EVENT) {
			yaml_event_delete(&ev);
			continue;
		}
		break;
	} while (1);
	rc = node(&y, &ev, 0, root);
	if (rc)
		goto out;
	rc = next(&y, &ev);
	if (rc)
		goto out;
	if (ev.type != YAML_DOCUMENT_END_EVENT) {
		rc = fail(&y, (int)ev.start_mark.line + 1, "more than one document; keep one experiment per file");
		yaml_event_delete(&ev);
		goto out;
	}
	yaml_event_delete(&ev);
	rc = next(&y, &ev);
	if (rc)
		goto out;
	if (ev.type != YAML_STREAM_END_EVENT)
		rc = fail(&y, (int)ev.start_mark.line + 1, "more than one document; keep one experiment per file");
	yaml_event_delete(&ev);
out:
	yaml_parser_delete(&y.p);
	if (rc) {
		ytree_free(*root);
		*root = NULL;
	}
	return rc;
}

int ytree_read_file(const char *path, const char *what, char **text, size_t *len, char *err,
		    size_t errlen)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char *buf;
	int rc;

	*text = NULL;
	*len = 0;
	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	/* fopen takes a directory; reading it is what fails (EISDIR) */
	if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is a directory; %s is expected", path, what);
		fclose(f);
		return -EISDIR;
	}
	buf = malloc(YTREE_MAX_FILE);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	errno = 0;
	*len = fread(buf, 1, YTREE_MAX_FILE - 1, f);
	if (ferror(f) || !feof(f)) {
		snprintf(err, errlen, "%s: %s", path, !ferror(f) ? "larger than 1 MiB" : errno ?
			 strerror(errno) : "read error");
		if (!ferror(f))
			snprintf(err + strlen(err), errlen - strlen(err), "; %s is expected", what);
		fclose(f);
		free(buf);
		*len = 0;
		return -EIO;
	}
	fclose(f);
	buf[*len] = 0;
	*text = buf;
	return 0;
}
