/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_xenstore: the Xen store's wire format for one read (request bytes,
 * replies whole, partial, mismatched, errors), domain id text, the
 * capabilities word, the device query's failure paths on this non-Xen host
 * (the answering path runs in the Xen test guests), and envinfo's dom0/domU
 * decision on fixture trees.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>

#include "collector/envinfo.h"
#include "collector/xenstore.h"
#include "tests/unit/test.h"

static size_t reply(unsigned char *b, uint32_t type, uint32_t id, const void *p, uint32_t n)
{
	uint32_t h[4] = { type, id, 0, n };

	memcpy(b, h, sizeof h);
	memcpy(b + XS_HDR_LEN, p, n);
	return XS_HDR_LEN + n;
}

static void put_file(const char *dir, const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", dir, rel);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

int main(void)
{
	unsigned char b[XS_HDR_LEN + XS_PAYLOAD_MAX + 64];
	char val[32], big[XS_PAYLOAD_MAX + 2];
	uint32_t h[4];
	size_t used = 0, n;
	int64_t id = -7;
	ssize_t r;

	r = xs_read_request(42, "domid", b, sizeof b);
	memcpy(h, b, sizeof h);
	T_EQ_I(r, XS_HDR_LEN + 6, "request for \"domid\" is header + path + NUL");
	T_CHECK(h[0] == XS_TYPE_READ && h[1] == 42 && h[2] == 0 && h[3] == 6, "request header: XS_READ, req_id 42, no transaction, len 6");
	T_CHECK(memcmp(b + XS_HDR_LEN, "domid", 6) == 0, "request payload is the path with its NUL");
	T_EQ_I(xs_read_request(1, "", b, sizeof b), -1, "empty path refused");
	T_EQ_I(xs_read_request(1, "domid", b, XS_HDR_LEN + 5), -1, "buffer one byte short refused");
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = 0;
	T_EQ_I(xs_read_request(1, big, b, sizeof b), -1, "path over the payload limit refused");

	n = reply(b, XS_TYPE_READ, 7, "12", 2);
	T_EQ_I(xs_parse_reply(b, n, 7, val, sizeof val, &used), 0, "reply \"12\" parsed");
	T_EQ_S(val, "12", "value of the reply");
	T_EQ_I(used, n, "whole reply consumed");
	n = reply(b, XS_TYPE_READ, 7, "3\0", 2);
	T_CHECK(xs_parse_reply(b, n, 7, val, sizeof val, &used) == 0 && strcmp(val, "3") == 0, "trailing NUL dropped");
	T_EQ_I(xs_parse_reply(b, 10, 7, val, sizeof val, &used), -EAGAIN, "half a header: need more");
	n = reply(b, XS_TYPE_READ, 7, "123", 3);
	T_EQ_I(xs_parse_reply(b, n - 1, 7, val, sizeof val, &used), -EAGAIN, "payload one byte short: need more");
	T_EQ_I(xs_parse_reply(b, n, 8, val, sizeof val, &used), -EPROTO, "another req_id refused");
	n = reply(b, 4 /* XS_WATCH */, 7, "1", 1);
	T_EQ_I(xs_parse_reply(b, n, 7, val, sizeof val, &used), -EPROTO, "another message type refused");
	n = reply(b, XS_TYPE_ERROR, 7, "ENOENT", 7);
	T_EQ_I(xs_parse_reply(b, n, 7, val, sizeof val, &used), -ENOENT, "XS_ERROR ENOENT");
	n = reply(b, XS_TYPE_ERROR, 7, "EACCES", 7);
	T_EQ_I(xs_parse_reply(b, n, 7, val, sizeof val, &used), -EACCES, "XS_ERROR EACCES");
	n = reply(b, XS_TYPE_ERROR, 7, "EWHAT", 6);
	T_EQ_I(xs_parse_reply(b, n, 7, val, sizeof val, &used), -EIO, "unknown error name is EIO");
	n = reply(b, XS_TYPE_READ, 7, "1\0002", 3);
	T_EQ_I(xs_parse_reply(b, n, 7, val, sizeof val, &used), -EPROTO, "NUL inside a value refused");
	n = reply(b, XS_TYPE_READ, 7, "0123456789", 10);
	T_EQ_I(xs_parse_reply(b, n, 7, val, 10, &used), -EMSGSIZE, "value longer than the caller's buffer");
	h[0] = XS_TYPE_READ; h[1] = 7; h[2] = 0; h[3] = XS_PAYLOAD_MAX + 1;
	memcpy(b, h, sizeof h);
	T_EQ_I(xs_parse_reply(b, sizeof b, 7, val, sizeof val, &used), -EPROTO, "length over the payload limit refused");

	T_CHECK(xs_parse_domid("0", 1, &id) == 0 && id == 0, "domid 0");
	T_CHECK(xs_parse_domid("1", 1, &id) == 0 && id == 1, "domid 1");
	T_CHECK(xs_parse_domid("32751", 5, &id) == 0 && id == 32751, "domid 32751 (the last ordinary id)");
	T_EQ_I(xs_parse_domid("32752", 5, &id), -1, "32752 is DOMID_FIRST_RESERVED");
	T_EQ_I(xs_parse_domid("01", 2, &id), -1, "leading zero refused");
	T_EQ_I(xs_parse_domid("", 0, &id), -1, "empty refused");
	T_EQ_I(xs_parse_domid("-1", 2, &id), -1, "sign refused");
	T_EQ_I(xs_parse_domid("123456", 6, &id), -1, "six digits refused");
	T_EQ_I(xs_parse_domid("1 ", 2, &id), -1, "trailing space refused");

	T_EQ_I(xen_caps_control_d("control_d\n", 10), 1, "dom0 capabilities");
	T_EQ_I(xen_caps_control_d("", 0), 0, "domU capabilities are empty");
	T_EQ_I(xen_caps_control_d("xcontrol_d", 10), 0, "a longer word is not control_d");
	T_EQ_I(xen_caps_control_d("control_", 8), 0, "a prefix is not control_d");
	T_EQ_I(xen_caps_control_d("a,control_d,b", 13), 1, "control_d among other words");

	T_EQ_I(xs_query_domid("/nonexistent/xenbus", 100, &id), -ENOENT, "query: no device");
	T_EQ_I(xs_query_domid("/dev/null", 100, &id), -EPROTO, "query: a device that answers nothing (EOF)");
	{
		char fifo[] = "/tmp/fpusoak-xs.XXXXXX";

		/* A FIFO opened read-write hands our own request back: wrong type of answer. */
		if (mkdtemp(fifo)) {
			char p[64];

			snprintf(p, sizeof p, "%s/f", fifo);
			if (mkfifo(p, 0600) == 0)
				T_EQ_I(xs_query_domid(p, 500, &id), -EPROTO, "query: an echo of the request is not a reply");
			unlink(p);
			rmdir(fifo);
		}
	}

	{
		char proc[] = "/tmp/fpusoak-env-p.XXXXXX", sys[] = "/tmp/fpusoak-env-s.XXXXXX", d[600];
		struct envinfo e;

		if (mkdtemp(proc) && mkdtemp(sys)) {
			snprintf(d, sizeof d, "%s/xen", proc);
			mkdir(d, 0700);
			snprintf(d, sizeof d, "%s/hypervisor", sys);
			mkdir(d, 0700);
			put_file(sys, "hypervisor/type", "xen\n");
			put_file(sys, "hypervisor/guest_type", "PV\n");
			put_file(proc, "xen/capabilities", "control_d\n");
			envinfo_collect(proc, sys, &e);
			T_CHECK(strcmp(e.xen_domain, "dom0") == 0 && e.xen_domid == 0, "envinfo: control_d is dom0, id 0 (got %s %lld)", e.xen_domain, (long long)e.xen_domid);
			put_file(proc, "xen/capabilities", "");
			envinfo_collect(proc, sys, &e);
			T_CHECK(strcmp(e.xen_domain, "domU") == 0 && e.xen_domid == -1, "envinfo: empty capabilities is a domU, id unknown off the live system (got %s %lld)", e.xen_domain, (long long)e.xen_domid);
			put_file(sys, "hypervisor/type", "kvm\n");
			put_file(proc, "xen/capabilities", "control_d\n");
			envinfo_collect(proc, sys, &e);
			T_CHECK(e.xen_domain[0] == 0 && e.xen_domid == -1, "envinfo: no Xen domain under another hypervisor");
			snprintf(d, sizeof d, "rm -rf '%s' '%s'", proc, sys);
			if (system(d) != 0)
				printf("note: could not remove %s %s\n", proc, sys);
		}
	}
	T_DONE();
}
