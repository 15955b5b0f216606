/*
** cli/lines.c: the --jsonl modes' input, read a line at a time. The input
** is a stream of records, so --max-input limits each line, and it is
** honoured while reading: a longer line is skipped to its newline without
** being kept (100 MB on one line under --max-input 1M never takes more
** than about a megabyte), and answered as that line's error.
*/
#include "cli/batch.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int cli_each_line(const char *cmd, const char *path, size_t max, cli_line_fn each, void *ud)
{
    bool from_stdin = !path || !strcmp(path, "-");
    int fd = from_stdin ? STDIN_FILENO : open(path, O_RDONLY);
    if (fd < 0) return cli_usage(cmd, "cannot open %s: %s", path, strerror(errno));
    batch_reader r;
    br_init(&r, fd, max);
    coax_buf out;
    coax_buf_init(&out, NULL);
    int worst = 0, status = 0;
    for (;;) {
        const char *line;
        size_t len;
        batch_read got = br_next(&r, -1, &line, &len);
        if (got == BR_EOF) break;
        if (got == BR_ERROR) {
            status = r.err == ENOMEM ? cli_fail(cmd, COAX_ENOMEM, NULL)
                                     : cli_usage(cmd, "cannot read %s: %s", from_stdin ? "standard input" : path,
                                                 strerror(r.err));
            break;
        }
        if (got == BR_NONE) continue;
        if (got == BR_LINE && len && line[len - 1] == '\r') len--;
        int s = each(ud, got == BR_LINE ? line : NULL, got == BR_LINE ? len : 0, &out);
        if (s > worst) worst = s;
        if (s >= 2) break;
        if ((out.len > (1 << 16) || out.oom) && (status = cli_flush(cmd, &out))) break;
    }
    if (!status) status = cli_flush(cmd, &out);
    coax_buf_free(&out);
    br_free(&r);
    if (!from_stdin) close(fd);
    return status ? status : worst;
}

void cli_line_too_long(char *msg, size_t cap, size_t max)
{
    snprintf(msg, cap, "line longer than --max-input (%zu bytes)", max);
}
