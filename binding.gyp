{
  "targets": [
    {
      "target_name": "skiff_native",
      "sources": ["native/skiff_native.c"],
      "cflags": ["-Wall", "-Wextra", "-O2"]
    }
  ]
}
