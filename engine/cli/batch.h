/*
** cli/batch.h: the parts of `coax batch` (cli/batch.c runs the command,
** cli/batch_io.c reads lines without blocking the poll loop, writes output
** lines whole, keeps the set of ids done and scans OUT for --resume).
*/
#ifndef COAX_CLI_BATCH_H
#define COAX_CLI_BATCH_H

#include "cli/cli.h"
#include "base/hash.h"
#include "session/report.h"

#include <stdint.h>

/* ---- lines in ------------------------------------------------------------
** A line reader over a file descriptor that never waits longer than it is
** told, so a streaming input (a pipe that delivers lines as they come) does
** not hold up the sessions in flight. It reads in chunks into its own
** buffer; a line longer than 'max_line' is skipped up to its newline and
** reported once as BR_TOOLONG. */
typedef struct batch_reader {
    int fd;
    char *buf;
    size_t start, len, cap;
    size_t last;      /* where the line last returned starts */
    size_t scanned;   /* bytes from 'start' known to hold no newline */
    size_t max_line;
    uint64_t line_no; /* the number of the line last returned (1-based) */
    bool newline;     /* the line last returned ended with '\n' */
    bool eof, discarding;
    int err;          /* errno of a failed read */
} batch_reader;

typedef enum batch_read {
    BR_LINE,    /* *line (not NUL-terminated, without its '\n') is valid until the next call */
    BR_NONE,    /* nothing complete within the timeout */
    BR_EOF,     /* no more lines */
    BR_TOOLONG, /* line r->line_no was longer than max_line and was skipped */
    BR_ERROR    /* read failed (r->err); BR_NONE and BR_ERROR leave the reader usable */
} batch_read;

void br_init(batch_reader *r, int fd, size_t max_line);
void br_free(batch_reader *r);
/* The next line: waits for input at most 'timeout_ms' (0: never; -1: until
** a line or the end comes). */
batch_read br_next(batch_reader *r, int timeout_ms, const char **line, size_t *len);
/* Puts the line br_next just returned (BR_LINE) back: the next call returns
** it again. Only right after that call. */
void br_unread(batch_reader *r);

/* ---- result lines ----------------------------------------------------------
** The line of a session that ended: {"id", "outcome", "value"?, "error"?,
** "errors"? (the last attempt's, when it failed), "metrics"} and a newline,
** appended to 'L' from the session's state as its report has them (without
** a report, for lack of memory: the error "no_report" and zero metrics);
** '*m' gets the metrics written. 'id' (JSON text) NULL: no "id" (`coax run
** --stream`'s last line). */
extern const char batch_zero_metrics[];
void batch_result_line(coax_buf *L, coax_session *s, const char *id, size_t id_len, session_metrics *m);

/* ---- lines out -----------------------------------------------------------
** Writes all of p[0..n) with as few write(2) calls as the kernel allows (one
** for a regular file), retrying on EINTR. Returns 0 or the errno. */
int batch_write_all(int fd, const char *p, size_t n, size_t *written);

/* ---- ids done --------------------------------------------------------------
** A multiset of keys: the compact JSON text of an id, or "#N" for a line N
** that had no usable id. Counts let an input that repeats an id still get
** exactly one output line per input line across a resume. */
typedef struct batch_id {
    char *key;
    size_t len;
    uint64_t hash;
    size_t count;
} batch_id;

typedef struct batch_ids {
    batch_id *slots;
    size_t cap, used;
    uint64_t seed; /* chosen when the table is first made */
} batch_ids;

void ids_free(batch_ids *s);
/* Adds one occurrence; false when out of memory. */
bool ids_add(batch_ids *s, const char *key, size_t len);
/* Takes one occurrence away if there is one: true when there was. */
bool ids_take(batch_ids *s, const char *key, size_t len);

/* Appends the key of an output or input line to 'b': the id's compact JSON
** when the id is a string or a number, else "#LINE". */
void batch_key(coax_buf *b, const coax_value *id, uint64_t line);

/* --resume: reads OUT (a missing file is an empty one), adds the key of
** every complete line to 'ids' and cuts a torn last line (no '\n') away.
** Returns 0, or 2 after a one-line message on stderr (OUT unreadable, a
** complete line that is not an output line of coax batch). '*lines' gets
** the number of complete lines and '*torn' the bytes cut. */
int batch_resume_scan(const char *path, batch_ids *ids, uint64_t *lines, size_t *torn);

/* The number of non-blank lines of a regular file, for progress; 0 when it
** is not a regular file or cannot be read. */
uint64_t batch_count_lines(const char *path);

#endif
