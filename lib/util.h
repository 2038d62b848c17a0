/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.h: small helpers every pfclab component shares: error messages, number and
 * duration parsing, monotonic and wall clocks.
 */
#ifndef PFCLAB_UTIL_H
#define PFCLAB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Program name used as the prefix of every diagnostic ("pfclab traffic"). */
void pfc_set_progname(const char *name);
const char *pfc_progname(void);

/* One line on stderr: "<progname>: <message>". */
void pfc_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Like pfc_err, with ": <strerror(err)>" appended; err is a positive errno. */
void pfc_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pfc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A bad option value: "<progname>: OPT 'VAL': WANT" (WANT says what to give).
 * Returns 2, the usage-error exit status, for `return pfc_bad_arg(...)`. */
int pfc_bad_arg(const char *opt, const char *val, const char *want);
/* The reason for a library error, for the caller to print: formats into why (when why
 * and n are non-zero) and returns err, for `return pfc_why(why, n, -EINVAL, ...)`. */
int pfc_why(char *why, size_t n, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* write() all n bytes, again after EINTR and short writes; 0 or -errno. */
int pfc_write_all(int fd, const void *buf, size_t n);
/* mkdir -p with mode 0755: dir and any missing parents; 0, -ENAMETOOLONG or -errno. */
int pfc_mkdir_p(const char *dir);

/* Parsers return 0 or -EINVAL / -ERANGE (durations also -EDOM); *out untouched on error. */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);
/* Sizes with optional binary suffix: 64, 4K, 64KiB, 1M, 2G (K = 1024). */
int parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Durations: a decimal number and a unit (ns, us, ms, s, m or min, h; a bare number means
 * seconds), with a decimal fraction if wanted: 10ms, 1s, 1.5s, 0.25ms, 2m, 1h. Parsed as
 * decimal into whole ns, with no rounding: -EDOM when the value is not a whole number of
 * ns (1.5ns, 0.0000000001s); -EINVAL when it is no duration, -ERANGE out of range.
 */
int parse_duration_ns(const char *s, uint64_t min_ns, uint64_t max_ns, uint64_t *out);
/* ns as parse_duration_ns reads it back, exactly: in hours or minutes when whole, else
 * in the largest of s, ms, us that it reaches, with the fraction it needs: "1h", "90s",
 * "1.5s", "2.5ms", "100us", "999ns", "0ns".
 */
void fmt_duration_ns(uint64_t ns, char *buf, size_t len);

/* What to say when ibv_get_device_list fails with ENOSYS: the kernel has no RDMA (uverbs)
 * support at all, so neither a driver nor Soft-RoCE can help on this host.
 */
#define PFC_NO_RDMA_KERNEL \
	"this kernel has no RDMA support (ibv_get_device_list: no uverbs in the kernel)"
#define PFC_NO_RDMA_KERNEL_FIX \
	"try pfclab on this machine in the virtual lab: lab/vlab/vlab run SCRIPT (QEMU guests with Soft-RoCE, see README)"

/* An interface name as the kernel takes one (dev_valid_name): 1..15 bytes, not "." or
 * "..", no '/', ':', white space or control character. */
bool pfc_ifname_valid(const char *s);

/* Whether the comma-separated list holds the n-byte item exactly ("a,bc,d" holds "bc"). */
bool pfc_list_has(const char *list, const char *item, size_t n);
/* Cuts s in place at each sep into at most max fields (the last keeps any further seps),
 * empty ones included; f[i] point into s. Returns the count (at least 1 when max > 0). */
size_t pfc_split(char *s, char sep, char **f, size_t max);
/* qsort comparator of an array of C strings (char *), in strcmp order. */
int pfc_cmp_str(const void *a, const void *b);

uint64_t time_mono_ns(void);
uint64_t time_real_ns(void);
/* CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID), in ns. */
uint64_t time_thread_cpu_ns(void);
/* A time or duration in ns as a struct timespec (for clock_nanosleep, ppoll, timed waits). */
struct timespec ns_timespec(uint64_t ns);

#endif
