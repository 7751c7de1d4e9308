    -- A refusal a fast path decided, having written nothing: the reply the general path gives
    -- (hit/reply.lua) for its one window and no override. A shadow hit's is allowed, with [8] ""
    -- and [9] 1; a peek's has [8] "", [9] 0 and the window as it stands, which a refused hit
    -- leaves as it was.
    if not r_retry then r_retry = sw_retry(sw_state[1], sw_state[2], sw_state[3], sw_state[4], cost, limit) end
    local r = { 0, refused, r_count, limit, max(limit - r_count, 0), r_reset, r_retry }
    if mode == 'shadow' then
      r[1], r[8], r[9] = 1, '', 1
    elseif mode == 'peek' then
      r[8], r[9], r[10], r[11] = '', 0, r_count, r_reset
    end
    return r
