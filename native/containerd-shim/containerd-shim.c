/*
 * containerd-shim-skiff-v2: the binary containerd runs for `--runtime io.containerd.skiff.v2`
 * (shim CLI protocol of containerd's runtime/v2/shim, see docs/containerd.md). This file reads the
 * flags (flags.c) and runs one verb (verbs.h), each in its own file:
 *
 *   start   once per container (start.c): prints the address containerd dials, the pod keeper's
 *           or the group serving process's, starting it when none answers.
 *   delete  after containerd's connection to the task closed (delete.c): cleans up what a dead
 *           keeper or serving process left, as runc's shim does.
 *   keep    the pod keeper (keep.c, native/keeper/, docs/keeper-protocol.md): `start` runs one per
 *           pod and prints the pod socket, unless containerd's environment has SKIFF_KEEPER=0.
 *   serve   not containerd's: a node's systemd unit runs it for a namespace (serve-verb.c, serve.c,
 *           docs/node-daemon.md), so the namespace's serving process is up before the first pod.
 *   -info   containerd 2.x's question before a task of a runtime type other than runc's (info.c).
 *   sandbox not containerd's: the pod keeper launches it for containerd's Sandbox API (sandbox.c,
 *           docs/sandbox-api.md): it forks the process that holds the pod's namespaces.
 *
 * What they share: which group and pod a task is in (task-group.c), where their files are
 * (places.c, through native/common/task-layout.h: docs/on-disk-layout.md), the Node that runs the
 * serving process (node-lookup.c), and the one line they end with (fail.c).
 *
 * Written in C because containerd execs it for every container: Node's start-up would be
 * most of a `ctr run`.
 */
#include <stdio.h>
#include <string.h>

#include "fail.h"
#include "flags.h"
#include "verbs.h"

int main(int argc, char **argv) {
  struct flags f;
  char why[256];
  /* Its flags are its own (sandbox-flags.c): containerd's parser would refuse them. */
  if (argc > 1 && strcmp(argv[1], "sandbox") == 0) return do_sandbox(argc, argv);
  if (parse_flags(argc, argv, &f, why, sizeof why) != 0) die(why, NULL);
  if (f.version) {
    printf("containerd-shim-skiff-v2 %s\n", SKIFF_VERSION);
    return 0;
  }
  if (f.info) return do_info();
  if (f.action != NULL && strcmp(f.action, "start") == 0) return do_start(&f);
  if (f.action != NULL && strcmp(f.action, "delete") == 0) return do_delete(&f);
  if (f.action != NULL && strcmp(f.action, "keep") == 0) return do_keep(&f);
  if (f.action != NULL && strcmp(f.action, "serve") == 0) return do_serve(&f);
  fprintf(stderr,
          "usage: containerd-shim-skiff-v2 -namespace NS -address ADDR -id ID [-bundle DIR] [-debug] start|delete\n"
          "       containerd-shim-skiff-v2 -info < options (containerd.types.RuntimeInfo on stdout)\n"
          "       containerd-shim-skiff-v2 -namespace NS -address ADDR [-state DIR] serve (a node's systemd unit)\n"
          "       containerd-shim-skiff-v2 sandbox --pid-file FILE [--netns PATH] [--hostname NAME] [--share-pid]\n"
          "           [--host-ipc] [--host-uts] [--sysctl KEY=VALUE]... (the pod keeper's, for the Sandbox API)\n"
          "containerd runs this binary for --runtime io.containerd.skiff.v2 (see skiff's docs/containerd.md)\n");
  return 2;
}
