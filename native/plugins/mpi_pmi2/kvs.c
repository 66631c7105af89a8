#include "kvs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t hash(const char *s) {
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h;
}

void kvs_init(struct kvs *k) { memset(k, 0, sizeof *k); }

void kvs_clear(struct kvs *k) {
	for (size_t i = 0; i < k->count; i++) {
		free(k->keys[i]);
		free(k->values[i]);
	}
	k->count = 0;
	if (k->index) memset(k->index, 0, k->slots * sizeof *k->index);
}

void kvs_free(struct kvs *k) {
	kvs_clear(k);
	free(k->keys);
	free(k->values);
	free(k->index);
	kvs_init(k);
}

static size_t *slot(const struct kvs *k, const char *key) {
	if (!k->slots) return NULL;
	size_t i = hash(key) & (k->slots - 1);
	for (;;) {
		size_t *s = &k->index[i];
		if (!*s || strcmp(k->keys[*s - 1], key) == 0) return s;
		i = (i + 1) & (k->slots - 1);
	}
}

static int grow(struct kvs *k) {
	size_t slots = k->slots ? k->slots * 2 : 64;
	size_t *index = calloc(slots, sizeof *index);
	if (!index) return -1;
	free(k->index);
	k->index = index;
	k->slots = slots;
	for (size_t i = 0; i < k->count; i++) *slot(k, k->keys[i]) = i + 1;
	return 0;
}

int kvs_put(struct kvs *k, const char *key, const char *value) {
	if ((k->count + 1) * 2 > k->slots && grow(k) < 0) return -1;
	size_t *s = slot(k, key);
	char *v = strdup(value);
	if (!v) return -1;
	if (*s) {
		free(k->values[*s - 1]);
		k->values[*s - 1] = v;
		return 0;
	}
	if (k->count == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 32;
		char **keys = realloc(k->keys, cap * sizeof *keys);
		if (!keys) return free(v), -1;
		k->keys = keys;
		char **values = realloc(k->values, cap * sizeof *values);
		if (!values) return free(v), -1;
		k->values = values;
		k->cap = cap;
	}
	k->keys[k->count] = strdup(key);
	k->values[k->count] = v;
	if (!k->keys[k->count]) return free(v), -1;
	*s = ++k->count;
	return 0;
}

const char *kvs_get(const struct kvs *k, const char *key) {
	size_t *s = slot(k, key);
	return s && *s ? k->values[*s - 1] : NULL;
}
