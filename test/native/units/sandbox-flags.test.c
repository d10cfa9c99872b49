/* native/containerd-shim/sandbox-flags.c: the pod keeper's command lines for `sandbox`, and bad ones. */
#include "check.h"
#include "sandbox-flags.h"

#include <limits.h>

static struct sandbox_flags f;
static char why[256];

#define PARSE(...)                                                                                              \
  parse_sandbox_flags(sizeof((char *[]){"shim", "sandbox", __VA_ARGS__}) / sizeof(char *),                     \
                      (char *[]){"shim", "sandbox", __VA_ARGS__}, &f, why, sizeof why)

static const char *path_of(int i) {
  static char path[PATH_MAX];
  if (sandbox_sysctl_path(&f.sysctls[i], path, sizeof path) != 0) return "(too long)";
  return path;
}

static void reads_what_the_keeper_writes(void) {
  CHECK(PARSE("--pid-file", "/run/p", "--netns", "/run/netns/cni-1", "--hostname", "pod", "--share-pid",
              "--sysctl", "net.ipv4.ip_unprivileged_port_start=0", "--sysctl=kernel.shmmni=1=2") == 0);
  CHECK_STR(f.pid_file, "/run/p");
  CHECK_STR(f.netns, "/run/netns/cni-1");
  CHECK_STR(f.hostname, "pod");
  CHECK(f.share_pid == 1 && f.host_ipc == 0 && f.host_uts == 0);
  CHECK(f.sysctl_count == 2);
  CHECK_STR(path_of(0), "/proc/sys/net/ipv4/ip_unprivileged_port_start");
  CHECK_STR(f.sysctls[0].value, "0");
  /* The value is everything after the first '='. */
  CHECK_STR(path_of(1), "/proc/sys/kernel/shmmni");
  CHECK_STR(f.sysctls[1].value, "1=2");
  CHECK(PARSE("--pid-file=p", "--host-ipc", "--host-uts") == 0);
  CHECK(f.netns == NULL && f.hostname == NULL && f.share_pid == 0 && f.host_ipc == 1 && f.host_uts == 1);
  CHECK(f.sysctl_count == 0);
}

static void takes_either_spelling_of_a_sysctl(void) {
  /* With a slash the key is a path, and a dot is part of a name (a VLAN interface's). */
  CHECK(PARSE("--pid-file", "p", "--netns", "/n", "--sysctl", "net/ipv4/conf/eth0.100/forwarding=1", "--sysctl",
              "fs.mqueue.msg_max=20", "--sysctl", "kernel.sem=250 32000 32 128", "--sysctl", "kernel.hostname=h") == 0);
  CHECK_STR(path_of(0), "/proc/sys/net/ipv4/conf/eth0.100/forwarding");
  CHECK_STR(path_of(1), "/proc/sys/fs/mqueue/msg_max");
  CHECK_STR(path_of(2), "/proc/sys/kernel/sem");
  CHECK_STR(f.sysctls[2].value, "250 32000 32 128");
  CHECK_STR(path_of(3), "/proc/sys/kernel/hostname");
  CHECK(PARSE("--pid-file", "p", "--sysctl", "kernel.msgmax=") == 0);
  CHECK_STR(f.sysctls[0].value, "");
}

static void refuses_in_one_line(void) {
  CHECK(PARSE("--share-pid") == -1);
  CHECK_STR(why, "--pid-file is required: give --pid-file FILE, where the holder's pid is written");
  CHECK(PARSE("--pid-file", "") == -1);
  CHECK_STR(why, "--pid-file needs a value: give --pid-file FILE");
  CHECK(PARSE("--pid-file", "p", "--hostname", "--host-uts") == -1);
  CHECK_STR(why, "--hostname needs a value: give --hostname NAME");
  CHECK(PARSE("--pid-file", "p", "--host-ipc=1") == -1);
  CHECK_STR(why, "--host-ipc takes no value: give it alone");
  CHECK(PARSE("--pid-file", "p", "--pid-filex", "q") == -1);
  CHECK(strncmp(why, "unknown flag --pid-filex: usage: ", 33) == 0);
  CHECK(PARSE("--pid-file", "p", "--netns", "a", "--netns", "b") == -1);
  CHECK_STR(why, "--netns is given twice: give it once");
  CHECK(PARSE("--pid-file", "p", "--host-uts", "--hostname", "h") == -1);
  CHECK(PARSE("--pid-file", "p", "--host-uts", "--sysctl", "kernel.domainname=d") == -1);
  CHECK_STR(why, "--sysctl kernel.domainname is of the UTS namespace, which --host-uts keeps the host's: drop one");
  CHECK(PARSE("--pid-file", "p", "--host-ipc", "--sysctl", "fs/mqueue/queues_max=1") == -1);
  CHECK(PARSE("--pid-file", "p", "--netns", "/n", "--sysctl", "kernel/shm/x=1") == -1);
  CHECK(PARSE("--pid-file", "p", "--netns", "/n", "--sysctl", "kernel.core_pattern=|/x") == -1);
  CHECK(strncmp(why, "--sysctl kernel.core_pattern is not of a pod's namespaces", 56) == 0);
  CHECK(strchr(why, '\n') == NULL);
}

static void keeps_a_key_under_proc_sys(void) {
  char *bad[] = {"/net/ipv4/x=1", "net/ipv4/=1", "net//ipv4=1", "net/./ipv4=1", "net/ipv4/..=1",
                       ".net.ipv4=1",   "net.ipv4.=1", "net.ipv4..x=1", "net/ipv4/a..b=1", "net.ipv4.a\\b=1",
                       "net.ipv4.a~=1", "net.ipv4.ä=1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK(PARSE("--pid-file", "p", "--netns", "/n", "--sysctl", bad[i]) == -1);
    CHECK(strncmp(why, "--sysctl ", 9) == 0);
  }
  char longest[SANDBOX_SYSCTL_KEY_MAX + 8] = "net.";
  memset(longest + 4, 'a', SANDBOX_SYSCTL_KEY_MAX - 4);
  strcpy(longest + SANDBOX_SYSCTL_KEY_MAX, "=1");
  CHECK(PARSE("--pid-file", "p", "--netns", "/n", "--sysctl", longest) == 0);
  longest[SANDBOX_SYSCTL_KEY_MAX] = 'a';
  strcpy(longest + SANDBOX_SYSCTL_KEY_MAX + 1, "=1");
  CHECK(PARSE("--pid-file", "p", "--netns", "/n", "--sysctl", longest) == -1);
  CHECK_STR(why, "--sysctl's key is longer than 255 characters: give a sysctl's name");
}

static void bounds_the_table(void) {
  char *argv[2 * SANDBOX_SYSCTLS_MAX + 8];
  int argc = 0;
  argv[argc++] = "shim";
  argv[argc++] = "sandbox";
  argv[argc++] = "--pid-file=p";
  for (int i = 0; i < SANDBOX_SYSCTLS_MAX; i++) argv[argc++] = "--sysctl=kernel.shmmni=1";
  CHECK(parse_sandbox_flags(argc, argv, &f, why, sizeof why) == 0);
  CHECK(f.sysctl_count == SANDBOX_SYSCTLS_MAX);
  argv[argc++] = "--sysctl=kernel.shmmni=1";
  CHECK(parse_sandbox_flags(argc, argv, &f, why, sizeof why) == -1);
  CHECK_STR(why, "--sysctl is given more than 128 times: set the rest in the pod's containers");
}

int main(void) {
  reads_what_the_keeper_writes();
  takes_either_spelling_of_a_sysctl();
  refuses_in_one_line();
  keeps_a_key_under_proc_sys();
  bounds_the_table();
  return CHECK_RESULT;
}
