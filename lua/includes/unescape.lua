-- Ids in keys are %XX-escaped (lua/README.md, "Conventions"); audit entries and events hold the raw id.
local function unescape(s) return (s:gsub('%%(%x%x)', function(h) return string.char(tonumber(h, 16)) end)) end
