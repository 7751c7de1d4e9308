<?php

declare(strict_types=1);

namespace Tollgate;

/**
 * The in-process stand-in while Redis does not answer (failure policy `insurance`): a fixed
 * window per user, action and window of the policy, started by the first hit, with the limits
 * scaled by `factor` (1/N with N processes: each counts only its own hits). All windows are
 * all-or-nothing, as in hit.lua; it never bans and writes nothing to Redis. Its memory is the
 * process's: under PHP-FPM that is one request, so it helps long-running workers only.
 */
final class InsuranceLimiter
{
    private static ?self $shared = null;
    /** @var array<string,array{float,int}> key => [window start (s), count] */
    private array $windows = [];

    public function __construct(private float $factor = 1.0, private int $maxWindows = 100_000)
    {
    }

    public static function shared(): self
    {
        return self::$shared ??= new self();
    }

    /** @return array{bool,string,int,int,int,int,int} allowed, tier, count, limit, remaining, reset_ms, retry_after_ms */
    public function hit(Policy $policy, string $user, int $cost, bool $count): array
    {
        $now = hrtime(true) / 1e9; // monotonic: a wall-clock jump must not reopen or freeze a window
        if (count($this->windows) >= $this->maxWindows) {
            $this->windows = [];
        }
        $states = [];
        $allowed = true;
        foreach ($policy->windows as [$limit, $ms]) {
            $key = $policy->action . "\0" . $user . "\0" . $ms;
            [$start, $used] = $this->windows[$key] ?? [$now, 0];
            if (($now - $start) * 1000 >= $ms) {
                [$start, $used] = [$now, 0];
            }
            $scaled = max(1, (int) floor($limit * $this->factor));
            $reset = max(0, (int) ceil($ms - ($now - $start) * 1000));
            $allowed = $allowed && $used + $cost <= $scaled;
            $states[] = [$key, $start, $used, $scaled, $reset];
        }
        $binding = null;
        foreach ($states as [$key, $start, $used, $scaled, $reset]) {
            $after = $allowed ? $used + $cost : $used;
            if ($allowed && $count) {
                $this->windows[$key] = [$start, $after];
            }
            $left = max(0, $scaled - $after);
            if ($binding === null || $left < $binding[2]) {
                $binding = [$after, $scaled, $left, $reset];
            }
        }
        [$used, $limit, $left, $reset] = $binding;
        return [$allowed, $allowed ? 'ok' : 'deny', $used, $limit, $left, $reset, $allowed ? 0 : $reset];
    }
}
