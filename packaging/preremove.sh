#!/bin/sh
# Before the .deb or .rpm is removed or upgraded (dpkg: remove or upgrade;
# rpm: 0 remove, 1 upgrade). Only a removal stops the service.
set -e
case "$1" in
remove | 0)
	if [ -d /run/systemd/system ]; then
		systemctl disable --now finance.service || true
	fi
	;;
esac
