#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# check-spdx.sh [FILE...]: every tracked source file starts with an
# "SPDX-License-Identifier: GPL-2.0-only" comment line (the second line when
# the first is "#!").  Without arguments it checks `git ls-files`; it prints
# one line per file that lacks it and exits 1 if any does, 0 otherwise.
#
# Source files: C (.c .h), shell (.sh, and any file starting with "#!"),
# Python, SQL, JavaScript (.js .mjs), Makefiles (Makefile, *.mk, Kbuild,
# debian/rules), Debian maintainer scripts and YAML (.yml .yaml).  Accepted comment forms:
#   /* SPDX-License-Identifier: GPL-2.0-only */   (C, and C-style in SQL)
#   // SPDX-License-Identifier: GPL-2.0-only      (C, JavaScript)
#   # SPDX-License-Identifier: GPL-2.0-only       (shell, Python, make, YAML)
#   -- SPDX-License-Identifier: GPL-2.0-only      (SQL)
#
# Not checked, and why:
#   tests/fixtures/            verbatim /proc, /sys and kernel-log text from real
#                              machines: a header line would change what the
#                              parsers under test read (see its README).
#   tests/reliability/fuzz-seeds/, fuzz-regressions/
#                              fuzzer inputs: their bytes are the test case.
#   debian/changelog, debian/copyright, debian/control and the other debhelper
#                              data files: their formats are fixed by Debian
#                              (debian/copyright states the license in its own
#                              machine-readable form); debian/rules and the
#                              maintainer scripts are checked.
#   *.md, LICENSE, man pages, *.conf, systemd units
#                              documentation and configuration, not source.
set -u

spdx_re='^(/[*]|//|#|--) SPDX-License-Identifier: GPL-2[.]0-only( [*]/)?$'

# is_source PATH: 0 when PATH is a source file this check covers.
is_source() {
	case $1 in
	tests/fixtures/* | tests/reliability/fuzz-seeds/* | tests/reliability/fuzz-regressions/*) return 1 ;;
	debian/rules | debian/*.preinst | debian/*.postinst | debian/*.prerm | debian/*.postrm | debian/*.config) return 0 ;;
	debian/*) return 1 ;;
	*.c | *.h | *.sh | *.py | *.sql | *.js | *.mjs | *.mk | *.yml | *.yaml) return 0 ;;
	Makefile | */Makefile | Kbuild | */Kbuild) return 0 ;;
	esac
	# Any other executable script: the "#!" says what it is.
	[ "$(head -c 2 "$1" 2>/dev/null)" = '#!' ]
}

# has_spdx PATH: the first line, or the second after a "#!" line, is the SPDX line.
has_spdx() {
	awk -v re="$spdx_re" '
		NR == 1 && /^#!/ { next }
		{ ok = $0 ~ re; exit }
		END { exit !ok }' "$1"
}

if [ $# -eq 0 ]; then
	top=$(git rev-parse --show-toplevel 2>/dev/null) || { echo "check-spdx: not in a git checkout; name the files" >&2; exit 2; }
	cd "$top" || exit 2
	set -- $(git ls-files)
fi
bad=0 checked=0
for f in "$@"; do
	[ -f "$f" ] || continue
	is_source "$f" || continue
	checked=$((checked + 1))
	if ! has_spdx "$f"; then
		echo "missing SPDX-License-Identifier: GPL-2.0-only: $f"
		bad=$((bad + 1))
	fi
done
echo "check-spdx: $checked source files, $bad without the SPDX line"
[ "$bad" -eq 0 ]
