/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fragload's pure parts: level names, the recipe's bounds, the seeded shuffle and the config
 * blob that crosses the exec.  The load itself runs in tests/integration/45_fragment.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fragload/fragload.h"
#include "tests/unit/test.h"

static void names(void)
{
	enum fragload_level l;

	T_CHECK(fragload_level_parse("off", &l) == 0 && l == FRAGLOAD_OFF, "off parses");
	T_CHECK(fragload_level_parse("light", &l) == 0 && l == FRAGLOAD_LIGHT, "light parses");
	T_CHECK(fragload_level_parse("heavy", &l) == 0 && l == FRAGLOAD_HEAVY, "heavy parses");
	T_CHECK(fragload_level_parse("Heavy", &l) < 0, "case matters: Heavy is refused");
	T_CHECK(fragload_level_parse("", &l) < 0 && fragload_level_parse(NULL, &l) < 0, "empty and NULL are refused");
	T_CHECK(fragload_level_parse("heavy ", &l) < 0, "trailing space is refused");
	T_EQ_S(fragload_level_name(FRAGLOAD_LIGHT), "light", "light's name");
	T_EQ_S(fragload_level_name(7), "?", "unknown level's name");
	T_EQ_S(fragload_kind_name(FK_PGTABLE), "pgtable", "kind name");
	T_EQ_S(fragload_kind_name(FK_NKINDS), "?", "kind out of range");
}

/* For many bases and descriptor budgets: the peak is within the cap, the cap is the level's fraction. */
static void recipe_bounds(void)
{
	static const uint64_t bases[] = { 16ull << 20, 52ull << 20, 79424ull << 10, 512ull << 20, 24ull << 30 };
	static const uint64_t fds[] = { 200, 1024, 4032, 65472 };
	int bad_peak = 0, bad_fds = 0, bad_units = 0, n = 0;
	struct fragload_recipe r;

	for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++)
		for (size_t j = 0; j < sizeof fds / sizeof fds[0]; j++)
			for (int lv = FRAGLOAD_LIGHT; lv <= FRAGLOAD_HEAVY; lv++) {
				if (fragload_recipe((enum fragload_level)lv, bases[i], fds[j], &r) < 0)
					continue;
				n++;
				bad_peak += fragload_recipe_peak(&r) > r.cap ||
					    r.cap != bases[i] / (lv == FRAGLOAD_HEAVY ? 4 : 16);
				bad_fds += fragload_recipe_fds(&r) > fds[j];
				for (int k = 0; k < FK_NKINDS; k++)
					bad_units += r.units[k] == 0;
			}
	/* None at 200 descriptors; light none under ~13.5 MiB (a batch of base/128 holds no pipe). */
	T_CHECK(n >= 27, "%d of 40 level/base/fd combinations have a recipe", n);
	T_EQ_I(bad_peak, 0, "batch + long-lived set never exceed the cap (base/4 heavy, base/16 light)");
	T_EQ_I(bad_fds, 0, "a recipe stays within its descriptor budget");
	T_EQ_I(bad_units, 0, "every kind gets at least one unit per cycle");

	T_CHECK(fragload_recipe(FRAGLOAD_OFF, 1ull << 30, 4096, &r) < 0, "off has no recipe");
	T_CHECK(fragload_recipe(FRAGLOAD_LIGHT, 2ull << 20, 4096, &r) < 0, "a 2 MiB base is too small for light");
	T_CHECK(fragload_recipe(FRAGLOAD_LIGHT, 12ull << 20, 4096, &r) < 0 &&
		fragload_recipe(FRAGLOAD_HEAVY, 12ull << 20, 4096, &r) == 0, "12 MiB: too small for light, heavy runs");
	T_CHECK(fragload_recipe(FRAGLOAD_HEAVY, 3ull << 20, 4096, &r) < 0, "3 MiB: too small for heavy");
	T_CHECK(fragload_recipe(FRAGLOAD_HEAVY, 79424ull << 10, 1024, &r) == 0 && r.units[FK_PIPE] >= 1,
		"1024 descriptors: the Xen guest's heavy recipe scales pipes and files down, not out");
	T_CHECK(fragload_recipe(FRAGLOAD_HEAVY, 79424ull << 10, 4032, &r) == 0, "the Xen test guest (MemTotal 79424 kB) has a heavy recipe");
	T_EQ_I(r.cap, (79424ull << 10) / 4, "its cap is a quarter of MemTotal");
	T_CHECK(r.keep_every == 2 && r.rounds == 32, "one in 2 survives (every pipe), 32 rounds a phase");
	T_EQ_I(r.cap - r.keep_cap, r.cap / 8, "a batch is an eighth of the bound");
	T_CHECK(r.hold_ms == 2000 && r.free_ms == 2000 && r.rest_ms == 8000, "heavy: fill 4 s, hold 2, free 2, rest 8");
	T_EQ_I(fragload_survivors_of(&r, FK_ANON), r.units[FK_ANON] / 2, "half the anon pages survive");
	T_EQ_I(fragload_survivors_of(&r, FK_PIPE), r.units[FK_PIPE], "every pipe survives (2 of its pages)");
	T_CHECK(r.fill_ms + r.hold_ms + r.free_ms + r.rest_ms == 16000, "a heavy cycle is 16 s");
	T_CHECK(r.units[FK_ANON] > r.units[FK_PGTABLE], "more anon pages than page tables (shares 40%% vs 10%%)");
	T_CHECK(fragload_recipe(FRAGLOAD_LIGHT, 79424ull << 10, 4032, &r) == 0 &&
		r.fill_ms + r.hold_ms + r.free_ms + r.rest_ms == 32000, "a light cycle is 32 s");
}

static int is_perm(const uint32_t *v, size_t n)
{
	char *seen = calloc(n ? n : 1, 1);
	int ok = seen != NULL;

	for (size_t i = 0; ok && i < n; i++) {
		if (v[i] >= n || seen[v[i]])
			ok = 0;
		else
			seen[v[i]] = 1;
	}
	free(seen);
	return ok;
}

static void shuffle(void)
{
	uint32_t a[1000], b[1000], c[1000], one[1] = { 0 };
	uint64_t s1 = 42, s2 = 42, s3 = 43;
	size_t fixed = 0;

	for (uint32_t i = 0; i < 1000; i++)
		a[i] = b[i] = c[i] = i;
	fragload_shuffle(a, 1000, &s1);
	fragload_shuffle(b, 1000, &s2);
	fragload_shuffle(c, 1000, &s3);
	for (size_t i = 0; i < 1000; i++)
		fixed += a[i] == i;
	T_CHECK(is_perm(a, 1000), "a shuffle is a permutation");
	T_CHECK(memcmp(a, b, sizeof a) == 0 && s1 == s2, "the same seed gives the same order (a run replays)");
	T_CHECK(memcmp(a, c, sizeof a) != 0, "another seed gives another order");
	/* A uniform permutation leaves ~1 element in place; 10 would be a broken shuffle (p < 1e-6). */
	T_CHECK(fixed < 10, "the order is scattered: %zu of 1000 left in place", fixed);
	fragload_shuffle(one, 1, &s1);
	fragload_shuffle(NULL, 0, &s1);
	T_CHECK(one[0] == 0, "one element and none are left alone");
	s1 = 0;
	fragload_shuffle(a, 1000, &s1);
	T_CHECK(s1 != 0 && is_perm(a, 1000), "a zero seed still shuffles");
}

static void blob(void)
{
	struct fragload_cfg in, out;
	unsigned char buf[2048];
	char why[256];
	size_t n;

	memset(&in, 0, sizeof in);
	fragload_recipe(FRAGLOAD_HEAVY, 64ull << 20, 1024, &in.r);
	in.seed = 12345;
	in.daemon = 99;
	in.sock = 7;
	in.dirfd = 8;
	in.status_ms = 500;
	n = fragload_blob_pack(&in, buf, sizeof buf);
	T_CHECK(n > sizeof in, "the blob packs (%zu bytes)", n);
	T_CHECK(fragload_blob_pack(&in, buf, 16) == 0, "a buffer too small is refused");
	memset(&out, 0, sizeof out);
	T_CHECK(fragload_blob_unpack(buf, n, &out, why, sizeof why) == 0 && memcmp(&in, &out, sizeof in) == 0,
		"it unpacks to the same config");
	T_CHECK(fragload_blob_unpack(buf, n - 1, &out, why, sizeof why) < 0 && strstr(why, "bytes"),
		"a truncated blob is refused: %s", why);
	buf[0] ^= 1;
	T_CHECK(fragload_blob_unpack(buf, n, &out, why, sizeof why) < 0 && strstr(why, "another build"),
		"a blob from another build is refused: %s", why);
}

static void records(void)
{
	size_t h = offsetof(struct fragload_rec, u);

	T_EQ_I(fragload_rec_size(FRAGLOAD_REC_STATUS), h + sizeof(struct fragload_status), "STATUS size");
	T_EQ_I(fragload_rec_size(FRAGLOAD_REC_HELLO), h + sizeof(struct fragload_hello), "HELLO size");
	T_EQ_I(fragload_rec_size(FRAGLOAD_REC_BYE), h, "BYE is a bare header");
	T_EQ_I(fragload_rec_size(999), h, "an unknown type is a bare header");
}

int main(void)
{
	names();
	recipe_bounds();
	shuffle();
	blob();
	records();
	T_DONE();
}
