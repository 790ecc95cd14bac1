/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * seed: write tests/unit/testdb.h's database of known content (runs 1-3
 * with every report table filled, hostile strings included) to DIR/test.db,
 * so the browser test loads pages with every section drawn.
 */
#include "tests/unit/testdb.h"

int main(int argc, char **argv)
{
	char path[512];

	if (argc != 2) {
		fprintf(stderr, "usage: seed DIR\n");
		return 64;
	}
	if (testdb_create(argv[1], path, sizeof path) < 0)
		return 1;
	puts(path);
	return 0;
}
