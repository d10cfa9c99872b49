/* native/containerd-shim/flags.c: the command lines containerd writes, and bad ones. */
#include "check.h"
#include "flags.h"

static struct flags f;
static char why[128];

#define PARSE(...) parse_flags(sizeof((char *[]){"shim", __VA_ARGS__}) / sizeof(char *), (char *[]){"shim", __VA_ARGS__}, &f, why, sizeof why)

static void reads_what_containerd_writes(void) {
  CHECK(PARSE("-namespace", "k8s.io", "-address", "/run/c.sock", "-publish-binary", "/bin/containerd", "-id", "c1",
              "-bundle", "/b", "-debug", "delete") == 0);
  CHECK_STR(f.namespace, "k8s.io");
  CHECK_STR(f.address, "/run/c.sock");
  CHECK_STR(f.publish_binary, "/bin/containerd");
  CHECK_STR(f.id, "c1");
  CHECK_STR(f.bundle, "/b");
  CHECK_STR(f.action, "delete");
  CHECK(f.debug == 1);
}

static void takes_gos_other_spellings(void) {
  CHECK(PARSE("--namespace=n", "-id=a=b", "--debug=false", "start") == 0);
  CHECK_STR(f.namespace, "n");
  CHECK_STR(f.id, "a=b");
  CHECK(f.debug == 0);
  CHECK_STR(f.action, "start");
  CHECK(PARSE("-debug=1", "-id", "x", "--", "-start") == 0);
  CHECK(f.debug == 1);
  CHECK_STR(f.action, "-start");
  /* Flags of other containerd versions take their value and are passed over. */
  CHECK(PARSE("-socket", "/s", "-shim-x=y", "start") == 0);
  CHECK_STR(f.action, "start");
  CHECK(f.bundle == NULL);
  CHECK_STR(f.namespace, "");
  CHECK(PARSE("-id", "x") == 0);
  CHECK(f.action == NULL);
}

static void takes_info_as_a_boolean(void) {
  CHECK(PARSE("-info") == 0);
  CHECK(f.info == 1);
  CHECK(f.action == NULL);
  CHECK(PARSE("--info=false", "start") == 0);
  CHECK(f.info == 0);
  CHECK(PARSE("-info", "-debug") == 0);
  CHECK(f.info == 1 && f.debug == 1);
  CHECK(PARSE("-info=maybe") == -1);
  CHECK_STR(why, "-info takes true or false, not maybe");
}

static void refuses_in_one_line(void) {
  CHECK(PARSE("-namespace") == -1);
  CHECK_STR(why, "flag needs a value: -namespace");
  CHECK(PARSE("-debug=maybe", "start") == -1);
  CHECK_STR(why, "-debug takes true or false, not maybe");
  CHECK(PARSE("start", "delete") == -1);
  CHECK_STR(why, "one action only, not both start and delete");
  CHECK(PARSE("-=x", "start") == -1);
  CHECK_STR(why, "bad flag syntax: -=x");
  CHECK(strchr(why, '\n') == NULL);
  /* An argument's newline or escape would forge lines in containerd's log (the fuzzer found it:
   * test/native/fuzz/corpus/shim-flags/newline-in-action). */
  CHECK(PARSE("start", "delete\nlevel=info msg=forged") == -1);
  CHECK_STR(why, "one action only, not both start and delete?level=info msg=forged");
  CHECK(PARSE("-debug=\x1b[2J", "start") == -1);
  CHECK_STR(why, "-debug takes true or false, not ?[2J");
}

int main(void) {
  reads_what_containerd_writes();
  takes_gos_other_spellings();
  takes_info_as_a_boolean();
  refuses_in_one_line();
  return CHECK_RESULT;
}
