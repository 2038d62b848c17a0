/* SPDX-License-Identifier: GPL-2.0-or-later */
/* steal.h: this machine's steal time, the steal column of /proc/stat's "cpu" line (its
 * CPUs summed): how long its virtual CPUs were ready to run while the hypervisor ran
 * something else. On a virtual machine that is the usual reason a thread that sleeps
 * until each 1 ms tick wakes late: the virtual CPU it sleeps on went idle, and the host
 * did not run it again in time. Zero on bare metal.
 */
#ifndef PFCLAB_LIB_HW_STEAL_H
#define PFCLAB_LIB_HW_STEAL_H

#include <stddef.h>
#include <stdint.h>

/* From the text of /proc/stat (n bytes, not necessarily terminated): the steal of its
 * "cpu" line in the kernel's clock ticks (USER_HZ). 0; -ENODATA when there is no whole
 * "cpu" line or it has no steal column (kernels before 2.6.11); -EINVAL when a field is
 * no number; -ERANGE when one does not fit 64 bits.
 */
int hw_steal_parse(const char *buf, size_t n, uint64_t *ticks);

/* The machine's steal time so far, in ns. 0, or -errno (as hw_steal_parse, or the
 * reading's own error).
 */
int hw_steal_read_ns(uint64_t *ns);

#endif
