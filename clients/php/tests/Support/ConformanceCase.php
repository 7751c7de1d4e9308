<?php

declare(strict_types=1);

namespace Tollgate\Tests\Support;

use Tollgate\Decision;
use Tollgate\Exception\TollgateException;
use Tollgate\Limiter;
use Tollgate\PolicyWriter;
use Tollgate\RefundResult;

/**
 * Runs one case of the conformance suite (conformance/README.md) through the package's public
 * API on a private redis-server, with phpredis or Predis. run() answers null when every step
 * met its expectation, else "step N: <field> expected <x> got <y>".
 */
final class ConformanceCase
{
    private const STEP_FIELDS = [
        'hit' => ['action', 'user', 'cost', 'repeat', 'client', 'expect'],
        'peek' => ['action', 'user', 'cost', 'repeat', 'client', 'expect'],
        'refund' => ['action', 'user', 'cost', 'reason', 'actor', 'client', 'expect'],
        'penalize' => ['action', 'user', 'cost', 'reason', 'actor', 'client', 'expect'],
        'ban' => ['user', 'action', 'ms', 'reason', 'actor', 'expect'],
        'unban' => ['user', 'action', 'reason', 'actor', 'expect'],
        'reset' => ['user', 'action', 'reason', 'actor', 'expect'],
        'override' => ['user', 'action', 'windows', 'unlimited', 'ms', 'reason', 'actor', 'expect'],
        'policy' => ['action', 'fields', 'delete', 'expect'],
        'sleep' => ['ms'],
        'redis' => ['command', 'expect'],
        'freeze' => [],
        'thaw' => [],
        'check' => ['expect'],
    ];
    private const DECISION_FIELDS = [
        'allowed' => 'allowed', 'tier' => 'tier', 'count' => 'count', 'limit' => 'limit', 'remaining' => 'remaining',
        'reset_ms' => 'resetMs', 'retry_after_ms' => 'retryAfterMs', 'message' => 'message', 'override' => 'override',
        'shadow' => 'shadow', 'source' => 'source', 'count_now' => 'countNow', 'reset_now_ms' => 'resetNowMs',
    ];
    private const REFUND_FIELDS = [
        'changed' => 'changed', 'ban_created' => 'banCreated', 'count' => 'count', 'limit' => 'limit',
        'remaining' => 'remaining', 'reset_ms' => 'resetMs', 'ban_until_ms' => 'banUntilMs',
    ];

    private array $case;
    private string $prefix;
    private Limiter $limiter;

    /** @param ?\Closure(): RedisClusterServers $cluster starts (once) the cluster the cluster cases run on */
    public function __construct(private RedisServer $server, private string $adapter, string $file, private ?\Closure $cluster = null)
    {
        $this->case = json_decode((string) file_get_contents($file), true, 512, JSON_THROW_ON_ERROR);
        $this->prefix = $this->case['prefix'] ?? 'tg';
    }

    /** Why this runner cannot run the case, or null. */
    public function skipReason(): ?string
    {
        if ($this->case['skip']['php'] ?? null) {
            return $this->case['skip']['php'];
        }
        if (!($this->case['cluster'] ?? false)) {
            return null;
        }
        if ($this->adapter !== 'phpredis') {
            return 'the Predis adapter serves one server; Redis Cluster runs on phpredis\' RedisCluster';
        }
        return $this->cluster === null ? 'needs a Redis Cluster: this run has none' : null;
    }

    public function isCluster(): bool
    {
        return (bool) ($this->case['cluster'] ?? false);
    }

    /** @return list<\Redis> a connection to every server of the case (a cluster: every primary) */
    private function servers(): array
    {
        $nodes = $this->isCluster() ? ($this->cluster)()->nodes : [$this->server];
        return array_map(fn (RedisServer $node) => $node->phpredis(), $nodes);
    }

    public function run(): ?string
    {
        foreach ($this->servers() as $admin) {
            $admin->flushAll();
            $admin->close();
        }
        $client = $this->isCluster() ? ($this->cluster)()->client() : $this->server->client($this->adapter);
        $this->limiter = new Limiter($client, $this->prefix);
        foreach ($this->case['policies'] ?? [] as $action => $fields) {
            PolicyWriter::of($this->limiter)->save((string) $action, $fields, 'conformance', '', null, false);
        }
        foreach ($this->case['steps'] as $index => $step) {
            $failure = $this->step($step);
            if ($failure !== null) {
                return 'step ' . ($index + 1) . ": $failure";
            }
        }
        return null;
    }

    private function step(array $step): ?string
    {
        $op = $step['op'] ?? '?';
        if (!isset(self::STEP_FIELDS[$op])) {
            return "unknown op '$op'";
        }
        if ($unknown = array_diff(array_keys($step), ['op', ...self::STEP_FIELDS[$op]])) {
            return "unknown key '" . implode("', '", $unknown) . "' in a $op step";
        }
        $expect = $step['expect'] ?? [];
        for ($i = 0; $i < ($step['repeat'] ?? 1); ++$i) {
            $started = hrtime(true);
            try {
                $result = $this->perform($op, $step);
                $error = null;
            } catch (TollgateException $e) {
                [$result, $error] = [null, $e];
            }
            $elapsedMs = (hrtime(true) - $started) / 1e6;
            $failure = $this->compare($expect, $result, $error, $elapsedMs);
            if ($failure !== null) {
                return ($step['repeat'] ?? 1) > 1 ? "repetition " . ($i + 1) . ": $failure" : $failure;
            }
        }
        return null;
    }

    private function perform(string $op, array $step): mixed
    {
        $user = isset($step['user']) ? self::id($step['user']) : '';
        $action = isset($step['action']) ? self::id($step['action']) : null;
        $reason = $step['reason'] ?? 'conformance';
        $actor = $step['actor'] ?? 'conformance';
        $call = [];
        if (isset($step['client']['on_error'])) {
            $call['onError'] = $step['client']['on_error'];
        }
        if (isset($step['client']['timeout_ms'])) {
            $call['timeout'] = $step['client']['timeout_ms'] / 1000;
        }
        $moderation = $this->limiter->moderation();
        switch ($op) {
            case 'hit':
                return $this->limiter->hit($action, $user, $step['cost'] ?? null, $call);
            case 'peek':
                return $this->limiter->peek($action, $user, $step['cost'] ?? null, $call);
            case 'refund':
                return $this->limiter->refund($action, $user, $step['cost'] ?? null, $call);
            case 'penalize':
                return $this->limiter->penalize($action, $user, $step['cost'], $actor, $reason, $call);
            case 'ban':
                return $moderation->ban($user, $action, $step['ms'] ?? 0, $reason, $actor);
            case 'unban':
                return $moderation->unban($user, $action, $reason, $actor);
            case 'reset':
                return $moderation->reset($user, $action, $reason, $actor);
            case 'override':
                $windows = ($step['unlimited'] ?? false) ? null : $step['windows'];
                return $moderation->setOverride($user, $action, $windows, $step['ms'] ?? 0, $reason, $actor);
            case 'policy':
                $writer = PolicyWriter::of($this->limiter);
                $done = ($step['delete'] ?? false) ? $writer->delete($action, 'conformance')
                    : $writer->save($action, $step['fields'], 'conformance', '', null, false);
                $this->limiter->forgetPolicies(); // what the policy event tells a listening client
                return $done;
            case 'redis':
                // A raw write may change a policy hash behind the scripts' back: read it again.
                $this->limiter->forgetPolicies();
                if ($this->isCluster()) {
                    return ($this->cluster)()->client()->rawCommand($step['command'][1] ?? '', ...$step['command']);
                }
                $admin = $this->server->phpredis();
                $reply = $admin->rawCommand(...$step['command']);
                $admin->close();
                return $reply;
            case 'sleep':
                usleep((int) ($step['ms'] * 1000));
                return null;
            case 'freeze':
                $this->server->freeze();
                return null;
            case 'thaw':
                $this->server->thaw();
                return null;
            default: // check
                return null;
        }
    }

    private function compare(array $expect, mixed $result, ?TollgateException $error, float $elapsedMs): ?string
    {
        if (array_key_exists('error', $expect)) {
            $got = $error?->kind() ?? 'no error';
            return $got === $expect['error'] ? $this->compareElapsed($expect, $elapsedMs) : "error expected {$expect['error']} got $got" . ($error ? ' (' . $error->getMessage() . ')' : '');
        }
        if ($error !== null) {
            return 'unexpected error ' . $error->kind() . ': ' . $error->getMessage();
        }
        $fields = $result instanceof Decision ? self::DECISION_FIELDS : ($result instanceof RefundResult ? self::REFUND_FIELDS : []);
        foreach ($expect as $field => $want) {
            if ($field === 'keys_without_ttl' || $field === 'elapsed_ms') {
                continue;
            }
            if (!isset($fields[$field])) {
                return "field '$field' cannot be compared for this step";
            }
            $got = $result->{$fields[$field]};
            if (!self::matches($want, $got)) {
                return "$field expected " . json_encode($want) . ' got ' . json_encode($got);
            }
        }
        if (array_key_exists('keys_without_ttl', $expect) && ($got = $this->keysWithoutTtl()) !== $expect['keys_without_ttl']) {
            return "keys_without_ttl expected {$expect['keys_without_ttl']} got $got";
        }
        return $this->compareElapsed($expect, $elapsedMs);
    }

    private function compareElapsed(array $expect, float $elapsedMs): ?string
    {
        if (isset($expect['elapsed_ms']) && !self::matches($expect['elapsed_ms'], $elapsedMs)) {
            return 'elapsed_ms expected ' . json_encode($expect['elapsed_ms']) . ' got ' . round($elapsedMs);
        }
        return null;
    }

    private static function matches(mixed $want, mixed $got): bool
    {
        if (is_array($want) && isset($want['until_boundary'])) {
            return is_int($got) && self::nearBoundary($got, (int) $want['until_boundary'], (int) ($want['utc_offset_ms'] ?? 0));
        }
        if (is_array($want)) {
            return (is_int($got) || is_float($got)) && $got >= $want[0] && $got <= $want[1];
        }
        return $want === $got;
    }

    /**
     * {"until_boundary": P, "utc_offset_ms": O}: the ms to the next local boundary t with
     * (t + O) % P == 0, within 2 s (the case cannot know when it runs).
     */
    private static function nearBoundary(int $got, int $period, int $offset): bool
    {
        $now = (int) (microtime(true) * 1000);
        $expected = $period - (($now + $offset) % $period + $period) % $period;
        $distance = (($got - $expected) % $period + $period) % $period;
        return min($distance, $period - $distance) <= 2000;
    }

    /**
     * Keys under the prefix that must expire and have no TTL: counters, bans with an end,
     * override hashes without a permanent override (SCAN and PTTL here, never inside a script).
     */
    private function keysWithoutTtl(): int
    {
        $count = 0;
        foreach ($this->servers() as $redis) {
            $count += $this->keysWithoutTtlOn($redis);
            $redis->close();
        }
        return $count;
    }

    private function keysWithoutTtlOn(\Redis $redis): int
    {
        $count = 0;
        $quoted = preg_quote($this->prefix, '/');
        $it = null;
        $redis->setOption(\Redis::OPT_SCAN, \Redis::SCAN_RETRY);
        while ($keys = $redis->scan($it, $this->prefix . ':{*', 1000)) {
            foreach ($keys as $key) {
                if ($redis->pTtl($key) !== -1) {
                    continue;
                }
                if (preg_match('/^' . $quoted . ':\{[^}:]+\}:[^:]+:(fw|sl|sw|tb):\d+$/', $key)) {
                    ++$count;
                } elseif (preg_match('/^' . $quoted . ':\{[^}:]+\}(:[^:]+)?:ban$/', $key)) {
                    $count += ((string) $redis->hGet($key, 'until_ms')) !== '0' ? 1 : 0;
                } elseif (preg_match('/^' . $quoted . ':\{[^}:]+\}:overrides$/', $key)) {
                    $permanent = false;
                    foreach ($redis->hGetAll($key) as $value) {
                        $permanent = $permanent || (explode(' ', $value)[1] ?? '') === '0';
                    }
                    $count += $permanent ? 0 : 1;
                }
            }
        }
        return $count;
    }

    /** An id as a case spells it: a string, {"repeat": s, "times": n} or {"hex": "ff41"}. */
    private static function id(mixed $id): string
    {
        if (is_string($id)) {
            return $id;
        }
        if (isset($id['hex'])) {
            return (string) hex2bin($id['hex']);
        }
        return str_repeat($id['repeat'], $id['times']);
    }
}
