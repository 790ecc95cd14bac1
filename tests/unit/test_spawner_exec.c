/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The spawner's config across exec (spawner/spawner_exec.c): what is packed comes back field for
 * field, pointers never cross, and every damaged blob (each truncation, wrong magic, another
 * layout, a trailing byte, random byte flips) is refused with a reason instead of being used.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/cgroup.h"
#include "spawner/spawner.h"
#include "tests/unit/test.h"

static void sample_cfg(struct spawner_cfg *c)
{
	memset(c, 0, sizeof *c);
	churn_cfg_defaults(&c->cc);
	c->cc.params.workers = 77;
	c->cc.seed = 0x1234567890abcdefull;
	c->cc.worker_memory = 3u << 20;
	c->cc.cgroup_name = "w";
	c->cc.spawner_exe = "/nonexistent/fpusoakd-spawner";
	c->sock = 9;
	c->daemon = 4242;
	c->pop_cap = 16384;
	c->probe_cap = 64;
	c->exec_errno = 2;
}

static void test_roundtrip_unconfined(void)
{
	static unsigned char buf[SPAWNER_BLOB_MAX];
	struct spawner_cfg in, out;
	char why[256] = "";
	size_t n;

	sample_cfg(&in);
	n = spawner_blob_pack(&in, buf, sizeof buf);
	T_CHECK(n > sizeof in && n < sizeof buf, "packed %zu bytes", n);
	T_EQ_I(spawner_blob_unpack(buf, n, &out, why, sizeof why), 0, "unpacks (%s)", why);
	T_EQ_I(out.cc.params.workers, 77, "workers");
	T_EQ_I(out.cc.seed == 0x1234567890abcdefull, 1, "seed");
	T_EQ_I(out.cc.worker_memory, 3u << 20, "worker memory");
	T_EQ_I(out.sock, 9, "socket fd");
	T_EQ_I(out.daemon, 4242, "daemon pid");
	T_EQ_I(out.pop_cap, 16384, "population cap");
	T_EQ_I(out.probe_cap, 64, "probe cap");
	T_CHECK(out.cc.cgroup_name == NULL && out.cc.spawner_exe == NULL, "the daemon's pointers are cleared");
	T_CHECK(out.cg == NULL, "no cgroup packed, none unpacked");
	T_EQ_I(out.exec_ok, 1, "exec_ok set");
	T_EQ_I(out.exec_errno, 0, "exec_errno cleared");
	T_EQ_I(spawner_blob_pack(&in, buf, n - 1), 0, "a buffer one byte short is refused");
}

static void test_roundtrip_cgroup(void)
{
	static unsigned char buf[SPAWNER_BLOB_MAX], raw[SPAWNER_BLOB_MAX], back[SPAWNER_BLOB_MAX];
	struct spawner_cfg in, out;
	char why[256] = "";
	size_t n, cgn = cgroup_blob_size();

	T_CHECK(cgn > 0 && cgn < sizeof raw / 2, "a cgroup handle fits in a blob (%zu bytes)", cgn);
	/* Unterminated paths: the copy must end each one inside its array. */
	memset(raw, 'A', cgn);
	sample_cfg(&in);
	in.cg = cgroup_blob_load(raw);
	T_CHECK(in.cg != NULL, "a handle from raw bytes");
	if (!in.cg)
		return;
	T_EQ_I(strlen(cgroup_dir(in.cg)), CGROUP_PATH_MAX - 1, "its path is cut inside the array");
	n = spawner_blob_pack(&in, buf, sizeof buf);
	T_EQ_I(spawner_blob_unpack(buf, n, &out, why, sizeof why), 0, "unpacks with a cgroup (%s)", why);
	T_CHECK(out.cg != NULL && out.cg != in.cg, "the cgroup is a fresh copy");
	if (out.cg) {
		cgroup_blob_save(in.cg, raw);
		cgroup_blob_save(out.cg, back);
		T_EQ_I(memcmp(raw, back, cgn), 0, "the copy is byte for byte the packed handle");
		free(out.cg);
	}
	free(in.cg);
}

static void test_refusals(void)
{
	static unsigned char buf[SPAWNER_BLOB_MAX + 1], bad[SPAWNER_BLOB_MAX + 1];
	struct spawner_cfg in, out;
	char why[256];
	size_t n;
	int accepted = 0, refused_silently = 0;

	sample_cfg(&in);
	n = spawner_blob_pack(&in, buf, sizeof buf);
	for (size_t len = 0; len < n; len++) {
		why[0] = 0;
		if (spawner_blob_unpack(buf, len, &out, why, sizeof why) == 0)
			accepted++;
		else if (!why[0])
			refused_silently++;
	}
	T_EQ_I(accepted, 0, "no truncation of the blob is accepted");
	T_EQ_I(refused_silently, 0, "each refusal says why");
	buf[n] = 0;
	T_EQ_I(spawner_blob_unpack(buf, n + 1, &out, why, sizeof why), -1, "a trailing byte is refused (%s)", why);

	memcpy(bad, buf, n);
	bad[0] ^= 1;
	T_EQ_I(spawner_blob_unpack(bad, n, &out, why, sizeof why), -1, "wrong magic: %s", why);
	memcpy(bad, buf, n);
	bad[8] ^= 0x40;             /* layout number */
	T_EQ_I(spawner_blob_unpack(bad, n, &out, why, sizeof why), -1, "another layout: %s", why);
	T_CHECK(strstr(why, "install fpusoakd and fpusoakd-spawner together") != NULL, "says what to do");
	memcpy(bad, buf, n);
	bad[12] ^= 0x01;            /* cfg_size */
	T_EQ_I(spawner_blob_unpack(bad, n, &out, why, sizeof why), -1, "another config size: %s", why);

	/* Random header damage: refused or, if it only hit the payload, unpacked; never a crash
	 * (the sanitizer build runs this too). */
	srand(7);
	int header_hits = 0, header_refused = 0;
	for (int i = 0; i < 2000; i++) {
		size_t at = (size_t)rand() % n;
		memcpy(bad, buf, n);
		bad[at] ^= (unsigned char)(1 + rand() % 255);
		int r = spawner_blob_unpack(bad, n, &out, why, sizeof why);
		if (at < 28) {
			header_hits++;
			header_refused += r < 0;
		}
		if (r == 0)
			free(out.cg);
	}
	T_CHECK(header_hits > 0, "the header was hit (%d times)", header_hits);
	T_EQ_I(header_refused, header_hits, "every damaged header field is refused");
}

static void test_main_forms(void)
{
	char *plain[] = { "fpusoakd-spawner", NULL };
	char *other[] = { "fpusoakd-spawner", "--internal-spawnerx", "3", NULL };
	char *extra[] = { "fpusoakd-spawner", "--internal-spawner", "3", "4", NULL };

	T_EQ_I(spawner_exec_main(1, plain), 0, "no arguments: not the internal form");
	T_EQ_I(spawner_exec_main(3, other), 0, "another flag: not the internal form");
	T_EQ_I(spawner_exec_main(4, extra), 0, "an extra argument: not the internal form");
}

int main(void)
{
	test_roundtrip_unconfined();
	test_roundtrip_cgroup();
	test_refusals();
	test_main_forms();
	T_DONE();
}
