/* native/common/task-layout.c: containerd's identifier rule, the paths, the group hash. */
#include <limits.h>

#include "check.h"
#include "task-layout.h"

static void names_follow_containerds_rule(void) {
  static const char *const good[] = {"a", "default", "k8s.io", "a_b-c.d", "A9", "0"};
  static const char *const bad[] = {"", ".", "..", "a/b", "../a", "-a", "a-", "a..b", "a._b", "a b", "a\n", "ä"};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) CHECK(layout_safe_name(good[i]));
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (layout_safe_name(bad[i])) fprintf(stderr, "taken: \"%s\"\n", bad[i]), check_failures++;
  char name[LAYOUT_NAME_MAX + 2];
  memset(name, 'x', sizeof name - 1);
  name[LAYOUT_NAME_MAX] = '\0';
  CHECK(layout_safe_name(name));
  name[LAYOUT_NAME_MAX] = 'x';
  name[LAYOUT_NAME_MAX + 1] = '\0';
  CHECK(!layout_safe_name(name));
}

static void paths_are_the_layouts(void) {
  char out[PATH_MAX];
  CHECK(layout_state_of_bundle("/run/containerd/io.containerd.runtime.v2.task/default/c1", out, sizeof out) == 0);
  CHECK_STR(out, "/run/containerd");
  CHECK(layout_state_of_bundle("/tmp/bundle", out, sizeof out) == -1);
  CHECK(layout_state_of_bundle("/io.containerd.runtime.v2.task/ns/id", out, sizeof out) == -1);
  CHECK(layout_task_dir(out, sizeof out, "/s", "ns", "id") == 0);
  CHECK_STR(out, "/s/skiff/ns/tasks/id");
  CHECK(layout_server_state_dir(out, sizeof out, "/s", "ns") == 0);
  CHECK_STR(out, "/s/skiff/ns");
  CHECK(layout_group_file(out, sizeof out, "/s", 0xabcULL, ".sock") == 0);
  CHECK_STR(out, "/s/skiff/0000000000000abc.sock");
}

static void paths_never_truncate(void) {
  char small[16];
  CHECK(layout_task_dir(small, sizeof small, "/state", "ns", "id") == -1);
  CHECK_STR(small, "");
  CHECK(layout_path(small, sizeof small, "%s", "exactly15chars.") == 0);
  CHECK(layout_path(small, sizeof small, "%s", "exactly16chars..") == -1);
  CHECK(layout_state_of_bundle("/a-state-dir-too-long/io.containerd.runtime.v2.task/n/i", small, sizeof small) == -1);
}

static void the_group_hash_is_stable(void) {
  /* Sockets of serving processes that run now: the hash must not change across versions. */
  CHECK(layout_group_hash("/run/containerd/containerd.sock", "default", "") == 0x572481803b9214dfULL);
  /* The separators keep ("ab","c") apart from ("a","bc"). */
  CHECK(layout_group_hash("x", "ab", "c") != layout_group_hash("x", "a", "bc"));
  CHECK(layout_group_hash("x", "ns", "g1") != layout_group_hash("x", "ns", "g2"));
}

int main(void) {
  names_follow_containerds_rule();
  paths_are_the_layouts();
  paths_never_truncate();
  the_group_hash_is_stable();
  return CHECK_RESULT;
}
