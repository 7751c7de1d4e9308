<?php

declare(strict_types=1);

namespace Tollgate\Redis;

use Tollgate\Exception\UnavailableException;

/**
 * phpredis (the `redis` extension): a connected \Redis or a \RedisCluster.
 *
 * A keyless EVALSHA (the contract query) goes to the node of the slot "{:}" by rawCommand: phpredis
 * 5.3's RedisCluster::evalsha without keys can crash the process.
 *
 * phpredis answers most error replies with false and getLastError(), and throws RedisException
 * for others (any prefix it does not know, such as TG_INVALID) and for a broken connection; the
 * last error tells the two apart. After a timeout the socket still holds the late reply, which
 * phpredis would hand to the next call: the connection is closed and opened again instead.
 */
final class PhpRedisConnection implements Connection, ArgvEvalSha
{
    private ?float $deadline = null;
    private bool $broken = false;
    /**
     * How to connect again after a timeout (a single server only; a cluster re-maps itself).
     * Always a plain connect: reusing a persistent one from the pool could be the broken socket.
     */
    private array $endpoint = [];
    private bool $cluster;

    public function __construct(private \Redis|\RedisCluster $redis)
    {
        $this->cluster = $redis instanceof \RedisCluster;
        if ($redis instanceof \Redis && $redis->isConnected()) {
            $this->endpoint = [
                'host' => $redis->getHost(), 'port' => $redis->getPort(), 'timeout' => $redis->getTimeout(),
                'readTimeout' => $redis->getReadTimeout(), 'auth' => $redis->getAuth(), 'db' => $redis->getDbNum(),
            ];
        }
    }

    public function client(): \Redis|\RedisCluster
    {
        return $this->redis;
    }

    public function evalSha(string $sha, array $keys, array $args, bool $readOnly = false): mixed
    {
        // The hot path first, without a closure: what every hit pays.
        if (!$readOnly && !$this->broken && ($keys !== [] || !$this->cluster)) {
            try {
                $reply = $this->redis->evalsha($sha, [...$keys, ...$args], \count($keys));
                if ($reply !== false) {
                    return $reply;
                }
            } catch (\RedisException | \RedisClusterException $e) {
                throw $this->failure($e);
            }
            return $this->replyOrError($reply);
        }
        if ($keys === [] && $this->cluster) {
            return $this->call(fn () => $this->raw('{:}', ['EVALSHA', $sha, 0, ...$args]));
        }
        if ($readOnly) {
            return $this->call(fn () => $this->raw($keys[0] ?? '', ['EVALSHA_RO', $sha, count($keys), ...$keys, ...$args]));
        }
        return $this->call(fn () => $this->redis->evalsha($sha, [...$keys, ...$args], count($keys)));
    }

    public function evalShaArgv(string $sha, array $keysAndArgs, int $numKeys, float $deadline): mixed
    {
        if ($deadline !== $this->deadline) {
            $this->setDeadline($deadline);
        }
        if ($this->broken || ($numKeys === 0 && $this->cluster)) {
            return $this->evalSha($sha, \array_slice($keysAndArgs, 0, $numKeys), \array_slice($keysAndArgs, $numKeys));
        }
        try {
            $reply = $this->redis->evalsha($sha, $keysAndArgs, $numKeys);
            if ($reply !== false) {
                return $reply;
            }
        } catch (\RedisException | \RedisClusterException $e) {
            throw $this->failure($e);
        }
        return $this->replyOrError($reply);
    }

    public function evalSource(string $source, array $keys, array $args): mixed
    {
        if ($keys === [] && $this->redis instanceof \RedisCluster) {
            return $this->call(fn () => $this->raw('{:}', ['EVAL', $source, 0, ...$args]));
        }
        return $this->call(fn () => $this->redis->eval($source, [...$keys, ...$args], count($keys)));
    }

    public function hashGetAll(string $key): array
    {
        $reply = $this->call(fn () => $this->redis->hGetAll($key));
        return is_array($reply) ? $reply : [];
    }

    public function scanKeys(string $pattern, int $count = 1000): array
    {
        $found = [];
        $nodes = $this->redis instanceof \RedisCluster ? $this->redis->_masters() : [null];
        $this->redis->setOption(\Redis::OPT_SCAN, \Redis::SCAN_RETRY);
        foreach ($nodes as $node) {
            $cursor = null;
            do {
                $keys = $this->call(fn () => $node === null
                    ? $this->redis->scan($cursor, $pattern, $count)
                    : $this->redis->scan($cursor, $node, $pattern, $count));
                foreach ($keys ?: [] as $key) {
                    $found[$key] = true;
                }
            } while ($cursor);
        }
        return array_map('strval', array_keys($found));
    }

    public function command(array $argv, ?string $key = null): mixed
    {
        return $this->call(fn () => $this->raw($key ?? (string) ($argv[1] ?? ''), $argv));
    }

    public function isCluster(): bool
    {
        return $this->redis instanceof \RedisCluster;
    }

    public function setDeadline(?float $seconds): void
    {
        if ($seconds === $this->deadline) {
            return;
        }
        $this->deadline = $seconds;
        $this->redis->setOption(\Redis::OPT_READ_TIMEOUT, $seconds ?? ($this->endpoint['readTimeout'] ?? 0));
    }

    private function raw(string $key, array $argv): mixed
    {
        return $this->redis instanceof \RedisCluster
            ? $this->redis->rawCommand($key, ...$argv)
            : $this->redis->rawCommand(...$argv);
    }

    private function call(\Closure $send): mixed
    {
        if ($this->broken) {
            $this->reconnect();
        }
        try {
            $reply = $send();
        } catch (\RedisException | \RedisClusterException $e) {
            throw $this->failure($e);
        }
        return $this->replyOrError($reply);
    }

    /** false with a last error is an error reply; false without one is a nil reply. */
    private function replyOrError(mixed $reply): mixed
    {
        if ($reply === false && ($error = $this->redis->getLastError()) !== null) {
            $this->redis->clearLastError();
            throw new ReplyError($error);
        }
        return $reply;
    }

    /** An exception with a last error is an error reply phpredis throws; without, the connection failed. */
    private function failure(\Exception $e): \RuntimeException
    {
        $error = $this->redis->getLastError();
        if ($error !== null) {
            $this->redis->clearLastError();
            return new ReplyError($error);
        }
        $this->broken = true;
        return new UnavailableException('Redis did not answer: ' . $e->getMessage(), 0, $e);
    }

    private function reconnect(): void
    {
        if ($this->redis instanceof \RedisCluster || $this->endpoint === []) {
            $this->broken = false;
            return;
        }
        $e = $this->endpoint;
        try {
            $this->redis->close();
            $ok = $this->redis->connect($e['host'], $e['port'], $e['timeout'], null, 0, $e['readTimeout']);
            if ($ok && $e['auth'] !== null && $e['auth'] !== false) {
                $this->redis->auth($e['auth']);
            }
            if ($ok && $e['db']) {
                $this->redis->select($e['db']);
            }
        } catch (\RedisException $x) {
            throw new UnavailableException('Redis did not answer: ' . $x->getMessage(), 0, $x);
        }
        if (!$ok) {
            throw new UnavailableException('Redis did not answer: cannot connect again');
        }
        $this->broken = false;
        if ($this->deadline !== null) {
            $this->redis->setOption(\Redis::OPT_READ_TIMEOUT, $this->deadline);
        }
    }
}
