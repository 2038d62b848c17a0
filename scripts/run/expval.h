/* SPDX-License-Identifier: GPL-2.0-or-later */
/* expval.h: what the blocks of an experiment look up in the model once it is read (exp.c
 * for hosts, phases and traffic; cpoint.c for the bottleneck): a host by its name, and a
 * value with each ${var} replaced by a sweep point's value. One copy of each, called by
 * both and calling neither.
 */
#ifndef PFCLAB_RUN_EXPVAL_H
#define PFCLAB_RUN_EXPVAL_H

#include "exp.h"

/* The index of host NAME in E's hosts:, or -1. */
int exp_host_find(const struct exp *e, const char *name);

/* S with every ${name} replaced by the value of sweep variable NAME at point P (P NULL:
 * each variable's first value). 0 with *OUT malloc'd and *VAR the index of the last
 * variable replaced (-1 for none); -EINVAL with *AT pointing at the "${" in S that has no
 * '}' or names no sweep variable (the caller says which: strchr(*AT, '}')); -ENOMEM.
 */
int exp_subst(const struct exp *e, const struct exp_point *p, const char *s, char **out,
	      int *var, const char **at);

#endif
