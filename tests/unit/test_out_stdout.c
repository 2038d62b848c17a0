// SPDX-License-Identifier: GPL-2.0-or-later
/* test_out_stdout.c: out_stdout_gone on each kind of standard output (a file, /dev/null,
 * a pipe or a socket with and without its reader, no descriptor 1), and that what it
 * finds, or what out_stdout_failed records, is out_stdout_check's error for the front
 * door. Each case runs in a child process: standard output and the module's first error
 * are per process.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/out.h"

enum target {
	T_FILE, T_DEVNULL, T_PIPE, T_PIPE_CLOSED, T_SOCKET, T_SOCKET_CLOSED, T_NONE,
	T_FAILED,	/* a pipe with its reader, and out_stdout_failed(-ENOSPC) */
};

static const struct {
	enum target t;
	const char *name;
	int gone, check;	/* out_stdout_gone, then out_stdout_check */
} cases[] = {
	{ T_FILE,          "a file",                        0,       0 },
	{ T_DEVNULL,       "/dev/null",                     0,       0 },
	{ T_PIPE,          "a pipe with its reader",        0,       0 },
	{ T_PIPE_CLOSED,   "a pipe whose reader closed",    -EPIPE,  -EPIPE },
	{ T_SOCKET,        "a socket with its peer",        0,       0 },
	{ T_SOCKET_CLOSED, "a socket whose peer closed",    -EPIPE,  -EPIPE },
	{ T_NONE,          "no descriptor 1",               0,       0 },
	{ T_FAILED,        "out_stdout_failed(-ENOSPC)",    -ENOSPC, -ENOSPC },
};

/* In the child: descriptor 1 made the target; the far end, if any, is kept in *peer. */
static int set_stdout(enum target t, int *peer)
{
	char path[] = "/tmp/test_out_stdout.XXXXXX";
	int p[2], fd = -1;

	*peer = -1;
	switch (t) {
	case T_FILE:
		fd = mkstemp(path);
		if (fd < 0)
			return -1;
		unlink(path);
		break;
	case T_DEVNULL:
		fd = open("/dev/null", O_WRONLY);
		break;
	case T_PIPE:
	case T_PIPE_CLOSED:
	case T_FAILED:
		if (pipe(p))
			return -1;
		fd = p[1];
		*peer = p[0];
		break;
	case T_SOCKET:
	case T_SOCKET_CLOSED:
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, p))
			return -1;
		fd = p[0];
		*peer = p[1];
		break;
	case T_NONE:
		return close(STDOUT_FILENO) && errno != EBADF ? -1 : 0;
	}
	if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
		return -1;
	if (fd != STDOUT_FILENO)
		close(fd);
	if (t == T_PIPE_CLOSED || t == T_SOCKET_CLOSED) {
		close(*peer);
		*peer = -1;
	}
	return 0;
}

static void run_case(size_t i)
{
	int res[2] = { 1, 1 }, rp[2], status;
	pid_t pid;

	assert_int_equal(pipe(rp), 0);
	fflush(NULL);	/* the child's flushes must not repeat the runner's output */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int peer;

		close(rp[0]);
		signal(SIGPIPE, SIG_IGN);
		if (set_stdout(cases[i].t, &peer))
			_exit(2);
		if (cases[i].t == T_FAILED)
			out_stdout_failed(-ENOSPC);
		res[0] = out_stdout_gone();
		res[1] = out_stdout_check();
		_exit(write(rp[1], res, sizeof(res)) == sizeof(res) ? 0 : 3);
	}
	close(rp[1]);
	assert_int_equal(read(rp[0], res, sizeof(res)), sizeof(res));
	close(rp[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (res[0] != cases[i].gone || res[1] != cases[i].check)
		fail_msg("%s: out_stdout_gone %d, out_stdout_check %d; want %d, %d", cases[i].name,
			 res[0], res[1], cases[i].gone, cases[i].check);
}

static void test_targets(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(i);
}

/* A write that fails on the closed pipe is found by out_stdout_check as before, and
 * out_stdout_gone then returns the same error without looking again. */
static void test_write_first(void **state)
{
	int res[2] = { 1, 1 }, rp[2], p[2], status;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(rp), 0);
	fflush(NULL);	/* the child's flushes must not repeat the runner's output */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(rp[0]);
		signal(SIGPIPE, SIG_IGN);
		if (pipe(p) || dup2(p[1], STDOUT_FILENO) < 0)
			_exit(2);
		close(p[1]);
		close(p[0]);
		fputs("lost\n", stdout);
		res[1] = out_stdout_check();
		res[0] = out_stdout_gone();
		_exit(write(rp[1], res, sizeof(res)) == sizeof(res) ? 0 : 3);
	}
	close(rp[1]);
	assert_int_equal(read(rp[0], res, sizeof(res)), sizeof(res));
	close(rp[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(res[1], -EPIPE);
	assert_int_equal(res[0], -EPIPE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_write_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
