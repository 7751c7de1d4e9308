<?php

declare(strict_types=1);

namespace Tollgate;

use Tollgate\Redis\Connection;

/**
 * The console's per-second statistics (stats.lua, `<p>:stats:<action>`): outcomes added up per
 * action and written with stats.lua's `counts` form at most once a second, never per hit (one
 * call per hit would double the server's work). PHP has no timer: the counts go with the first
 * hit after the middle of the next second, and when the Limiter is released (the end of a web
 * request, or of a worker). A write that fails loses those figures, nothing else.
 */
final class HitStats
{
    /** @var array<string,array{int,int,int,int,int,int,int,int}> action => hits, cost, warn, denied, banned, auto bans, would deny, would ban */
    private array $pending = [];
    private float $flushAt = INF;

    public function __construct(private Connection $redis, private KeySchema $schema, private Scripts $scripts)
    {
    }

    public function __destruct()
    {
        $this->flush();
    }

    public function record(Decision $decision, int $cost): void
    {
        $policy = $decision->policy;
        $c = $this->pending[$policy->action] ?? [0, 0, 0, 0, 0, 0, 0, 0];
        $shadow = $decision->shadow > 0;
        $denied = $decision->tier === 'deny' || $decision->tier === 'banned';
        // hit.lua bans on every denial of a policy that bans (lua/README.md).
        $banned = $policy->hasBan() && $decision->tier === 'deny';
        ++$c[0];
        $c[1] += $cost;
        $c[2] += $decision->tier === 'warn' ? 1 : 0;
        $c[$shadow ? 6 : 3] += $denied ? 1 : 0;
        $c[4] += !$shadow && $decision->tier === 'banned' ? 1 : 0;
        $c[$shadow ? 7 : 5] += $banned ? 1 : 0;
        $this->pending[$policy->action] = $c;
        $now = microtime(true);
        if ($this->flushAt === INF) {
            // In the middle of the next second: writes a second apart from whenever they started
            // would drift, and now and then one second of the console's chart would get none.
            $this->flushAt = floor($now) + 1.5;
        } elseif ($now >= $this->flushAt) {
            $this->flush();
        }
    }

    public function flush(): void
    {
        $pending = $this->pending;
        $this->pending = [];
        $this->flushAt = INF;
        foreach ($pending as $action => [$hits, $cost, $warn, $denied, $banned, $autoBans, $wouldDeny, $wouldBan]) {
            try {
                $this->scripts->run('stats', [$this->schema->statsKey((string) $action)],
                    ['counts', $hits, $cost, $warn, $denied, $banned, $autoBans, 0, $wouldDeny, $wouldBan]);
            } catch (\RuntimeException) {
                // Statistics are best effort: a lost write loses those seconds' figures.
            }
        }
    }
}
