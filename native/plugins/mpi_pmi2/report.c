#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frame.h"

void report_init(struct rank_report *r, uint32_t rank, int trace) {
	memset(r, 0, sizeof *r);
	r->rank = rank;
	r->trace = trace;
}

void report_line(struct rank_report *r, int from_task, const char *text, size_t len) {
	if (!r->trace) return;
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\0')) len--;
	if (r->nlines >= REPORT_MAX_LINES) {
		r->dropped++;
		return;
	}
	char **lines = realloc(r->lines, (r->nlines + 1) * sizeof *lines);
	char *line = malloc(len + 2);
	if (!lines || !line) {
		free(line);
		if (lines) r->lines = lines;
		r->dropped++;
		return;
	}
	r->lines = lines;
	line[0] = from_task ? '>' : '<';
	memcpy(line + 1, text, len);
	line[len + 1] = '\0';
	r->lines[r->nlines++] = line;
}

/* Records: "R rank version connected finalized aborted code size nlines dropped\n",
 * then nlines of "<len>\n<bytes>"; "E\n" at the end. */
void report_send(int fd, const struct rank_report *r) {
	char head[256];
	int n = snprintf(head, sizeof head, "R %u %s %d %d %d %d %u %zu %zu\n", r->rank,
			 r->version[0] ? r->version : "-", r->connected, r->finalized, r->aborted, r->abort_code,
			 r->size_told, r->nlines, r->dropped);
	write_all(fd, head, (size_t)n);
	for (size_t i = 0; i < r->nlines; i++) {
		size_t len = strlen(r->lines[i]);
		n = snprintf(head, sizeof head, "%zu\n", len);
		write_all(fd, head, (size_t)n);
		write_all(fd, r->lines[i], len);
	}
}

void report_end(int fd) { write_all(fd, "E\n", 2); }

static int read_byte(int fd, char *c) { return read(fd, c, 1) == 1; }

static int read_line(int fd, char *buf, size_t size) {
	size_t n = 0;
	char c;
	while (n + 1 < size && read_byte(fd, &c)) {
		if (c == '\n') {
			buf[n] = '\0';
			return 1;
		}
		buf[n++] = c;
	}
	return 0;
}

void report_receive(int fd, void (*rank)(const struct rank_report *r, void *arg), void *arg) {
	char head[256];
	while (read_line(fd, head, sizeof head) && head[0] == 'R') {
		struct rank_report r;
		char version[8];
		memset(&r, 0, sizeof r);
		if (sscanf(head, "R %u %7s %d %d %d %d %u %zu %zu", &r.rank, version, &r.connected, &r.finalized,
			   &r.aborted, &r.abort_code, &r.size_told, &r.nlines, &r.dropped) != 9)
			return;
		snprintf(r.version, sizeof r.version, "%s", strcmp(version, "-") ? version : "");
		size_t want = r.nlines;
		r.nlines = 0;
		r.lines = calloc(want ? want : 1, sizeof *r.lines);
		for (size_t i = 0; r.lines && i < want; i++) {
			if (!read_line(fd, head, sizeof head)) break;
			size_t len = (size_t)strtoul(head, NULL, 10);
			char *line = malloc(len + 1);
			size_t got = 0;
			while (line && got < len) {
				ssize_t k = read(fd, line + got, len - got);
				if (k <= 0) break;
				got += (size_t)k;
			}
			if (!line || got < len) {
				free(line);
				break;
			}
			line[len] = '\0';
			r.lines[r.nlines++] = line;
		}
		rank(&r, arg);
		for (size_t i = 0; i < r.nlines; i++) free(r.lines[i]);
		free(r.lines);
	}
}
