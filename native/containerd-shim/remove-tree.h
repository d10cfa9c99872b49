/* rm -rf of a directory, not following links, nor crossing into what is mounted under it being
 * special: a mount point's files are removed as any are (callers unmount first). */
#ifndef SKIFF_SHIM_REMOVE_TREE_H
#define SKIFF_SHIM_REMOVE_TREE_H

/* Removes `dir` and what is in it; what is gone already is no fault. */
void remove_tree(const char *dir);

#endif
