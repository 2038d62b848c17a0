// SPDX-License-Identifier: GPL-2.0-or-later
/* remote.c: commands started locally, over OpenSSH or through srun, and files copied back. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "remote.h"
#include "util.h"

const char *remote_control_dir(int *err)
{
	static char dir[PATH_MAX];
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;

	if (dir[0])
		return dir;
	if (xdg && xdg[0] == '/' && !access(xdg, W_OK))
		snprintf(dir, sizeof(dir), "%s/pfclab-ssh", xdg);
	else
		snprintf(dir, sizeof(dir), "/tmp/pfclab-ssh-%u", (unsigned)getuid());
	if (mkdir(dir, 0700) && errno != EEXIST)
		goto fail;
	if (lstat(dir, &st))
		goto fail;
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077)) {
		errno = EPERM;
		goto fail;
	}
	return dir;
fail:
	if (err)
		*err = -errno;
	dir[0] = 0;
	return NULL;
}

char *remote_shell_quote(const char *s)
{
	size_t n = 3, i;
	char *q, *o;

	for (i = 0; s[i]; i++)
		n += s[i] == '\'' ? 4 : 1;
	q = malloc(n);
	if (!q)
		return NULL;
	o = q;
	*o++ = '\'';
	for (i = 0; s[i]; i++) {
		if (s[i] == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = s[i];
		}
	}
	*o++ = '\'';
	*o = 0;
	return q;
}

static bool needs_quote(const char *s)
{
	if (!*s)
		return true;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-_./=:,+@%", *s))
			return true;
	return false;
}

char *remote_argv_join(const char *const *argv)
{
	size_t len = 1, i;
	char *line, *w;

	for (i = 0; argv[i]; i++)
		len += strlen(argv[i]) * 4 + 3;
	line = malloc(len);
	if (!line)
		return NULL;
	line[0] = 0;
	for (i = 0; argv[i]; i++) {
		if (i)
			strcat(line, " ");
		if (needs_quote(argv[i])) {
			w = remote_shell_quote(argv[i]);
			if (!w) {
				free(line);
				return NULL;
			}
			strcat(line, w);
			free(w);
		} else {
			strcat(line, argv[i]);
		}
	}
	return line;
}

void remote_argv_free(char **argv)
{
	size_t i;

	if (!argv)
		return;
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* a small growable argv */
struct vec {
	char **v;
	size_t n, cap;
	int err;
};

static void vec_add(struct vec *a, const char *s)
{
	char **nv;

	if (a->err)
		return;
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		nv = realloc(a->v, a->cap * sizeof(*nv));
		if (!nv) {
			a->err = -ENOMEM;
			return;
		}
		a->v = nv;
	}
	a->v[a->n] = s ? strdup(s) : NULL;
	if (!a->v[a->n]) {
		a->err = -ENOMEM;
		return;
	}
	a->v[++a->n] = NULL;
}

/* PREFIX followed by ARG, as one word */
static void vec_add2(struct vec *a, const char *prefix, const char *arg, const char *suffix)
{
	char buf[PATH_MAX + 64];

	snprintf(buf, sizeof(buf), "%s%s%s", prefix, arg, suffix);
	vec_add(a, buf);
}

/* The ssh configuration pfclab passes with -F: the user's own files first (the --ssh-config
 * file, else ~/.ssh/config and /etc/ssh/ssh_config, as ssh reads them by default), then
 * pfclab's defaults. ssh keeps the first value it obtains for each option, so a value the
 * user set (ConnectTimeout for a slow jump host, say) wins over pfclab's; a `-o` on the
 * command line would override it instead. Written to DIR/ssh_config-<hash of the user's
 * file> (tmp + rename, so concurrent writers are harmless); the path goes to CFG.
 */
#define REMOTE_CONNECT_TIMEOUT_S 10

static uint64_t fnv1a(const char *c)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ULL;
	return h;
}

/* The files this process wrote (their paths' hashes): each is written once, not for every
 * command, unless it has gone since. */
static pthread_mutex_t written_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t written[16];
static size_t nwritten;

static bool written_before(uint64_t key, const char *path)
{
	bool seen = false;
	size_t i;

	pthread_mutex_lock(&written_mu);
	for (i = 0; i < nwritten && !seen; i++)
		seen = written[i] == key;
	pthread_mutex_unlock(&written_mu);
	return seen && !access(path, F_OK);
}

static void written_add(uint64_t key)
{
	pthread_mutex_lock(&written_mu);
	if (nwritten < sizeof(written) / sizeof(written[0]))
		written[nwritten++] = key;
	pthread_mutex_unlock(&written_mu);
}

/* PATH's full path into ABS (PATH_MAX) as an Include line can hold it: 0, -errno, or
 * -EINVAL for a double quote or newline in it. */
static int config_abs(const char *path, char *abs)
{
	if (!realpath(path, abs))
		return -errno;
	return strpbrk(abs, "\"\n") ? -EINVAL : 0;
}

const char *remote_ssh_config_problem(const char *path)
{
	char abs[PATH_MAX];
	int rc = config_abs(path, abs);

	if (rc == -EINVAL)
		return "its full path holds a double quote or a newline, which ssh's Include "
		       "cannot take; give a path without them";
	if (rc)
		return strerror(-rc);
	return access(abs, R_OK) ? strerror(errno) : NULL;
}

static int defaults_config(const char *dir, const char *user, char *cfg, size_t n)
{
	char abs[PATH_MAX], tmp[PATH_MAX + 32], body[PATH_MAX + 512];
	uint64_t key;
	int fd, len, rc;

	if (user && (rc = config_abs(user, abs)))
		return rc;
	if (snprintf(cfg, n, "%s/ssh_config-%016llx", dir,
		     (unsigned long long)fnv1a(user ? abs : "")) >= (int)n)
		return -ENAMETOOLONG;
	key = fnv1a(cfg);
	if (written_before(key, cfg))
		return 0;
	if (user)
		len = snprintf(body, sizeof(body), "Include \"%s\"\n", abs);
	else
		len = snprintf(body, sizeof(body),
			       "Include ~/.ssh/config\nInclude /etc/ssh/ssh_config\n");
	len += snprintf(body + len, sizeof(body) - (size_t)len,
			"# pfclab's defaults, for what the files above leave unset\n"
			"Host *\n\tConnectTimeout %d\n", REMOTE_CONNECT_TIMEOUT_S);
	snprintf(tmp, sizeof(tmp), "%s.%ld.%lx", cfg, (long)getpid(), (unsigned long)pthread_self());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	rc = pfc_write_all(fd, body, (size_t)len);
	if (close(fd) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, cfg))
		rc = -errno;
	if (rc)
		unlink(tmp);
	else
		written_add(key);
	return rc;
}

int remote_argv_build(const struct remote_target *t, const char *const *argv, char ***out)
{
	struct vec a = { 0 };
	char *line;
	size_t i;

	if (!argv || !argv[0])
		return -EINVAL;
	switch (t->kind) {
	case REMOTE_LOCAL:
		for (i = 0; argv[i]; i++)
			vec_add(&a, argv[i]);
		break;
	case REMOTE_SSH: {
		const char *dir = t->control_dir;
		char num[16], cfg[PATH_MAX];
		int err = 0;

		if (!t->host || !t->host[0])
			return -EINVAL;
		if (!dir)
			dir = remote_control_dir(&err);
		if (!dir)
			return err ? err : -EPERM;
		err = defaults_config(dir, t->ssh_config, cfg, sizeof(cfg));
		if (err)
			return err;
		vec_add(&a, "ssh");
		vec_add(&a, "-o");
		vec_add(&a, "BatchMode=yes");
		vec_add(&a, "-o");
		vec_add(&a, "ControlMaster=auto");
		vec_add(&a, "-o");
		vec_add2(&a, "ControlPath=", dir, "/cm-%C");
		vec_add(&a, "-o");
		vec_add(&a, "ControlPersist=60");
		if (t->connect_timeout_s > 0) {
			snprintf(num, sizeof(num), "%d", t->connect_timeout_s);
			vec_add(&a, "-o");
			vec_add2(&a, "ConnectTimeout=", num, "");
		}
		vec_add(&a, "-F");
		vec_add(&a, cfg);
		vec_add(&a, "-T");
		vec_add(&a, t->host);
		vec_add(&a, "--");
		line = remote_argv_join(argv);
		if (!line) {
			a.err = -ENOMEM;
			break;
		}
		vec_add(&a, line);
		free(line);
		break;
	}
	case REMOTE_SRUN:
		if (!t->host || !t->host[0])
			return -EINVAL;
		vec_add(&a, "srun");
		vec_add(&a, "--nodes=1");
		vec_add(&a, "--ntasks=1");
		vec_add2(&a, "--nodelist=", t->host, "");
		vec_add(&a, "--overlap");
		vec_add(&a, "--quiet");
		vec_add(&a, "--");
		for (i = 0; argv[i]; i++)
			vec_add(&a, argv[i]);
		break;
	default:
		return -EINVAL;
	}
	if (a.err) {
		remote_argv_free(a.v);
		return a.err;
	}
	*out = a.v;
	return 0;
}

static int open_out(const char *path, bool append)
{
	return open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);
}

int remote_spawn(const struct remote_target *t, const char *const *argv,
		 const struct remote_io *io, struct remote_proc *p)
{
	static const struct remote_io none = { 0 };
	int pin[2] = { -1, -1 }, pout[2] = { -1, -1 }, perr[2] = { -1, -1 };
	int fin = -1, fout = -1, ferr = -1, err;
	char **av = NULL;
	pid_t pid;

	if (!io)
		io = &none;
	memset(p, 0, sizeof(*p));
	p->in_fd = p->out_fd = p->err_fd = -1;
	err = remote_argv_build(t, argv, &av);
	if (err)
		return err;
	if (((io->flags & REMOTE_PIPE_IN) && pipe2(pin, O_CLOEXEC)) ||
	    ((io->flags & REMOTE_PIPE_OUT) && pipe2(pout, O_CLOEXEC)) ||
	    ((io->flags & REMOTE_PIPE_ERR) && pipe2(perr, O_CLOEXEC)))
		goto fail_errno;
	if (!(io->flags & REMOTE_PIPE_IN) && io->in_fd <= 0) {
		fin = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fin < 0)
			goto fail_errno;
	}
	if (!(io->flags & REMOTE_PIPE_OUT) && io->out_fd <= 0) {
		fout = io->out_path ? open_out(io->out_path, io->append)
				    : open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (fout < 0)
			goto fail_errno;
	}
	if (!(io->flags & REMOTE_PIPE_ERR)) {
		ferr = io->err_path ? open_out(io->err_path, io->append)
				    : open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (ferr < 0)
			goto fail_errno;
	}
	pid = fork();
	if (pid < 0)
		goto fail_errno;
	if (pid == 0) {
		int in = (io->flags & REMOTE_PIPE_IN) ? pin[0] : io->in_fd > 0 ? io->in_fd : fin;
		int out = (io->flags & REMOTE_PIPE_OUT) ? pout[1] : io->out_fd > 0 ? io->out_fd : fout;
		int er = (io->flags & REMOTE_PIPE_ERR) ? perr[1] : ferr;

		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(er, 2) < 0)
			_exit(127);
		execvp(av[0], av);
		dprintf(2, "%s: %s\n", av[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid); /* both sides, so a kill right after spawn finds the group */
	p->pid = pid;
	if (io->flags & REMOTE_PIPE_IN) {
		close(pin[0]);
		p->in_fd = pin[1];
	}
	if (io->flags & REMOTE_PIPE_OUT) {
		close(pout[1]);
		p->out_fd = pout[0];
	}
	if (io->flags & REMOTE_PIPE_ERR) {
		close(perr[1]);
		p->err_fd = perr[0];
	}
	if (fin >= 0)
		close(fin);
	if (fout >= 0)
		close(fout);
	if (ferr >= 0)
		close(ferr);
	remote_argv_free(av);
	return 0;

fail_errno:
	err = -errno;
	if (pin[0] >= 0) {
		close(pin[0]);
		close(pin[1]);
	}
	if (pout[0] >= 0) {
		close(pout[0]);
		close(pout[1]);
	}
	if (perr[0] >= 0) {
		close(perr[0]);
		close(perr[1]);
	}
	if (fin >= 0)
		close(fin);
	if (fout >= 0)
		close(fout);
	if (ferr >= 0)
		close(ferr);
	remote_argv_free(av);
	return err;
}

int remote_wait(struct remote_proc *p, int timeout_ms)
{
	uint64_t end = time_mono_ns() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms) * 1000000ull;
	int st;
	pid_t r;

	if (p->reaped)
		return 0;
	if (p->pid <= 0)
		return -ECHILD;
	for (;;) {
		r = waitpid(p->pid, &st, timeout_ms < 0 ? 0 : WNOHANG);
		if (r == p->pid) {
			p->status = st;
			p->reaped = true;
			return 0;
		}
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r < 0 && timeout_ms < 0)
			continue; /* EINTR: the caller's handler ran; keep waiting */
		if (timeout_ms >= 0 && time_mono_ns() >= end)
			return -ETIMEDOUT;
		if (timeout_ms >= 0)
			nanosleep(&(struct timespec){ 0, 5000000 }, NULL);
	}
}

int remote_kill(struct remote_proc *p, int sig)
{
	if (p->pid <= 0 || p->reaped)
		return -ESRCH;
	if (kill(-p->pid, sig) && kill(p->pid, sig))
		return -errno;
	return 0;
}

void remote_proc_close(struct remote_proc *p)
{
	if (p->in_fd >= 0)
		close(p->in_fd);
	if (p->out_fd >= 0)
		close(p->out_fd);
	if (p->err_fd >= 0)
		close(p->err_fd);
	p->in_fd = p->out_fd = p->err_fd = -1;
}

int remote_exit_code(const struct remote_proc *p)
{
	if (!p->reaped)
		return -1;
	if (WIFEXITED(p->status))
		return WEXITSTATUS(p->status);
	if (WIFSIGNALED(p->status))
		return 128 + WTERMSIG(p->status);
	return -1;
}

struct sink {
	char *buf;
	size_t len, max;
};

static int sink_read(int fd, struct sink *s)
{
	char tmp[4096];
	ssize_t n = read(fd, tmp, sizeof(tmp));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : -errno;
	if (n == 0)
		return 0;
	if (s && s->len < s->max) {
		size_t keep = (size_t)n;

		if (keep > s->max - s->len)
			keep = s->max - s->len;
		memcpy(s->buf + s->len, tmp, keep);
		s->len += keep;
		s->buf[s->len] = 0;
	}
	return 1;
}

int remote_run(const struct remote_target *t, const char *const *argv, const char *input,
	       int timeout_ms, int *code, char **out, char **err, size_t max_out)
{
	struct remote_io io = { .flags = REMOTE_PIPE_OUT | REMOTE_PIPE_ERR |
					 (input ? REMOTE_PIPE_IN : 0) };
	struct sink so = { 0 }, se = { 0 };
	uint64_t end = time_mono_ns() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms) * 1000000ull;
	struct remote_proc p;
	int rc;

	if (out)
		*out = NULL;
	if (err)
		*err = NULL;
	so.max = se.max = max_out ? max_out : 65536;
	if ((out && !(so.buf = calloc(1, so.max + 1))) || (err && !(se.buf = calloc(1, se.max + 1)))) {
		free(so.buf);
		free(se.buf);
		return -ENOMEM;
	}
	rc = remote_spawn(t, argv, &io, &p);
	if (rc) {
		free(so.buf);
		free(se.buf);
		return rc;
	}
	if (input) {
		size_t left = strlen(input);
		const char *w = input;
		void (*old)(int) = signal(SIGPIPE, SIG_IGN);

		while (left) {
			ssize_t n = write(p.in_fd, w, left);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			w += n;
			left -= (size_t)n;
		}
		signal(SIGPIPE, old);
		close(p.in_fd);
		p.in_fd = -1;
	}
	rc = 0;
	while (p.out_fd >= 0 || p.err_fd >= 0) {
		struct pollfd pf[2] = { { p.out_fd, POLLIN, 0 }, { p.err_fd, POLLIN, 0 } };
		int wait_ms = 200;

		if (timeout_ms >= 0) {
			uint64_t now = time_mono_ns();

			if (now >= end) {
				rc = -ETIMEDOUT;
				break;
			}
			if ((end - now) / 1000000 < (uint64_t)wait_ms)
				wait_ms = (int)((end - now) / 1000000) + 1;
		}
		if (poll(pf, 2, wait_ms) < 0 && errno != EINTR) {
			rc = -errno;
			break;
		}
		if (p.out_fd >= 0 && (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    sink_read(p.out_fd, out ? &so : NULL) <= 0) {
			close(p.out_fd);
			p.out_fd = -1;
		}
		if (p.err_fd >= 0 && (pf[1].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    sink_read(p.err_fd, err ? &se : NULL) <= 0) {
			close(p.err_fd);
			p.err_fd = -1;
		}
	}
	if (!rc) {
		int left = -1;

		if (timeout_ms >= 0) {
			uint64_t now = time_mono_ns();

			left = now >= end ? 0 : (int)((end - now) / 1000000) + 1;
		}
		rc = remote_wait(&p, left);
	}
	if (rc == -ETIMEDOUT) {
		remote_kill(&p, SIGKILL);
		remote_wait(&p, -1);
	}
	remote_proc_close(&p);
	if (!rc && code)
		*code = remote_exit_code(&p);
	if (out)
		*out = so.buf;
	if (err)
		*err = se.buf;
	return rc;
}

static char *path_dir(const char *path, const char **base)
{
	char *d = strdup(path);
	char *slash;

	if (!d)
		return NULL;
	while (strlen(d) > 1 && d[strlen(d) - 1] == '/')
		d[strlen(d) - 1] = 0;
	slash = strrchr(d, '/');
	if (!slash) {
		*base = path;
		free(d);
		return strdup(".");
	}
	*base = path + (slash - d) + 1;
	if (slash == d)
		slash[1] = 0;
	else
		*slash = 0;
	return d;
}

int remote_fetch(const struct remote_target *t, const char *src, const char *dst_dir,
		 int timeout_ms)
{
	static const struct remote_target here = { .kind = REMOTE_LOCAL };
	struct remote_proc rp, lp;
	const char *base = NULL;
	char *dir, *b;
	int pfd[2], rc, code;

	if (mkdir(dst_dir, 0755) && errno != EEXIST)
		return -errno;
	if (t->kind == REMOTE_LOCAL) {
		const char *cp[] = { "cp", "-a", src, dst_dir, NULL };

		rc = remote_run(&here, cp, NULL, timeout_ms, &code, NULL, NULL, 0);
		return rc ? rc : code ? -EIO : 0;
	}
	dir = path_dir(src, &base);
	if (!dir)
		return -ENOMEM;
	b = strdup(base);
	if (!b) {
		free(dir);
		return -ENOMEM;
	}
	if (b[strlen(b) - 1] == '/')
		b[strlen(b) - 1] = 0;
	if (pipe2(pfd, O_CLOEXEC)) {
		free(dir);
		free(b);
		return -errno;
	}
	{
		const char *tr[] = { "tar", "-C", dir, "-cf", "-", b, NULL };
		const char *tl[] = { "tar", "-C", dst_dir, "-xf", "-", NULL };
		struct remote_io ro = { .out_fd = pfd[1] }, lo = { .in_fd = pfd[0] };

		rc = remote_spawn(t, tr, &ro, &rp);
		if (!rc) {
			rc = remote_spawn(&here, tl, &lo, &lp);
			if (rc) {
				remote_kill(&rp, SIGKILL);
				remote_wait(&rp, -1);
			}
		}
	}
	close(pfd[0]);
	close(pfd[1]);
	free(dir);
	free(b);
	if (rc)
		return rc;
	rc = remote_wait(&rp, timeout_ms);
	if (!rc)
		rc = remote_wait(&lp, timeout_ms);
	if (rc) {
		remote_kill(&rp, SIGKILL);
		remote_kill(&lp, SIGKILL);
		remote_wait(&rp, -1);
		remote_wait(&lp, -1);
		return rc;
	}
	return remote_exit_code(&rp) || remote_exit_code(&lp) ? -EIO : 0;
}

int remote_put(const struct remote_target *t, const char *path, const void *data, size_t len,
	       unsigned mode, int timeout_ms)
{
	char script[] = "umask 077 && mkdir -p \"$(dirname \"$1\")\" && cat >\"$1\" && chmod \"$2\" \"$1\"";
	char m[16], *in;
	const char *argv[] = { "sh", "-c", script, "sh", path, m, NULL };
	int rc, code;

	snprintf(m, sizeof(m), "%o", mode & 07777);
	in = malloc(len + 1);
	if (!in)
		return -ENOMEM;
	memcpy(in, data, len);
	in[len] = 0;
	if (strlen(in) != len) { /* remote_run writes a string */
		free(in);
		return -EINVAL;
	}
	rc = remote_run(t, argv, in, timeout_ms, &code, NULL, NULL, 0);
	free(in);
	return rc ? rc : code ? -EIO : 0;
}
