/* Whether pod keepers serve: keeper-wanted.h. */
#include "keeper-wanted.h"

#include <stdlib.h>
#include <string.h>

int keeper_wanted_by(const char *value) { return value == NULL || strcmp(value, "0") != 0; }

int keeper_wanted(void) { return keeper_wanted_by(getenv("SKIFF_KEEPER")); }
