#!lua flags=no-writes
--[[ can.lua: which commands the calling ACL user may run, without running any of them.

ARGV[1..]  checks, one after the other; each is a word count n (>= 1) followed by n words:
           the command and its arguments, e.g. 3 PEXPIRE tg:{probe}:like:fw:1000 1
Reply: one integer per check, in order: 1 = the ACL allows it (command, keys and channels),
       0 = it does not.
Errors: TG_INVALID (malformed list), or Redis' own when a command name is unknown.

The console asks this for every command and key its writes run (the script call itself, the
commands inside the scripts) so it can disable what the server would refuse. Read-only
(EVALSHA_RO): any user allowed to run scripts may ask, including one who may not run
ACL DRYRUN. Keys travel in ARGV: they are only checked, never read.

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

if #KEYS == 0 and #ARGV == 1 and ARGV[1] == 'contract' then return 3 end -- the contract query

local replies, i = {}, 1
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  if not n or n < 1 or n ~= math.floor(n) or i + n > #ARGV then
    return redis.error_reply('TG_INVALID check at argument ' .. i .. ' is not "n word1 .. wordn"')
  end
  local allowed = redis.acl_check_cmd(unpack(ARGV, i + 1, i + n))
  replies[#replies + 1] = allowed and 1 or 0
  i = i + n + 1
end
return replies
