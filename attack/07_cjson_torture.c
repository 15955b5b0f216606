/* 07_cjson_torture.c: curl's torture idea over a recipe that uses cjson
** (encode with the kept buffer and without, decode, a decode error): fail
** the N-th allocation (argv[1] "once") or every one from the N-th on
** ("dry"), for every N. Expected: every run ends ok / limit / error, no
** leak, no exit. Build (ASan):
**   cc -g -fsanitize=address,undefined -Ispec/c -Iengine/include attack/07_cjson_torture.c \
**      build/asan/libcoax.a $(pkg-config --libs libpcre2-8 libcurl libidn2) -lm -o /tmp/t07
*/
#include <stdio.h>
#include <string.h>

#include "counting.h"

static const char *RECIPE =
    "return { schema = { type = 'object', properties = { n = { type = 'integer' } }, required = { 'n' } },"
    " prompt = function(input)"
    "  local c = require('cjson')"
    "  local t = c.decode('{\"x\":[1,{\"y\":\"\\\\u00e9\"}],\"z\":\"' .. string.rep('a', 3000) .. '\"}')"
    "  local a = c.encode(t)"
    "  c.encode_keep_buffer(false)"
    "  local b = c.encode({ t, 'x\\0' })"
    "  assert(not pcall(c.decode, '[1,'))"
    "  return 'n ' .. #a .. #b .. input end }";

int main(int argc, char **argv)
{
    int persistent = argc > 1 && !strcmp(argv[1], "dry");
    long n, outcomes[16] = {0}, leaks = 0;
    for (n = argc > 2 ? atol(argv[2]) : 1; n < 200000; n++) {
        counting c = {0, 0, persistent ? -n : n};
        coax_allocator al = COUNTING_ALLOCATOR(&c);
        coax_engine_options o = {0};
        o.alloc = &al;
        coax_engine *e = NULL;
        coax_code rc = coax_engine_new(&o, &e, NULL);
        coax_outcome out = COAX_OUTCOME_OK;
        if (rc == COAX_OK) {
            coax_session_options so = {0};
            so.input = "x";
            so.input_len = 1;
            so.agent_json = "{\"name\":\"replay\",\"replies\":[\"{\\\"n\\\": 1}\"]}";
            coax_session *s = NULL;
            rc = coax_session_from_text(e, RECIPE, strlen(RECIPE), "=t", &so, &s, NULL);
            if (rc == COAX_OK) {
                out = coax_session_run(s);
                outcomes[out & 15]++;
                if (n == 1 || (out != COAX_OUTCOME_OK && out != COAX_OUTCOME_LIMIT))
                    { const char *r = coax_session_report(s, NULL); const char *m = r ? strstr(r, "\"error\"") : NULL; printf("n=%ld outcome %s: %.300s\n", n, coax_outcome_name(out), m ? m : "(no report)"); }
            }
            coax_engine_free(e);
        }
        if (c.live) {
            printf("leak of %ld bytes when allocation %ld fails\n", c.live, n);
            leaks++;
        }
        if (rc == COAX_OK && out == COAX_OUTCOME_OK && c.allocs < n) break;
    }
    printf("%s: %ld runs, %ld leaks; ok %ld, limit %ld\n", persistent ? "dry" : "once", n, leaks,
           outcomes[COAX_OUTCOME_OK], outcomes[COAX_OUTCOME_LIMIT]);
    return leaks != 0;
}
