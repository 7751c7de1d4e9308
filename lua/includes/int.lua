-- An integer-valued number as its decimal digits (tostring would give "1e+15" or "3.0").
local function int(x) return string.format('%d', x) end
