/* parse_flags: see flags.h. */
#include "flags.h"
#include "refuse.h"

#include <stdio.h>
#include <string.h>

static int named(const char *name, size_t len, const char *flag) {
  return strlen(flag) == len && strncmp(name, flag, len) == 0;
}

/* strconv.ParseBool's words, which Go's flag package takes for -debug=<value>. */
static int parse_bool(const char *value, int *out) {
  static const char *const yes[] = {"1", "t", "T", "true", "TRUE", "True"};
  static const char *const no[] = {"0", "f", "F", "false", "FALSE", "False"};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
    if (strcmp(value, yes[i]) == 0) return *out = 1, 0;
    if (strcmp(value, no[i]) == 0) return *out = 0, 0;
  }
  return -1;
}

int parse_flags(int argc, char *const *argv, struct flags *f, char *why, size_t why_size) {
  memset(f, 0, sizeof *f);
  f->namespace = "";
  f->address = "";
  f->id = "";
  int flags_done = 0;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    if (!flags_done && strcmp(arg, "--") == 0) {
      flags_done = 1;
      continue;
    }
    if (flags_done || arg[0] != '-' || arg[1] == '\0') {
      if (f->action != NULL) return refuse(why, why_size, "one action only, not both %s and %s", f->action, arg);
      f->action = arg;
      continue;
    }
    const char *name = arg + (arg[1] == '-' ? 2 : 1);
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    if (len == 0) return refuse(why, why_size, "bad flag syntax: %s", arg);
    if (named(name, len, "debug") || named(name, len, "info")) {
      int *flag = name[0] == 'd' ? &f->debug : &f->info;
      if (eq != NULL && parse_bool(eq + 1, flag) != 0)
        return refuse(why, why_size, "-%.*s takes true or false, not %s", (int)len, name, eq + 1);
      if (eq == NULL) *flag = 1;
      continue;
    }
    if (eq == NULL && (named(name, len, "v") || named(name, len, "version"))) {
      f->version = 1;
      continue;
    }
    const char *value = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
    if (value == NULL) return refuse(why, why_size, "flag needs a value: %s", arg);
    if (named(name, len, "namespace")) f->namespace = value;
    else if (named(name, len, "address")) f->address = value;
    else if (named(name, len, "publish-binary")) f->publish_binary = value;
    else if (named(name, len, "id")) f->id = value;
    else if (named(name, len, "bundle")) f->bundle = value;
    else if (named(name, len, "state")) f->state = value;
  }
  return 0;
}
