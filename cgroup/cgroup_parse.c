/* SPDX-License-Identifier: GPL-2.0-only */
/* cgroup_parse: /proc/self/cgroup, mountinfo, cgroup.procs and flat-keyed files; see cgroup_parse.h. */
#include "cgroup/cgroup_parse.h"

#include <limits.h>
#include <string.h>

#include "common/num.h"

/* ---- pure parsers -------------------------------------------------------------------------- */

/* Next line of buf[0..len) from *pos: sets *l, *ll (without '\n'); 0, or -1 at the end. */
static int next_line(const char *buf, size_t len, size_t *pos, const char **l, size_t *ll)
{
	const char *nl;

	if (*pos >= len)
		return -1;
	*l = buf + *pos;
	nl = memchr(*l, '\n', len - *pos);
	*ll = nl ? (size_t)(nl - *l) : len - *pos;
	*pos += *ll + (nl ? 1 : 0);
	return 0;
}

static int copy_span(char *out, size_t outlen, const char *s, size_t n)
{
	if (n >= outlen || memchr(s, 0, n))
		return -1;
	memcpy(out, s, n);
	out[n] = 0;
	return 0;
}

/* Is w one of the sep-separated words of s[0..n)? */
static int has_token(const char *s, size_t n, const char *w, char sep)
{
	size_t wl = strlen(w), i = 0;

	while (i <= n) {
		const char *e = memchr(s + i, sep, n - i);
		size_t tl = e ? (size_t)(e - (s + i)) : n - i;
		if (tl == wl && memcmp(s + i, w, wl) == 0)
			return 1;
		if (!e)
			break;
		i += tl + 1;
	}
	return 0;
}

int cgroup_has_word(const char *buf, size_t len, const char *w)
{
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	return len > 0 && has_token(buf, len, w, ' ');
}

int cgroup_parse_self(const char *buf, size_t len, struct cgroup_self *out)
{
	size_t pos = 0, ll;
	const char *l;

	memset(out, 0, sizeof *out);
	while (next_line(buf, len, &pos, &l, &ll) == 0) {
		const char *c1, *c2;
		size_t cl;
		if (ll == 0)
			continue;
		c1 = memchr(l, ':', ll);
		c2 = c1 ? memchr(c1 + 1, ':', ll - (size_t)(c1 + 1 - l)) : NULL;
		if (!c1 || !c2 || c1 == l)
			return -1;
		const char *path = c2 + 1;
		size_t pl = ll - (size_t)(path - l);
		if (pl == 0 || path[0] != '/')
			return -1;
		cl = (size_t)(c2 - c1 - 1);
		if (c1 - l == 1 && l[0] == '0' && cl == 0) {
			if (copy_span(out->v2, sizeof out->v2, path, pl) < 0)
				return -1;
			out->has_v2 = 1;
			continue;
		}
		if (has_token(c1 + 1, cl, "memory", ',')) {
			if (copy_span(out->memory, sizeof out->memory, path, pl) < 0)
				return -1;
			out->has_memory = 1;
		}
		if (has_token(c1 + 1, cl, "pids", ',')) {
			if (copy_span(out->pids, sizeof out->pids, path, pl) < 0)
				return -1;
			out->has_pids = 1;
		}
	}
	return 0;
}

/* Decode mountinfo's octal escapes (\040 space, \011 tab, \012 newline, \134 backslash). */
static int unescape(char *out, size_t outlen, const char *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\\') {
			if (i + 3 >= n || s[i + 1] < '0' || s[i + 1] > '3' || s[i + 2] < '0' || s[i + 2] > '7' ||
			    s[i + 3] < '0' || s[i + 3] > '7')
				return -1;
			c = (char)((s[i + 1] - '0') << 6 | (s[i + 2] - '0') << 3 | (s[i + 3] - '0'));
			i += 3;
		}
		if (c == 0 || o + 1 >= outlen)
			return -1;
		out[o++] = c;
	}
	out[o] = 0;
	return 0;
}

/* Split a line into space-separated fields; -1 if more than max. */
static int split(const char *l, size_t ll, const char **f, size_t *fl, int max)
{
	int n = 0;
	size_t i = 0;

	while (i < ll) {
		if (l[i] == ' ') {
			i++;
			continue;
		}
		if (n == max)
			return -1;
		f[n] = l + i;
		while (i < ll && l[i] != ' ')
			i++;
		fl[n] = (size_t)(l + i - f[n]);
		n++;
	}
	return n;
}

static int set_mnt(struct cgroup_mnt *m, const char *root, size_t rl, const char *dir, size_t dl)
{
	if (m->found)
		return 0;
	if (unescape(m->root, sizeof m->root, root, rl) < 0 || unescape(m->dir, sizeof m->dir, dir, dl) < 0)
		return -1;
	m->found = 1;
	return 0;
}

int cgroup_parse_mountinfo(const char *buf, size_t len, struct cgroup_mounts *out)
{
	size_t pos = 0, ll;
	const char *l;

	memset(out, 0, sizeof *out);
	while (next_line(buf, len, &pos, &l, &ll) == 0) {
		const char *f[64];
		size_t fl[64];
		int n, sep = -1;
		if (ll == 0)
			continue;
		n = split(l, ll, f, fl, 64);
		if (n < 10)
			return -1;
		for (int i = 6; i < n; i++)
			if (fl[i] == 1 && f[i][0] == '-') {
				sep = i;
				break;
			}
		if (sep < 0 || sep + 3 >= n)
			return -1;
		const char *type = f[sep + 1], *opts = f[sep + 3];
		size_t tl = fl[sep + 1], ol = fl[sep + 3];
		if (tl == 7 && memcmp(type, "cgroup2", 7) == 0) {
			if (set_mnt(&out->v2, f[3], fl[3], f[4], fl[4]) < 0)
				return -1;
		} else if (tl == 6 && memcmp(type, "cgroup", 6) == 0) {
			if (has_token(opts, ol, "memory", ',') && set_mnt(&out->memory, f[3], fl[3], f[4], fl[4]) < 0)
				return -1;
			if (has_token(opts, ol, "pids", ',') && set_mnt(&out->pids, f[3], fl[3], f[4], fl[4]) < 0)
				return -1;
		}
	}
	return 0;
}

int cgroup_parse_pids(const char *buf, size_t len, pid_t *pids, size_t cap, size_t *n)
{
	size_t pos = 0, ll;
	const char *l;
	uint64_t v;

	*n = 0;
	while (next_line(buf, len, &pos, &l, &ll) == 0) {
		if (num_parse_u64(l, ll, &v) < 0 || v == 0 || v > INT_MAX)
			return -1;
		if (*n == cap)
			return -1;
		pids[(*n)++] = (pid_t)v;
	}
	return 0;
}

int cgroup_parse_key(const char *buf, size_t len, const char *key, uint64_t *out)
{
	size_t pos = 0, ll, kl = strlen(key);
	const char *l;

	while (next_line(buf, len, &pos, &l, &ll) == 0)
		if (ll > kl && memcmp(l, key, kl) == 0 && l[kl] == ' ')
			return num_parse_u64(l + kl + 1, ll - kl - 1, out);
	return -1;
}
