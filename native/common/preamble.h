/*
 * The preamble every connection of skiff's native parts to the serving process starts with
 * (docs/keeper-protocol.md, "Connections to the serving process and their preamble"):
 * 0xff 'S' 'K' 'F', version 1, role, fields length u16 BE, then `name=value\0` fields. The
 * keeper writes it on its control and relay connections, `delete` on its forget connection.
 */
#ifndef SKIFF_PREAMBLE_H
#define SKIFF_PREAMBLE_H

#include <stddef.h>

#define ROLE_CONTROL 1
#define ROLE_RELAY 2
#define ROLE_FORGET 3

#define PREAMBLE_HEAD 8
#define PREAMBLE_FIELDS_MAX 0xffff

/* The 8 bytes before fields_len bytes of fields for `role`: 0, or -1 when the protocol cannot say them. */
int preamble_head(unsigned char head[PREAMBLE_HEAD], int role, size_t fields_len);

/* Sends the preamble and its fields ("name=value\0...") on a fresh connection, in one call. 0 on success. */
int preamble_send(int fd, int role, const char *fields, size_t fields_len);

#endif
