-- Every write is allowed to this ACL user, or none runs.
local function apply(writes)
  for _, cmd in ipairs(writes) do
    if not redis.acl_check_cmd(unpack(cmd)) then
      return redis.error_reply('TG_NOPERM this user may not run ' .. cmd[1] .. ' on ' .. cmd[2] ..
        '; nothing was written')
    end
  end
  for _, cmd in ipairs(writes) do redis.call(unpack(cmd)) end
end

