  -- The math the fast paths share with the general path. Only the algorithm in use makes its
  -- functions (into the locals above); the fast paths do the common case in line and call
  -- mul_div only past 2^53 (it takes no upvalue: a closure's upvalues cost every call too).
  if alg == 'token_bucket' or alg == 'sliding_window' then
    -- floor(a * b / c) and the remainder, exact for integers 0 <= a, b, c < 2^50 whose quotient stays
    -- below 2^53 (a double holds integers exactly only up to 2^53, and a * b may be far above it).
    -- Past 2^53, b is taken digit by digit in the largest base that keeps every step below 2^53:
    -- a few steps when c is small (a window in µs), at most 25 when c is near 2^50.
    function mul_div(a, b, c)
      local floor = math.floor
      local ab = a * b
      if ab < 2 ^ 53 then
        local q = floor(ab / c)
        return q, ab - q * c
      end
      local q1 = floor(a / c)
      local r1 = a - q1 * c                  -- a * b / c = q1 * b + r1 * b / c, with r1 < c
      local base = 2                         -- c * base <= 2^52, so r * base + r1 * digit < 2^53
      while c * base * 2 <= 2 ^ 52 do base = base * 2 end
      local top = 1
      while top * base <= b do top = top * base end
      local q, r = 0, 0                      -- r1 * (the digits of b so far) = q * c + r
      while top >= 1 do
        local x = r * base + r1 * (floor(b / top) % base)
        local step = floor(x / c)
        q, r = q * base + step, x - step * c
        top = top / base
      end
      return q1 * b + q, r
    end
  end
