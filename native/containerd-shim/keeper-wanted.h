/* Whether pod keepers serve (docs/keeper-protocol.md): the one rule `start`, `serve` and the
 * serving process read (src/adapters/shim/os/keepers-wanted.ts); test/vectors/keeper-wanted holds
 * both to the same answers. */
#ifndef SKIFF_SHIM_KEEPER_WANTED_H
#define SKIFF_SHIM_KEEPER_WANTED_H

/* The rule for a value of SKIFF_KEEPER (NULL: unset). Keepers are the default; only "0" turns them
 * off (docs/failure-domains.md: then the serving process is the failure domain of its group). */
int keeper_wanted_by(const char *value);

/* The rule for this process's environment. */
int keeper_wanted(void);

#endif
