'use strict';
// The in-process stand-in for Redis while it cannot answer (failure policy `insurance`), as the
// C++ InsuranceLimiter: a fixed window per user, action and window of the policy, started by
// the first hit, with the policy's limits scaled by `factor` (1/N with N application
// instances, since each counts only its own hits). All windows are all-or-nothing, as in
// hit.lua. It never bans and never writes to Redis.
const { performance } = require('node:perf_hooks');

class InsuranceLimiter {
  /** @param {{factor?: number, maxWindows?: number}} options */
  constructor({ factor = 1, maxWindows = 100000 } = {}) {
    this.factor = factor;
    this.maxWindows = maxWindows;
    this.windows = new Map(); // "<action>\0<user>\0<window_ms>" -> { startMs, windowMs, count }
  }

  get size() { return this.windows.size; }

  // Memory stays bounded: expired windows go first; if that is not enough, all start over.
  makeRoom(nowMs) {
    if (this.windows.size < this.maxWindows) return;
    for (const [key, w] of this.windows) if (nowMs - w.startMs >= w.windowMs) this.windows.delete(key);
    if (this.windows.size >= this.maxWindows) this.windows.clear();
  }

  /** Counts (or, with count false, only weighs) a hit of `units`; returns the decision's numbers. */
  hit(policy, user, units, count) {
    // Monotonic: a wall-clock jump must not reopen or freeze a window.
    const nowMs = Math.floor(performance.now());
    this.makeRoom(nowMs);
    const userKey = Buffer.isBuffer(user) ? user.toString('latin1') : user;
    const evaluated = [];
    let allFit = true;
    for (const w of policy.windows) {
      const key = `${policy.action}\0${userKey}\0${w.windowMs}`;
      let state = this.windows.get(key);
      if (!state || nowMs - state.startMs >= w.windowMs) state = { startMs: nowMs, windowMs: w.windowMs, count: 0 };
      const limit = Math.max(1, Math.floor(w.limit * this.factor));
      const fits = state.count + units <= limit;
      allFit = allFit && fits;
      evaluated.push({ key, state, limit, fits });
    }
    const result = { allowed: allFit, tier: allFit ? 'ok' : 'deny', count: 0, limit: 0, remaining: 0, resetMs: 0, retryAfterMs: 0 };
    let binding = null;
    for (const e of evaluated) {
      if (allFit && count) {
        e.state = { ...e.state, count: e.state.count + units };
        this.windows.set(e.key, e.state);
      }
      const resetMs = e.state.count > 0 ? e.state.startMs + e.state.windowMs - nowMs : 0;
      // Denied: the denying window that frees up last; allowed: the one with least room.
      const better = !binding || (allFit
        ? e.limit - e.state.count < binding.limit - binding.state.count
        : (e.fits < binding.fits || (e.fits === binding.fits && resetMs > result.resetMs)));
      if (better) {
        binding = e;
        result.count = e.state.count;
        result.limit = e.limit;
        result.remaining = Math.max(0, e.limit - e.state.count);
        result.resetMs = resetMs;
      }
    }
    if (!allFit) result.retryAfterMs = units > result.limit ? -1 : Math.max(1, result.resetMs);
    return result;
  }
}

module.exports = { InsuranceLimiter };
