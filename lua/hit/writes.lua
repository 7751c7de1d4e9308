local ok, result = pcall(main)
if not ok then
  -- ours ("TG_...") or Redis' own ("WRONGTYPE ...") go back as they are; a Lua fault is raised
  if type(result) == 'string' and result:find('^[%u_]+ ') then return redis.error_reply(result) end
  error(result, 0)
end
if ARGV[1] == 'hit' then
  -- Every queued write must be allowed to this ACL user before the first one runs: a ban is
  -- never left without its audit entries, nor a counter half-updated.
  for _, cmd in ipairs(writes) do
    if not redis.acl_check_cmd(unpack(cmd)) then
      return redis.error_reply(string.format('TG_NOPERM this user may not run %s on %s; nothing was written',
        cmd[1], cmd[2]))
    end
  end
  for _, cmd in ipairs(writes) do redis.call(unpack(cmd)) end
end
return result
