/*
 * The few system calls skiff-gate makes, and its entry point. On x86_64 and arm64 it
 * runs without a C library: a static glibc program spends ~0.5 ms starting up before
 * main (CPU feature probing, TLS and IRELATIVE set-up; measured in a VM, where CPUID
 * traps), more than the program the gate then runs. Elsewhere the C library's
 * syscall() and main() are used.
 *
 * Every call returns the kernel's result: >= 0, or -errno.
 */
#ifndef SKIFF_GATE_SYS_H
#define SKIFF_GATE_SYS_H

#include <asm/unistd.h>
#include "raw-syscall.h"

static int gate_main(int argc, char **argv, char **envp);

#ifdef SKIFF_RAW_SYSCALL
#define GATE_FREESTANDING 1
static long gate_syscall(long n, long a, long b, long c) { return raw_syscall4(n, a, b, c, 0); }
/* The kernel leaves argc, argv..., NULL, envp..., NULL at the stack pointer. */
#if defined(__x86_64__)
__asm__(".text\n.global _start\n_start:\n xor %rbp, %rbp\n mov %rsp, %rdi\n and $-16, %rsp\n call gate_start\n hlt\n");
#else
__asm__(".text\n.global _start\n_start:\n mov x29, #0\n mov x30, #0\n mov x0, sp\n bl gate_start\n brk #0\n");
#endif
#else
#include <errno.h>
#include <unistd.h>
static long gate_syscall(long n, long a, long b, long c) {
  long ret = syscall(n, a, b, c);
  return ret < 0 ? -errno : ret;
}
int main(int argc, char **argv, char **envp) {
  return gate_main(argc, argv, envp);
}
#endif

static __attribute__((noreturn)) void sys_exit(int code) {
  for (;;) gate_syscall(__NR_exit_group, code, 0, 0);
}

#ifdef GATE_FREESTANDING
__attribute__((noreturn, used)) void gate_start(long *sp) {
  int argc = (int)sp[0];
  char **argv = (char **)(sp + 1);
  sys_exit(gate_main(argc, argv, argv + argc + 1));
}
#endif

static long sys_read(int fd, void *buf, long n) { return gate_syscall(__NR_read, fd, (long)buf, n); }
static long sys_write(int fd, const void *buf, long n) { return gate_syscall(__NR_write, fd, (long)buf, n); }
static long sys_close(int fd) { return gate_syscall(__NR_close, fd, 0, 0); }
static long sys_ioctl(int fd, unsigned long request, long arg) { return gate_syscall(__NR_ioctl, fd, (long)request, arg); }
static long sys_setgroups_none(void) { return gate_syscall(__NR_setgroups, 0, 0, 0); }
static long sys_setgid(long gid) { return gate_syscall(__NR_setgid, gid, 0, 0); }
static long sys_setuid(long uid) { return gate_syscall(__NR_setuid, uid, 0, 0); }
static long sys_execve(const char *file, char **argv, char **envp) {
  return gate_syscall(__NR_execve, (long)file, (long)argv, (long)envp);
}

#endif
