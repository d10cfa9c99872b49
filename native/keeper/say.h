/* The keeper's one line of news (say.c). */
#ifndef SKIFF_KEEPER_SAY_H
#define SKIFF_KEEPER_SAY_H

/* One line on the keeper's stderr (the first bundle's log), prefixed with its name and pid. */
void keeper_say(const char *format, ...) __attribute__((format(printf, 1, 2)));

#endif
