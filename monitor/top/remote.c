// SPDX-License-Identifier: GPL-2.0-or-later
/* remote.c: one host of "pfclab top" over SSH: a reader thread runs
 * "ssh HOST pfclab monitor --json --all ...", reads its output line by line (bounded
 * lines, each parsed by json-c and every field type-checked), and publishes a snapshot
 * per sample. A host that goes silent keeps its last values; the screen shows their age.
 * When ssh ends, its last error line is the host's status and it is started again.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/util.h"
#include "monitor/top/feed.h"

#define LINE_MAX_BYTES (1u << 20)	/* a longer line is dropped, not parsed */


struct remote {
	struct top_remote_cfg cfg;	/* pointers into the caller's memory are not kept: */
	char host[256];			/* ... the host, */
	char ssh_config[4096];		/* ... the ssh config file */
	char *argv[64];
	char buf_cmd[8192];
	char *line;
	size_t len, cap;
	bool skipping;			/* inside an over-long line */
	char errline[160];		/* ssh's (or the monitor's) last stderr line */
	struct top_snap snap;
	uint64_t lines_bad;
};

/* ---- parsing ------------------------------------------------------------------ */

static bool get_u64(json_object *o, const char *k, uint64_t *v)
{
	json_object *x;

	if (!json_object_object_get_ex(o, k, &x) || !json_object_is_type(x, json_type_int))
		return false;
	*v = json_object_get_uint64(x);
	return true;
}

int top_remote_parse_line(const char *line, size_t len, struct top_snap *snap, char *msg,
			  size_t msglen)
{
	struct json_tokener *tok = json_tokener_new_ex(16);
	json_object *o, *vals, *x;
	uint64_t seq;
	int rc = -EINVAL;

	if (!tok)
		return -ENOMEM;
	if (len > INT32_MAX)
		goto out_tok;
	o = json_tokener_parse_ex(tok, line, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_is_type(o, json_type_object) ||
	    line[json_tokener_get_parse_end(tok) + strspn(line + json_tokener_get_parse_end(tok),
							  " \t\r")] != '\0') {
		if (o)
			json_object_put(o);
		goto out_tok;
	}
	if (json_object_object_get_ex(o, "event", &x)) {
		json_object *m;

		if (json_object_object_get_ex(o, "message", &m) &&
		    json_object_is_type(m, json_type_string))
			snprintf(msg, msglen, "%s", json_object_get_string(m));
		else
			snprintf(msg, msglen, "%s", json_object_is_type(x, json_type_string) ?
				 json_object_get_string(x) : "event");
		rc = 0;
		goto out;
	}
	if (!get_u64(o, "seq", &seq) ||
	    !json_object_object_get_ex(o, "values", &vals) ||
	    !json_object_is_type(vals, json_type_object))
		goto out;
	snap->n = 0;
	snap->seq = seq;
	get_u64(o, "mono_ns", &snap->src_ns);
	get_u64(o, "wall_ns", &snap->wall_ns);
	{
		json_object_object_foreach(vals, key, v) {
			json_object *val, *rate, *unit;
			uint8_t fl = 0;
			uint64_t raw = 0;
			double r = 0;

			if (!json_object_is_type(v, json_type_object) || strlen(key) >= MON_NAME_MAX)
				continue;
			if (json_object_object_get_ex(v, "value", &val) &&
			    json_object_is_type(val, json_type_int)) {
				raw = json_object_get_uint64(val);
				fl |= TOP_M_VALID;
			}
			if (json_object_object_get_ex(v, "rate", &rate)) {
				fl |= TOP_M_COUNTER;
				if (json_object_is_type(rate, json_type_double) ||
				    json_object_is_type(rate, json_type_int)) {
					r = json_object_get_double(rate);
					if (r >= 0)
						fl |= TOP_M_RATE;
				}
			}
			if (!json_object_object_get_ex(v, "unit", &unit) ||
			    !json_object_is_type(unit, json_type_string))
				unit = NULL;
			if (!top_snap_put(snap, key, unit ? json_object_get_string(unit) : "", fl,
					  raw, r)) {
				rc = -ENOMEM;
				goto out;
			}
		}
	}
	rc = 1;
out:
	json_object_put(o);
out_tok:
	json_tokener_free(tok);
	return rc;
}

/* ---- the ssh child -------------------------------------------------------------- */

static int build_argv(struct remote *r)
{
	const struct top_remote_cfg *c = &r->cfg;
	char *p = r->buf_cmd;
	size_t n = 0, left = sizeof(r->buf_cmd), i;
	int w;

#define ARG(s) do { if (n + 2 >= sizeof(r->argv) / sizeof(r->argv[0])) return -E2BIG; \
		    r->argv[n++] = (char *)(s); } while (0)
	ARG("ssh");
	if (c->ssh_config) {
		ARG("-F");
		ARG(c->ssh_config);
	}
	ARG("-o");
	ARG("BatchMode=yes");
	ARG("-o");
	ARG("ControlMaster=auto");
	ARG("-o");
	w = snprintf(p, left, "ControlPath=%s/cm-%%C", c->control_dir);
	if (w < 0 || (size_t)w >= left)
		return -E2BIG;
	ARG(p);
	p += w + 1;
	left -= (size_t)w + 1;
	ARG("-o");
	ARG("ControlPersist=60");
	/* ssh notices a dead peer by itself too, long after the screen shows it stale. */
	ARG("-o");
	ARG("ServerAliveInterval=5");
	ARG("-o");
	ARG("ServerAliveCountMax=2");
	ARG("-n");
	ARG("-T");
	ARG(c->host);
	ARG("--");
	/* The remote command line: words from our own options, no shell metacharacters
	 * accepted (checked by the caller), joined with spaces.
	 */
	w = snprintf(p, left, "%s monitor --json --all", c->pfclab ? c->pfclab : "pfclab");
	if (w < 0 || (size_t)w >= left)
		return -E2BIG;
	for (i = 0; c->monitor_args && c->monitor_args[i]; i++) {
		int k = snprintf(p + w, left - (size_t)w, " %s", c->monitor_args[i]);

		if (k < 0 || (size_t)(w + k) >= left)
			return -E2BIG;
		w += k;
	}
	ARG(p);
	r->argv[n] = NULL;
#undef ARG
	return 0;
}

static int spawn(struct remote *r, pid_t *pid, int *out, int *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int po[2], pe[2], rc;

	if (pipe2(po, O_CLOEXEC))
		return -errno;
	if (pipe2(pe, O_CLOEXEC)) {
		rc = -errno;
		close(po[0]);
		close(po[1]);
		return rc;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	posix_spawnattr_init(&at);
	/* Own process group: a Ctrl-C for the screen does not reach ssh first. */
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&at, 0);
	rc = -posix_spawnp(pid, "ssh", &fa, &at, r->argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(po[1]);
	close(pe[1]);
	if (rc) {
		close(po[0]);
		close(pe[0]);
		return rc;
	}
	fcntl(po[0], F_SETFL, O_NONBLOCK);
	fcntl(pe[0], F_SETFL, O_NONBLOCK);
	*out = po[0];
	*err = pe[0];
	return 0;
}

/* Feed bytes; each complete line goes to fn. Over-long lines are skipped whole. */
static int lines_feed(struct remote *r, const char *p, size_t n,
		      void (*fn)(struct top_feed *, struct remote *, char *, size_t),
		      struct top_feed *f)
{
	while (n) {
		const char *nl = memchr(p, '\n', n);
		size_t take = nl ? (size_t)(nl - p) : n;

		if (!r->skipping) {
			if (r->len + take > LINE_MAX_BYTES) {
				r->skipping = true;
				r->len = 0;
				r->lines_bad++;
			} else {
				if (r->len + take + 1 > r->cap) {
					size_t nc = (r->len + take + 1) * 2;
					char *q = realloc(r->line, nc);

					if (!q)
						return -ENOMEM;
					r->line = q;
					r->cap = nc;
				}
				memcpy(r->line + r->len, p, take);
				r->len += take;
			}
		}
		if (!nl)
			break;
		if (!r->skipping) {
			r->line[r->len] = '\0';
			fn(f, r, r->line, r->len);
		}
		r->skipping = false;
		r->len = 0;
		p = nl + 1;
		n -= take + 1;
	}
	return 0;
}

static void on_out_line(struct top_feed *f, struct remote *r, char *line, size_t len)
{
	char msg[160] = "";
	int rc = top_remote_parse_line(line, len, &r->snap, msg, sizeof(msg));

	if (rc == 1) {
		r->snap.got_ns = time_mono_ns();
		r->snap.interval_ns = r->cfg.interval_ns;
		r->snap.down = false;
		snprintf(r->snap.status, sizeof(r->snap.status), "%s", r->errline);
		top_feed_publish(f, &r->snap);
	} else if (rc == 0) {
		snprintf(r->errline, sizeof(r->errline), "%s", msg);
	} else {
		r->lines_bad++;
	}
}

static void on_err_line(struct top_feed *f, struct remote *r, char *line, size_t len)
{
	(void)f;
	if (len)
		snprintf(r->errline, sizeof(r->errline), "%.*s", (int)(len < 150 ? len : 150), line);
}

static void *reader(void *arg)
{
	struct top_feed *f = arg;
	struct remote *r = f->priv;
	struct remote errbuf = { 0 };	/* stderr keeps its own partial line */

	while (!atomic_load(&f->stop)) {
		int out = -1, err = -1, st = 0, rc;
		pid_t pid;
		bool eof_o = false, eof_e = false;

		rc = spawn(r, &pid, &out, &err);
		if (rc) {
			top_feed_status(f, true, "cannot run ssh: %s", strerror(-rc));
			break;
		}
		r->len = 0;
		r->skipping = false;
		errbuf.len = 0;
		while (!atomic_load(&f->stop) && !(eof_o && eof_e)) {
			struct pollfd p[3] = { { .fd = eof_o ? -1 : out, .events = POLLIN },
					       { .fd = eof_e ? -1 : err, .events = POLLIN },
					       { .fd = f->wake_fd, .events = POLLIN } };
			char buf[16384];
			ssize_t n;

			if (poll(p, 3, -1) < 0 && errno != EINTR)
				break;
			if (p[0].revents) {
				n = read(out, buf, sizeof(buf));
				if (n > 0)
					lines_feed(r, buf, (size_t)n, on_out_line, f);
				else if (n == 0 || (errno != EAGAIN && errno != EINTR))
					eof_o = true;
			}
			if (p[1].revents) {
				n = read(err, buf, sizeof(buf));
				if (n > 0) {
					errbuf.cfg = r->cfg;
					lines_feed(&errbuf, buf, (size_t)n, on_err_line, f);
					memcpy(r->errline, errbuf.errline, sizeof(r->errline));
				} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
					eof_e = true;
				}
			}
		}
		close(out);
		close(err);
		if (atomic_load(&f->stop)) {
			/* ssh leads its own process group; the remote side sees the hangup. */
			kill(pid, SIGTERM);
		}
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (atomic_load(&f->stop))
			break;
		top_feed_status(f, true, "ssh %s: %s (exit %d); again in %.0f s", r->cfg.host,
				r->errline[0] ? r->errline : "ended",
				WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
				r->cfg.retry_ns / 1e9);
		{
			struct pollfd p = { .fd = f->wake_fd, .events = POLLIN };

			poll(&p, 1, (int)(r->cfg.retry_ns / 1000000ULL));
		}
	}
	free(errbuf.line);
	return NULL;
}

static void remote_fini(struct top_feed *f)
{
	struct remote *r = f->priv;

	if (!r)
		return;
	free(r->line);
	top_snap_free(&r->snap);
	free(r);
	f->priv = NULL;
}

int top_remote_start(struct top_feed *f, const struct top_remote_cfg *cfg)
{
	struct remote *r = calloc(1, sizeof(*r));
	int rc;

	if (!r)
		return -ENOMEM;
	f->priv = r;
	f->fini = remote_fini;
	r->cfg = *cfg;
	snprintf(r->host, sizeof(r->host), "%s", cfg->host);
	r->cfg.host = r->host;
	if (cfg->ssh_config) {
		snprintf(r->ssh_config, sizeof(r->ssh_config), "%s", cfg->ssh_config);
		r->cfg.ssh_config = r->ssh_config;
	}
	if (!r->cfg.retry_ns)
		r->cfg.retry_ns = 2000000000ULL;
	rc = build_argv(r);
	r->cfg.monitor_args = NULL;	/* copied into the command line by build_argv */
	if (rc)
		return rc;
	top_feed_status(f, false, "connecting to %s", cfg->host);
	rc = pthread_create(&f->thr, NULL, reader, f);
	if (rc)
		return -rc;
	f->started = true;
	return 0;
}
