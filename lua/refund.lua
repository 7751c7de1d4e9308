--[[ refund.lua: give back units hits counted ("refund") or count extra ones ("penalize").

KEYS             exactly hit.lua's full form: user ban, action ban, the user's overrides, user audit
                 stream, global audit stream ("" or KEYS[4] again = no global mirror), one state key
                 per window (1..8)
ARGV[1]          mode: "refund" | "penalize"
ARGV[2..12]      as hit.lua's full form (count_denied and warn are checked, not used)
ARGV[13]         actor: who penalizes (required for penalize; the actor of a ban it creates)
ARGV[14]         reason (required for penalize; part of the reason of a ban it creates)
ARGV[15..14+2n]  n pairs limit_i, window_ms_i, as hit.lua's ARGV[13..], then optionally "override"
                 The user's override applies as in hit.lua (TG_OVERRIDE included); a penalty of an
                 exempt ("unlimited") user never bans.
                 ARGV[3] (cost, 1..1e9) is the number of units to give back or to add.

refund: in every window, cost units leave the newest ones counted, never below empty, and no
  TTL is set, extended or repaired (lua/README.md, "refund.lua" has the rule per algorithm). A
  window with nothing in it (no key) is left as it is. Bans are not touched, nothing is audited.
  When a window changed and a channel is given, the event "refund" is published (a refusal held
  in memory elsewhere may be lifted).
penalize: a hit of cost units that is always counted in every window, past the limit too (the
  state hit.lua would write if this hit fitted). When a hit of that cost would have been denied
  (some window's count before + cost > limit), the policy has a ban (ban_ms / ban_until) and no
  ban is in force, the action's ban is written as hit.lua's automatic ban (source "auto", event
  "auto_ban" in both audit streams, actor ARGV[13], reason "penalty: <ARGV[14]>; limit exceeded:
  ..."), and the windows end with it. During a ban in force the units count too, and the windows
  end with that ban.
Reply: { changed 1|0, ban_created 1|0, count, limit, remaining, reset_ms, ban_until_ms }
  count, limit, remaining, reset_ms: the window with the smallest remaining after the call, as in
  hit.lua's reply; changed 0 = nothing was written (refund of empty windows); ban_until_ms: the
  end of the ban created (epoch ms), else 0.
Errors: hit.lua's: TG_INVALID, TG_CORRUPT (naming the key), TG_CONTRACT, TG_OVERRIDE, TG_NOPERM (nothing written).

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

--@include "includes/constants.lua"
--@include "hit/constants.lua"
FIXED_ARGS = 14                 -- actor and reason follow hit.lua's first twelve

local alg = ARGV[2]
local now_us, now_ms
local clock, signed_int, mul_div, sw_retry
do
--@include "hit/mul_div.lua"
--@include "hit/sw_retry.lua"
--@include "hit/clock.lua"
end

local short, full_form = false, nil
local SCRIPT, MODE_A, MODE_B, MODE_C = 'refund', 'refund', 'penalize', nil
--@include "includes/contract_query.lua"
--@include "hit/checks.lua"
--@include "hit/escape.lua"

--@include "hit/write_queue.lua"
--@include "includes/events.lua"

--@include "hit/time.lua"

local function main()
--@include "hit/arguments.lua"
  local actor, reason = ARGV[13], ARGV[14]
  if mode == 'penalize' and (actor == '' or reason == '') then
    fail('TG_INVALID', 'penalize needs an actor and a reason')
  end
  if #actor > MAX_ID or #reason > 4 * MAX_ID then fail('TG_INVALID', 'actor or reason too long') end
  -- hit.lua's reading and arithmetic per algorithm, then this script's refund rule.
  local load, plan, expected, read, refund
  if alg == 'fixed_window' then
--@include "hit/fixed_window.lua"
--@include "refund/fixed_window.lua"
  elseif alg == 'sliding_log' then
--@include "hit/sliding_log.lua"
--@include "refund/sliding_log.lua"
  elseif alg == 'sliding_window' then
--@include "hit/sliding_window.lua"
--@include "refund/sliding_window.lua"
  else
--@include "hit/token_bucket.lua"
--@include "refund/token_bucket.lua"
  end

--@include "hit/override.lua"

  if mode == 'penalize' then clock() end            -- it may run into a ban: one clock (hit/windows.lua)
--@include "hit/windows.lua"

--@include "hit/reply.lua"

  local changed, ban_until_ms = false, 0
  if mode == 'refund' then
    for _, w in ipairs(windows) do
      refund(w)
      changed = changed or w.changed
    end
    -- Units given back may lift a refusal that others hold in memory (tollgated's cache).
    if changed then publish(writes, channel, 'refund', user, action) end
  else
--@include "hit/bans.lua"
--@include "hit/auto_ban.lua"
    local over                                      -- the first window a hit of this cost would exceed
    for _, w in ipairs(windows) do
      if not w.fits and not over then over = w end
      w.fits = true                                 -- counted as if it fitted: past the limit too
    end
    plan_all(true)
    changed = true
    if banned then
      if banned > 0 then end_windows_at(ban_end, banned) end
    elseif over and not exempt and (ban_ms > 0 or ban_until == 'midnight') then
      ban_until_ms = auto_ban(string.format('penalty: %s; limit exceeded: %d/%d per %d ms',
        reason, over.count, over.limit, over.window_ms), actor)
    end
  end
  local w = smallest_remaining()
  return { changed and 1 or 0, ban_until_ms > 0 and 1 or 0, w.count, w.limit, max(w.limit - w.count, 0),
    w.reset_ms, ban_until_ms }
end

--@include "hit/writes.lua"
