-- A recipe raising an error whose message is 20 MB of U+0001 bytes (a NUL would end the C string) (within the
-- 64 MiB cap): C copies the message (host memory) and the report writes each
-- NUL as \u0000 (6 bytes). Measures the host's peak memory for it.
return {
  name = "err_amp", schema = { type = "object" }, prompt = "x",
  on_submit = function() error(string.rep("\1", 20000000), 0) end,
}
