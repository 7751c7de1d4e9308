--[[ hit.lua: count one hit of an action (mode "hit"), count it without denying ("shadow"), or
report what a hit would get ("peek").

KEYS[1]          user-wide ban hash        <p>:{<user>}:ban
KEYS[2]          action ban hash           <p>:{<user>}:<action>:ban
KEYS[3]          the user's overrides      <p>:{<user>}:overrides   (hash; see lua/README.md, "Overrides")
KEYS[4]          user audit stream         <p>:{<user>}:audit
KEYS[5]          global audit stream       <p>:audit  ("" or KEYS[4] again = no global mirror, e.g. on a Cluster)
KEYS[6..5+n]     one state key per window  <p>:{<user>}:<action>:<fw|sl|sw|tb>:<window_ms>   (1 <= n <= 8)
                 Every key must be exactly the one lua/README.md builds from ARGV[9], ARGV[10].

ARGV[1]          mode: "hit" | "peek" | "shadow"  (peek writes nothing at all, not even repairs;
                 shadow decides and counts as hit does but always allows and writes no ban)
ARGV[2]          algorithm: fixed_window | sliding_log | sliding_window | token_bucket
ARGV[3]          cost, integer 1..1e9
ARGV[4]          count_denied: "0" | "1"  (denied hits still count; hits refused by a ban never do)
ARGV[5]          warn level, 0 = none; applies to the first window
ARGV[6]          ban_ms on exceeding, 0 = no ban
ARGV[7]          ban_until: "" | "midnight" (next local midnight; with ban_ms too, the later end wins)
ARGV[8]          UTC offsets of the policy's time zone: "<offset_ms>" or
                 "<offset_ms>,<utc_ms>:<offset_ms>,..." (offset before the first change, then each
                 change ascending); local = utc + offset, |offset| <= 18 h
ARGV[9]          raw user id, 1..1024 bytes
ARGV[10]         raw action id, 1..1024 bytes
ARGV[11]         events channel, "" = do not publish
ARGV[12]         align: "first_hit" (windows start at the first hit) | "calendar" (fixed_window
                 only, windows of 60000/3600000/86400000/604800000 ms aligned to the local
                 minute/hour/day/week, weeks from Monday, in the zone of ARGV[8])
ARGV[13..12+2n]  n pairs limit_i (1..1e9), window_ms_i (1..31536000000, all different), in the
                 order of KEYS[6..]; then, optionally, the marker "override": the pairs are the
                 user's limit override's (sent again after TG_OVERRIDE), and the script checks
                 that this override still applies

The short form, for a policy with count_denied 0, warn 0, ban_ms 0, ban_until "", offsets "0",
no events channel and align first_hit (it can never write an audit entry), told apart by
#ARGV == 2 * #KEYS - 3 (- 2 with the marker): the keys are the two bans, the overrides, then the
state keys; the arguments mode, algorithm, cost, the pairs, then the optional marker. The ids are read from the keys, which must be exactly
what escaping them gives; replies, errors and writes are the full form's.

Reply: { allowed 1|0, tier "ok"|"warn"|"deny"|"banned", count, limit, remaining, reset_ms, retry_after_ms }
  and, only when an override of the user decided, [8] "limit"|"unlimited" and [9] shadow 0|1.
  An override (the action's own, else "*"; one past its until_ms is ignored): "limit" puts its
  limits on the windows sent when they have its window lengths; "unlimited" counts the hit in the
  policy's windows but never denies it nor bans automatically.
  count, limit, remaining and reset_ms are those of the binding window: when denied, the denying window
  with the longest retry_after; otherwise (and when banned) the window with the smallest remaining.
  reset_ms: ms until that window holds nothing any more (0 if it holds nothing); never after the
  end of a timed ban in force or just created, and equal to retry_after_ms when the window ends
  with it (both from one reading of the clock and the keys' PEXPIRETIME).
  retry_after_ms: 0 when allowed; when denied, ms until a hit of this cost could pass; when a ban is
  in force or was just created, exactly the ms until it ends (-1 = never: permanent ban, or a deny
  whose cost > limit, even one that creates a ban). A ban whose PTTL is 0 is over.
  The end of a ban is a fresh start: every window of the action that was counting when the user
  ran into the ban expires with the ban (PEXPIREAT <the ban key's expiry> LT).
Mode "peek": the reply is the one "hit" would give, with four more elements: [8] the override
  that decided ("" for none), [9] 0, [10] count and [11] reset_ms of the same window as it
  stands, before that hit (a hit that does not fit may count less than its cost).
Mode "shadow": the reply is the one "hit" would give, except allowed is always 1, and it has two
  more elements: [8] the override that decided ("" for none) and [9] 1, or 2 when "hit" would
  have created the policy's automatic ban (its tier "deny" and retry_after_ms are then the
  would-be ban's; none is written: no ban hash, no auto_ban audit entries, no ban event, the
  windows keep their expiry). A ban in force is reported (tier
  "banned") and nothing counts, as with "hit". Every other write is the one "hit" makes.
Errors: TG_INVALID (bad argument or key), TG_CORRUPT (a key of ours holds a value of the wrong shape),
  TG_CONTRACT (the KEYS/ARGV layout of an earlier script contract),
  TG_OVERRIDE <windows> (nothing written: the user's override has other window lengths than those
  sent; send the call again with "<window_ms>:<limit>,..." and the marker, or with the policy's
  own windows for "policy"),
  TG_NOPERM (the ACL user may not run one of the writes this hit needs: every key is left as it was).
An automatic ban writes the ban, the user's audit entry and the global one together, or nothing.
Several windows are all-or-nothing: a hit counts in every window or in none (unless count_denied).
The common hit (one window from the first hit, no override, allowed) takes a fast path of its
algorithm with the same answers, and so does a refusal by a ban or by a window that counts nothing;
see lua/README.md, "Fast paths and the general path".

Contract: 3 (lua/README.md, "Contract version"): called with no keys and the one argument
"contract", the script answers 3 and does nothing else.
]]

--@include "includes/constants.lua"
--@include "hit/constants.lua"

---------------------------------------------------------------- fast paths
-- The common hit (one window from the first hit, no override, allowed and not crossing the warn
-- level) takes a straight line per algorithm: the few commands it needs, TIME only where time is
-- the algorithm. So does a refusal, cheaper still, in every mode: a ban in force, or a denial by
-- the window that writes nothing (count_denied off, no automatic ban); it reads what its reply
-- needs, writes nothing and answers through hit/refusal.lua. Whatever is unusual or in doubt (an
-- escaped id, a non-canonical number, the overrides hash, a wrong type or shape, a TTL of 0 or
-- none, a refused ACL check) gives up (`break` out of its `repeat ... until true`; a ban whose
-- window must be cut to it, in hit/refusal.lua), having written nothing, and the general path
-- decides exactly as it always did. Each reads or writes the state before asking its TTL (the general path asks
-- first): tst_HitDifferential tells the two apart by that order. The lines run in the script's
-- own body, not in functions of their own: every closure made, and every upvalue it takes, costs
-- every call; so do strings made and numbers passed to Redis (spelled with %.17g, ~0.2 µs each:
-- small ones go as strings).
local alg = ARGV[2]
local now_us, now_ms                                        -- the server's clock, once read
local clock, signed_int, mul_div, sw_retry
do
--@include "hit/plain.lua"

  if plain and alg == 'fixed_window' then
--@include "hit/fixed_window_fast.lua"
  end

--@include "hit/mul_div.lua"

  -- Each fast path reads the clock itself (as clock() would, which then keeps it) and makes its
  -- reply in line: no function of the general path is called on the way (the algorithms' files
  -- of the general path have the same arithmetic).
  if plain and alg == 'token_bucket' then
--@include "hit/token_bucket_fast.lua"
  elseif plain and alg == 'sliding_window' then
--@include "hit/sliding_window_fast.lua"
  elseif plain and alg == 'sliding_log' then
--@include "hit/sliding_log_fast.lua"
  end

--@include "hit/ban_cut.lua"
  if refused ~= 'banned' then                           -- (a ban's reply has its retry)
--@include "hit/sw_retry.lua"
  end
  if refused then
--@include "hit/refusal.lua"
  end
  if not now_us then now_ms = nil end                   -- (a clock read by PTTL: the general path reads TIME)

--@include "hit/clock.lua"
end

---------------------------------------------------------------- general path
-- Closures only for the algorithm in use, numbers passed as they are, no TYPE unless a read fails.

-- The short form is read as the full form it stands for: main() replaces these two first.
local KEYS, ARGV = KEYS, ARGV
local short = #ARGV == 2 * #KEYS - 3 or (#ARGV == 2 * #KEYS - 2 and ARGV[#ARGV] == 'override')
local SCRIPT, MODE_A, MODE_B, MODE_C = 'hit', 'hit', 'peek', 'shadow'   -- for hit/arguments.lua (refund.lua has its own)
--@include "includes/contract_query.lua"
--@include "hit/checks.lua"

--@include "hit/escape.lua"

--@include "hit/short_form.lua"

--@include "hit/write_queue.lua"

--@include "hit/time.lua"

local function main()
--@include "hit/arguments.lua"
  ---------------------------------------------------------------- algorithms
  -- load(w): from the first read (w.first), set w.count (before this hit), w.fits (this hit would pass this window).
  -- plan(w, counted): compute the state after the hit, queue its writes (and TTL repair), set the
  -- report fields w.count, w.reset_ms, w.retry_ms (when not w.fits; plan_all makes it -1 when
  -- cost > limit). Both only read Redis. Only the functions of the algorithm in use are made.
  -- A key whose PTTL is 0 expires within this very millisecond: it is read as gone.
  local load, plan, expected, read
  if alg == 'fixed_window' then
--@include "hit/fixed_window.lua"
  elseif alg == 'sliding_log' then
--@include "hit/sliding_log.lua"
  elseif alg == 'sliding_window' then
--@include "hit/sliding_window.lua"
  else
--@include "hit/token_bucket.lua"
  end

--@include "hit/bans.lua"

--@include "hit/override.lua"

--@include "hit/windows.lua"

--@include "hit/reply.lua"

--@include "hit/decision.lua"
end

--@include "hit/writes.lua"
