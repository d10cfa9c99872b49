/* Whole reads of a descriptor or a small file, bounded: the shim's inputs are containerd's or a task record. */
#ifndef SKIFF_SHIM_READ_ALL_H
#define SKIFF_SHIM_READ_ALL_H

#include <stddef.h>

/* All of fd's bytes up to max (more is an error: EFBIG), NUL-terminated in a malloc'd buffer; NULL with errno. */
unsigned char *read_all(int fd, size_t max, size_t *len);

/* A file's whole text (NUL-terminated, its length in *len), NULL with errno when it cannot be read; EFBIG past max. */
char *read_file(const char *path, size_t max, size_t *len);

#endif
