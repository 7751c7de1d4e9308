---------------------------------------------------------------- the write prologue (same in every write script)
local function expect_type(key, wanted)
  local kind = redis.call('TYPE', key).ok
  if kind ~= 'none' and kind ~= wanted then
    return redis.error_reply('TG_CORRUPT key ' .. key .. ' is a ' .. kind .. ', expected a ' .. wanted)
  end
end

