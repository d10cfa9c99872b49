#!/bin/bash
# Runs in the guest at boot (the image's skiff-vm.service, after mounting the host's control
# folder at /run/skiff-vm), with skiff installed and containerd configured already
# (scripts/vm/install.js): mounts the shares, waits for containerd, imports the busybox and
# pause images, then runs the host's command. Everything comes back through the control
# folder, not the serial console:
#   progress   one line per step, with the guest's uptime
#   setup.log  what the set-up printed
#   stdout, stderr, status   the command's
# The host (scripts/vm/bed.js) streams stdout and stderr while they grow.
set -uo pipefail
CTL=/run/skiff-vm
cd /

say() { echo "$(cut -d' ' -f1 /proc/uptime) $*" >> "$CTL/progress"; }

finish() {
  echo "$1" > "$CTL/status.tmp" && mv "$CTL/status.tmp" "$CTL/status"
  sync
  systemctl poweroff --force --force
}

setup() {
  set -e
  while read -r tag; do
    [ -n "$tag" ] || continue
    mkdir -p "/mnt/$tag"
    mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 "$tag" "/mnt/$tag"
  done < "$CTL/shares"
  for _ in $(seq 1 900); do ctr version > /dev/null 2>&1 && break; sleep 0.2; done
  ctr version > /dev/null
  say "containerd answers: $(containerd --version | awk '{ print $3 }'), $(skiff --version | head -1)"
  ctr -n default image import "$CTL/busybox.tar" > /dev/null
  ctr -n k8s.io image import "$CTL/busybox.tar" > /dev/null
  say "images imported"
}

say "booted"
if ! (setup) > "$CTL/setup.log" 2>&1; then
  say "set-up failed"
  finish setup-failed
fi
say "command started"
(cd /root && exec bash "$CTL/command.sh") > "$CTL/stdout" 2> "$CTL/stderr" < /dev/null
finish $?
