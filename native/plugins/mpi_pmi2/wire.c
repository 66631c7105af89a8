#include "wire.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int pmi_parse(struct pmi_msg *m, const char *text, size_t len, char sep) {
	memset(m, 0, sizeof *m);
	m->text = malloc(len + 1);
	if (!m->text) return -1;
	memcpy(m->text, text, len);
	m->text[len] = '\0';
	char *p = m->text;
	while (*p && m->count < PMI_MAX_PAIRS) {
		while (*p == sep || *p == '\n' || (sep == ' ' && *p == '\t')) p++;
		if (!*p) break;
		char *word = p;
		while (*p && *p != sep && *p != '\n') p++;
		if (*p) *p++ = '\0';
		char *eq = strchr(word, '=');
		if (!eq) continue;
		*eq = '\0';
		m->keys[m->count] = word;
		m->values[m->count] = eq + 1;
		m->count++;
	}
	return 0;
}

void pmi_msg_free(struct pmi_msg *m) {
	free(m->text);
	m->text = NULL;
}

const char *pmi_get(const struct pmi_msg *m, const char *key) {
	for (int i = 0; i < m->count; i++)
		if (strcmp(m->keys[i], key) == 0) return m->values[i];
	return NULL;
}

size_t pmi1_complete(const char *buf, size_t len) {
	const char *nl = memchr(buf, '\n', len);
	return nl ? (size_t)(nl - buf) + 1 : 0;
}

long pmi2_complete(const char *buf, size_t len) {
	if (len < 6) return 0;
	long n = 0;
	int digits = 0;
	for (int i = 0; i < 6; i++) {
		if (isdigit((unsigned char)buf[i])) {
			if (digits < 0) return -1;
			n = n * 10 + (buf[i] - '0');
			digits++;
		} else if (buf[i] == ' ') {
			if (digits > 0) digits = -1;
		} else {
			return -1;
		}
	}
	if (digits == 0) return -1;
	return (size_t)n + 6 <= len ? n + 6 : 0;
}
