/*
 * mpi/pmi2, plugstack's own: the PMI-1 and PMI-2 server Slurm's mpi/pmi2
 * is (the same replies, the same environment for tasks), built on the mpi
 * plugin interface alone, since Slurm's needs srun's and slurmstepd's
 * internals. One file for 22.05 and 24.11: each hook reads its structs
 * with that release's layout (hooks_2205.c, hooks_2411.c).
 *
 * client_prelaunch (srun) starts srun's half of the server in a process of
 * its own and hands the tasks' environment SLURM_PMI2_SRUN_PORT,
 * SLURM_PMI2_STEP_NODES and SLURM_PMI2_PROC_MAPPING; slurmstepd_prefork
 * (each node, as root, before the tasks fork) takes those out of the step's
 * environment, connects to srun's half, makes one socket pair per local
 * task and starts the node's half; slurmstepd_task (each task, before exec)
 * gives the task PMI_FD, PMI_JOBID, PMI_RANK and PMI_SIZE; client_fini and
 * fini end the halves, and fini passes what each rank did to plugstack.
 */
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>

#include <plugstack/mpi.h>

#include "pmi2.h"
#include "mapping.h"
#include "report.h"
#include "srun_server.h"
#include "stepd_server.h"

extern void slurm_error(const char *fmt, ...);

/* plugstack's: where each rank's report goes (the host's result). */
extern void plugstack_pmi_line(uint32_t rank, const char *line) __attribute__((weak));
extern void plugstack_pmi_rank(uint32_t rank, const char *version, int connected, int finalized, int aborted,
			       int abort_code, uint32_t size_told, size_t dropped) __attribute__((weak));
extern int plugstack_pmi_trace_wanted(void) __attribute__((weak));

static struct {
	/* srun */
	pid_t srun_helper;
	int srun_ctl;
	/* slurmstepd */
	pid_t stepd_helper;
	int stepd_ctl;
	uint32_t ltasks;
	int *task_ends;
} g = {0, -1, 0, -1, 0, NULL};

static const char *env_names[] = {"SLURM_PMI2_SRUN_PORT", "SLURM_PMI2_STEP_NODES", "SLURM_PMI2_PROC_MAPPING",
				  "SLURM_PMI2_PMI_JOBID", "SLURM_PMI2_SPAWN_SEQ", "SLURM_PMI2_SPAWNER_JOBID"};

/* A helper process keeps only its own descriptors (not the host's channel),
 * dies with its parent, and takes signals as a fresh process would. */
static void become_helper(const int *keep, size_t nkeep) {
	sigset_t none;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	DIR *d = opendir("/proc/self/fd");
	if (!d) return;
	int self = dirfd(d);
	struct dirent *e;
	int fds[1024];
	size_t n = 0;
	while ((e = readdir(d)) && n < sizeof fds / sizeof fds[0]) {
		if (e->d_name[0] == '.') continue;
		int fd = atoi(e->d_name);
		if (fd == self) continue;
		int kept = 0;
		for (size_t i = 0; i < nkeep; i++) kept |= keep[i] == fd;
		if (!kept) fds[n++] = fd;
	}
	closedir(d);
	for (size_t i = 0; i < n; i++) close(fds[i]);
}

static int cloexec(int fd) { return fcntl(fd, F_SETFD, FD_CLOEXEC); }

static int trace_wanted(void) { return plugstack_pmi_trace_wanted ? plugstack_pmi_trace_wanted() : 0; }

void *pmi2_client_prelaunch(const struct pmi2_layout *l, char ***env)
{
	char *mapping = process_mapping(l->node_cnt, l->tasks, l->tids);
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int ctl[2];
	struct sockaddr_in addr;
	socklen_t alen = sizeof addr;
	memset(&addr, 0, sizeof addr);
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!mapping || lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(lfd, 64) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&addr, &alen) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctl) < 0) {
		slurm_error("mpi/pmi2: failed to create srun's PMI socket: %s", strerror(errno));
		if (lfd >= 0) close(lfd);
		free(mapping);
		return NULL;
	}
	pid_t pid = fork();
	if (pid < 0) {
		slurm_error("mpi/pmi2: failed to start srun's PMI server: %s", strerror(errno));
		close(lfd);
		close(ctl[0]);
		close(ctl[1]);
		free(mapping);
		return NULL;
	}
	if (pid == 0) {
		int keep[] = {lfd, ctl[1]};
		become_helper(keep, 2);
		srun_server_main(lfd, ctl[1], l->node_cnt);
	}
	close(lfd);
	close(ctl[1]);
	g.srun_helper = pid;
	g.srun_ctl = ctl[0];
	setenvf(env, "SLURM_PMI2_SRUN_PORT", "%u", (unsigned)ntohs(addr.sin_port));
	env_array_overwrite(env, "SLURM_PMI2_STEP_NODES", l->node_list);
	env_array_overwrite(env, "SLURM_PMI2_PROC_MAPPING", mapping);
	free(mapping);
	return (void *)&g;
}

int mpi_p_client_fini(mpi_plugin_client_state_t *state) {
	if (g.srun_helper > 0) {
		int status;
		close(g.srun_ctl);
		while (waitpid(g.srun_helper, &status, 0) < 0 && errno == EINTR) {
		}
		g.srun_helper = 0;
		g.srun_ctl = -1;
	}
	return SLURM_SUCCESS;
}

int pmi2_prefork(const struct pmi2_node *step, char ***env) {
	char *port_text = getenvp(*env, "SLURM_PMI2_SRUN_PORT");
	char *nodes = getenvp(*env, "SLURM_PMI2_STEP_NODES");
	char *mapping = getenvp(*env, "SLURM_PMI2_PROC_MAPPING");
	char *host = getenvp(*env, "SLURM_SRUN_COMM_HOST");
	if (step->batch) return SLURM_SUCCESS;
	if (!nodes) {
		slurm_error("mpi/pmi2: unable to find nodes in job environment");
		return SLURM_ERROR;
	}
	if (!mapping) {
		slurm_error("PMI2_PROC_MAPPING_ENV not found");
		return SLURM_ERROR;
	}
	if (!host) {
		slurm_error("mpi/pmi2: unable to find srun comm ifhn in env");
		return SLURM_ERROR;
	}
	if (!port_text) {
		slurm_error("mpi/pmi2: unable to find srun pmi2 port in env");
		return SLURM_ERROR;
	}
	struct stepd_job job;
	memset(&job, 0, sizeof job);
	job.jobid = step->jobid;
	job.stepid = step->stepid;
	job.nnodes = step->nnodes;
	job.nodeid = step->nodeid;
	job.ntasks = step->ntasks;
	job.ltasks = step->ltasks;
	job.mapping = strdup(mapping);
	job.trace = trace_wanted();
	job.gtids = calloc(job.ltasks ? job.ltasks : 1, sizeof *job.gtids);
	job.task_fds = calloc(job.ltasks ? job.ltasks : 1, sizeof *job.task_fds);
	g.task_ends = calloc(job.ltasks ? job.ltasks : 1, sizeof *g.task_ends);
	struct sockaddr_in addr;
	memset(&addr, 0, sizeof addr);
	addr.sin_family = AF_INET;
	addr.sin_port = htons((uint16_t)atoi(port_text));
	if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* Slurm takes them out of the step's environment: tasks never see them. */
	for (size_t i = 0; i < sizeof env_names / sizeof env_names[0]; i++) unsetenvp(*env, env_names[i]);
	job.srun_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!job.mapping || !job.gtids || !job.task_fds || !g.task_ends || job.srun_fd < 0 ||
	    connect(job.srun_fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
		slurm_error("mpi/pmi2: failed to connect to srun's PMI server: %s", strerror(errno));
		return SLURM_ERROR;
	}
	for (uint32_t i = 0; i < job.ltasks; i++) {
		int sp[2];
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) < 0) {
			slurm_error("mpi/pmi2: failed to create PMI socket pair: %s", strerror(errno));
			return SLURM_ERROR;
		}
		cloexec(sp[0]);
		job.gtids[i] = step->gtids[i];
		job.task_fds[i] = sp[0];
		g.task_ends[i] = sp[1];
	}
	g.ltasks = job.ltasks;
	int ctl[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctl) < 0) {
		slurm_error("mpi/pmi2: failed to create a control socket: %s", strerror(errno));
		return SLURM_ERROR;
	}
	pid_t pid = fork();
	if (pid < 0) {
		slurm_error("mpi/pmi2: failed to start the node's PMI server: %s", strerror(errno));
		return SLURM_ERROR;
	}
	if (pid == 0) {
		int *keep = calloc(job.ltasks + 2, sizeof *keep);
		size_t n = 0;
		keep[n++] = job.srun_fd;
		keep[n++] = ctl[1];
		for (uint32_t i = 0; i < job.ltasks; i++) keep[n++] = job.task_fds[i];
		become_helper(keep, n);
		stepd_server_main(&job, ctl[1]);
	}
	close(ctl[1]);
	close(job.srun_fd);
	for (uint32_t i = 0; i < job.ltasks; i++) close(job.task_fds[i]);
	free(job.task_fds);
	free(job.gtids);
	free(job.mapping);
	g.stepd_helper = pid;
	g.stepd_ctl = ctl[0];
	return SLURM_SUCCESS;
}

int pmi2_task(const struct pmi2_task *task, char ***env)
{
	int mine = -1;
	if ((uint32_t)task->ltaskid < g.ltasks) mine = g.task_ends[task->ltaskid];
	for (uint32_t i = 0; i < g.ltasks; i++)
		if ((int)i != task->ltaskid) close(g.task_ends[i]);
	if (g.stepd_ctl >= 0) close(g.stepd_ctl);
	if (mine < 0) {
		slurm_error("mpi/pmi2: no PMI socket for task %d", task->ltaskid);
		return SLURM_ERROR;
	}
	/* The node's server learns which process this rank is (for abort). */
	char hello[64];
	int n = snprintf(hello, sizeof hello, "plugstack-pid=%d\n", (int)getpid());
	if (write(mine, hello, (size_t)n) != n) {
		slurm_error("mpi/pmi2: the node's PMI server is gone: %s", strerror(errno));
		return SLURM_ERROR;
	}
	env_array_overwrite_fmt(env, "PMI_FD", "%d", mine);
	env_array_overwrite_fmt(env, "PMI_JOBID", "%u.%u", task->jobid, task->stepid);
	env_array_overwrite_fmt(env, "PMI_RANK", "%u", task->gtaskid);
	env_array_overwrite_fmt(env, "PMI_SIZE", "%u", task->ntasks);
	return SLURM_SUCCESS;
}

static void pass_on(const struct rank_report *r, void *arg) {
	if (plugstack_pmi_line)
		for (size_t i = 0; i < r->nlines; i++) plugstack_pmi_line(r->rank, r->lines[i]);
	if (plugstack_pmi_rank)
		plugstack_pmi_rank(r->rank, r->version, r->connected, r->finalized, r->aborted, r->abort_code,
				   r->size_told, r->dropped);
}

void fini(void) {
	if (g.stepd_helper > 0) {
		char c = 'R';
		int status;
		if (write(g.stepd_ctl, &c, 1) == 1) report_receive(g.stepd_ctl, pass_on, NULL);
		close(g.stepd_ctl);
		g.stepd_ctl = -1;
		/* slurmstepd may have reaped it already. */
		while (waitpid(g.stepd_helper, &status, 0) < 0 && errno == EINTR) {
		}
		g.stepd_helper = 0;
	}
	for (uint32_t i = 0; i < g.ltasks; i++) close(g.task_ends[i]);
	free(g.task_ends);
	g.task_ends = NULL;
	g.ltasks = 0;
	mpi_p_client_fini(NULL);
}

void mpi_p_conf_options(s_p_options_t **full_options, int *full_options_cnt) {}

void mpi_p_conf_set(s_p_hashtbl_t *tbl) {}

s_p_hashtbl_t *mpi_p_conf_get(void) { return NULL; }

plugstack_mpi_list_t mpi_p_conf_get_printable(void) { return NULL; }
