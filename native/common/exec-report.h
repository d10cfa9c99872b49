/*
 * Whether a forked child's exec worked, told to its parent through a close-on-exec pipe: the
 * parent reads end-of-file once the child has exec'd, or the errno of the exec that failed.
 * `start` and the keeper start Node this way, and the keeper the programs it launches.
 */
#ifndef SKIFF_EXEC_REPORT_H
#define SKIFF_EXEC_REPORT_H

/* In the child, after its exec failed: writes errno to `report` and exits 127. */
_Noreturn void exec_report_failed(int report);

/* In the parent (the write end closed): 0 once the child exec'd, else its exec's errno. Closes `report`. */
int exec_report_wait(int report);

#endif
