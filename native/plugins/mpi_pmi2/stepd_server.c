#include "stepd_server.h"

#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "frame.h"
#include "kvs.h"
#include "report.h"
#include "wire.h"

enum { T_PREAMBLE, T_INIT, T_PMI1, T_PMI2, T_CLOSED };

struct task {
	int fd;
	uint32_t rank;
	int state;
	struct inbuf in;
	pid_t pid;
	int in_barrier;
	struct rank_report report;
};

struct waiter { /* info-getnodeattr with wait=TRUE */
	int task;
	char *key;
};

struct server {
	struct stepd_job *job;
	struct task *tasks;
	struct kvs global, pending, nodeattr;
	uint32_t in_barrier;
	struct inbuf srun_in;
	struct waiter *waiters;
	size_t nwaiters;
	char kvsname[64];
};

static void note(struct task *t, int from_task, const char *text, size_t len) {
	report_line(&t->report, from_task, text, len);
}

static void reply(struct server *s, struct task *t, const char *fmt, ...) {
	char body[8192];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(body, sizeof body, fmt, ap);
	va_end(ap);
	if (n < 0) return;
	if ((size_t)n >= sizeof body) n = sizeof body - 1;
	if (t->state == T_PMI2) {
		char frame[sizeof body + 8];
		int m = snprintf(frame, sizeof frame, "%-6d%s", n, body);
		note(t, 0, body, (size_t)n);
		if (write_all(t->fd, frame, (size_t)m) < 0) t->state = T_CLOSED;
	} else {
		note(t, 0, body, (size_t)n);
		if (write_all(t->fd, body, (size_t)n) < 0) t->state = T_CLOSED;
	}
}

static void close_task(struct task *t) {
	if (t->fd >= 0) {
		shutdown(t->fd, SHUT_RDWR);
		close(t->fd);
	}
	t->fd = -1;
	t->state = T_CLOSED;
}

/* Every node's puts of the fence are in: the barrier is over. */
static void fence_done(struct server *s, const char *payload, uint32_t len) {
	const char *p = payload, *end = payload + len;
	while (p < end) {
		const char *key = p;
		p += strnlen(p, (size_t)(end - p)) + 1;
		if (p >= end) break;
		const char *value = p;
		p += strnlen(p, (size_t)(end - p)) + 1;
		kvs_put(&s->global, key, value);
	}
	for (uint32_t i = 0; i < s->job->ltasks; i++) {
		struct task *t = &s->tasks[i];
		if (!t->in_barrier) continue;
		t->in_barrier = 0;
		if (t->state == T_PMI2) reply(s, t, "cmd=kvs-fence-response;rc=0;");
		else if (t->state == T_PMI1) reply(s, t, "cmd=barrier_out rc=0\n");
	}
	s->in_barrier = 0;
}

static void enter_barrier(struct server *s, struct task *t) {
	if (t->in_barrier) return;
	t->in_barrier = 1;
	if (++s->in_barrier < s->job->ltasks) return;
	struct inbuf out = {0};
	for (size_t i = 0; i < s->pending.count; i++) {
		buf_append(&out, s->pending.keys[i], strlen(s->pending.keys[i]) + 1);
		buf_append(&out, s->pending.values[i], strlen(s->pending.values[i]) + 1);
	}
	kvs_clear(&s->pending);
	if (frame_send(s->job->srun_fd, FRAME_FENCE, out.data, (uint32_t)out.len) < 0) {
		/* srun's half is gone: the fence fails, as Slurm's does. */
		for (uint32_t i = 0; i < s->job->ltasks; i++) {
			struct task *w = &s->tasks[i];
			if (!w->in_barrier) continue;
			w->in_barrier = 0;
			if (w->state == T_PMI2) reply(s, w, "cmd=kvs-fence-response;rc=1;errmsg=srun_unreachable;");
			else reply(s, w, "cmd=barrier_out rc=1 msg=srun_unreachable\n");
		}
		s->in_barrier = 0;
	}
	buf_free(&out);
}

static void do_abort(struct server *s, struct task *t, const char *code) {
	char msg[64];
	t->report.aborted = 1;
	t->report.abort_code = code ? atoi(code) : 0;
	int n = snprintf(msg, sizeof msg, "%u %d", t->rank, t->report.abort_code);
	frame_send(s->job->srun_fd, FRAME_ABORT, msg, (uint32_t)n);
}

static void kill_tasks(struct server *s) {
	for (uint32_t i = 0; i < s->job->ltasks; i++)
		if (s->tasks[i].pid > 0) kill(s->tasks[i].pid, SIGKILL);
}

static void pmi1(struct server *s, struct task *t, const struct pmi_msg *m) {
	const char *cmd = pmi_get(m, "cmd");
	if (!cmd) cmd = "";
	if (!strcmp(cmd, "get_maxes")) {
		reply(s, t, "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024\n");
	} else if (!strcmp(cmd, "get_universe_size")) {
		reply(s, t, "cmd=universe_size rc=0 size=%u\n", s->job->ntasks);
	} else if (!strcmp(cmd, "get_appnum")) {
		reply(s, t, "cmd=appnum rc=0 appnum=-1\n");
	} else if (!strcmp(cmd, "get_my_kvsname")) {
		reply(s, t, "cmd=my_kvsname rc=0 kvsname=%s\n", s->kvsname);
	} else if (!strcmp(cmd, "barrier_in")) {
		enter_barrier(s, t);
	} else if (!strcmp(cmd, "put")) {
		const char *key = pmi_get(m, "key"), *value = pmi_get(m, "value");
		int rc = key && value && kvs_put(&s->pending, key, value) == 0 ? 0 : 1;
		reply(s, t, "cmd=put_result rc=%d\n", rc);
	} else if (!strcmp(cmd, "get")) {
		const char *key = pmi_get(m, "key");
		const char *value = key ? kvs_get(&s->global, key) : NULL;
		if (value) reply(s, t, "cmd=get_result rc=0 value=%s\n", value);
		else reply(s, t, "cmd=get_result rc=1\n");
	} else if (!strcmp(cmd, "finalize")) {
		reply(s, t, "cmd=finalize_ack rc=0\n");
		t->report.finalized = 1;
		close_task(t);
	} else if (!strcmp(cmd, "abort")) {
		do_abort(s, t, pmi_get(m, "exitcode"));
	} else if (!strcmp(cmd, "publish_name")) {
		reply(s, t, "cmd=publish_result rc=1 info=fail\n");
	} else if (!strcmp(cmd, "unpublish_name")) {
		reply(s, t, "cmd=unpublish_result rc=1 info=fail\n");
	} else if (!strcmp(cmd, "lookup_name")) {
		reply(s, t, "cmd=lookup_result rc=1 info=fail\n");
	} else {
		/* spawn (mcmd), create_kvs, getbyidx...: not served. */
		reply(s, t, "cmd=%s_result rc=1 msg=not_supported\n", cmd);
	}
}

static void answer_waiters(struct server *s, const char *key) {
	size_t kept = 0;
	for (size_t i = 0; i < s->nwaiters; i++) {
		struct waiter *w = &s->waiters[i];
		const char *value = kvs_get(&s->nodeattr, w->key);
		if (value && !strcmp(w->key, key)) {
			reply(s, &s->tasks[w->task], "cmd=info-getnodeattr-response;rc=0;found=TRUE;value=%s;", value);
			free(w->key);
		} else {
			s->waiters[kept++] = *w;
		}
	}
	s->nwaiters = kept;
}

static void pmi2(struct server *s, struct task *t, const struct pmi_msg *m) {
	const char *cmd = pmi_get(m, "cmd");
	if (!cmd) cmd = "";
	if (!strcmp(cmd, "fullinit")) {
		reply(s, t,
		      "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=%u;size=%u;appnum=-1;"
		      "debugged=FALSE;pmiverbose=FALSE;",
		      t->rank, s->job->ntasks);
		t->report.size_told = s->job->ntasks;
	} else if (!strcmp(cmd, "job-getid")) {
		reply(s, t, "cmd=job-getid-response;rc=0;jobid=%s;", s->kvsname);
	} else if (!strcmp(cmd, "kvs-put")) {
		const char *key = pmi_get(m, "key"), *value = pmi_get(m, "value");
		int rc = key && value && kvs_put(&s->pending, key, value) == 0 ? 0 : 1;
		reply(s, t, "cmd=kvs-put-response;rc=%d;", rc);
	} else if (!strcmp(cmd, "kvs-fence")) {
		enter_barrier(s, t);
	} else if (!strcmp(cmd, "kvs-get")) {
		const char *key = pmi_get(m, "key");
		const char *value = key ? kvs_get(&s->global, key) : NULL;
		if (value) reply(s, t, "cmd=kvs-get-response;rc=0;found=TRUE;value=%s;", value);
		else reply(s, t, "cmd=kvs-get-response;rc=0;found=FALSE;");
	} else if (!strcmp(cmd, "info-putnodeattr")) {
		const char *key = pmi_get(m, "key"), *value = pmi_get(m, "value");
		int rc = key && value && kvs_put(&s->nodeattr, key, value) == 0 ? 0 : 1;
		reply(s, t, "cmd=info-putnodeattr-response;rc=%d;", rc);
		if (!rc) answer_waiters(s, key);
	} else if (!strcmp(cmd, "info-getnodeattr")) {
		const char *key = pmi_get(m, "key"), *wait = pmi_get(m, "wait");
		const char *value = key ? kvs_get(&s->nodeattr, key) : NULL;
		if (value) {
			reply(s, t, "cmd=info-getnodeattr-response;rc=0;found=TRUE;value=%s;", value);
		} else if (key && wait && !strcmp(wait, "TRUE")) {
			struct waiter *w = realloc(s->waiters, (s->nwaiters + 1) * sizeof *w);
			if (w) {
				s->waiters = w;
				s->waiters[s->nwaiters++] = (struct waiter){(int)(t - s->tasks), strdup(key)};
			}
		} else {
			reply(s, t, "cmd=info-getnodeattr-response;rc=0;found=FALSE;");
		}
	} else if (!strcmp(cmd, "info-getjobattr")) {
		const char *key = pmi_get(m, "key");
		if (key && !strcmp(key, "PMI_process_mapping"))
			reply(s, t, "cmd=info-getjobattr-response;rc=0;found=TRUE;value=%s;", s->job->mapping);
		else if (key && !strcmp(key, "universeSize"))
			reply(s, t, "cmd=info-getjobattr-response;rc=0;found=TRUE;value=%u;", s->job->ntasks);
		else
			reply(s, t, "cmd=info-getjobattr-response;rc=0;found=FALSE;");
	} else if (!strcmp(cmd, "finalize")) {
		reply(s, t, "cmd=finalize-response;rc=0;");
		t->report.finalized = 1;
		close_task(t);
	} else if (!strcmp(cmd, "abort")) {
		const char *world = pmi_get(m, "isworld");
		t->report.aborted = 1;
		if (!world || !strcmp(world, "TRUE")) do_abort(s, t, NULL);
	} else {
		/* spawn, name-*, job-connect, ring: not served. */
		reply(s, t, "cmd=%s-response;rc=1;errmsg=not_supported;", cmd);
	}
}

/* The "cmd=init" line: the version the task speaks from now on. */
static void init(struct server *s, struct task *t, const struct pmi_msg *m) {
	const char *v = pmi_get(m, "pmi_version"), *sub = pmi_get(m, "pmi_subversion");
	const char *cmd = pmi_get(m, "cmd");
	int version = v ? atoi(v) : 0, subversion = sub ? atoi(sub) : 0;
	int rc = 0;
	if (!cmd || strcmp(cmd, "init") || !v || !sub) {
		rc = 1;
		version = 2;
		subversion = 0;
	} else if (!((version == 1 && subversion == 1) || (version == 2 && subversion == 0))) {
		rc = 1;
		version = 2;
		subversion = 0;
	}
	reply(s, t, "cmd=response_to_init rc=%d pmi_version=%d pmi_subversion=%d\n", rc, version, subversion);
	if (rc) return;
	snprintf(t->report.version, sizeof t->report.version, "%d.%d", version, subversion);
	t->report.connected = 1;
	if (version == 1) t->report.size_told = s->job->ntasks;
	t->state = version == 1 ? T_PMI1 : T_PMI2;
}

static void on_task_input(struct server *s, struct task *t) {
	int r = buf_fill(&t->in, t->fd);
	if (r <= 0) {
		close_task(t);
		return;
	}
	for (;;) {
		if (t->state == T_CLOSED) return;
		if (t->state == T_PMI2) {
			long n = pmi2_complete(t->in.data, t->in.len);
			if (n < 0) {
				note(t, 1, t->in.data, t->in.len);
				close_task(t);
				return;
			}
			if (!n) return;
			struct pmi_msg m;
			note(t, 1, t->in.data + 6, (size_t)n - 6);
			pmi_parse(&m, t->in.data + 6, (size_t)n - 6, ';');
			buf_consume(&t->in, (size_t)n);
			pmi2(s, t, &m);
			pmi_msg_free(&m);
			continue;
		}
		size_t n = pmi1_complete(t->in.data, t->in.len);
		if (!n) return;
		if (t->state == T_PREAMBLE) {
			if (!strncmp(t->in.data, "plugstack-pid=", 14)) t->pid = (pid_t)atol(t->in.data + 14);
			t->state = T_INIT;
			buf_consume(&t->in, n);
			continue;
		}
		struct pmi_msg m;
		note(t, 1, t->in.data, n);
		pmi_parse(&m, t->in.data, n, ' ');
		buf_consume(&t->in, n);
		if (t->state == T_INIT) init(s, t, &m);
		else pmi1(s, t, &m);
		pmi_msg_free(&m);
	}
}

static void on_srun_input(struct server *s) {
	int r = buf_fill(&s->srun_in, s->job->srun_fd);
	if (r <= 0) {
		close(s->job->srun_fd);
		s->job->srun_fd = -1;
		return;
	}
	uint32_t type, len;
	const char *payload;
	size_t size;
	while (frame_next(&s->srun_in, &type, &payload, &len, &size)) {
		if (type == FRAME_FENCE_DONE) fence_done(s, payload, len);
		else if (type == FRAME_KILL) kill_tasks(s);
		buf_consume(&s->srun_in, size);
	}
}

void stepd_server_main(struct stepd_job *job, int ctl) {
	struct server s;
	memset(&s, 0, sizeof s);
	s.job = job;
	kvs_init(&s.global);
	kvs_init(&s.pending);
	kvs_init(&s.nodeattr);
	snprintf(s.kvsname, sizeof s.kvsname, "%u.%u", job->jobid, job->stepid);
	kvs_put(&s.global, "PMI_process_mapping", job->mapping);
	s.tasks = calloc(job->ltasks ? job->ltasks : 1, sizeof *s.tasks);
	struct pollfd *fds = calloc(job->ltasks + 2, sizeof *fds);
	if (!s.tasks || !fds) _exit(1);
	for (uint32_t i = 0; i < job->ltasks; i++) {
		s.tasks[i].fd = job->task_fds[i];
		s.tasks[i].rank = job->gtids[i];
		report_init(&s.tasks[i].report, job->gtids[i], job->trace);
	}
	char hello[32];
	int n = snprintf(hello, sizeof hello, "%u", job->nodeid);
	frame_send(job->srun_fd, FRAME_HELLO, hello, (uint32_t)n);
	for (;;) {
		nfds_t k = 0;
		fds[k++] = (struct pollfd){ctl, POLLIN, 0};
		fds[k++] = (struct pollfd){job->srun_fd, POLLIN, 0};
		for (uint32_t i = 0; i < job->ltasks; i++) fds[k++] = (struct pollfd){s.tasks[i].fd, POLLIN, 0};
		if (poll(fds, k, -1) < 0) continue;
		if (fds[0].revents) break;
		if (fds[1].revents) on_srun_input(&s);
		for (uint32_t i = 0; i < job->ltasks; i++)
			if (s.tasks[i].fd >= 0 && fds[2 + i].revents) on_task_input(&s, &s.tasks[i]);
	}
	/* The report the plugin's fini reads, then the end. */
	char c;
	if (read(ctl, &c, 1) == 1)
		for (uint32_t i = 0; i < job->ltasks; i++) report_send(ctl, &s.tasks[i].report);
	report_end(ctl);
	_exit(0);
}
