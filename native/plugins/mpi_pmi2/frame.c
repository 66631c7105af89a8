#include "frame.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int buf_append(struct inbuf *b, const char *data, size_t len) {
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + len) cap *= 2;
		char *d = realloc(b->data, cap);
		if (!d) return -1;
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, data, len);
	b->len += len;
	return 0;
}

void buf_consume(struct inbuf *b, size_t n) {
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
}

void buf_free(struct inbuf *b) {
	free(b->data);
	memset(b, 0, sizeof *b);
}

int buf_fill(struct inbuf *b, int fd) {
	char chunk[16384];
	ssize_t n;
	do n = read(fd, chunk, sizeof chunk);
	while (n < 0 && errno == EINTR);
	if (n < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 1 : -1;
	if (n == 0) return 0;
	return buf_append(b, chunk, (size_t)n) < 0 ? -1 : (int)n;
}

int frame_next(const struct inbuf *b, uint32_t *type, const char **payload, uint32_t *len, size_t *size) {
	uint32_t head[2];
	if (b->len < sizeof head) return 0;
	memcpy(head, b->data, sizeof head);
	*type = ntohl(head[0]);
	*len = ntohl(head[1]);
	if (b->len < sizeof head + *len) return 0;
	*payload = b->data + sizeof head;
	*size = sizeof head + *len;
	return 1;
}

int write_all(int fd, const char *data, size_t len) {
	while (len) {
		ssize_t n = write(fd, data, len);
		if (n < 0 && errno == EINTR) continue;
		if (n <= 0) return -1;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

int frame_send(int fd, uint32_t type, const char *payload, uint32_t len) {
	uint32_t head[2] = {htonl(type), htonl(len)};
	if (write_all(fd, (const char *)head, sizeof head) < 0) return -1;
	return len ? write_all(fd, payload, len) : 0;
}
