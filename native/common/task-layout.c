/* The path rules of task-layout.h. */
#include "task-layout.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

/* containerd's pkg/identifiers: ^[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)*$, 1 to 76 characters. */
int layout_safe_name(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > LAYOUT_NAME_MAX || !alnum(s[0]) || !alnum(s[n - 1])) return 0;
  for (size_t i = 1; i < n; i++)
    if (!alnum(s[i]) && (strchr("._-", s[i]) == NULL || !alnum(s[i - 1]))) return 0;
  return 1;
}

int layout_path(char *out, size_t size, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  int n = vsnprintf(out, size, format, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= size) {
    if (size > 0) out[0] = '\0';
    return -1;
  }
  return 0;
}

int layout_is_sandbox_bundle(const char *bundle) {
  const char *mark = strstr(bundle, LAYOUT_SANDBOXES_MARK);
  return mark != NULL && mark != bundle && strstr(bundle, LAYOUT_BUNDLES_MARK) == NULL;
}

int layout_state_of_bundle(const char *bundle, char *out, size_t size) {
  const char *mark = strstr(bundle, LAYOUT_BUNDLES_MARK);
  if (mark == NULL && layout_is_sandbox_bundle(bundle)) mark = strstr(bundle, LAYOUT_SANDBOXES_MARK);
  if (mark == NULL || mark == bundle) return -1;
  return layout_path(out, size, "%.*s", (int)(mark - bundle), bundle);
}

int layout_server_state_dir(char *out, size_t size, const char *state, const char *ns) {
  return layout_path(out, size, "%s/" LAYOUT_SKIFF_DIR "/%s", state, ns);
}

int layout_task_dir(char *out, size_t size, const char *state, const char *ns, const char *id) {
  return layout_path(out, size, "%s/" LAYOUT_SKIFF_DIR "/%s/" LAYOUT_TASKS_DIR "/%s", state, ns, id);
}

static uint64_t fnv1a(uint64_t h, const char *s) {
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
  return (h ^ 0xff) * 0x100000001b3ULL; /* a separator, so ("ab","c") differs from ("a","bc") */
}

uint64_t layout_group_hash(const char *address, const char *ns, const char *group) {
  return fnv1a(fnv1a(fnv1a(0xcbf29ce484222325ULL, address), ns), group);
}

int layout_group_file(char *out, size_t size, const char *state, uint64_t hash, const char *suffix) {
  return layout_path(out, size, "%s/" LAYOUT_SKIFF_DIR "/%016llx%s", state, (unsigned long long)hash, suffix);
}

int layout_pod_file(char *out, size_t size, const char *state, uint64_t hash, const char *suffix) {
  return layout_path(out, size, "%s/" LAYOUT_SKIFF_DIR "/" LAYOUT_POD_PREFIX "%016llx%s", state,
                     (unsigned long long)hash, suffix);
}
