#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Block hotplug script for the test domU's disk (busybox; libxl runs it as
# "SCRIPT add|remove" with XENBUS_PATH set).  What Debian's
# /etc/xen/scripts/block does for a phy: device, without its bash and
# sharing checks: tell blkback which device (major:minor in hex) to serve.
case "$1" in
add)
	dev=$(xenstore-read "$XENBUS_PATH/params") || exit 1
	if ! mm=$(stat -L -c '%t:%T' "$dev") || [ ! -b "$dev" ]; then
		xenstore-write "$XENBUS_PATH/hotplug-error" "$dev is not a block device" \
			"$XENBUS_PATH/hotplug-status" error
		exit 1
	fi
	xenstore-write "$XENBUS_PATH/physical-device" "$mm" \
		"$XENBUS_PATH/physical-device-path" "$dev" \
		"$XENBUS_PATH/hotplug-status" connected
	;;
remove) ;;
esac
exit 0
