/* SPDX-License-Identifier: GPL-2.0-or-later */
/* opt.h: pfclab's one option layer. A command describes its options in a table, one
 * entry each: long name, short letter, value kind, range, destination, help. One loop
 * parses them all (getopt_long underneath), every bad value is refused in one style,
 *   pfclab CMD: --opt 'x': why
 * and --help is generated from the same table.
 *
 * Letters mean the same thing in every command:
 *   -D duration   -I interval   -c count   -q quiet   -j JSON
 *   -i network interface        -d RDMA device
 * except where traffic keeps perftest's (ib_write_bw's) letters: there -i is the IB port,
 * -I the inline size and -q the number of QPs. Letters a command used before that now
 * mean something else elsewhere stay accepted as aliases (struct opt.alias), unlisted.
 * A second long name (struct opt.long_alias) makes one option answer to the spelling
 * another command uses (capture's --interface is also --iface, as in monitor): parsed
 * as the option itself (messages, OPT_ONCE and opt_given use its name), and listed in
 * --help below the option's help as "(also --iface)".
 */
#ifndef PFCLAB_LIB_OPT_H
#define PFCLAB_LIB_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum opt_kind {
	OPT_FLAG,	/* bool *: set */
	OPT_U32,	/* uint32_t *: integer in [min, max] */
	OPT_U64,	/* uint64_t *: integer in [min, max] */
	OPT_SIZE,	/* uint64_t *: bytes, K/M/G suffixes, in [min, max] */
	OPT_DUR,	/* uint64_t *: nanoseconds from 10ms, 1s, 1.5s, 250us ..., in [min, max] */
	OPT_STR,	/* const char **: the argument itself */
	OPT_FN,		/* fn(dst, value, why): anything else */
	OPT_TEXT,	/* not an option: a heading in --help (.help), e.g. "How many:" */
};

#define OPT_OPTIONAL	0x1	/* the value is optional: --frames[=IFACE] */
#define OPT_ONCE	0x2	/* giving it twice is a usage error */

/* OPT_FN: 0, or -1 with why filled (what is wrong and what to give). value is NULL for
 * an OPT_OPTIONAL option given without one.
 */
typedef int (*opt_fn)(void *dst, const char *value, char *why, size_t whylen);

struct opt {
	const char *name;	/* long name, without "--" */
	char letter;		/* short letter, or 0 */
	enum opt_kind kind;
	uint64_t min, max;	/* numbers, sizes, durations (ns) */
	void *dst;
	opt_fn fn;		/* OPT_FN */
	const char *arg;	/* the value's name in --help: "DUR", "IFACE" */
	const char *help;	/* one or more lines ("\n" between them) */
	const char *alias;	/* older short letters still accepted, e.g. "t" */
	const char *long_alias;	/* another long name accepted, e.g. "iface" (or NULL) */
	unsigned int flags;
};

#define OPT_END { 0 }
#define OPT_HEADING(text) { "", 0, OPT_TEXT, .help = (text) }

struct opt_cmd {
	const char *name;	/* "monitor": messages say "pfclab monitor: ..." */
	const char *usage;	/* --help text before the option list */
	const char *tail;	/* --help text after it */
	const struct opt *opts;	/* ends with OPT_END */
	void (*extra)(FILE *f);	/* --help: printed between the list and tail (may be NULL) */
	char *err;		/* when set, the message goes here (no "pfclab CMD: " prefix) */
	size_t errlen;		/*   instead of standard error */
};

#define OPT_HELP	(-1)	/* --help was given and printed: exit 0 */
#define OPT_USAGE	(-2)	/* a usage error was reported: exit 2 */

/* Parse argv[1..]; returns the index of the first operand, OPT_HELP or OPT_USAGE.
 * Options may follow operands (GNU order).
 */
int opt_parse(const struct opt_cmd *c, int argc, char **argv);

/* The usage text, the option list made from the table, and the tail. */
void opt_help(const struct opt_cmd *c, FILE *f);

/* The value parser every command shares for an RDMA device: "mlx5_0" or "mlx5_0:2"
 * (port 1..255; *port untouched without one). 0, or -1 with why filled.
 */
int opt_rdma_dev(const char *v, char *dev, size_t devlen, uint32_t *port, char *why,
		 size_t whylen);

/* Whether the option with this long name was given in the last opt_parse. */
bool opt_given(const struct opt_cmd *c, const char *name);

#endif
