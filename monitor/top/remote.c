// SPDX-License-Identifier: GPL-2.0-or-later
/* remote.c: one host of "pfclab top" over SSH: a reader thread runs
 * "ssh HOST pfclab monitor --json --all ...", reads its output line by line (bounded
 * lines, each parsed by json-c and every field type-checked), and publishes a snapshot
 * per sample. A host that goes silent keeps its last values; the screen shows their age.
 * When ssh ends, its last error line is the host's status and it is started again.
 * ssh is started through lib/remote (BatchMode, connection sharing, --ssh-config).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "lib/remote.h"
#include "lib/util.h"
#include "monitor/top/feed.h"
#include "monitor/top/rec.h"

#define LINE_MAX_BYTES (1u << 20)	/* a longer line is dropped, not parsed */


struct remote {
	struct top_remote_cfg cfg;	/* pointers into the caller's memory are not kept: */
	char host[256];			/* ... the host, */
	char ssh_config[4096];		/* ... the ssh config file */
	char control_dir[4096];
	char *argv[24];
	char buf_cmd[512];		/* the pfclab command on the host */
	char argbuf[16][300];		/* the monitor's options */
	char *line;
	size_t len, cap;
	bool skipping;			/* inside an over-long line */
	char errline[160];		/* ssh's (or the monitor's) last stderr line */
	struct top_snap snap;
	uint64_t lines_bad;
	/* recording ('r'): the drawing loop asks, this thread opens, writes and closes */
	pthread_mutex_t rlock;
	char want_dir[4096];
	bool want_change;
	struct top_rec *rec;
	atomic_bool recording;
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

/* Only blanks in line[from .. len). */
static bool blanks_to(const char *line, size_t from, size_t len)
{
	for (; from < len; from++)
		if (line[from] != ' ' && line[from] != '\t' && line[from] != '\r')
			return false;
	return true;
}

int top_remote_parse_line(const char *line, size_t len, struct top_snap *snap, char *msg,
			  size_t msglen)
{
	struct json_tokener *tok = json_tokener_new_ex(16);
	json_object *o, *vals, *x;
	uint64_t seq, ov;
	int rc = -EINVAL;

	if (!tok)
		return -ENOMEM;
	if (len > INT32_MAX)
		goto out_tok;
	o = json_tokener_parse_ex(tok, line, (int)len);
	/* after the object only blanks, up to len (the line need not end in a NUL) */
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_is_type(o, json_type_object) ||
	    !blanks_to(line, json_tokener_get_parse_end(tok), len)) {
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
	/* each sample says how many intervals were missed just before it: summed here, so
	 * over the host's monitor restarts too; one line without it leaves the sum unknown */
	if (get_u64(o, "overruns", &ov)) {
		snap->has_missed = !snap->seq || snap->has_missed;
		snap->overruns = ov;
		snap->missed += ov;
	} else {
		snap->has_missed = false;
		snap->overruns = 0;
	}
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

/* ---- the ssh child (lib/remote: BatchMode, connection sharing, -F) -------------- */

/* argv of the remote command: "pfclab monitor --json --all" and our options. */
static int build_argv(struct remote *r)
{
	const struct top_remote_cfg *c = &r->cfg;
	size_t n = 0, i;

	r->argv[n++] = r->buf_cmd;
	snprintf(r->buf_cmd, sizeof(r->buf_cmd), "%s", c->pfclab ? c->pfclab : "pfclab");
	r->argv[n++] = (char *)"monitor";
	r->argv[n++] = (char *)"--json";
	r->argv[n++] = (char *)"--all";
	for (i = 0; c->monitor_args && c->monitor_args[i]; i++) {
		if (n + 1 >= ARRAY_SIZE(r->argv) || i >= ARRAY_SIZE(r->argbuf))
			return -E2BIG;
		snprintf(r->argbuf[i], sizeof(r->argbuf[i]), "%s", c->monitor_args[i]);
		r->argv[n++] = r->argbuf[i];
	}
	r->argv[n] = NULL;
	return 0;
}

static int spawn(struct remote *r, struct remote_proc *p)
{
	struct remote_target t = {
		.kind = r->cfg.kind == REMOTE_SRUN ? REMOTE_SRUN : REMOTE_SSH, .host = r->host,
		.ssh_config = r->ssh_config[0] ? r->ssh_config : NULL,
		.control_dir = r->control_dir,
	};
	struct remote_io io = { .flags = REMOTE_PIPE_OUT | REMOTE_PIPE_ERR };
	int rc = remote_spawn(&t, (const char *const *)r->argv, &io, p);

	if (rc)
		return rc;
	fcntl(p->out_fd, F_SETFL, O_NONBLOCK);
	fcntl(p->err_fd, F_SETFL, O_NONBLOCK);
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

static void record_step(struct remote *r)
{
	char dir[4096], err[600];
	bool change;

	pthread_mutex_lock(&r->rlock);
	change = r->want_change;
	r->want_change = false;
	snprintf(dir, sizeof(dir), "%s", r->want_dir);
	pthread_mutex_unlock(&r->rlock);
	if (!change)
		return;
	if (r->rec) {
		if (top_rec_close(r->rec))
			snprintf(r->errline, sizeof(r->errline), "record: meta.json not finished");
		else
			snprintf(r->errline, sizeof(r->errline), "record stopped");
		r->rec = NULL;
		atomic_store(&r->recording, false);
	}
	if (!dir[0])
		return;
	if (top_rec_open(dir, r->host, &r->rec, err, sizeof(err))) {
		snprintf(r->errline, sizeof(r->errline), "record: %.140s", err);
		return;
	}
	snprintf(r->errline, sizeof(r->errline), "recording to %.140s", dir);
	atomic_store(&r->recording, true);
}

static void on_out_line(struct top_feed *f, struct remote *r, char *line, size_t len)
{
	char msg[160] = "";
	int rc = top_remote_parse_line(line, len, &r->snap, msg, sizeof(msg));

	if (rc == 1) {
		r->snap.got_ns = time_mono_ns();
		r->snap.interval_ns = r->cfg.interval_ns;
		r->snap.down = false;
		record_step(r);
		if (r->rec && top_rec_sample(r->rec, &r->snap)) {
			snprintf(r->errline, sizeof(r->errline), "record stopped: %.140s",
				 top_rec_error(r->rec));
			top_rec_close(r->rec);
			r->rec = NULL;
			atomic_store(&r->recording, false);
		}
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
		struct remote_proc proc;
		int out, err, rc;
		bool eof_o = false, eof_e = false;

		rc = spawn(r, &proc);
		out = proc.out_fd;
		err = proc.err_fd;
		if (rc) {
			top_feed_status(f, true, "cannot run %s: %s", r->cfg.kind == REMOTE_SRUN ?
					"srun" : "ssh", strerror(-rc));
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
			if (p[2].revents) {
				uint64_t x;

				if (read(f->wake_fd, &x, sizeof(x)) < 0)
					x = 0;
				record_step(r);
			}
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
		remote_proc_close(&proc);
		if (atomic_load(&f->stop)) {
			/* ssh leads its own process group; the remote monitor sees its output
			 * channel close and ends.
			 */
			remote_kill(&proc, SIGTERM);
		}
		remote_wait(&proc, -1);
		if (atomic_load(&f->stop))
			break;
		top_feed_status(f, true, "ssh %s: %s (exit %d); again in %.0f s", r->cfg.host,
				r->errline[0] ? r->errline : "ended", remote_exit_code(&proc),
				r->cfg.retry_ns / 1e9);
		{
			struct pollfd p = { .fd = f->wake_fd, .events = POLLIN };

			poll(&p, 1, (int)(r->cfg.retry_ns / 1000000ULL));
		}
	}
	free(errbuf.line);
	if (r->rec) {
		top_rec_close(r->rec);
		r->rec = NULL;
	}
	return NULL;
}

void top_remote_record(struct top_feed *f, const char *dir)
{
	struct remote *r = f->priv;

	pthread_mutex_lock(&r->rlock);
	snprintf(r->want_dir, sizeof(r->want_dir), "%s", dir ? dir : "");
	r->want_change = true;
	pthread_mutex_unlock(&r->rlock);
	top_feed_wake(f);
}

bool top_remote_recording(struct top_feed *f)
{
	struct remote *r = f->priv;

	return r && atomic_load(&r->recording);
}

static void remote_fini(struct top_feed *f)
{
	struct remote *r = f->priv;

	if (!r)
		return;
	free(r->line);
	top_snap_free(&r->snap);
	pthread_mutex_destroy(&r->rlock);
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
	pthread_mutex_init(&r->rlock, NULL);
	atomic_init(&r->recording, false);
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
	r->cfg.monitor_args = NULL;	/* copied by build_argv */
	if (cfg->control_dir)
		snprintf(r->control_dir, sizeof(r->control_dir), "%s", cfg->control_dir);
	r->cfg.control_dir = NULL;
	r->cfg.pfclab = NULL;
	if (rc)
		return rc;
	top_feed_status(f, false, "connecting to %s", cfg->host);
	rc = pthread_create(&f->thr, NULL, reader, f);
	if (rc)
		return -rc;
	f->started = true;
	return 0;
}
