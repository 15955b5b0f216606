/*
** cli/batch_io.c: the input and output of `coax batch`. Lines come in
** through a reader that waits only as long as the poll loop allows; lines go
** out whole, one write each, as each extraction ends; --resume reads back
** what an earlier (possibly killed) run wrote.
*/
#include "cli/batch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK ((size_t)1 << 16)

/* ---- result lines ------------------------------------------------------------ */

const char batch_zero_metrics[] =
    "{\"attempts\":0,\"wall_ms\":0,\"engine_ms\":0,\"agent_ms\":0,\"input_tokens_est\":0,"
    "\"output_tokens_est\":0,\"input_tokens\":null,\"output_tokens\":null,\"repairs\":0,\"coercions\":0}";

void batch_result_line(coax_buf *L, coax_session *s, const char *id, size_t id_len, session_metrics *m)
{
    coax_outcome oc = coax_session_outcome(s);
    bool reported = session_has_report(s);
    coax_buf_putc(L, '{');
    if (id) {
        coax_buf_puts(L, "\"id\":");
        coax_buf_put(L, id, id_len);
        coax_buf_putc(L, ',');
    }
    coax_buf_printf(L, "\"outcome\":\"%s\"", coax_outcome_name(oc));
    size_t vlen;
    const char *value = coax_session_value(s, &vlen);
    if (value) {
        coax_buf_puts(L, ",\"value\":");
        coax_buf_put(L, value, vlen);
        coax_buf_printf(L, ",\"class\":\"%s\"", coax_class_name(session_value_class(s)));
    }
    if (oc != COAX_OUTCOME_OK) {
        coax_buf_puts(L, ",\"error\":");
        if (reported) session_error_write(L, s);
        else coax_buf_puts(L, "{\"code\":\"no_report\",\"message\":\"out of memory building the report\"}");
    }
    size_t elen = 0;
    const char *errors = oc != COAX_OUTCOME_OK ? session_last_errors(s, &elen) : NULL;
    if (errors && elen > 2) { /* not "[]" */
        coax_buf_puts(L, ",\"errors\":");
        coax_buf_put(L, errors, elen);
    }
    memset(m, 0, sizeof *m);
    coax_buf_puts(L, ",\"metrics\":");
    if (reported) {
        session_metrics_read(s, m);
        session_metrics_write(L, m);
    } else {
        coax_buf_puts(L, batch_zero_metrics);
    }
    coax_buf_puts(L, "}\n");
}

/* ---- the line reader ----------------------------------------------------- */

void br_init(batch_reader *r, int fd, size_t max_line)
{
    memset(r, 0, sizeof *r);
    r->fd = fd;
    r->max_line = max_line;
}

void br_free(batch_reader *r)
{
    free(r->buf);
    r->buf = NULL;
}

/* Room for one more chunk after the unread bytes, moving them to the front. */
static bool br_room(batch_reader *r)
{
    if (r->start) {
        memmove(r->buf, r->buf + r->start, r->len - r->start);
        r->len -= r->start;
        r->start = 0;
    }
    if (r->cap - r->len >= CHUNK) return true;
    size_t cap = r->cap ? r->cap * 2 : CHUNK * 2;
    while (cap - r->len < CHUNK) cap *= 2;
    char *p = realloc(r->buf, cap);
    if (!p) return false;
    r->buf = p;
    r->cap = cap;
    return true;
}

/* Reads what is there, waiting at most timeout_ms: 1 read something or hit
** the end, 0 nothing yet, -1 error. */
static int br_fill(batch_reader *r, int timeout_ms)
{
    struct pollfd p = {.fd = r->fd, .events = POLLIN};
    int n = poll(&p, 1, timeout_ms);
    if (n < 0) return errno == EINTR ? 0 : (r->err = errno, -1);
    if (n == 0) return 0;
    if (!br_room(r)) return (r->err = ENOMEM, -1);
    ssize_t got = read(r->fd, r->buf + r->len, r->cap - r->len);
    if (got < 0) return errno == EINTR || errno == EAGAIN ? 0 : (r->err = errno, -1);
    if (got == 0) r->eof = true;
    r->len += (size_t)got;
    return 1;
}

batch_read br_next(batch_reader *r, int timeout_ms, const char **line, size_t *len)
{
    for (;;) {
        char *from = r->buf + r->start;
        size_t have = r->len - r->start;
        /* a line that comes in many reads (a pipe hands out 64 KiB at a time) is searched from where
        ** the last search ended: from its start each time, a line of 128 MB cost 3.3 s, of 64 MB 0.7 s */
        char *nl = have > r->scanned ? memchr(from + r->scanned, '\n', have - r->scanned) : NULL;
        r->scanned = nl ? 0 : have;
        if (r->discarding) {
            /* the rest of a line too long to keep */
            r->start = nl ? (size_t)(nl + 1 - r->buf) : r->len;
            r->scanned = 0;
            if (nl) {
                r->discarding = false;
                continue;
            }
        } else if (nl) {
            r->last = r->start;
            r->start += (size_t)(nl - from) + 1;
            r->line_no++;
            r->newline = true;
            if ((size_t)(nl - from) > r->max_line) return BR_TOOLONG;
            *line = from;
            *len = (size_t)(nl - from);
            return BR_LINE;
        } else if (have > r->max_line) {
            r->line_no++;
            r->discarding = true;
            r->start = r->len;
            r->scanned = 0;
            return BR_TOOLONG;
        } else if (r->eof && have) {
            r->last = r->start;
            r->start = r->len;
            r->scanned = 0;
            r->line_no++;
            r->newline = false;
            *line = from;
            *len = have;
            return BR_LINE;
        }
        if (r->eof) return BR_EOF;
        int got = br_fill(r, timeout_ms);
        if (got < 0) return BR_ERROR;
        if (got == 0) return BR_NONE;
    }
}

void br_unread(batch_reader *r)
{
    r->start = r->last;
    r->scanned = 0;
    r->line_no--;
}

/* ---- output --------------------------------------------------------------- */

int batch_write_all(int fd, const char *p, size_t n, size_t *written)
{
    *written = 0;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN) {
                struct pollfd q = {.fd = fd, .events = POLLOUT};
                poll(&q, 1, -1);
                continue;
            }
            return errno;
        }
        p += w;
        n -= (size_t)w;
        *written += (size_t)w;
    }
    return 0;
}

/* ---- the set of ids done --------------------------------------------------- */

/* The ids come from the input: a keyed hash of the whole key, seeded per
** table, so that crafted ids cannot pile up in one chain (FNV-1a's low bits,
** which the table used, collide on demand). */
static uint64_t hash_key(const batch_ids *s, const char *k, size_t n) { return coax_hash_bytes(k, n, s->seed); }

static batch_id *ids_find(const batch_ids *s, const char *key, size_t len, uint64_t h)
{
    if (!s->cap) return NULL;
    for (size_t i = (size_t)h & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        batch_id *e = &s->slots[i];
        if (!e->key) return e;
        if (e->hash == h && e->len == len && !memcmp(e->key, key, len)) return e;
    }
}

static bool ids_grow(batch_ids *s)
{
    size_t cap = s->cap ? s->cap * 2 : 256;
    batch_id *slots = calloc(cap, sizeof *slots);
    if (!slots) return false;
    if (!s->cap) s->seed = coax_hash_seed(s);
    batch_ids bigger = {slots, cap, s->used, s->seed};
    for (size_t i = 0; i < s->cap; i++)
        if (s->slots[i].key) *ids_find(&bigger, s->slots[i].key, s->slots[i].len, s->slots[i].hash) = s->slots[i];
    free(s->slots);
    *s = bigger;
    return true;
}

void ids_free(batch_ids *s)
{
    for (size_t i = 0; i < s->cap; i++) free(s->slots[i].key);
    free(s->slots);
    memset(s, 0, sizeof *s);
}

bool ids_add(batch_ids *s, const char *key, size_t len)
{
    if ((s->used + 1) * 4 > s->cap * 3 && !ids_grow(s)) return false;
    uint64_t h = hash_key(s, key, len);
    batch_id *e = ids_find(s, key, len, h);
    if (!e->key) {
        if (!(e->key = malloc(len ? len : 1))) return false;
        memcpy(e->key, key, len);
        e->len = len;
        e->hash = h;
        s->used++;
    }
    e->count++;
    return true;
}

bool ids_take(batch_ids *s, const char *key, size_t len)
{
    batch_id *e = ids_find(s, key, len, hash_key(s, key, len));
    if (!e || !e->key || !e->count) return false;
    e->count--;
    return true;
}

void batch_key(coax_buf *b, const coax_value *id, uint64_t line)
{
    coax_type t = id ? coax_value_type(id) : COAX_NULL;
    if (t == COAX_STRING || t == COAX_NUMBER) coax_write_buf(b, id, 0);
    else coax_buf_printf(b, "#%llu", (unsigned long long)line);
}

/* ---- --resume ------------------------------------------------------------- */

/* The key of one complete output line, or false when it is not one. */
static bool output_key(const char *line, size_t len, coax_buf *key)
{
    coax_arena *a = coax_arena_new(NULL);
    coax_value *v;
    bool ok = false;
    if (a && coax_parse(a, line, len, NULL, &v, NULL) == COAX_OK && coax_value_type(v) == COAX_OBJECT) {
        const coax_value *id = coax_object_get(v, "id", 2), *at = coax_object_get(v, "line", 4);
        coax_type t = id ? coax_value_type(id) : COAX_OBJECT;
        if (t == COAX_STRING || t == COAX_NUMBER) {
            batch_key(key, id, 0);
            ok = true;
        } else if (t == COAX_NULL && at && coax_value_type(at) == COAX_NUMBER && coax_number_is_int_text(at)) {
            coax_buf_puts(key, "#");
            coax_write_buf(key, at, 0);
            ok = true;
        }
    }
    coax_arena_free(a);
    return ok;
}

int batch_resume_scan(const char *path, batch_ids *ids, uint64_t *lines, size_t *torn)
{
    *lines = 0;
    *torn = 0;
    int fd = open(path, O_RDWR);
    if (fd < 0) {
        if (errno == ENOENT) return 0;
        return cli_usage("batch", "--resume: cannot open %s: %s", path, strerror(errno));
    }
    batch_reader r;
    br_init(&r, fd, COAX_MAX_INPUT_CAP);
    coax_buf key;
    coax_buf_init(&key, NULL);
    int status = 0;
    for (;;) {
        const char *line;
        size_t len;
        batch_read got = br_next(&r, -1, &line, &len);
        if (got == BR_EOF) break;
        if (got != BR_LINE) {
            status = cli_usage("batch", "--resume: cannot read %s: %s", path,
                               got == BR_ERROR ? strerror(r.err) : "a line longer than 4 GiB");
            break;
        }
        if (!r.newline) { /* torn: the run was killed while writing it */
            *torn = len;
            break;
        }
        key.len = 0;
        if (len && line[len - 1] == '\r') len--;
        if (len == 0) continue;
        if (!output_key(line, len, &key)) {
            status = cli_usage("batch", "--resume: %s line %llu is not an output line of coax batch "
                               "(a JSON object with an \"id\")", path, (unsigned long long)r.line_no);
            break;
        }
        if (key.oom || !ids_add(ids, key.data, key.len)) {
            status = cli_fail("batch", COAX_ENOMEM, NULL);
            break;
        }
        (*lines)++;
    }
    if (status == 0 && *torn) {
        struct stat st;
        if (fstat(fd, &st) || ftruncate(fd, st.st_size - (off_t)*torn))
            status = cli_usage("batch", "--resume: cannot cut the torn last line of %s: %s", path, strerror(errno));
    }
    coax_buf_free(&key);
    br_free(&r);
    close(fd);
    return status;
}

uint64_t batch_count_lines(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    struct stat st;
    uint64_t n = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        char *buf = malloc(CHUNK);
        bool blank = true;
        ssize_t got;
        while (buf && (got = read(fd, buf, CHUNK)) > 0) {
            for (ssize_t i = 0; i < got; i++) {
                char c = buf[i];
                if (c == '\n') {
                    n += !blank;
                    blank = true;
                } else if (c != ' ' && c != '\t' && c != '\r') {
                    blank = false;
                }
            }
        }
        n += !blank;
        free(buf);
    }
    close(fd);
    return n;
}
