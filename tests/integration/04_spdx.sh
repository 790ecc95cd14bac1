#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Every source file of the checkout starts with the project's SPDX line (LICENSE: GPL-2.0-only):
# tools/check-spdx.sh over `git ls-files` (its header says which files count as source and why
# fixtures, fuzz inputs and Debian's data files do not).  Outside a git checkout (a release
# tarball) there is no file list to check: a SKIP says so.
. "$(dirname "$0")/../lib.sh"

if ! git rev-parse --show-toplevel >/dev/null 2>&1; then
	skip "not a git checkout: tools/check-spdx.sh needs git ls-files"
	t_done
fi
out=$(sh tools/check-spdx.sh 2>&1)
rc=$?
summary=$(printf '%s\n' "$out" | tail -n 1)
if [ $rc -eq 0 ]; then
	pass "$summary"
else
	fail "$summary: $(printf '%s\n' "$out" | grep -m5 '^missing' | sed 's/^missing SPDX-License-Identifier: GPL-2.0-only: //' | tr '\n' ' ')"
fi

# The check itself must catch a file without the line (a check that cannot fail proves nothing).
tmp=$(mktemp -d /tmp/fpusoak-spdx-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
printf '/* no license line */\nint x;\n' >"$tmp/bad.c"
printf '#!/bin/sh\n# SPDX-License-Identifier: GPL-2.0-only\ntrue\n' >"$tmp/good.sh"
if sh tools/check-spdx.sh "$tmp/bad.c" >/dev/null 2>&1; then
	fail "check-spdx accepted a C file without the SPDX line"
else
	pass "check-spdx refuses a C file without the SPDX line"
fi
sh tools/check-spdx.sh "$tmp/good.sh" >/dev/null 2>&1 && pass "check-spdx accepts the line after a #! line" ||
	fail "check-spdx refused a script with the SPDX line after #!"
t_done
