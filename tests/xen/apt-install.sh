# SPDX-License-Identifier: GPL-2.0-only
# apt_install WHAT PKG...: install the host tools a preparation script needs (sourced by prepare.sh
# and prepare-kernel.sh, which define say and cannot): with apt-get as root, once more after an
# apt-get update if the first try fails; without root or apt-get, `cannot` (exit 77: the caller's
# stage is a SKIP) names the packages and the command.  WHAT says who needs them.
apt_install() {
	local what=$1
	shift
	[ $# -gt 0 ] || return 0
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
		cannot "$what needs $*; as root run: apt-get install $*"
	fi
	say "installing $*"
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "$@" >&2; then
		apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 || true
		apt-get install -y -qq --no-install-recommends "$@" >&2 || cannot "apt-get install $* failed"
	fi
}
