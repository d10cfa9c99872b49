{
  "targets": [
    {
      "target_name": "skiff_native",
      "sources": ["native/skiff_native.c", "native/spawn.c"],
      "cflags": ["-Wall", "-Wextra", "-O2"]
    },
    {
      "target_name": "skiff-gate",
      "type": "executable",
      "sources": ["native/gate.c"],
      "cflags": ["-Wall", "-Wextra", "-O2"],
      "ldflags": ["-static"]
    }
  ]
}
