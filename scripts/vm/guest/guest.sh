#!/bin/bash
# Runs in the guest at boot (the image's skiff-vm.service, after mounting the host's control
# folder at /run/skiff-vm): sets the node up as the README's node install says, then runs the
# host's command. Everything comes back through the control folder, not the serial console:
#   progress   one line per step, with the guest's uptime
#   setup.log  what the set-up printed
#   stdout, stderr, status   the command's
# The host (scripts/vm/bed.js) streams stdout and stderr while they grow.
set -uo pipefail
CTL=/run/skiff-vm
MOUNT_OPTS=trans=virtio,version=9p2000.L,msize=524288
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
    mount -t 9p -o "$MOUNT_OPTS" "$tag" "/mnt/$tag"
  done < "$CTL/shares"

  # skiff as a node gets it (README "On a Kubernetes node"): the packed tarball, installed
  # globally by the guest's own npm; its dependencies come from the host's npm cache, since
  # the guest has no network.
  mkdir -p /run/skiff-vm-npm
  mount -t 9p -o "$MOUNT_OPTS" skiffnpm /run/skiff-vm-npm
  npm install -g --offline --no-audit --no-fund --no-update-notifier --cache /run/skiff-vm-npm --logs-max=0 \
    --registry "$(cat "$CTL/registry")" "$CTL/skiff.tgz"
  command -v skiff containerd-shim-skiff-v2
  say "skiff installed: $(skiff --version | head -1)"

  # containerd's config as printed for its version: Debian's config.toml is version 2 for 1.7;
  # for 2.x the section goes into a drop-in when the config imports one (else appended).
  local format
  format=$(containerd --version | awk '{ split($3, v, "."); print (v[1] + 0 >= 2) ? "v3" : "v2" }')
  if [ "$format" = v3 ] && grep -Eq '^imports *=.*conf\.d' /etc/containerd/config.toml 2>/dev/null; then
    mkdir -p /etc/containerd/conf.d
    { echo 'version = 3'; skiff containerd config; } > /etc/containerd/conf.d/skiff.toml
  else
    skiff containerd config >> /etc/containerd/config.toml
  fi
  # The guest has no network: CRI's pod sandboxes use the pause image imported below. Debian's
  # config.toml is version 2 for containerd 1.7 and 2.x alike (2.x migrates it).
  sed -i 's|^\( *\)\[plugins."io.containerd.grpc.v1.cri"\]$|&\n\1  sandbox_image = "docker.io/library/skiff-pause:latest"|' \
    /etc/containerd/config.toml
  grep -q skiff-pause /etc/containerd/config.toml
  systemctl start containerd
  for _ in $(seq 1 600); do ctr version > /dev/null 2>&1 && break; sleep 0.2; done
  ctr version > /dev/null
  say "containerd answers: $(containerd --version | awk '{ print $3 }')"

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
