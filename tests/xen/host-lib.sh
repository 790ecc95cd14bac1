# SPDX-License-Identifier: GPL-2.0-only
# Host side of the Xen test bed's scenarios (bash; sourced by run.sh).
#
#   scenario_names STAGE [LIST]     the scenarios a stage runs: LIST (names,
#                                   or empty for the default set: all in
#                                   tests/xen/scenarios/ but those whose conf
#                                   says SC_DEFAULT=0) filtered by each one's
#                                   SC_STAGES
#   scenario_optin STAGE            the scenarios of the stage left out of
#                                   the default set (SC_DEFAULT=0): they run
#                                   only when named in the stage's list
#   scenario_prepare NAME STAGE DIR stage NAME into DIR/NAME (guest.sh, env,
#                                   files/ for the payload disk); 0 ready,
#                                   77 skip (reason in DIR/NAME/skip), else
#                                   the prepare step failed
#   decode_exports LOG OUTDIR       every scenario's tar.gz exported on a
#                                   console log, unpacked into
#                                   OUTDIR/<scenario>/<name>; one line per
#                                   file on stdout: "ok SCENARIO/NAME detail"
#                                   or "bad SCENARIO/[NAME] reason"
#   con_marker LOG WHAT             the last ===FPUSOAK-WHAT ...=== payload
#   con_kv KEY LINE                 value of KEY=value in a marker line
#   con_lockup LOG SECONDS          the guest kernel's last "soft lockup - CPU#n
#                                   stuck for Ns! [comm:pid]" with N >= SECONDS
#                                   (empty: none that long)

XEN_SCENARIO_DIR=${XEN_SCENARIO_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/scenarios}

con_marker() { sed -n "s/^===FPUSOAK-$2 \(.*\)===\$/\1/p" "$1" | tail -1; }
con_kv() { sed -n "s/.*\<$1=\([^ ]*\).*/\1/p" <<<"$2"; }
con_lockup() {
	local l n
	l=$(grep -a -o 'soft lockup - CPU#[0-9]* stuck for [0-9]*s! \[[^]]*\]' "$1" 2>/dev/null | tail -1)
	n=${l#*stuck for }
	n=${n%%s!*}
	case "$n" in '' | *[!0-9]*) return 0 ;; esac
	# More digits than a test's patience: stuck (and beyond what [ -ge ] takes).
	if [ "${#n}" -gt 9 ] || [ "$n" -ge "$2" ]; then echo "$l"; fi
	return 0
}

# The conf defaults, then the scenario's own declarations.
_scenario_conf() { # NAME: in a subshell only
	SC_NAME=$1
	SC_STAGES="dom0 domu"
	SC_BUDGET=120
	SC_NEEDS=daemon
	SC_FLAGS=
	SC_SERVE=0
	SC_DEFAULT=1
	if [ -f "$XEN_SCENARIO_DIR/$1.conf.sh" ]; then
		# shellcheck disable=SC1090
		. "$XEN_SCENARIO_DIR/$1.conf.sh"
	fi
}

_scenario_all() { (cd "$XEN_SCENARIO_DIR" && ls ./*.guest.sh 2>/dev/null | sed 's|^\./||; s|\.guest\.sh$||' | sort); }

# A scenario named in LIST always runs (in its stages); the default set leaves out SC_DEFAULT=0.
scenario_names() { # STAGE [LIST]
	local stage=$1 list=${2:-} n dflt=0
	if [ -z "$list" ]; then
		list=$(_scenario_all)
		dflt=1
	fi
	for n in $list; do
		if (_scenario_conf "$n"; [ "$dflt" = 1 ] && [ "$SC_DEFAULT" = 0 ] && exit 1
		    case " $SC_STAGES " in *" $stage "*) exit 0 ;; esac; exit 1); then
			echo "$n"
		fi
	done
}

scenario_optin() { # STAGE
	local n
	for n in $(_scenario_all); do
		if (_scenario_conf "$n"; [ "$SC_DEFAULT" = 0 ] || exit 1
		    case " $SC_STAGES " in *" $1 "*) exit 0 ;; esac; exit 1); then
			echo "$n"
		fi
	done
}

# Field of a scenario's conf on the host (SC_BUDGET, SC_SERVE ...).
scenario_get() { # NAME VAR
	(_scenario_conf "$1" >/dev/null 2>&1; eval "echo \"\${$2:-}\"")
}

scenario_prepare() { # NAME STAGE DIR
	local name=$1 stage=$2 sdir=$3/$1
	rm -rf "$sdir"
	mkdir -p "$sdir/files"
	case "$name" in
	'' | *[!a-z0-9_-]* | boot | domu) echo "scenario name '$name': want [a-z0-9_-]+, not boot/domu" >"$sdir/error"; return 2 ;;
	esac
	if [ ! -f "$XEN_SCENARIO_DIR/$name.guest.sh" ]; then
		echo "no $XEN_SCENARIO_DIR/$name.guest.sh" >"$sdir/error"
		return 2
	fi
	(
		set -u
		STAGE=$stage SC_STAGING=$sdir
		_q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
		# Helpers a conf's sc_prepare may call (see tests/xen/README.md).
		sc_env() { echo "$1=$(_q "$2")" >>"$SC_STAGING/env.extra"; }
		sc_flags() { SC_FLAGS="${SC_FLAGS:+$SC_FLAGS }$*"; }
		sc_skip() { echo "$*" >"$SC_STAGING/skip"; exit 77; }
		sc_payload() { install -D -m "${3:-0644}" "$1" "$SC_STAGING/files$2"; }
		sc_payload_bin() { # SRC DEST: a program and every library ldd resolves for it
			install -D -m 0755 "$1" "$SC_STAGING/files$2"
			ldd "$1" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
				while read -r lib; do
					[ -e "$SC_STAGING/files$lib" ] || install -D -m 0755 "$(readlink -f "$lib")" "$SC_STAGING/files$lib"
				done
		}
		# DEST [optional]: the fpusoak_gfp module built on the host against the guest kernel's own headers
		# packages (prepare-kmod.sh), never loaded here, staged at DEST; KMOD_KVER is then set.  Without
		# the headers the scenario is skipped, or with "optional" 77 is returned and the reason is in
		# KMOD_WHY.  A module that does not build (or warns) once the headers are there is a failure.
		sc_kmod() {
			local repo cache out log rc
			repo=$(cd "$XEN_SCENARIO_DIR/../../.." && pwd)
			cache=${XEN_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/fpusoakd/xen}
			out=$SC_STAGING/build
			log=$SC_STAGING/kmod.log
			mkdir -p "$out"
			# The domU's small kernel: its own build tree (run.sh, prepare-kernel.sh).  Another domU
			# kernel than the dom0's (cloud) has no headers here.  Else the generic kernel's headers.
			if [ "$STAGE" = domu ] && [ -n "${DOMU_KDIR:-}" ]; then
				KMOD_KDIR=$DOMU_KDIR KMOD_FOR=$DOMU_KVER
			elif [ "$STAGE" = domu ] && [ "${DOMU_KVER:-}" != "$KVER" ]; then
				KMOD_WHY="no build tree or headers prepared for the domU's kernel ${DOMU_KVER:-?} (XEN_DOMU_KERNEL=small or generic have them)"
				[ "${2:-}" = optional ] && return 77
				sc_skip "$KMOD_WHY"
			else
				bash "$repo/tests/xen/prepare-kmod.sh" >"$log" 2>&1
				rc=$?
				if [ "$rc" = 77 ]; then
					KMOD_WHY="no headers for the guest's kernel: $(grep -m1 'cannot prepare' "$log")"
					[ "${2:-}" = optional ] && return 77
					sc_skip "$KMOD_WHY"
				fi
				if [ "$rc" != 0 ]; then
					echo "tests/xen/prepare-kmod.sh exited $rc: $(tail -2 "$log" | tr '\n' ' ')" >&2
					return 1
				fi
				# shellcheck disable=SC1091
				. "$cache/kmod/env"
				KMOD_FOR=$KMOD_KVER
			fi
			if ! make -C "$repo" --no-print-directory kmod KDIR="$KMOD_KDIR" BUILD="$out" KCFLAGS=-Werror >>"$log" 2>&1; then
				echo "make kmod against $KMOD_FOR failed: $(grep -m3 -E 'error|Error' "$log" | tr '\n' ' ')" >&2
				return 1
			fi
			sc_payload "$out/kmod/fpusoak_gfp.ko" "$1"
		}
		# DEST: gfp_iface (the module's interface checker and driver) staged at DEST.  It runs in the
		# guest's initramfs world: static, no library to carry.
		sc_gfp_iface() {
			local repo out=$SC_STAGING/build log=$SC_STAGING/kmod.log
			repo=$(cd "$XEN_SCENARIO_DIR/../../.." && pwd)
			mkdir -p "$out"
			if ! cc -std=gnu11 -O2 -Wall -Wextra -Werror -static -I"$repo" "$XEN_SCENARIO_DIR/gfp_iface.c" \
				-o "$out/gfp_iface" >>"$log" 2>&1; then
				echo "gfp_iface did not build: $(grep -m2 error "$log" | tr '\n' ' ')" >&2
				return 1
			fi
			sc_payload "$out/gfp_iface" "$1" 0755
		}
		_scenario_conf "$name"
		case " $SC_STAGES " in *" $stage "*) ;; *) sc_skip "does not apply to the $stage stage (SC_STAGES=$SC_STAGES)" ;; esac
		if [ "$SC_NEEDS" = daemon ] && [ "${PAYLOAD:-daemon}" != daemon ]; then
			sc_skip "needs the daemon; the payload is the $PAYLOAD"
		fi
		if declare -F sc_prepare >/dev/null; then
			sc_prepare || { rc=$?; [ "$rc" = 77 ] && exit 77; echo "sc_prepare exited $rc" >"$SC_STAGING/error"; exit "$rc"; }
		fi
		case "$SC_BUDGET" in '' | *[!0-9]*) echo "SC_BUDGET='$SC_BUDGET' is not a number of seconds" >"$SC_STAGING/error"; exit 2 ;; esac
		{
			echo "SC_NAME=$(_q "$name")"
			echo "SC_BUDGET=$(_q "$SC_BUDGET")"
			echo "SC_FLAGS=$(_q "$SC_FLAGS")"
			echo "SC_SERVE=$(_q "$SC_SERVE")"
			[ -f "$SC_STAGING/env.extra" ] && cat "$SC_STAGING/env.extra"
		} >"$SC_STAGING/env"
		rm -f "$SC_STAGING/env.extra"
		install -m 0644 "$XEN_SCENARIO_DIR/$name.guest.sh" "$SC_STAGING/guest.sh"
	) 2>"$sdir/prepare.log"
}

decode_exports() { # LOG OUTDIR
	local log=$1 dest=$2 work tag sha lines b64 gz f
	work=$(mktemp -d "${TMPDIR:-/tmp}/fpusoak-exports.XXXXXX")
	# awk rebuilds each block's base64 in sequence order.  Every line but the
	# last has 76 characters.  A line a printk split ("12:ABC[  4.5] text"
	# then "DEF...") is joined again when what was inserted is one kernel or
	# Xen line and the two pieces make 76; anything else is a lost line.
	tr -d '\r' <"$log" | awk -v work="$work" '
	function flush(   i, f, miss, d) {
		f = work "/" nblk
		miss = ""
		for (i = 1; i <= want; i++) {
			d = ""
			if ((i in line) && length(line[i]) == 76) d = line[i]
			else if ((i in joined) && length(joined[i]) == 76) d = joined[i]
			else if (i == want && (i in joined)) d = joined[i]
			else if (i == want && (i in line) && !(i in cont)) d = line[i]
			if (d != "") print d > (f ".b64")
			else miss = miss " " i
		}
		close(f ".b64")
		printf "%s %s %s %d %s\n", tag, sha, f, want, (miss == "" ? "-" : substr(miss, 2)) > (work "/manifest")
	}
	/^===FPUSOAK-EXPORT-BEGIN / {
		tag = $2; sub(/===$/, "", tag)
		inblk = 1; nblk++; delete line; delete joined; delete cont; pend = 0; next
	}
	inblk && /^===FPUSOAK-EXPORT-END / {
		sha = "-"; want = 0
		if (match($0, /sha256=[0-9a-f]+/)) sha = substr($0, RSTART + 7, RLENGTH - 7)
		if (match($0, /lines=[0-9]+/)) want = substr($0, RSTART + 6, RLENGTH - 6) + 0
		flush(); inblk = 0; next
	}
	!inblk { next }
	/^[0-9]+:/ {
		i = index($0, ":"); pseq = substr($0, 1, i - 1) + 0; body = substr($0, i + 1)
		match(body, /^[A-Za-z0-9+\/=]*/)
		line[pseq] = substr(body, 1, RLENGTH); rest = substr(body, RLENGTH + 1)
		pend = (rest ~ /^(\[ *[0-9]+\.[0-9]+\]|\(XEN\))/)
		if (rest != "") cont[pseq] = 1
		next
	}
	pend && /^[A-Za-z0-9+\/=]+$/ {
		if (length(line[pseq] $0) <= 76) joined[pseq] = line[pseq] $0
		pend = 0; next
	}
	{ next }
	END { if (inblk) { sha = "-"; want = 0; flush() } }'
	[ -f "$work/manifest" ] || { rm -rf "$work"; return 0; }
	local name path x m
	while read -r tag sha b64 lines miss; do
		case "$tag" in
		*..* | */* | '' | *[!A-Za-z0-9._-]*) echo "bad $tag unsafe export name"; continue ;;
		esac
		if [ "$sha" = - ]; then
			echo "bad $tag/ export cut off (no end marker)"
			continue
		fi
		if [ "$miss" != - ]; then
			echo "bad $tag/ $(wc -w <<<"$miss") of $lines base64 lines lost or garbled (lines $(cut -c1-60 <<<"$miss"))"
			continue
		fi
		gz=$work/x.tgz
		base64 -d "$b64.b64" >"$gz" 2>/dev/null
		got=$(sha256sum "$gz" | cut -d' ' -f1)
		if [ "$got" != "$sha" ]; then
			echo "bad $tag/ sha256 mismatch (sent $sha, rebuilt $got)"
			continue
		fi
		x=$work/x
		rm -rf "$x"
		mkdir -p "$x"
		# The manifest is the tar's first member (guest-lib.sh send_exports).
		m=$(tar -tzf "$gz" 2>/dev/null | head -1)
		if ! tar --no-same-owner --no-same-permissions -xzf "$gz" -C "$x" 2>/dev/null ||
			[ "${m##*/}" != manifest ] || [ ! -f "$x/$m" ]; then
			echo "bad $tag/ tar.gz (sha256 ok) does not unpack or has no manifest"
			continue
		fi
		# The manifest maps export names to the guest paths inside the tar.
		while read -r name path; do
			case "$name" in
			*..* | /* | '' | *[!A-Za-z0-9._/-]*) echo "bad $tag/$name unsafe export name"; continue ;;
			esac
			f=$dest/$tag/$name
			mkdir -p "$(dirname "$f")"
			if [ -f "$x/${path#/}" ]; then
				cp "$x/${path#/}" "$f"
				echo "ok $tag/$name $(wc -c <"$f") bytes (tar.gz sha256 ${sha:0:16})"
			else
				echo "bad $tag/$name listed but not in the tar"
			fi
		done <"$x/$m"
	done <"$work/manifest"
	rm -rf "$work"
}
