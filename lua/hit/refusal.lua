    -- A refusal a fast path decided, having written nothing: the reply the general path gives
    -- (hit/reply.lua) for its one window and no override. A shadow hit's is allowed, with [8] ""
    -- and [9] 1; a peek's has [8] "", [9] 0 and the window as it stands, which a refused hit
    -- leaves as it was.
    if not r_retry then r_retry = sw_retry(sw_W, sw_cur, sw_prev, sw_elapsed, cost, limit) end
    -- (each reply made whole: a table grown past its constructor is rehashed)
    local remaining = limit - r_count
    if remaining < 0 then remaining = 0 end
    if mode == 'hit' then return { 0, refused, r_count, limit, remaining, r_reset, r_retry } end
    if mode == 'shadow' then return { 1, refused, r_count, limit, remaining, r_reset, r_retry, '', 1 } end
    return { 0, refused, r_count, limit, remaining, r_reset, r_retry, '', 0, r_count, r_reset }
