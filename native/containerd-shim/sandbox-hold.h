/* The holder `sandbox` forks (sandbox.c): the process whose namespaces are the pod's. */
#ifndef SKIFF_SHIM_SANDBOX_HOLD_H
#define SKIFF_SHIM_SANDBOX_HOLD_H

/* What the holder tells its parent on `report` once set up: err 0, or the errno of the step named. */
struct sandbox_report {
  int err;
  char what[60];
};

/*
 * In the forked child, every signal blocked by the parent before the fork (so none is lost or
 * fatal before it waits): names itself skiff-sandbox, keeps only stderr of what it inherited,
 * reports on `report`, then waits for signals until SIGTERM or SIGINT, when it exits 0. It reaps
 * every child it gets on SIGCHLD: as pid 1 of the pod's PID namespace the orphans are its own.
 * argv is the program's, overwritten so that ps shows the name too.
 */
_Noreturn void sandbox_hold(int report, int argc, char **argv);

#endif
