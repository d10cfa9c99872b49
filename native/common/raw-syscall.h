/*
 * System calls without the C library: each returns the kernel's result, >= 0 or -errno,
 * and writes no errno. skiff-gate has no C library at all on these architectures
 * (gate-sys.h), and the child of spawnNoWait (launch.c) shares the shim's memory until it
 * execs, so it must not touch the C library's state: errno is the shim's thread's.
 * SKIFF_RAW_SYSCALL is defined where raw_syscall4 exists (x86_64, arm64).
 */
#ifndef SKIFF_RAW_SYSCALL_H
#define SKIFF_RAW_SYSCALL_H

#if defined(__x86_64__)
#define SKIFF_RAW_SYSCALL 1
static inline long raw_syscall4(long n, long a, long b, long c, long d) {
  long ret;
  register long r10 __asm__("r10") = d;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
  return ret;
}
#elif defined(__aarch64__)
#define SKIFF_RAW_SYSCALL 1
static inline long raw_syscall4(long n, long a, long b, long c, long d) {
  register long x8 __asm__("x8") = n;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
  return x0;
}
#endif

#endif
