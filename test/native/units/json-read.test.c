/* native/common/json-read.c: what config.json and the task records can hold. */
#include <stdlib.h>

#include "check.h"
#include "json-read.h"

static const char *const GROUP[] = {"annotations", "io.containerd.runc.v2.group"};
static char out[64];

static enum json_result group_of(const char *json) {
  return json_string_at(json, strlen(json), GROUP, 2, out, sizeof out);
}

static enum json_result top(const char *json, const char *key) {
  const char *const path[] = {key};
  return json_string_at(json, strlen(json), path, 1, out, sizeof out);
}

static void finds_the_member_where_it_is(void) {
  CHECK(group_of("{\"annotations\":{\"io.containerd.runc.v2.group\":\"g1\"}}") == JSON_FOUND);
  CHECK_STR(out, "g1");
  /* Whitespace of every kind around every token. */
  CHECK(group_of(" \n{ \"annotations\" :\t{\r\n \"a\" : 1 , \"io.containerd.runc.v2.group\"\n:\n\"g2\" } } \n") ==
        JSON_FOUND);
  CHECK_STR(out, "g2");
  /* After values of every kind, nested objects and arrays included. */
  CHECK(group_of("{\"ociVersion\":\"1.0.2\",\"process\":{\"args\":[\"sh\",\"-c\",\"x\"],\"env\":[],\"user\":{\"uid\":0}},"
                 "\"n\":-1.5e+3,\"t\":true,\"f\":false,\"z\":null,\"e\":{},\"a\":[[],{}],"
                 "\"annotations\":{\"io.containerd.runc.v2.group\":\"g3\"}}") == JSON_FOUND);
  CHECK_STR(out, "g3");
}

static void takes_no_look_alike(void) {
  /* The key inside a string value, or at another depth: not the member. */
  CHECK(group_of("{\"x\":\"\\\"io.containerd.runc.v2.group\\\":\\\"no\\\"\"}") == JSON_ABSENT);
  CHECK_STR(out, "");
  CHECK(group_of("{\"process\":{\"annotations\":{\"io.containerd.runc.v2.group\":\"no\"}}}") == JSON_ABSENT);
  CHECK(group_of("{\"io.containerd.runc.v2.group\":\"no\"}") == JSON_ABSENT);
  CHECK(group_of("{\"annotations\":[{\"io.containerd.runc.v2.group\":\"no\"}]}") == JSON_ABSENT);
  CHECK(group_of("{\"annotations\":{\"io.containerd.runc.v2.groupX\":\"no\"}}") == JSON_ABSENT);
  CHECK(group_of("{\"annotations\":null}") == JSON_ABSENT);
  CHECK(group_of("{}") == JSON_ABSENT);
  CHECK(group_of("[]") == JSON_ABSENT);
}

static void unescapes_as_json_does(void) {
  CHECK(top("{\"k\":\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\te\"}", "k") == JSON_FOUND);
  CHECK_STR(out, "a\"b\\c/d\b\f\n\r\te");
  CHECK(top("{\"k\":\"\\u0041\\u00e9\\u20AC\\ud83d\\ude00\"}", "k") == JSON_FOUND);
  CHECK_STR(out, "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  /* A lone surrogate reads as U+FFFD, as encoding/json reads it. */
  CHECK(top("{\"k\":\"\\ud800x\\udc00\"}", "k") == JSON_FOUND);
  CHECK_STR(out, "\xef\xbf\xbdx\xef\xbf\xbd");
  /* An escaped key names the member too. */
  CHECK(top("{\"\\u006b\":\"v\"}", "k") == JSON_FOUND);
  CHECK_STR(out, "v");
  /* Raw UTF-8 passes through. */
  CHECK(top("{\"k\":\"gr\xc3\xbcn\"}", "k") == JSON_FOUND);
  CHECK_STR(out, "gr\xc3\xbcn");
}

static void the_last_duplicate_wins(void) {
  CHECK(top("{\"k\":\"first\",\"k\":\"last\"}", "k") == JSON_FOUND);
  CHECK_STR(out, "last");
  /* encoding/json merges a map decoded twice: an annotation of the first object stays. */
  CHECK(group_of("{\"annotations\":{\"io.containerd.runc.v2.group\":\"g\"},\"annotations\":{\"b\":\"c\"}}") ==
        JSON_FOUND);
  CHECK_STR(out, "g");
}

static void says_what_is_wrong(void) {
  CHECK(top("{\"k\":5}", "k") == JSON_NOT_STRING);
  CHECK(top("{\"k\":{\"s\":\"x\"}}", "k") == JSON_NOT_STRING);
  CHECK(top("{\"k\":\"a\\u0000b\"}", "k") == JSON_NOT_STRING);
  CHECK_STR(out, "");
  char big[200];
  snprintf(big, sizeof big, "{\"k\":\"%0100d\"}", 0);
  CHECK(top(big, "k") == JSON_TOO_LONG);
  CHECK_STR(out, "");
  /* 63 bytes fit in 64 with the NUL; 64 do not. */
  snprintf(big, sizeof big, "{\"k\":\"%063d\"}", 0);
  CHECK(top(big, "k") == JSON_FOUND);
  snprintf(big, sizeof big, "{\"k\":\"%064d\"}", 0);
  CHECK(top(big, "k") == JSON_TOO_LONG);
}

static void refuses_what_is_not_json(void) {
  static const char *const bad[] = {
      "",
      "{",
      "{\"k\":\"v\"",
      "{\"k\":\"v\"}}",
      "{\"k\":\"v\",}",
      "{\"k\" \"v\"}",
      "{k:\"v\"}",
      "{\"k\":'v'}",
      "{\"k\":\"v\n\"}",
      "{\"k\":\"\\x\"}",
      "{\"k\":\"\\u12\"}",
      "{\"k\":\"\\u12g4\"}",
      "{\"k\":\"v\\",
      "{\"k\":01}",
      "{\"k\":1.}",
      "{\"k\":-}",
      "{\"k\":1e}",
      "{\"k\":tru}",
      "{\"k\":nul}",
      "{\"k\":[1,]}",
      "{\"k\":[1 2]}",
      "{\"a\":1 \"k\":\"v\"}",
      "{\"k\":\"v\"} x",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    if (top(bad[i], "k") != JSON_MALFORMED) {
      fprintf(stderr, "not refused: %s\n", bad[i]);
      check_failures++;
    }
  }
  /* The length given is the document: a NUL before it is not the end. */
  CHECK(json_string_at("{\"k\":\"v\"}\0", 10, (const char *const[]){"k"}, 1, out, sizeof out) == JSON_MALFORMED);
  CHECK(json_string_at("{\"k\":\"v\"}xyz", 9, (const char *const[]){"k"}, 1, out, sizeof out) == JSON_FOUND);
}

/* A document that breaks off (inside the string asked for, or after it) leaves out "", never
 * the bytes decoded so far without their end (the fuzzer found that: corpus/json-read/cut-string). */
static void leaves_nothing_of_a_broken_document(void) {
  static const char *const cut[] = {"{\"k\":\"abcdef", "{\"k\":\"abc\\u00e9\\", "{\"k\":\"v\"} x"};
  for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
    memset(out, 'x', sizeof out);
    CHECK(top(cut[i], "k") == JSON_MALFORMED);
    CHECK_STR(out, "");
  }
}

static void nests_only_so_deep(void) {
  size_t n = 100000;
  char *deep = malloc(2 * n + 16);
  CHECK(deep != NULL);
  if (deep == NULL) return;
  strcpy(deep, "{\"k\":");
  size_t len = strlen(deep);
  memset(deep + len, '[', n);
  memset(deep + len + n, ']', n);
  strcpy(deep + len + 2 * n, "}");
  CHECK(top(deep, "k") == JSON_MALFORMED);
  free(deep);
  char ok[256] = "{\"a\":";
  for (int i = 0; i < JSON_MAX_DEPTH - 2; i++) strcat(ok, "[");
  for (int i = 0; i < JSON_MAX_DEPTH - 2; i++) strcat(ok, "]");
  strcat(ok, ",\"k\":\"v\"}");
  CHECK(top(ok, "k") == JSON_FOUND);
}

int main(void) {
  finds_the_member_where_it_is();
  takes_no_look_alike();
  unescapes_as_json_does();
  the_last_duplicate_wins();
  says_what_is_wrong();
  refuses_what_is_not_json();
  nests_only_so_deep();
  leaves_nothing_of_a_broken_document();
  return CHECK_RESULT;
}
