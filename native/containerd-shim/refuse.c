/* refuse: see refuse.h. */
#include "refuse.h"

#include <stdarg.h>
#include <stdio.h>

int refuse(char *why, size_t why_size, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(why, why_size, format, args);
  va_end(args);
  for (char *c = why; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
  return -1;
}
