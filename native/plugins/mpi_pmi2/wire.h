/*
 * The two PMI wire formats a task speaks on its PMI_FD:
 * PMI-1, newline-terminated lines of space-separated key=value words
 * ("cmd=put kvsname=1.0 key=k value=v"); PMI-2, a 6-character
 * space-padded decimal length, then "key=value;" pairs
 * ("cmd=kvs-put;key=k;value=v;").
 */
#ifndef PMI2_WIRE_H
#define PMI2_WIRE_H

#include <stddef.h>

#define PMI_MAX_PAIRS 64

struct pmi_msg {
	char *text; /* a copy, split in place */
	int count;
	const char *keys[PMI_MAX_PAIRS];
	const char *values[PMI_MAX_PAIRS];
};

/* Splits one message's words (sep ' ' for PMI-1, ';' for PMI-2). */
int pmi_parse(struct pmi_msg *m, const char *text, size_t len, char sep);
void pmi_msg_free(struct pmi_msg *m);
const char *pmi_get(const struct pmi_msg *m, const char *key);

/* A complete PMI-1 line at the front of buf (its length with '\n'), or
 * 0. A complete PMI-2 frame: the header's length + 6, or 0; -1 for a
 * header that is not a length. */
size_t pmi1_complete(const char *buf, size_t len);
long pmi2_complete(const char *buf, size_t len);

#endif
