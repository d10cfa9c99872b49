{
  "targets": [
    {
      "target_name": "skiff_native",
      "sources": ["native/skiff_native.c", "native/errors.c", "native/spawn.c", "native/launch.c", "native/oom.c", "native/poll-watch.c"],
      "cflags": ["-Wall", "-Wextra", "-O2"]
    },
    {
      "target_name": "skiff-gate",
      "type": "executable",
      "sources": ["native/gate.c"],
      "cflags": ["-Wall", "-Wextra", "-O2", "-fno-stack-protector", "-fno-asynchronous-unwind-tables"],
      "ldflags": ["-static"],
      "conditions": [
        # Without a C library (native/gate-sys.h): no start-up code, and no library calls
        # the compiler might emit for loops (memset, memcpy).
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
          "sources": ["native/containerd-shim.c"],
          # Paths are PATH_MAX buffers and the socket path is checked against sun_path.
          "cflags": ["-Wall", "-Wextra", "-O2", "-Wno-format-truncation", "-Wno-stringop-truncation"]
        }
      ]
    }]
  ]
}
