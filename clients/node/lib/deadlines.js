'use strict';
// Deadlines of the ioredis Commands a Limiter sends, kept without a timer per command: each
// command in flight holds a slot of one array (freed when it settles, so nothing outlives its
// reply), and one sweep every few ms fails those past their deadline with an error as ioredis'
// own commandTimeout gives. A hit then costs a slot, not a timer set and cleared.
const TICK_MS = 10;

class Deadlines {
  constructor() {
    this.commands = []; // slot -> Command in flight, or undefined
    this.deadlines = []; // slot -> epoch ms
    this.free = [];
    this.inFlight = 0;
    this.timer = null;
    this.tickMs = TICK_MS;
  }

  /** Fails `command` unless settled() by `deadline` (within one tick more); answers its slot. */
  add(command, deadline, timeoutMs) {
    const slot = this.free.length ? this.free.pop() : this.commands.length;
    this.commands[slot] = command;
    this.deadlines[slot] = deadline;
    this.inFlight++;
    const tickMs = Math.max(1, Math.min(TICK_MS, Math.floor(timeoutMs / 10)));
    if (this.timer && tickMs < this.tickMs) this.stop();
    if (!this.timer) {
      this.tickMs = tickMs;
      this.timer = setInterval(() => this.sweep(), tickMs);
      this.timer.unref();
    }
    return slot;
  }

  /** `command` (of `slot`) was answered, or failed; a slot given to another since is left alone. */
  settled(slot, command) {
    if (this.commands[slot] !== command) return;
    this.commands[slot] = undefined;
    this.free.push(slot);
    this.inFlight--;
  }

  sweep() {
    const now = Date.now();
    for (let slot = 0; slot < this.commands.length; slot++) {
      const command = this.commands[slot];
      if (command === undefined || this.deadlines[slot] > now) continue;
      this.settled(slot, command);
      if (!command.isResolved) command.reject(new Error('Command timed out'));
    }
    if (this.inFlight === 0) this.stop();
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
  }
}

module.exports = { Deadlines };
