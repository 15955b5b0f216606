/*
** script/lib_tokens.c: coax.tokens(text [, encoding]) and
** coax.tokens_chat(messages [, encoding]).
*/
#include "script/lib.h"

#include <string.h>

static coax_encoding check_encoding(lua_State *L, int idx)
{
    size_t len;
    const char *name = luaL_optlstring(L, idx, "o200k", &len);
    coax_encoding enc;
    if (coax_encoding_parse(name, len, &enc))
        luaL_argerror(L, idx, lua_pushfstring(L, "unknown encoding '%s' (o200k, cl100k, llama3, "
                                                 "claude, chars4)", name));
    return enc;
}

/** coax.tokens(text [, encoding]) -> integer
** The estimated tokens of 'text' (any bytes) under 'encoding' (default
** "o200k"). An unknown encoding raises an error. */
static int l_tokens(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    coax_encoding enc = check_encoding(L, 2);
    lua_pushinteger(L, (lua_Integer)coax_tokens(enc, text, len));
    return 1;
}

/* A string field of the message table on top, or NULL. */
static const char *field(lua_State *L, int msg, const char *name, size_t *len, bool required,
                         lua_Integer i)
{
    lua_getfield(L, msg, name);
    if (lua_type(L, -1) == LUA_TSTRING) return lua_tolstring(L, -1, len); /* kept on the stack */
    if (required || !lua_isnil(L, -1))
        luaL_error(L, "coax.tokens_chat: message %d needs a string '%s'", (int)i, name);
    *len = 0;
    return NULL;
}

/** coax.tokens_chat(messages [, encoding]) -> integer
** The prompt tokens of a chat request: 'messages' is a list of
** {role = ..., content = ... [, name = ...]}; framing tokens included. */
static int l_tokens_chat(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    coax_encoding enc = check_encoding(L, 2);
    size_t total = coax_tokens_chat(enc, NULL, 0);
    lua_Integer n = luaL_len(L, 1);
    for (lua_Integer i = 1; i <= n; i++) {
        int top = lua_gettop(L);
        if (lua_geti(L, 1, i) != LUA_TTABLE)
            return luaL_error(L, "coax.tokens_chat: message %d is not a table", (int)i);
        int msg = lua_gettop(L);
        coax_message m;
        m.role = field(L, msg, "role", &m.role_len, true, i);
        m.content = field(L, msg, "content", &m.content_len, true, i);
        m.name = field(L, msg, "name", &m.name_len, false, i);
        /* One message at a time, without the reply priming counted again. */
        total += coax_tokens_chat(enc, &m, 1) - coax_tokens_chat(enc, NULL, 0);
        lua_settop(L, top);
    }
    lua_pushinteger(L, (lua_Integer)total);
    return 1;
}

void lcoax_open_tokens(lua_State *L)
{
    lua_pushcfunction(L, l_tokens);
    lua_setfield(L, -2, "tokens");
    lua_pushcfunction(L, l_tokens_chat);
    lua_setfield(L, -2, "tokens_chat");
}
