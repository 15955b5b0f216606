/*
** cli/util.c: what every subcommand shares: reading input, options, limits,
** error reports and exit statuses (design.md, "Contracts every command
** shares").
*/
#include "cli/cli.h"
#include "extract/coerce.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

coax_code cli_read(const char *path, size_t max, char **data, size_t *len, coax_error *err)
{
    bool from_stdin = !path || !strcmp(path, "-");
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (!f) return coax_fail(err, COAX_EIO, 0, "cannot open %s: %s", path, strerror(errno));
    coax_buf b;
    coax_buf_init(&b, NULL);
    coax_code rc = COAX_OK;
    for (;;) {
        if (!coax_buf_reserve(&b, 1 << 16)) {
            rc = coax_fail(err, COAX_ENOMEM, 0, "out of memory reading input");
            break;
        }
        size_t n = fread(b.data + b.len, 1, b.cap - b.len - 1, f);
        b.len += n;
        if (b.len > max) {
            rc = coax_fail(err, COAX_ESIZE, 0, "%s is larger than the limit of %zu bytes (--max-input)",
                           from_stdin ? "standard input" : path, max);
            break;
        }
        if (n == 0) {
            if (ferror(f))
                rc = coax_fail(err, COAX_EIO, 0, "cannot read %s: %s",
                               from_stdin ? "standard input" : path, strerror(errno));
            break;
        }
    }
    if (!from_stdin) fclose(f);
    if (rc) {
        coax_buf_free(&b);
        return rc;
    }
    if (!b.data && !coax_buf_reserve(&b, 0)) return coax_fail(err, COAX_ENOMEM, 0, "out of memory");
    b.data[b.len] = '\0';
    *data = b.data;
    *len = b.len;
    return COAX_OK;
}

int cli_load_schema(const char *cmd, const char *path, const coax_limits *lim, const coax_schema_options *so,
                    coax_arena *arena, coax_value **doc, coax_schema **out)
{
    const char *name = !path || !strcmp(path, "-") ? "(standard input)" : path;
    coax_limits defaults;
    coax_limits_default(&defaults);
    if (!lim) lim = &defaults;
    char *data;
    size_t len;
    coax_error err = {0};
    coax_code rc = cli_read(path, lim->max_input, &data, &len, &err);
    if (rc == COAX_EIO && path && strcmp(path, "-")) {
        cli_errf("coax %s: cannot open schema %s\n", cmd, err.msg + strlen("cannot open "));
        return 2;
    }
    if (rc == COAX_OK) {
        rc = coax_parse(arena, data, len, lim, doc, &err);
        free(data);
        if (rc == COAX_ESYNTAX || rc == COAX_EUTF8) {
            cli_errf("coax %s: schema %s is not JSON: %s (line %u, column %u)\n", cmd, name, err.msg, err.line,
                     err.column);
            return 2;
        }
    }
    if (rc == COAX_OK) rc = coax_schema_compile(*doc, so, NULL, out, &err);
    if (rc == COAX_OK) return 0;
    const char *msg = err.msg[0] ? err.msg : coax_strerror(rc);
    if (err.line) cli_errf("coax %s: schema %s: %s (line %u, column %u)\n", cmd, name, msg, err.line, err.column);
    else cli_errf("coax %s: schema %s: %s\n", cmd, name, msg);
    /* A limit reached (depth, size, memory) is 4, as for any input; a
    ** schema read within the limits that is not valid is 2. */
    return coax_exit_status(rc) == 4 ? 4 : 2;
}

int cli_opt(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, "--", 2) || strncmp(a + 2, name, n)) return 0;
    if (a[2 + n] == '=') {
        *value = a + 3 + n;
        return 1;
    }
    if (a[2 + n] != '\0') return 0;
    if (*i + 1 >= argc) {
        cli_usage(argv[0], "option --%s needs a value", name);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

int cli_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *s == '-') return 0;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end || v == 0 || v > (SIZE_MAX >> shift)) return 0;
    *out = (size_t)v << shift;
    return 1;
}

int cli_limit_opt(const char *cmd, int argc, char **argv, int *i, coax_limits *lim)
{
    static const char *const names[] = {"max-depth", "max-input", "max-string"};
    size_t *fields[] = {&lim->max_depth, &lim->max_input, &lim->max_string};
    for (int k = 0; k < 3; k++) {
        const char *v;
        int r = cli_opt(argc, argv, i, names[k], &v);
        if (r < 0) return -1;
        if (r == 0) continue;
        if (!cli_size(v, fields[k])) {
            cli_usage(cmd, "--%s wants a positive size, not '%s'", names[k], v);
            return -1;
        }
        return 1;
    }
    return 0;
}

static void verrf(const char *fmt, va_list ap)
{
    char small[512];
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= 0 && (size_t)n < sizeof small) {
        coax_fput_shown(stderr, small, (size_t)n);
    } else if (n >= 0) {
        char *big = malloc((size_t)n + 1);
        if (big) vsnprintf(big, (size_t)n + 1, fmt, again);
        coax_fput_shown(stderr, big ? big : small, big ? (size_t)n : sizeof small - 1);
        free(big);
    }
    va_end(again);
}

void cli_errf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verrf(fmt, ap);
    va_end(ap);
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_errf("coax %s: ", cmd);
    verrf(fmt, ap);
    cli_errf("\n");
    va_end(ap);
    return 2;
}

int cli_fail(const char *cmd, coax_code code, const coax_error *err)
{
    const char *msg = err && err->msg[0] ? err->msg : coax_strerror(code);
    if (err && err->line)
        cli_errf("coax %s: %s (line %u, column %u)\n", cmd, msg, err->line, err->column);
    else
        cli_errf("coax %s: %s\n", cmd, msg);
    return coax_exit_status(code);
}

static volatile sig_atomic_t caught;
static coax_engine *volatile interruptible;

static void on_signal(int sig)
{
    if (caught) { /* asked twice: at once */
        signal(sig, SIG_DFL);
        raise(sig);
        _exit(128 + sig);
    }
    caught = sig;
    if (interruptible) coax_engine_interrupt(interruptible);
}

void cli_trap_signals(coax_engine *engine)
{
    interruptible = engine;
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: a wait ends at once */
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old;
        /* A signal the caller ignores (nohup, a job in the background) stays ignored. */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN) sigaction(sigs[i], &sa, NULL);
    }
}

int cli_signalled(void) { return caught; }

void cli_die_of(int sig)
{
    signal(sig, SIG_DFL);
    raise(sig);
    _exit(128 + sig); /* raise returned: the signal is blocked */
}

int cli_write_status(int e)
{
#ifdef EDQUOT
    if (e == EDQUOT) return 4;
#endif
    return e == ENOSPC || e == EFBIG || e == EPIPE ? 4 : 2;
}

int cli_flush(const char *cmd, coax_buf *out)
{
    if (out->oom) {
        cli_errf("coax %s: out of memory writing output\n", cmd);
        return coax_exit_status(COAX_ENOMEM);
    }
    if ((out->len && fwrite(out->data, 1, out->len, stdout) != out->len) || fflush(stdout)) {
        int e = errno;
        cli_errf("coax %s: cannot write output: %s\n", cmd, strerror(e));
        return cli_write_status(e);
    }
    out->len = 0;
    return 0;
}

void cli_put_repair_entry(coax_buf *b, const coax_repair_entry *e)
{
    coax_buf_puts(b, "{\"kind\":");
    coax_buf_put_json_string(b, e->kind, strlen(e->kind));
    coax_buf_printf(b, ",\"offset\":%zu,\"line\":%u,\"column\":%u,\"detail\":", e->offset, e->line,
                    e->column);
    coax_buf_put_json_string(b, e->detail, strlen(e->detail));
    coax_buf_printf(b, ",\"class\":\"%s\"}\n", coax_class_name(e->cls));
}

void cli_tell_guess(const char *cmd, const coax_extract_result *r)
{
    const coax_repair_entry *e = extract_first_guess(r);
    if (e)
        cli_errf("coax %s: a guess at line %u, column %u: %s (--log lists every repair)\n", cmd, e->line,
                 e->column, e->detail);
}
