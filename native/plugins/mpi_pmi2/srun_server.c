#include "srun_server.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "frame.h"

struct node_conn {
	int fd;
	long nodeid; /* -1 until HELLO */
	struct inbuf in;
	int fenced;
};

struct srun_state {
	struct node_conn *nodes;
	uint32_t nnodes, connected;
	struct inbuf fence; /* the puts of the current fence, every node's */
	uint32_t fenced;
};

static void drop(struct srun_state *s, struct node_conn *c) {
	close(c->fd);
	c->fd = -1;
	buf_free(&c->in);
}

static void broadcast(struct srun_state *s, uint32_t type, const char *payload, uint32_t len) {
	for (uint32_t i = 0; i < s->connected; i++)
		if (s->nodes[i].fd >= 0 && frame_send(s->nodes[i].fd, type, payload, len) < 0) drop(s, &s->nodes[i]);
}

static void on_frame(struct srun_state *s, struct node_conn *c, uint32_t type, const char *payload, uint32_t len) {
	switch (type) {
	case FRAME_HELLO: {
		char id[32] = "";
		memcpy(id, payload, len < sizeof id - 1 ? len : sizeof id - 1);
		c->nodeid = atol(id);
		break;
	}
	case FRAME_FENCE:
		if (c->fenced) break; /* one fence at a time per node */
		c->fenced = 1;
		buf_append(&s->fence, payload, len);
		if (++s->fenced == s->nnodes) {
			broadcast(s, FRAME_FENCE_DONE, s->fence.data, (uint32_t)s->fence.len);
			s->fence.len = 0;
			s->fenced = 0;
			for (uint32_t i = 0; i < s->connected; i++) s->nodes[i].fenced = 0;
		}
		break;
	case FRAME_ABORT:
		broadcast(s, FRAME_KILL, payload, len);
		break;
	default:
		break;
	}
}

void srun_server_main(int listen_fd, int ctl, uint32_t nnodes) {
	struct srun_state s;
	memset(&s, 0, sizeof s);
	s.nnodes = nnodes;
	s.nodes = calloc(nnodes ? nnodes : 1, sizeof *s.nodes);
	struct pollfd *fds = calloc(nnodes + 2, sizeof *fds);
	if (!s.nodes || !fds) _exit(1);
	for (;;) {
		nfds_t n = 0;
		fds[n++] = (struct pollfd){ctl, POLLIN, 0};
		fds[n++] = (struct pollfd){s.connected < nnodes ? listen_fd : -1, POLLIN, 0};
		for (uint32_t i = 0; i < s.connected; i++) fds[n++] = (struct pollfd){s.nodes[i].fd, POLLIN, 0};
		if (poll(fds, n, -1) < 0) continue;
		if (fds[0].revents) _exit(0);
		if (fds[1].revents & POLLIN) {
			int fd = accept(listen_fd, NULL, NULL);
			if (fd >= 0) s.nodes[s.connected++] = (struct node_conn){fd, -1, {0}, 0};
		}
		for (uint32_t i = 0; i < s.connected; i++) {
			struct node_conn *c = &s.nodes[i];
			if (c->fd < 0 || !fds[2 + i].revents) continue;
			int r = buf_fill(&c->in, c->fd);
			if (r <= 0) {
				drop(&s, c);
				continue;
			}
			uint32_t type, len;
			const char *payload;
			size_t size;
			while (c->fd >= 0 && frame_next(&c->in, &type, &payload, &len, &size)) {
				on_frame(&s, c, type, payload, len);
				if (c->fd >= 0) buf_consume(&c->in, size);
			}
		}
	}
}
