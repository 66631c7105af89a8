/*
 * What a rank did with the PMI server, kept by the node's server process
 * and handed to the plugin's fini over the control socket, which passes it
 * to the host (plugstack_pmi_line / plugstack_pmi_rank).
 */
#ifndef PMI2_REPORT_H
#define PMI2_REPORT_H

#include <stddef.h>
#include <stdint.h>

#define REPORT_MAX_LINES 2000

struct rank_report {
	uint32_t rank;
	char version[8]; /* "1.1", "2.0"; "" before init */
	int connected, finalized, aborted, abort_code;
	uint32_t size_told;
	int trace;
	size_t nlines;
	char **lines; /* ">text" from the task, "<text" from the server */
	size_t dropped;
};

void report_init(struct rank_report *r, uint32_t rank, int trace);
void report_line(struct rank_report *r, int from_task, const char *text, size_t len);
/* Server side: one rank's report; then the end marker. */
void report_send(int fd, const struct rank_report *r);
void report_end(int fd);
/* Plugin side: reads reports until the end marker, passing each on. */
void report_receive(int fd, void (*rank)(const struct rank_report *r, void *arg), void *arg);

#endif
