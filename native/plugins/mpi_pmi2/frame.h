/*
 * Between each node's PMI server and srun's: frames of a 32-bit type and a
 * 32-bit length (network order), then the payload.
 *
 *   HELLO       node -> srun   "nodeid"
 *   FENCE       node -> srun   the node's puts since the last fence:
 *                              key\0value\0 ...
 *   FENCE_DONE  srun -> node   every node's puts of that fence
 *   ABORT       node -> srun   "rank code": a task called abort
 *   KILL        srun -> node   end the step's tasks
 */
#ifndef PMI2_FRAME_H
#define PMI2_FRAME_H

#include <stddef.h>
#include <stdint.h>

enum { FRAME_HELLO = 1, FRAME_FENCE, FRAME_FENCE_DONE, FRAME_ABORT, FRAME_KILL };

struct inbuf {
	char *data;
	size_t len, cap;
};

int buf_append(struct inbuf *b, const char *data, size_t len);
void buf_consume(struct inbuf *b, size_t n);
void buf_free(struct inbuf *b);

/* Reads what fd has into b: >0 bytes read, 0 at EOF, -1 on error
 * (EAGAIN is 1 with nothing added). */
int buf_fill(struct inbuf *b, int fd);

/* A complete frame at the front of b: its type, payload and whole size. */
int frame_next(const struct inbuf *b, uint32_t *type, const char **payload, uint32_t *len, size_t *size);
int frame_send(int fd, uint32_t type, const char *payload, uint32_t len);

int write_all(int fd, const char *data, size_t len);

#endif
