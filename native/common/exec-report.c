#include "exec-report.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

void exec_report_failed(int report) {
  int err = errno;
  if (write(report, &err, sizeof err) < 0) _exit(127);
  _exit(127);
}

int exec_report_wait(int report) {
  int err = 0;
  ssize_t n;
  do n = read(report, &err, sizeof err);
  while (n < 0 && errno == EINTR);
  close(report);
  return n == (ssize_t)sizeof err ? err : 0;
}
