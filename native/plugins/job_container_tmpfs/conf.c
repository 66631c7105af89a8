/* job_container.conf: Key=Value words, several per line, '#' comments; a
 * line with NodeName=<hostlist> applies only on those nodes (later lines
 * override earlier ones); %h (host name) and %n (node name) in BasePath; a
 * BasePath inside one of Dirs is an error Slurm treats as fatal. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "tmpfs.h"

tmpfs_conf_t tmpfs_conf;
bool tmpfs_conf_read;

/* The host's answers (plugstack-host exports them; absent elsewhere). */
extern const char *plugstack_slurm_conf(void) __attribute__((weak));
typedef struct hostlist *hostlist_t;
extern hostlist_t slurm_hostlist_create(const char *) __attribute__((weak));
extern int slurm_hostlist_find(hostlist_t, const char *) __attribute__((weak));
extern void slurm_hostlist_destroy(hostlist_t) __attribute__((weak));
extern void slurm_error(const char *, ...) __attribute__((weak));
extern void slurm_info(const char *, ...) __attribute__((weak));

void tmpfs_log(bool error, const char *fmt, ...) {
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (error && slurm_error)
		slurm_error("job_container/tmpfs: %s", text);
	else if (!error && slurm_info)
		slurm_info("job_container/tmpfs: %s", text);
	else
		fprintf(stderr, "job_container/tmpfs: %s\n", text);
}

static const char *node_name(void) {
	const char *n = getenv("SLURMD_NODENAME");
	static char host[256];
	if (n && *n) return n;
	if (gethostname(host, sizeof host) == 0) return host;
	return "";
}

static bool node_matches(const char *list) {
	const char *me = node_name();
	if (slurm_hostlist_create && slurm_hostlist_find && slurm_hostlist_destroy) {
		hostlist_t hl = slurm_hostlist_create(list);
		int found = hl ? slurm_hostlist_find(hl, me) : -1;
		if (hl) slurm_hostlist_destroy(hl);
		return found >= 0;
	}
	return strcmp(list, me) == 0;
}

static bool truth(const char *v) {
	return !strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1");
}

static void expand(char *out, size_t size, const char *in) {
	char host[256] = "";
	size_t o = 0;
	gethostname(host, sizeof host);
	for (const char *p = in; *p && o + 1 < size; p++) {
		const char *add = NULL;
		if (p[0] == '%' && p[1] == 'h') add = host;
		else if (p[0] == '%' && p[1] == 'n') add = node_name();
		if (add) {
			size_t n = strlen(add);
			if (o + n >= size) n = size - o - 1;
			memcpy(out + o, add, n);
			o += n;
			p++;
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
}

static void set_dirs(const char *v) {
	char copy[4096], *save = NULL;
	snprintf(copy, sizeof copy, "%s", v);
	tmpfs_conf.ndirs = 0;
	for (char *d = strtok_r(copy, ",", &save); d && tmpfs_conf.ndirs < TMPFS_MAX_DIRS; d = strtok_r(NULL, ",", &save))
		snprintf(tmpfs_conf.dirs[tmpfs_conf.ndirs++], sizeof tmpfs_conf.dirs[0], "%s", d);
}

static int apply(const char *key, const char *value) {
	if (!strcasecmp(key, "AutoBasePath")) tmpfs_conf.auto_base_path = truth(value);
	else if (!strcasecmp(key, "BasePath")) expand(tmpfs_conf.base_path, sizeof tmpfs_conf.base_path, value);
	else if (!strcasecmp(key, "Dirs")) set_dirs(value);
	else if (!strcasecmp(key, "Shared")) tmpfs_conf.shared = truth(value);
	else if (!strcasecmp(key, "EntireStepInNS")) tmpfs_conf.entire_step_in_ns = truth(value);
	else if (!strcasecmp(key, "InitScript")) snprintf(tmpfs_conf.init_script, sizeof tmpfs_conf.init_script, "%s", value);
	else if (!strcasecmp(key, "CloneNSScript")) snprintf(tmpfs_conf.clonens_script, sizeof tmpfs_conf.clonens_script, "%s", value);
	else if (!strcasecmp(key, "CloneNSEpilog")) snprintf(tmpfs_conf.clonens_epilog, sizeof tmpfs_conf.clonens_epilog, "%s", value);
	else if (!strcasecmp(key, "CloneNSScript_Wait")) tmpfs_conf.clonens_script_wait = atoi(value);
	else if (!strcasecmp(key, "CloneNSEpilog_Wait")) tmpfs_conf.clonens_epilog_wait = atoi(value);
	else {
		tmpfs_log(true, "unknown key %s in job_container.conf", key);
		return -1;
	}
	return 0;
}

/* The words of one line: KEY=VALUE, VALUE possibly quoted. */
static int words(char *line, char keys[][64], char values[][1024], int max) {
	int n = 0;
	char *p = line;
	while (*p && n < max) {
		while (isspace((unsigned char)*p)) p++;
		if (!*p || *p == '#') break;
		char *eq = strchr(p, '=');
		if (!eq) return -1;
		size_t klen = (size_t)(eq - p);
		if (klen >= 64) return -1;
		memcpy(keys[n], p, klen);
		keys[n][klen] = '\0';
		p = eq + 1;
		size_t o = 0;
		if (*p == '"') {
			p++;
			while (*p && *p != '"' && o + 1 < 1024) values[n][o++] = *p++;
			if (*p == '"') p++;
		} else {
			while (*p && !isspace((unsigned char)*p) && o + 1 < 1024) values[n][o++] = *p++;
		}
		values[n][o] = '\0';
		n++;
	}
	return n;
}

static bool under(const char *path, const char *dir) {
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/') n--;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int tmpfs_read_conf(void) {
	char path[1100];
	const char *slurm_conf = plugstack_slurm_conf ? plugstack_slurm_conf() : NULL;
	if (!slurm_conf || !*slurm_conf) slurm_conf = getenv("SLURM_CONF");
	if (!slurm_conf || !*slurm_conf) slurm_conf = "/etc/slurm/slurm.conf";
	const char *slash = strrchr(slurm_conf, '/');
	snprintf(path, sizeof path, "%.*s/job_container.conf", slash ? (int)(slash - slurm_conf) : 1, slash ? slurm_conf : ".");
	memset(&tmpfs_conf, 0, sizeof tmpfs_conf);
	set_dirs("/tmp,/dev/shm");
	tmpfs_conf.clonens_script_wait = 10;
	tmpfs_conf.clonens_epilog_wait = 10;
	FILE *f = fopen(path, "r");
	if (!f) {
		/* No file: the plugin is disabled on this node (no BasePath). */
		tmpfs_log(false, "%s: %s: the plugin does nothing on this node", path, strerror(errno));
		tmpfs_conf_read = true;
		return 0;
	}
	char line[8192];
	int rc = 0, lineno = 0;
	static char keys[32][64], values[32][1024];
	while (fgets(line, sizeof line, f)) {
		lineno++;
		int n = words(line, keys, values, 32);
		if (n < 0) {
			tmpfs_log(true, "%s:%d: not Key=Value", path, lineno);
			rc = -1;
			break;
		}
		if (n == 0) continue;
		int first = 0;
		if (!strcasecmp(keys[0], "NodeName")) {
			if (!node_matches(values[0])) continue;
			first = 1;
		}
		for (int i = first; i < n; i++)
			if (apply(keys[i], values[i]) < 0) rc = -1;
	}
	fclose(f);
	if (rc == 0 && tmpfs_conf.base_path[0])
		for (int i = 0; i < tmpfs_conf.ndirs; i++)
			if (under(tmpfs_conf.base_path, tmpfs_conf.dirs[i])) {
				tmpfs_log(true, "BasePath(%s) cannot also be mounted as a directory in Dirs (%s)",
					  tmpfs_conf.base_path, tmpfs_conf.dirs[i]);
				rc = -1;
			}
	tmpfs_conf_read = true;
	return rc;
}

bool tmpfs_disabled(void) {
	return !tmpfs_conf.base_path[0] || !strncasecmp(tmpfs_conf.base_path, "none", 4);
}

int tmpfs_send_conf(int fd) {
	int len = (int)sizeof tmpfs_conf;
	if (write(fd, &len, sizeof len) != (ssize_t)sizeof len) return -1;
	if (write(fd, &tmpfs_conf, sizeof tmpfs_conf) != (ssize_t)sizeof tmpfs_conf) return -1;
	return 0;
}

static int read_all(int fd, void *buf, size_t n) {
	char *p = buf;
	while (n) {
		ssize_t r = read(fd, p, n);
		if (r < 0 && errno == EINTR) continue;
		if (r <= 0) return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

int tmpfs_recv_conf(int fd) {
	int len = 0;
	if (read_all(fd, &len, sizeof len) < 0 || len != (int)sizeof tmpfs_conf) return -1;
	if (read_all(fd, &tmpfs_conf, sizeof tmpfs_conf) < 0) return -1;
	tmpfs_conf_read = true;
	return 0;
}
