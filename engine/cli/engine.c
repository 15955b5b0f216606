/*
** cli/engine.c: the engine options `coax run` and `coax batch` share:
** where the coax scripts are (--lua-path) and the folders a recipe may name
** files in besides its own and the project's schemas/ (--allow-dir).
**
** The scripts are looked for, in order: --lua-path, $COAX_LUA_PATH, lua/
** beside the executable's folder (a build tree: build/coax and lua/), the
** installed share/coax/lua beside it (PREFIX/bin/coax), the same one or two
** folders further up, ./lua, and the share folder the build was configured
** for. So a built or installed coax
** runs recipes from any folder.
*/
#define _XOPEN_SOURCE 700 /* realpath */
#include "cli/cli.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

int cli_engine_opt(int argc, char **argv, int *i, cli_engine *c)
{
    int r = cli_opt(argc, argv, i, "lua-path", &c->lua_path);
    if (r) return r;
    const char *dir;
    r = cli_opt(argc, argv, i, "allow-dir", &dir);
    if (r <= 0) return r;
    if (c->n_allow == CLI_MAX_ALLOW) {
        cli_usage(argv[0], "--allow-dir at most %d times", CLI_MAX_ALLOW);
        return -1;
    }
    c->allow[c->n_allow++] = dir;
    return 1;
}

static bool has_runtime(const char *dir)
{
    char path[PATH_MAX + 32];
    struct stat st;
    snprintf(path, sizeof path, "%s/coax/runtime.lua", dir);
    return stat(path, &st) == 0;
}

/* The scripts beside the running executable, or NULL: lua/ or
** share/coax/lua in the executable's parent folder, or one or two above it
** (build/coax, build/asan/coax, PREFIX/bin/coax). */
static const char *beside_executable(char *out, size_t cap)
{
    char dir[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (n <= 0) return NULL;
    dir[n] = '\0';
    for (int up = 0; up < 3; up++) {
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir) return NULL;
        *slash = '\0'; /* the executable's folder, then its parents */
        if (up == 0) continue;
        static const char *const relative[] = {"lua", "share/coax/lua"};
        for (size_t k = 0; k < sizeof relative / sizeof *relative; k++)
            if (snprintf(out, cap, "%.*s/%s", PATH_MAX - 32, dir, relative[k]) < (int)cap && has_runtime(out))
                return out;
    }
    return NULL;
}

void cli_engine_options(cli_engine *c, coax_engine_options *eo)
{
    const char *env = getenv("COAX_LUA_PATH");
    eo->script_dir = c->lua_path;
    if (!eo->script_dir && !(env && *env)) eo->script_dir = beside_executable(c->found, sizeof c->found);
    c->allow[c->n_allow] = NULL;
    eo->allow_dirs = c->n_allow ? c->allow : NULL;
}

int cli_engine_fail(const char *cmd, coax_code code, const coax_error *err)
{
    if (code != COAX_EIO || !err || strncmp(err->msg, "coax scripts not found", 22)) return cli_fail(cmd, code, err);
    const char *paren = strstr(err->msg, " (");
    cli_errf("coax %s: %.*s; looked in --lua-path, $COAX_LUA_PATH, lua/ and share/coax/lua beside the coax "
             "executable, ./lua, then the installed share folder: pass --lua-path DIR (the folder holding "
             "coax/runtime.lua)\n",
             cmd, paren ? (int)(paren - err->msg) : (int)strlen(err->msg), err->msg);
    return coax_exit_status(code);
}
