/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ytree.h: a YAML file read with libyaml into a small tree whose every node knows its line,
 * so that an error can name file, line and key (the experiment files of `pfclab run` and
 * `pfclab top -e`).
 */
#ifndef PFCLAB_LIB_YTREE_H
#define PFCLAB_LIB_YTREE_H

#include <stddef.h>

enum ynode_type { YN_SCALAR, YN_MAP, YN_SEQ };

struct ynode {
	enum ynode_type type;
	int line;	   /* 1-based line of the node's start */
	char *str;	   /* YN_SCALAR: the value (never NULL) */
	size_t n;	   /* YN_MAP: pairs; YN_SEQ: items */
	char **keys;	   /* YN_MAP: key of each item */
	int *key_lines;	   /* YN_MAP: line of each key */
	struct ynode **v;  /* YN_MAP / YN_SEQ: the items */
};

/* The largest file ytree_read_file takes. */
#define YTREE_MAX_FILE (1 << 20)

/* Read the file PATH whole into *TEXT (malloc'd, NUL-terminated) and *LEN. WHAT names the
 * file expected in messages ("an experiment file (YAML)"). 0, or -errno with "PATH: why"
 * in ERR: -EISDIR for a directory, -EIO for a file past YTREE_MAX_FILE or one that could
 * not be read, or what fopen said. */
int ytree_read_file(const char *path, const char *what, char **text, size_t *len, char *err,
		    size_t errlen);

/* Parse TEXT of LEN bytes; NAME is used in messages. 0, or -EINVAL with a message
 * "NAME:LINE: why" in ERR. Aliases and anchors are refused, as are duplicate keys. */
int ytree_parse(const char *name, const char *text, size_t len, struct ynode **root, char *err,
		size_t errlen);
void ytree_free(struct ynode *n);

/* The value of KEY in map M, or NULL (also when M is not a map). */
struct ynode *ytree_get(const struct ynode *m, const char *key);
const char *ytree_type_name(enum ynode_type t);

#endif
