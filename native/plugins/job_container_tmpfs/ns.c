/* The job's namespace: made by the extern step (stepd_create), kept alive
 * by a bind mount of /proc/<pid>/ns/mnt on <BasePath>/<job>/.ns, joined with
 * setns(2), removed by stepd_delete (and by restore for jobs that are gone). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tmpfs.h"

static int ns_fd = -1;
static uint32_t ns_fd_job;

static void job_paths(uint32_t job, char *jobdir, size_t n1, char *holder, size_t n2, char *src, size_t n3) {
	snprintf(jobdir, n1, "%s/%u", tmpfs_conf.base_path, job);
	if (holder) snprintf(holder, n2, "%s/%u/.ns", tmpfs_conf.base_path, job);
	if (src) snprintf(src, n3, "%s/%u/.%u", tmpfs_conf.base_path, job, job);
}

static int mkdirs(const char *path, mode_t mode) {
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, mode) && errno != EEXIST) return -1;
			*p = '/';
		}
	if (mkdir(buf, mode) && errno != EEXIST) return -1;
	return 0;
}

/* A site script, as root, with the job's variables; waited for at most
 * wait seconds (0: no limit). */
static int run_script(const char *script, uint32_t job, uid_t uid, gid_t gid, const char *ns, const char *src, int wait) {
	if (!script || !*script) return 0;
	pid_t pid = fork();
	if (pid < 0) return -1;
	if (pid == 0) {
		char v[64];
		snprintf(v, sizeof v, "%u", job);
		setenv("SLURM_JOB_ID", v, 1);
		snprintf(v, sizeof v, "%u", (unsigned)uid);
		setenv("SLURM_JOB_UID", v, 1);
		snprintf(v, sizeof v, "%u", (unsigned)gid);
		setenv("SLURM_JOB_GID", v, 1);
		if (ns) setenv("SLURM_NS", ns, 1);
		if (src) setenv("SLURM_JOB_MOUNTPOINT_SRC", src, 1);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	int status = 0;
	for (int waited = 0;; waited++) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid) break;
		if (r < 0 && errno != EINTR) return -1;
		if (wait > 0 && waited >= wait * 100) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			tmpfs_log(true, "%s: still running after %d s, killed", script, wait);
			return -1;
		}
		usleep(10000);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		tmpfs_log(true, "%s failed (status %d)", script, status);
		return -1;
	}
	return 0;
}

static bool is_mounted_ns(const char *holder) {
	/* A bound namespace file is an nsfs inode: setns would accept it.
	 * (statx, not stat: glibc 2.28 has it; stat is a 2.33 symbol.) */
	struct statx a, b;
	return statx(AT_FDCWD, holder, 0, STATX_BASIC_STATS, &a) == 0 &&
	       statx(AT_FDCWD, "/proc/self/ns/mnt", 0, STATX_BASIC_STATS, &b) == 0 &&
	       a.stx_dev_major == b.stx_dev_major && a.stx_dev_minor == b.stx_dev_minor;
}

static int in_child(uid_t uid, gid_t gid, const char *src, const char *jobdir, int ready, int go) {
	char c = 0;
	int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	for (int attempt = 0;; attempt++) {
		if (unshare(CLONE_NEWNS) != 0) {
			tmpfs_log(true, "unshare(CLONE_NEWNS): %s", strerror(errno));
			return 1;
		}
		if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 1) return 1;
		if (c != 'r') break;
		/* The parent could not bind our namespace: the kernel numbers
		 * mount namespaces per CPU (6.x), and refuses one numbered
		 * below its own as a possible loop. Unshare again elsewhere. */
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET((attempt + 1) % (cpus > 0 ? cpus : 1), &set);
		sched_setaffinity(0, sizeof set, &set);
	}
	if (tmpfs_conf.shared) {
		if (mount(NULL, "/", NULL, MS_SHARED | MS_REC, NULL) || mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL)) {
			tmpfs_log(true, "making / shared then slave: %s", strerror(errno));
			return 1;
		}
	} else if (mount(NULL, "/", NULL, MS_PRIVATE | MS_REC, NULL)) {
		tmpfs_log(true, "making / private: %s", strerror(errno));
		return 1;
	}
	for (int i = 0; i < tmpfs_conf.ndirs; i++) {
		const char *dir = tmpfs_conf.dirs[i];
		if (!strcmp(dir, "/dev/shm")) continue;
		char d[1600], name[256];
		snprintf(name, sizeof name, "%s", dir);
		for (char *p = name; *p; p++)
			if (*p == '/') *p = '_';
		snprintf(d, sizeof d, "%s/%s", src, name);
		if ((mkdir(d, 0700) && errno != EEXIST) || chown(d, uid, gid)) {
			tmpfs_log(true, "%s: %s", d, strerror(errno));
			return 1;
		}
		if (mount(d, dir, NULL, MS_BIND, NULL)) {
			tmpfs_log(true, "mounting %s on %s: %s", d, dir, strerror(errno));
			return 1;
		}
	}
	/* The job does not see the base path's other jobs. */
	if (umount2(jobdir, MNT_DETACH)) tmpfs_log(true, "umount2(%s): %s", jobdir, strerror(errno));
	for (int i = 0; i < tmpfs_conf.ndirs; i++)
		if (!strcmp(tmpfs_conf.dirs[i], "/dev/shm")) {
			umount2("/dev/shm", MNT_DETACH);
			if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")) {
				tmpfs_log(true, "tmpfs on /dev/shm: %s", strerror(errno));
				return 1;
			}
		}
	return 0;
}

int tmpfs_create_ns(uint32_t job, uid_t uid, gid_t gid) {
	char jobdir[1100], holder[1100], src[1200];
	if (tmpfs_disabled()) return 0;
	job_paths(job, jobdir, sizeof jobdir, holder, sizeof holder, src, sizeof src);
	if (mkdir(jobdir, 0700) && errno != EEXIST) {
		tmpfs_log(true, "mkdir(%s): %s", jobdir, strerror(errno));
		return -1;
	}
	if (is_mounted_ns(holder)) return 0; /* made already */
	if (mount(jobdir, jobdir, NULL, MS_BIND, NULL) || mount(NULL, jobdir, NULL, MS_PRIVATE | MS_REC, NULL)) {
		tmpfs_log(true, "bind mount of %s: %s", jobdir, strerror(errno));
		return -1;
	}
	int fd = open(holder, O_CREAT | O_WRONLY | O_CLOEXEC, 0400);
	if (fd < 0) {
		tmpfs_log(true, "%s: %s", holder, strerror(errno));
		return -1;
	}
	close(fd);
	/* Who keeps the job (restore's stand-in for asking its slurmstepd). */
	char owner[1200], pid[32];
	snprintf(owner, sizeof owner, "%s/.owner", jobdir);
	fd = open(owner, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0400);
	if (fd >= 0) {
		int n = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
		if (write(fd, pid, (size_t)n) != n) tmpfs_log(true, "%s: %s", owner, strerror(errno));
		close(fd);
	}
	if (run_script(tmpfs_conf.init_script, job, uid, gid, NULL, jobdir, 0)) return -1;
	if (mkdir(src, 0700) && errno != EEXIST) {
		tmpfs_log(true, "mkdir(%s): %s", src, strerror(errno));
		return -1;
	}
	int ready[2], go[2];
	if (pipe2(ready, O_CLOEXEC) || pipe2(go, O_CLOEXEC)) return -1;
	pid_t child = fork();
	if (child < 0) return -1;
	if (child == 0) {
		close(ready[0]);
		close(go[1]);
		_exit(in_child(uid, gid, src, jobdir, ready[1], go[0]));
	}
	close(ready[1]);
	close(go[0]);
	char c = 0, proc[64];
	int rc = 0;
	int tries = 2 * (int)sysconf(_SC_NPROCESSORS_ONLN) + 1;
	for (int attempt = 0;; attempt++) {
		if (read(ready[0], &c, 1) != 1) {
			rc = -1;
			break;
		}
		snprintf(proc, sizeof proc, "/proc/%d/ns/mnt", (int)child);
		if (mount(proc, holder, NULL, MS_BIND, NULL) == 0) {
			c = 'g';
			break;
		}
		if (errno != EINVAL || attempt + 1 >= tries) {
			tmpfs_log(true, "mount %s on %s: %s", proc, holder, strerror(errno));
			rc = -1;
			break;
		}
		c = 'r';
		if (write(go[1], &c, 1) != 1) {
			rc = -1;
			break;
		}
	}
	if (rc == 0 && write(go[1], &c, 1) != 1) rc = -1;
	close(ready[0]);
	close(go[1]);
	int status;
	while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
	}
	if (rc == 0 && (!WIFEXITED(status) || WEXITSTATUS(status))) rc = -1;
	if (rc == 0 && run_script(tmpfs_conf.clonens_script, job, uid, gid, holder, src, tmpfs_conf.clonens_script_wait)) rc = -1;
	if (rc) tmpfs_delete_ns(job);
	return rc;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
	(void)st;
	(void)ftw;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) && errno != ENOENT ? -1 : 0;
}

int tmpfs_delete_ns(uint32_t job) {
	char jobdir[1100], holder[1100], src[1200];
	if (tmpfs_disabled()) return 0;
	job_paths(job, jobdir, sizeof jobdir, holder, sizeof holder, src, sizeof src);
	run_script(tmpfs_conf.clonens_epilog, job, 0, 0, holder, src, tmpfs_conf.clonens_epilog_wait);
	if (ns_fd >= 0 && ns_fd_job == job) {
		close(ns_fd);
		ns_fd = -1;
	}
	int rc = 0;
	if (umount2(holder, MNT_DETACH) && errno != EINVAL && errno != ENOENT) {
		tmpfs_log(true, "umount2(%s): %s", holder, strerror(errno));
		rc = -1;
	}
	/* What the job left in its directories; never across a mount. */
	if (nftw(src, rm_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) && errno != ENOENT) rc = -1;
	unlink(holder);
	char owner[1200];
	snprintf(owner, sizeof owner, "%s/.owner", jobdir);
	unlink(owner);
	if (umount2(jobdir, MNT_DETACH) && errno != EINVAL && errno != ENOENT) rc = -1;
	if (rmdir(jobdir) && errno != ENOENT) {
		tmpfs_log(true, "rmdir(%s): %s", jobdir, strerror(errno));
		rc = -1;
	}
	return rc;
}

int tmpfs_join_ns(uint32_t job) {
	char jobdir[1100], holder[1100];
	if (tmpfs_disabled() || job == 0) return 0;
	job_paths(job, jobdir, sizeof jobdir, holder, sizeof holder, NULL, 0);
	int fd = open(holder, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		tmpfs_log(true, "open(%s): %s", holder, strerror(errno));
		return -1;
	}
	int rc = setns(fd, CLONE_NEWNS);
	int err = errno;
	close(fd);
	if (rc) {
		tmpfs_log(true, "setns(%s): %s", holder, strerror(err));
		errno = err;
		return -1;
	}
	return 0;
}

int tmpfs_ns_fd(uint32_t job) {
	char jobdir[1100], holder[1100];
	if (tmpfs_disabled()) return 0;
	if (ns_fd >= 0 && ns_fd_job == job) return ns_fd;
	job_paths(job, jobdir, sizeof jobdir, holder, sizeof holder, NULL, 0);
	ns_fd = open(holder, O_RDONLY | O_CLOEXEC);
	ns_fd_job = job;
	return ns_fd < 0 ? 0 : ns_fd;
}

int tmpfs_restore(void) {
	if (tmpfs_disabled()) return 0;
	if (tmpfs_conf.auto_base_path && mkdirs(tmpfs_conf.base_path, 0755)) {
		tmpfs_log(true, "mkdir(%s): %s", tmpfs_conf.base_path, strerror(errno));
		return -1;
	}
	DIR *d = opendir(tmpfs_conf.base_path);
	if (!d) {
		tmpfs_log(true, "opendir(%s): %s", tmpfs_conf.base_path, strerror(errno));
		return -1;
	}
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d))) {
		char *end;
		unsigned long job = strtoul(e->d_name, &end, 10);
		if (!*e->d_name || *end) continue;
		/* A job whose extern slurmstepd still runs (another run of
		 * plugstack) is kept, as slurmd keeps one whose stepd answers. */
		char owner[1300];
		snprintf(owner, sizeof owner, "%s/%s/.owner", tmpfs_conf.base_path, e->d_name);
		FILE *f = fopen(owner, "r");
		int pid = 0;
		if (f) {
			if (fscanf(f, "%d", &pid) != 1) pid = 0;
			fclose(f);
		}
		if (pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)) continue;
		if (tmpfs_delete_ns((uint32_t)job)) rc = -1;
	}
	closedir(d);
	return rc;
}
