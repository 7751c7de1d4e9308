  -- Under a timed ban the window ends with it (PEXPIREAT LT): one that outlives it needs that
  -- write, which the general path makes; otherwise a refusal's reset is never after its end.
  -- (Before hit/sw_retry.lua: a refusal by a ban answers without the sliding window's retry.)
  if refused == 'banned' and ban_left > 0 then
    if r_ttl > 0 and mode ~= 'peek' and now_ms + r_ttl > ban_ends then
      refused = nil
    elseif ban_left < r_reset then
      r_reset = ban_left
    end
  end
