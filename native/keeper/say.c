/* The keeper's one line of news (say.h). */
#include "say.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void keeper_say(const char *format, ...) {
  char line[1024];
  va_list args;
  va_start(args, format);
  int n = snprintf(line, sizeof line, "skiff-keeper[%d]: ", (int)getpid());
  vsnprintf(line + n, sizeof line - (size_t)n, format, args);
  va_end(args);
  /* stderr is the first bundle's log FIFO, non-blocking: a line nobody reads is dropped. */
  if (write(2, line, strlen(line)) < 0 || write(2, "\n", 1) < 0) return;
}
