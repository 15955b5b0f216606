/*
** roots.c: the folders a recipe may name files in (roots.h says why).
*/
#define _XOPEN_SOURCE 700 /* realpath */
#include "session/roots.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

static bool add(coax_roots *r, const char *dir)
{
    coax_buf_put(&r->dirs, dir, strlen(dir) + 1);
    return !r->dirs.oom;
}

coax_code roots_init(coax_roots *r, const coax_allocator *alloc, const char *script_dir, const char *const *allow,
                     coax_error *err)
{
    coax_buf_init(&r->dirs, alloc);
    char resolved[PATH_MAX], schemas[PATH_MAX + 16];
    struct stat st;
    /* The project's schemas/: beside lua/ in a build tree, beside
    ** share/coax/lua when installed. */
    if (realpath(script_dir, resolved)) {
        char *slash = strrchr(resolved, '/');
        if (slash) *slash = '\0';
        snprintf(schemas, sizeof schemas, "%s/schemas", resolved);
        if (realpath(schemas, resolved) && stat(resolved, &st) == 0 && S_ISDIR(st.st_mode) && !add(r, resolved))
            goto oom;
    }
    for (size_t i = 0; allow && allow[i]; i++) {
        if (!realpath(allow[i], resolved) || stat(resolved, &st) != 0 || !S_ISDIR(st.st_mode)) {
            int e = errno;
            roots_free(r);
            return coax_fail(err, COAX_EIO, 0, "cannot allow the folder %s: %s", allow[i],
                             e ? strerror(e) : "not a folder");
        }
        if (!add(r, resolved)) goto oom;
    }
    if (!add(r, "")) goto oom;
    return COAX_OK;
oom:
    roots_free(r);
    return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
}

void roots_free(coax_roots *r) { coax_buf_free(&r->dirs); }

/* Whether 'path' is 'root' or lies below it (both resolved). */
static bool within(const char *path, const char *root)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/') return true;
    return !strncmp(path, root, n) && (path[n] == '/' || path[n] == '\0');
}

const char *roots_confine(const coax_roots *r, const char *dir, const char *path, const char *what, char *out,
                          size_t cap, char *msg, size_t mcap)
{
    char joined[PATH_MAX], resolved[PATH_MAX], base[PATH_MAX];
    bool relative = path[0] != '/' && dir;
    if (snprintf(joined, sizeof joined, "%s%s%s", relative ? dir : "", relative ? "/" : "", path) >= (int)sizeof joined) {
        snprintf(msg, mcap, "%s path %.200s is too long", what, path);
        return msg;
    }
    if (!realpath(joined, resolved)) {
        snprintf(msg, mcap, "cannot open %s %.300s: %s", what, joined, strerror(errno));
        return msg;
    }
    bool ok = dir && realpath(dir, base) && within(resolved, base);
    const char *roots = r->dirs.data ? r->dirs.data : "";
    for (const char *d = roots; !ok && *d; d += strlen(d) + 1) ok = within(resolved, d);
    if (ok) {
        snprintf(out, cap, "%s", resolved);
        return NULL;
    }
    /* The message lists what is allowed, so that the fix is clear. */
    int n = snprintf(msg, mcap, "%s path %.200s resolves to %.300s, outside the folders a recipe may read (", what,
                     path, resolved);
    const char *sep = "";
    if (dir && realpath(dir, base) && n > 0 && (size_t)n < mcap) {
        n += snprintf(msg + n, mcap - (size_t)n, "the recipe's folder %s", base);
        sep = ", ";
    }
    for (const char *d = roots; *d && n > 0 && (size_t)n < mcap; d += strlen(d) + 1, sep = ", ")
        n += snprintf(msg + n, mcap - (size_t)n, "%s%s", sep, d);
    if (n > 0 && (size_t)n < mcap)
        snprintf(msg + n, mcap - (size_t)n, "%s); the host allows more with --allow-dir or allow_dirs",
                 *sep ? "" : "none");
    return msg;
}

coax_code roots_read(const char *path, size_t max, const char *limit, const char *what, coax_buf *text, char *msg,
                     size_t mcap)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = fd < 0 ? errno : 0;
        if (fd >= 0) close(fd);
        snprintf(msg, mcap, "cannot open %s %.300s: %s", what, path, e ? strerror(e) : "not a regular file");
        return COAX_EIO;
    }
    coax_code rc = COAX_OK;
    if ((uint64_t)st.st_size > max) rc = COAX_ESIZE;
    char chunk[8192];
    ssize_t n;
    while (!rc && (n = read(fd, chunk, sizeof chunk)) != 0) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            snprintf(msg, mcap, "cannot read %s %.300s: %s", what, path, strerror(errno));
            rc = COAX_EIO;
        } else if ((size_t)n > max - text->len) {
            rc = COAX_ESIZE; /* it grew since fstat */
        } else {
            coax_buf_put(text, chunk, (size_t)n);
            if (text->oom) rc = COAX_ENOMEM;
        }
    }
    close(fd);
    if (rc == COAX_ESIZE)
        snprintf(msg, mcap, "%s %.300s is larger than the limit of %zu bytes (%s)", what, path, max, limit);
    else if (rc == COAX_ENOMEM)
        snprintf(msg, mcap, "out of memory reading %s %.300s", what, path);
    return rc;
}

coax_code roots_read_path(const char *path, size_t max, const char *limit, const char *what, coax_buf *text,
                          char *msg, size_t mcap)
{
    char resolved[PATH_MAX];
    if (!realpath(path, resolved)) {
        snprintf(msg, mcap, "cannot open %s %.300s: %s", what, path, strerror(errno));
        return COAX_EIO;
    }
    return roots_read(resolved, max, limit, what, text, msg, mcap);
}
