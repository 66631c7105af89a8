/* A string-to-string map for the PMI key-value space (and node
 * attributes): insertion order kept, later puts of a key replace it. */
#ifndef PMI2_KVS_H
#define PMI2_KVS_H

#include <stddef.h>

struct kvs {
	char **keys;
	char **values;
	size_t count, cap;
	size_t *index; /* open addressing, index+1 into keys; 0 empty */
	size_t slots;
};

void kvs_init(struct kvs *k);
void kvs_free(struct kvs *k);
void kvs_clear(struct kvs *k);
int kvs_put(struct kvs *k, const char *key, const char *value);
const char *kvs_get(const struct kvs *k, const char *key);

#endif
