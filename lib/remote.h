/* SPDX-License-Identifier: GPL-2.0-or-later */
/* remote.h: run a command on a host, locally, over OpenSSH or through Slurm's srun, with
 * its output piped or sent to files, and copy files back; what `pfclab run` and the
 * dashboard use to reach hosts. No agent of our own: the engines are ssh, srun and sh.
 *
 * How a command is started (remote_argv_build):
 *   local  argv as given, run here.
 *   ssh    ssh -o BatchMode=yes -o ControlMaster=auto -o ControlPath=DIR/cm-%C
 *              -o ControlPersist=60 -F DIR/ssh_config-HASH -T HOST -- 'quoted argv'
 *          DIR is a private runtime folder (remote_control_dir). The -F file includes the
 *          caller's ssh config file, or else ~/.ssh/config and /etc/ssh/ssh_config, and
 *          after them pfclab's defaults (ConnectTimeout 10): a value the user set wins.
 *   srun   srun --nodes=1 --ntasks=1 --nodelist=NODE --overlap --quiet -- argv
 *          (inside an allocation: SLURM_JOB_ID set; srun runs argv without a shell).
 *
 * Every child runs in its own process group (so a Ctrl-C meant for the caller does not
 * reach it first) with stdin from /dev/null unless REMOTE_PIPE_IN is asked for.
 * Functions return 0 or a negative errno and never print.
 */
#ifndef PFCLAB_REMOTE_H
#define PFCLAB_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum remote_kind {
	REMOTE_LOCAL,
	REMOTE_SSH,
	REMOTE_SRUN,
};

struct remote_target {
	enum remote_kind kind;
	const char *host;	 /* ssh destination (alias, user@host) or Slurm node; unused locally */
	const char *ssh_config;	 /* the ssh config to read; NULL: ~/.ssh/config and the system's */
	const char *control_dir; /* ControlPath folder; NULL: remote_control_dir() */
	int connect_timeout_s;	 /* > 0: ssh -o ConnectTimeout, over the config files; 0: the
				  * files' own value, else 10 s */
};

/* Where the child's standard streams go. */
#define REMOTE_PIPE_IN	0x1 /* proc->in_fd: write end of the child's stdin */
#define REMOTE_PIPE_OUT 0x2 /* proc->out_fd: read end of the child's stdout */
#define REMOTE_PIPE_ERR 0x4 /* proc->err_fd: read end of the child's stderr */

struct remote_io {
	unsigned flags;	      /* REMOTE_PIPE_* */
	const char *out_path; /* stdout to this file (created/truncated, 0644) unless piped */
	const char *err_path; /* stderr likewise; NULL and not piped: /dev/null */
	bool append;	      /* open out_path/err_path for appending */
	int in_fd;	      /* > 0: use this fd as stdin (not closed); else /dev/null */
	int out_fd;	      /* > 0: use this fd as stdout (not closed) */
};

struct remote_proc {
	pid_t pid;   /* the local process: the command, ssh or srun; 0 when none */
	int in_fd;   /* -1 unless REMOTE_PIPE_IN */
	int out_fd;  /* -1 unless REMOTE_PIPE_OUT */
	int err_fd;  /* -1 unless REMOTE_PIPE_ERR */
	int status;  /* wait status once reaped (remote_wait) */
	bool reaped;
};

/* The private folder for ssh control sockets: $XDG_RUNTIME_DIR/pfclab-ssh when that is
 * set and usable, else /tmp/pfclab-ssh-UID; created mode 0700 and refused (-EPERM) when
 * it exists owned by someone else or open to others. Returns a static string or NULL
 * with *err set. */
const char *remote_control_dir(int *err);

/* Quote S for a POSIX shell ('...' with embedded quotes escaped). Caller frees. */
char *remote_shell_quote(const char *s);

/* Why PATH cannot serve as the ssh config file pfclab includes (missing, unreadable, or a
 * full path holding a double quote or a newline), or NULL when it can. */
const char *remote_ssh_config_problem(const char *path);

/* Join argv into one shell command line, each word quoted only when it needs it. */
char *remote_argv_join(const char *const *argv);

/* The local argv that runs ARGV (NULL-terminated) on T; free with remote_argv_free.
 * -EINVAL for an empty argv or a missing host, -ENOMEM; for ssh also the errors of
 * finding the caller's config file (-ENOENT) and writing DIR/ssh_config-HASH. */
int remote_argv_build(const struct remote_target *t, const char *const *argv, char ***out);
void remote_argv_free(char **argv);

/* Start ARGV on T. IO may be NULL (everything to /dev/null). */
int remote_spawn(const struct remote_target *t, const char *const *argv,
		 const struct remote_io *io, struct remote_proc *p);

/* Wait for P to end, at most TIMEOUT_MS (< 0: forever). 0 with p->status set, or
 * -ETIMEDOUT (still running), -ECHILD. */
int remote_wait(struct remote_proc *p, int timeout_ms);

/* Signal P's process group (the local child: the command, ssh or srun). A signal sent to
 * ssh does not reach the remote command: stop remote commands with a command of their own
 * (e.g. kill -INT $(cat PIDFILE)) run through remote_run. */
int remote_kill(struct remote_proc *p, int sig);

/* Close the pipes left open in P. */
void remote_proc_close(struct remote_proc *p);

/* Exit code of a reaped P: 0..255, 128+N for a signal, -1 when not reaped. */
int remote_exit_code(const struct remote_proc *p);

/* Run ARGV on T and wait at most TIMEOUT_MS (< 0: forever); the child is killed
 * (SIGKILL) on timeout and -ETIMEDOUT returned. *OUT (when OUT is not NULL) receives
 * stdout, NUL-terminated, at most MAX_OUT bytes kept; *ERR likewise for stderr. On
 * return 0, *CODE holds the exit code (see remote_exit_code). INPUT, when not NULL, is
 * written to the command's stdin. */
int remote_run(const struct remote_target *t, const char *const *argv, const char *input,
	       int timeout_ms, int *code, char **out, char **err, size_t max_out);

/* Copy the remote file or folder SRC into the local folder DST_DIR (created), keeping
 * its base name: local `cp -a`, ssh/srun `tar -C dirname -cf - base` piped into a local
 * `tar -C DST_DIR -xf -`. 0, -EIO when either side failed, -ETIMEDOUT. */
int remote_fetch(const struct remote_target *t, const char *src, const char *dst_dir,
		 int timeout_ms);

/* Write LEN bytes of DATA to PATH on T with mode MODE (umask-safe: the file is created
 * with only the owner's bits, then chmod'ed), the folders above created. */
int remote_put(const struct remote_target *t, const char *path, const void *data, size_t len,
	       unsigned mode, int timeout_ms);

#endif
