local ok, result = pcall(main)
if not ok then
  -- ours ("TG_...") or Redis' own ("WRONGTYPE ...") go back as they are; a Lua fault is raised
  if type(result) == 'string' and result:find('^[%u_]+ ') then return redis.error_reply(result) end
  error(result, 0)
end
--@include "includes/write_plan.lua"
if ARGV[1] ~= 'peek' then
  -- Every queued write must be allowed to this ACL user before the first one runs: a ban is
  -- never left without its audit entries, nor a counter half-updated.
  local refused = apply(writes)
  if refused then return refused end
end
return result
