-- The short form's keys and arguments as the full form's: no warn, no ban, no channel, windows
-- from the first hit in UTC, and the ids the keys name, unescaped (main() then checks that the
-- keys are exactly what escaping those ids gives, so a non-canonical spelling is refused).
--@include "includes/unescape.lua"

local function full_form(keys, args)
  local n = #keys - 3
  if n < 1 or n > MAX_WINDOWS then
    fail('TG_INVALID', string.format('the short form of hit takes 3 keys (user ban, action ban, overrides) plus one '
      .. 'state key per window (1..%d) and 3 arguments plus 2 per window; the full form 5 keys plus one per window and '
      .. '12 arguments plus 2 per window; got %d keys and %d arguments', MAX_WINDOWS, #keys, #args))
  end
  local prefix, user = keys[1]:match('^([^{]*:){([^{}]*)}:ban$')
  if not prefix then
    fail('TG_INVALID', string.format('KEYS[1] is "%s", expected "<p>:{<user>}:ban"', keys[1]:sub(1, 200)))
  end
  local base = prefix .. '{' .. user .. '}:'
  local action = keys[2]:sub(1, #base) == base and keys[2]:match('^(.+):ban$', #base + 1)
  if not action then
    fail('TG_INVALID', string.format('KEYS[2] is "%s", expected "%s<action>:ban"', keys[2]:sub(1, 200), base:sub(1, 200)))
  end
  local full_keys = { keys[1], keys[2], keys[3], base .. 'audit', '' }
  local full_args = { args[1], args[2], args[3], '0', '0', '0', '', '0', unescape(user), unescape(action), '', 'first_hit' }
  for i = 4, #keys do full_keys[i + 2] = keys[i] end
  for i = 4, #args do full_args[i + 9] = args[i] end
  return full_keys, full_args
end
