-- A policy belongs to no user: its audit entry goes to the global stream only (unless off).
local function audit(writes, global, entry)
  if global ~= '' and global ~= KEYS[1] then
    writes[#writes + 1] = { 'XADD', global, 'MAXLEN', '~', '100000', '*', unpack(entry) }
  end
end

