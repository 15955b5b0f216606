/* 11_c_api_garbage.c: the public API fed NULLs, huge lengths with NULL text,
** out-of-range enums and non-UTF-8. Expected: an error code (COAX_EINVAL,
** ...) or a defined answer for each, never a crash or an ASan report.
**   cc -g -fsanitize=address,undefined -Iengine/include attack/11_c_api_garbage.c build/asan/libcoax.a \
**      $(pkg-config --libs libpcre2-8 libcurl libidn2) -lm -o /tmp/t11 && /tmp/t11 */
#include <coax.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

/* each call in a child of its own, so that one crash does not hide the next
** (the state before it is the parent's: the calls that set things up run
** again in the parent after the child returned) */
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>
static int crashes;
#define RUN(stmt, show)                                                              \
    do {                                                                             \
        fflush(stdout);                                                              \
        pid_t p_ = fork();                                                           \
        if (p_ == 0) {                                                               \
            printf("%-70s", #stmt);                                                  \
            stmt;                                                                    \
            _exit(0);                                                                \
        }                                                                            \
        int st_;                                                                     \
        waitpid(p_, &st_, 0);                                                        \
        if (!WIFEXITED(st_) || WEXITSTATUS(st_)) {                                   \
            printf("  CRASH (%s)\n", WIFSIGNALED(st_) ? strsignal(WTERMSIG(st_)) : "exit"); \
            crashes++;                                                               \
        } else {                                                                     \
            int saved_ = dup(1), null_ = open("/dev/null", O_WRONLY);                \
            dup2(null_, 1);                                                          \
            stmt;                                                                    \
            fflush(stdout);                                                          \
            dup2(saved_, 1);                                                         \
            close(null_);                                                            \
            close(saved_);                                                           \
        }                                                                            \
    } while (0)
#define TRY(expr) RUN({ long long r_ = (long long)(expr); if (!getenv("QUIET")) printf(" -> %lld\n", r_); }, 1)
#define TRYV(expr) RUN({ expr; if (!getenv("QUIET")) printf(" -> done\n"); }, 1)

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    coax_error err;
    coax_value *v = NULL;
    coax_arena *a = coax_arena_new(NULL);
    TRY(coax_strerror((coax_code)-7) != NULL);
    TRY(coax_code_name((coax_code)9999) != NULL);
    TRY(coax_exit_status((coax_code)9999));
    TRYV(coax_limits_default(NULL));
    TRYV(coax_arena_free(NULL));
    TRYV(coax_arena_reset(NULL));
    TRYV(coax_arena_trim(NULL));
    TRY(coax_arena_size(NULL));
    TRY(coax_value_type(NULL));
    TRY(coax_type_name((coax_type)99) != NULL);
    TRY(coax_value_bool(NULL));
    TRY(coax_number_is_int_text(NULL));
    TRYV(coax_value_double(NULL));
    TRY(coax_value_text(NULL, NULL) != NULL);
    TRY(coax_value_len(NULL));
    TRY(coax_array_get(NULL, 5) != NULL);
    TRY(coax_object_key(NULL, 3, NULL) != NULL);
    TRY(coax_object_value(NULL, 3) != NULL);
    TRY(coax_object_get(NULL, "a", 1) != NULL);
    TRY(coax_value_equal(NULL, NULL, NULL));
    TRY(coax_pointer_get(NULL, "/a", 2, NULL));
    TRY(coax_parse(NULL, "1", 1, NULL, &v, &err));
    TRY(coax_parse(a, NULL, 5, NULL, &v, &err));
    TRY(coax_parse(a, NULL, SIZE_MAX, NULL, &v, &err));
    TRY(coax_parse(a, "[1]", 3, NULL, NULL, NULL));
    TRY(coax_parse(a, "\"\xff\xfe\"", 4, NULL, &v, &err));
    coax_limits zero;
    memset(&zero, 0, sizeof zero);
    TRY(coax_parse(a, "[[1]]", 5, &zero, &v, &err));
    coax_limits huge;
    memset(&huge, 0xff, sizeof huge);
    TRY(coax_parse(a, "[[1]]", 5, &huge, &v, &err));
    TRY(coax_parse(a, "{\"a\":[1,2,{\"b\":null}]}", 21, NULL, &v, &err));
    TRY(coax_object_key(v, 99, NULL) != NULL);
    TRY(coax_array_get(v, SIZE_MAX) != NULL);
    TRY(coax_object_get(v, NULL, 5) != NULL);
    TRY(coax_pointer_get(v, NULL, 3, (const coax_value **)&v));
    TRY(coax_pointer_get(v, "/a/99999999999999999999999", 26, (const coax_value **)&v));
    char *out = NULL;
    size_t len = 0;
    TRY(coax_write(NULL, 0, NULL, &out, &len));
    TRY(coax_write(v, 0xffffffffu, NULL, NULL, NULL));
    TRYV(coax_free(NULL, NULL, 5));
    TRY(coax_class_name((coax_class)77) != NULL);
    TRY(coax_class_parse(NULL, NULL));
    TRY(coax_source_name((coax_source)77) != NULL);
    coax_repair_result rr;
    TRY(coax_repair(NULL, "x", 1, NULL, &rr, &err));
    TRY(coax_repair(a, NULL, 10, NULL, &rr, &err));
    TRY(coax_repair(a, "[1,", 3, NULL, NULL, NULL));
    TRY(coax_repair(a, "[1,", 3, &zero, &rr, &err));
    TRY(coax_repair(a, "[1,", 3, &huge, &rr, &err));
    TRY(coax_draft_parse(NULL));
    TRY(coax_draft_name((coax_draft)99) != NULL);
    TRYV(coax_meta_cache_free(NULL));
    coax_schema *s = NULL;
    TRY(coax_schema_compile(NULL, NULL, NULL, &s, &err));
    TRY(coax_schema_compile(v, NULL, NULL, NULL, NULL));
    TRYV(coax_schema_free(NULL));
    TRY(coax_schema_draft(NULL));
    coax_validation val;
    TRY(coax_validate(NULL, v, a, NULL, &val, &err));
    TRY(coax_output_parse(NULL));
    TRY(coax_validation_write(NULL, (coax_output)99, NULL, &out, &len));
    TRYV(coax_extract_options_default(NULL));
    coax_extract_result er;
    TRY(coax_extract(a, NULL, "1", 1, NULL, NULL, &er, &err));
    coax_example_result xr;
    TRY(coax_example(NULL, NULL, a, &xr, &err));
    TRY(coax_engine_new(NULL, NULL, NULL));
    TRYV(coax_engine_free(NULL));
    TRYV(coax_engine_interrupt(NULL));
    TRY(coax_engine_poll(NULL, 0));
    TRY(coax_outcome_name((coax_outcome)-3) != NULL);
    TRY(coax_outcome_exit_status((coax_outcome)999));
    TRY(coax_failure_name((coax_session_failure)999) != NULL);
    coax_engine *e = NULL;
    TRY(coax_engine_new(NULL, &e, &err));
    coax_session *ss = NULL;
    TRY(coax_session_from_file(NULL, "x", NULL, &ss, &err));
    TRY(coax_session_from_file(e, NULL, NULL, &ss, &err));
    TRY(coax_session_from_file(e, "/dev/zero", NULL, &ss, &err));
    TRY(coax_session_from_file(e, "/etc", NULL, &ss, &err));
    TRY(coax_session_from_text(e, NULL, 100, "=x", NULL, &ss, &err));
    TRY(coax_session_from_text(e, "return {}", SIZE_MAX, "=x", NULL, &ss, &err));
    TRY(coax_session_from_text(e, "return {}", 9, NULL, NULL, &ss, &err));
    TRY(coax_session_from_text(e, "return {}", 9, "=x", NULL, NULL, &err));
    TRY(coax_session_from_schema(e, NULL, 10, "p", NULL, &ss, &err));
    TRY(coax_session_from_schema(e, "{}", SIZE_MAX, "p", NULL, &ss, &err));
    TRY(coax_session_from_schema(e, "{}", 2, NULL, NULL, &ss, &err));
    coax_session_options so;
    memset(&so, 0, sizeof so);
    so.input = NULL;
    so.input_len = 1000;
    so.max_attempts = -5;
    so.agent_json = "{\"name\": 5, \"replies\": \"\xff\"}";
    TRY(coax_session_from_schema(e, "{}", 2, "p {{input}}", &so, &ss, &err));
    if (ss) {
        TRY(coax_session_run(ss));
        TRY(coax_session_report(ss, NULL) != NULL);
    }
    so.input = "\xff\xfe\xc0\x80";
    so.input_len = 4;
    so.agent_json = "{\"name\":\"host\"}";
    ss = NULL;
    TRY(coax_session_from_schema(e, "{\"type\":\"integer\"}", 18, "p {{input}}", &so, &ss, &err));
    if (ss) {
        TRY(coax_engine_poll(e, 0));
        TRY(coax_session_host_piece(ss, NULL, SIZE_MAX, &err));
        TRY(coax_session_host_piece(ss, "1", SIZE_MAX, &err));
        TRY(coax_session_host_piece(ss, "\xff", 1, NULL));
        TRY(coax_session_host_reply(ss, NULL, 10, -5, -5, &err));
        TRY(coax_session_host_reply(ss, "1", SIZE_MAX, -5, -5, &err));
        TRY(coax_session_host_reply(ss, "\xff 7", 3, -5, -5, NULL));
        TRY(coax_session_host_fail(ss, NULL, NULL));
        TRY(coax_engine_poll(e, 0));
        TRY(coax_session_outcome(ss));
        TRY(coax_session_error(ss, NULL));
        TRY(coax_session_value(ss, NULL) != NULL);
        TRYV(coax_session_free(ss));
    }
    TRY(coax_session_run(NULL));
    TRY(coax_session_outcome(NULL));
    TRY(coax_session_error(NULL, NULL));
    TRY(coax_session_value(NULL, NULL) != NULL);
    TRY(coax_session_report(NULL, NULL) != NULL);
    TRY(coax_session_host_request(NULL, NULL) != NULL);
    TRY(coax_session_host_piece(NULL, "x", 1, NULL));
    TRY(coax_session_host_reply(NULL, "x", 1, 0, 0, NULL));
    TRY(coax_session_host_fail(NULL, "x", NULL));
    TRYV(coax_session_free(NULL));
    TRY(coax_encoding_name((coax_encoding)-1) != NULL);
    TRY(coax_encoding_parse(NULL, 5, NULL));
    TRY(coax_tokens((coax_encoding)77, NULL, SIZE_MAX));
    TRY(coax_tokens((coax_encoding)-9, "\xff\xff\xf0", 3));
    coax_message m = {NULL, 99, NULL, 99, NULL, 99};
    TRY(coax_tokens_chat(COAX_ENC_O200K, &m, 1));
    TRY(coax_tokens_chat(COAX_ENC_O200K, NULL, 5));
    coax_engine_free(e);
    coax_arena_free(a);
    printf("%d crashes\n", crashes);
    return 0;
}
