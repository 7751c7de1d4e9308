--@include "includes/audit.lua"
--@include "includes/ban_record.lua"

  -- An entry by the actor ("tollgate" unless given) in the user's stream and, when global, in
  -- KEYS[5] too (the stream the console follows, unless it is off), each stream checked like
  -- every key of ours.
  local function audit_hit(event, reason, until_ms, global, actor)
    assert_type(KEYS[4], 'stream', 'an audit stream')
    global = global and KEYS[5] or ''
    if global ~= '' and global ~= KEYS[4] then assert_type(global, 'stream', 'an audit stream') end
    audit(writes, KEYS[4], global, { 'event', event, 'user', user, 'action', action, 'actor', actor or 'tollgate',
      'reason', reason, 'until_ms', until_ms })
  end

  -- The policy's ban (ban_ms, ban_until) written as an automatic one: the action's ban hash, an
  -- "auto_ban" audit entry in both streams and the event, all queued; the windows end with it.
  -- Returns the ban's end in epoch ms. A shadow hit writes none of it: the windows go on
  -- counting, and only the reply is what the ban would have made it.
  local function auto_ban(reason, actor)
    local until_ms = clock() + ban_ms
    if ban_until == 'midnight' then until_ms = max(until_ms, local_boundary(zone, now_ms, DAY)) end
    if shadow then
      would_ban = true
      end_windows_at(until_ms, until_ms - now_ms, true)
      return until_ms
    end
    assert_type(KEYS[2], 'hash', 'a ban hash')
    ban_writes(writes, KEYS[2], action, reason, actor, 'auto', now_ms, until_ms)
    audit_hit('auto_ban', reason, until_ms, true, actor)
    publish(writes, channel, 'ban', user, action)
    end_windows_at(until_ms, until_ms - now_ms, mode == 'peek')   -- (a peek writes none of it)
    return until_ms
  end
