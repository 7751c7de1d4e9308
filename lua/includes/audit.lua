-- The audit entry, in the user's stream and (unless off) the global one.
local function audit(writes, user_stream, global, entry)
  writes[#writes + 1] = { 'XADD', user_stream, 'MAXLEN', '~', '1000', '*', unpack(entry) }
  writes[#writes + 1] = { 'PEXPIRE', user_stream, int(AUDIT_TTL_MS) }
  if global ~= '' and global ~= user_stream then
    writes[#writes + 1] = { 'XADD', global, 'MAXLEN', '~', '100000', '*', unpack(entry) }
  end
end

