-- Writes are queued while reading and run at the end, so no error can leave a half-done hit.
-- Numbers go as they are: Redis writes an integer-valued Lua number with all its digits.
local writes = {}
local function later(...) writes[#writes + 1] = { ... } end
