/*
** roots.h: the folders a recipe may name files in. A recipe is a script
** from wherever its author got it; a file it names (its schema) reaches the
** recipe's own agent, its errors and the report. So a recipe reads files
** only within its own folder, the project's schemas/ folder (beside the
** scripts' lua/ folder, in a build tree and installed alike) and the
** folders its host names (coax_engine_options.allow_dirs, the CLI's
** --allow-dir, the Lua module's allow_dirs). Paths are resolved (symlinks
** and "..") before they are checked; a refused file is never opened.
*/
#ifndef COAX_ROOTS_H
#define COAX_ROOTS_H

#include "base/core.h"

/* The resolved folders, each NUL-terminated, one after the other; an empty
** string ends the list. */
typedef struct coax_roots {
    coax_buf dirs;
} coax_roots;

/* Resolves the project's schemas/ folder beside 'script_dir' (when it
** exists) and each of 'allow' (NULL-terminated, may be NULL) into 'r'.
** COAX_EIO when a folder of 'allow' cannot be resolved; COAX_ENOMEM. */
coax_code roots_init(coax_roots *r, const coax_allocator *alloc, const char *script_dir, const char *const *allow,
                     coax_error *err);

void roots_free(coax_roots *r);

/* Resolves 'path' (relative to 'dir' unless absolute; 'dir' NULL: the
** working directory, and no recipe folder is allowed) and writes the
** resolved path to 'out' (cap bytes). Returns NULL when it lies within
** 'dir' or one of 'r', else a message in 'msg' (mcap bytes) naming 'what'
** ("schema"), the path and the allowed folders. */
const char *roots_confine(const coax_roots *r, const char *dir, const char *path, const char *what, char *out,
                          size_t cap, char *msg, size_t mcap);

/* Reads the file at 'path' (as roots_confine resolved it) into 'text', which
** the caller initialised: a regular file only (a FIFO or a device would block
** or never end), opened without blocking and without following a link put
** there since the check, at most 'max' bytes. Returns COAX_OK; COAX_EIO (it
** cannot be opened or is not a regular file), COAX_ESIZE (over 'max': a
** limit, named 'limit' in the message) or COAX_ENOMEM, with a message naming
** 'what' in 'msg' (mcap bytes). */
coax_code roots_read(const char *path, size_t max, const char *limit, const char *what, coax_buf *text, char *msg,
                     size_t mcap);

/* roots_read of 'path' after its symlinks and ".." are resolved (a host's
** path, which may be a link: a recipe file), with the same outcomes. */
coax_code roots_read_path(const char *path, size_t max, const char *limit, const char *what, coax_buf *text,
                          char *msg, size_t mcap);

#endif
