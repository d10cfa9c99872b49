{
  # native/README.md says what each target is and who runs it.
  "target_defaults": {
    "include_dirs": ["native/common"],
    # The package's version, which `skiff --version` shows beside its own (two installs mixed).
    "defines": ["SKIFF_VERSION=\"<!(node -p \"require('./package.json').version\")\""],
    "cflags": ["-Wall", "-Wextra", "-Werror", "-O2"]
  },
  "targets": [
    {
      "target_name": "skiff_native",
      "sources": [
        "native/addon/skiff_native.c",
        "native/addon/errors.c",
        "native/addon/spawn.c",
        "native/addon/launch.c",
        "native/addon/oom.c",
        "native/addon/poll-watch.c",
        "native/addon/send-fds.c",
        "native/addon/hand-over.c",
        "native/addon/idmap.c"
      ]
    },
    {
      "target_name": "skiff-gate",
      "type": "executable",
      "sources": ["native/gate/gate.c"],
      "cflags": ["-fno-stack-protector", "-fno-asynchronous-unwind-tables"],
      "ldflags": ["-static"],
      "conditions": [
        # Without a C library (native/gate/gate-sys.h): no start-up code, and no library
        # calls the compiler might emit for loops (memset, memcpy).
        ["target_arch=='x64' or target_arch=='arm64'", {
          "cflags": ["-ffreestanding", "-fno-builtin", "-fno-tree-loop-distribute-patterns", "-fno-pie"],
          "ldflags": ["-nostdlib", "-no-pie"]
        }]
      ]
    }
  ],
  "conditions": [
    # containerd's shim binary is Linux-only (umount2, pipe2, containerd's state layout).
    ["OS=='linux'", {
      "targets": [
        {
          "target_name": "containerd-shim-skiff-v2",
          "type": "executable",
          # `keep` runs the pod keeper (native/keeper/): one binary, so `start` execs itself.
          "sources": [
            "native/containerd-shim/containerd-shim.c",
            "native/containerd-shim/start.c",
            "native/containerd-shim/keep.c",
            "native/containerd-shim/keeper-wanted.c",
            "native/containerd-shim/delete.c",
            "native/containerd-shim/delete-sandbox.c",
            "native/containerd-shim/remove-tree.c",
            "native/containerd-shim/info.c",
            "native/containerd-shim/serve-verb.c",
            "native/containerd-shim/task-group.c",
            "native/containerd-shim/places.c",
            "native/containerd-shim/node-lookup.c",
            "native/containerd-shim/fail.c",
            "native/containerd-shim/read-all.c",
            "native/containerd-shim/flags.c",
            "native/containerd-shim/refuse.c",
            "native/containerd-shim/delete-response.c",
            "native/containerd-shim/runtime-info.c",
            "native/common/proto-wire.c",
            "native/containerd-shim/bootstrap.c",
            "native/containerd-shim/forget.c",
            "native/containerd-shim/root-owned.c",
            "native/containerd-shim/package-code.c",
            "native/containerd-shim/serve.c",
            "native/containerd-shim/sandbox.c",
            "native/containerd-shim/sandbox-flags.c",
            "native/containerd-shim/sandbox-hold.c",
            "native/common/json-read.c",
            "native/common/task-layout.c",
            "native/common/serving-argv.c",
            "native/common/unix-socket.c",
            "native/common/preamble.c",
            "native/common/exec-report.c",
            "native/keeper/keeper.c",
            "native/keeper/control.c",
            "native/keeper/control-wire.c",
            "native/keeper/exec-fifo.c",
            "native/keeper/held.c",
            "native/keeper/held-launch.c",
            "native/keeper/held-reap.c",
            "native/keeper/keeper-start.c",
            "native/keeper/relay.c",
            "native/keeper/say.c",
            "native/keeper/serving.c",
            "native/keeper/state-cache.c",
            "native/keeper/state-learned.c",
            "native/keeper/terminal.c",
            "native/keeper/ttrpc-wire.c"
          ],
          "include_dirs": ["native/keeper"]
        }
      ]
    }]
  ]
}
