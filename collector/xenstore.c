/* SPDX-License-Identifier: GPL-2.0-only */
/* xenstore: domain role and id; see xenstore.h. */
#include "collector/xenstore.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, sizeof v);
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof v);
	return v;
}

ssize_t xs_read_request(uint32_t req_id, const char *path, void *buf, size_t cap)
{
	size_t n = strnlen(path, XS_PAYLOAD_MAX);
	unsigned char *b = buf;

	/* The path goes with its NUL, as xs.c sends it. */
	if (n == 0 || n + 1 > XS_PAYLOAD_MAX || cap < XS_HDR_LEN + n + 1)
		return -1;
	put32(b, XS_TYPE_READ);
	put32(b + 4, req_id);
	put32(b + 8, 0);                 /* no transaction */
	put32(b + 12, (uint32_t)(n + 1));
	memcpy(b + XS_HDR_LEN, path, n + 1);
	return (ssize_t)(XS_HDR_LEN + n + 1);
}

/* XS_ERROR payloads are errno names (xsd_errors in xs_wire.h); the ones a read can give. */
static int xs_errno(const char *s, size_t n)
{
	static const struct { const char *name; int err; } names[] = {
		{ "ENOENT", ENOENT }, { "EACCES", EACCES }, { "EINVAL", EINVAL }, { "EAGAIN", EAGAIN },
		{ "E2BIG", E2BIG }, { "EIO", EIO }, { "ENOMEM", ENOMEM }, { "EQUOTA", EDQUOT },
	};

	while (n > 0 && s[n - 1] == 0)
		n--;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i].name) == n && memcmp(names[i].name, s, n) == 0)
			return -names[i].err;
	return -EIO;
}

int xs_parse_reply(const void *buf, size_t len, uint32_t req_id, char *val, size_t valcap, size_t *used)
{
	const unsigned char *b = buf;
	uint32_t type, id, plen;

	if (len < XS_HDR_LEN)
		return -EAGAIN;
	type = get32(b);
	id = get32(b + 4);
	plen = get32(b + 12);
	if (plen > XS_PAYLOAD_MAX)
		return -EPROTO;
	if (len < XS_HDR_LEN + (size_t)plen)
		return -EAGAIN;
	*used = XS_HDR_LEN + plen;
	if (id != req_id)
		return -EPROTO;
	if (type == XS_TYPE_ERROR)
		return xs_errno((const char *)b + XS_HDR_LEN, plen);
	if (type != XS_TYPE_READ)
		return -EPROTO;
	while (plen > 0 && b[XS_HDR_LEN + plen - 1] == 0)
		plen--;
	if (memchr(b + XS_HDR_LEN, 0, plen))
		return -EPROTO;
	if (plen + 1 > valcap)
		return -EMSGSIZE;
	memcpy(val, b + XS_HDR_LEN, plen);
	val[plen] = 0;
	return 0;
}

int xs_parse_domid(const char *s, size_t len, int64_t *out)
{
	int64_t v = 0;

	if (len == 0 || len > 5 || (len > 1 && s[0] == '0'))
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v > 0x7fef)
		return -1;
	*out = v;
	return 0;
}

int xen_caps_control_d(const char *buf, size_t len)
{
	static const char word[] = "control_d";
	const size_t wl = sizeof word - 1;
	size_t i = 0;

	/* Words separated by commas or whitespace: "control_d" in a dom0, empty in a domU. */
	while (i < len) {
		size_t j = i;

		while (j < len && buf[j] != ',' && buf[j] != ' ' && buf[j] != '\n' && buf[j] != '\t' && buf[j] != 0)
			j++;
		if (j - i == wl && memcmp(buf + i, word, wl) == 0)
			return 1;
		i = j + 1;
	}
	return 0;
}

int xs_query_domid(const char *dev, int timeout_ms, int64_t *domid)
{
	unsigned char req[XS_HDR_LEN + 8], rep[XS_HDR_LEN + 64];
	const uint32_t id = 0x66707573;      /* any id: the kernel gives our own back */
	char val[16];
	size_t have = 0, used;
	ssize_t n = xs_read_request(id, "domid", req, sizeof req);
	int64_t deadline = clock_mono_ms() + timeout_ms;
	int fd, rc = -EIO;

	fd = open(dev, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (n < 0 || write(fd, req, (size_t)n) != n) {
		rc = n < 0 ? -EINVAL : -errno;
		goto fail;
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = deadline - clock_mono_ms();
		ssize_t got;

		if (left <= 0) {
			rc = -ETIMEDOUT;
			goto fail;
		}
		if (poll(&p, 1, (int)left) < 0 && errno != EINTR) {
			rc = -errno;
			goto fail;
		}
		got = read(fd, rep + have, sizeof rep - have);
		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (got <= 0) {
			rc = got < 0 ? -errno : -EPROTO;
			goto fail;
		}
		have += (size_t)got;
		rc = xs_parse_reply(rep, have, id, val, sizeof val, &used);
		if (rc == -EAGAIN && have < sizeof rep)
			continue;
		if (rc == -EAGAIN)
			rc = -EMSGSIZE;
		break;
	}
	if (rc == 0 && xs_parse_domid(val, strlen(val), domid) != 0)
		rc = -EPROTO;
fail:
	close(fd);
	return rc;
}
