-- The escaping of lua/README.md "Keys": ASCII letters, digits and - _ . @ + = ! ~ , ; # & $ ( ) ' / < > | ^ ` "
-- stay, so does well-formed UTF-8 (no overlong forms, surrogates or > U+10FFFF); any other byte is %XX.
local NOT_PLAIN = '[^%w%-_%.@%+=!~,;#&%$%(%)\'/<>|%^`"]'   -- a byte escaped, or part of UTF-8
local function escape(id)
  if not id:find(NOT_PLAIN) then return id end
  local out, i = {}, 1
  while i <= #id do
    local c, len = id:byte(i), 0
    if c < 0x80 then
      len = string.char(c):find(NOT_PLAIN) and 0 or 1
    else
      len = (c >= 0xC2 and c <= 0xDF) and 2 or (c >= 0xE0 and c <= 0xEF) and 3 or (c >= 0xF0 and c <= 0xF4) and 4 or 0
      local lo = (c == 0xE0 and 0xA0) or (c == 0xF0 and 0x90) or 0x80
      local hi = (c == 0xED and 0x9F) or (c == 0xF4 and 0x8F) or 0xBF
      for k = 1, len - 1 do
        local b = id:byte(i + k)
        if not b or b < (k == 1 and lo or 0x80) or b > (k == 1 and hi or 0xBF) then len = 0 end
      end
    end
    out[#out + 1] = len == 0 and string.format('%%%02X', c) or id:sub(i, i + len - 1)
    i = i + max(len, 1)
  end
  return table.concat(out)
end
