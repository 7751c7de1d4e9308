<?php

declare(strict_types=1);

namespace Tollgate\Redis;

use Predis\ClientInterface;
use Predis\Connection\NodeConnectionInterface;
use Predis\PredisException;
use Tollgate\Exception\UnavailableException;

/**
 * Predis on one server (Redis Cluster: use phpredis' RedisCluster). Commands go through
 * executeRaw, which returns error replies instead of throwing and builds no command objects.
 * A Predis connection that fails or times out disconnects itself, so the next call starts clean.
 */
final class PredisConnection implements Connection, ArgvEvalSha
{
    private ?float $deadline = null;
    /** Whether the current socket has the deadline: not before the first call, nor after a failure (Predis reconnects). */
    private bool $deadlineSet = false;

    public function __construct(private ClientInterface $client)
    {
    }

    public function client(): ClientInterface
    {
        return $this->client;
    }

    public function evalSha(string $sha, array $keys, array $args, bool $readOnly = false): mixed
    {
        return $this->send([$readOnly ? 'EVALSHA_RO' : 'EVALSHA', $sha, \count($keys), ...$keys, ...$args]);
    }

    public function evalShaArgv(string $sha, array $keysAndArgs, int $numKeys, float $deadline): mixed
    {
        if ($deadline !== $this->deadline) {
            $this->setDeadline($deadline);
        }
        return $this->send(['EVALSHA', $sha, $numKeys, ...$keysAndArgs]);
    }

    public function evalSource(string $source, array $keys, array $args): mixed
    {
        return $this->send(['EVAL', $source, count($keys), ...$keys, ...$args]);
    }

    public function hashGetAll(string $key): array
    {
        $flat = $this->send(['HGETALL', $key]);
        $fields = [];
        for ($i = 0, $n = count($flat); $i + 1 < $n; $i += 2) {
            $fields[$flat[$i]] = $flat[$i + 1];
        }
        return $fields;
    }

    public function scanKeys(string $pattern, int $count = 1000): array
    {
        $found = [];
        $cursor = '0';
        do {
            [$cursor, $keys] = $this->send(['SCAN', $cursor, 'MATCH', $pattern, 'COUNT', $count]);
            foreach ($keys as $key) {
                $found[$key] = true;
            }
        } while ($cursor !== '0');
        return array_map('strval', array_keys($found));
    }

    public function command(array $argv, ?string $key = null): mixed
    {
        return $this->send($argv);
    }

    public function isCluster(): bool
    {
        return false;
    }

    public function setDeadline(?float $seconds): void
    {
        if ($seconds !== $this->deadline) {
            $this->deadline = $seconds;
            $this->deadlineSet = false;
        }
    }

    private function send(array $argv): mixed
    {
        try {
            if (!$this->deadlineSet && $this->deadline !== null) {
                $this->applyDeadline();
            }
            $reply = $this->client->executeRaw($argv, $error);
        } catch (PredisException $e) {
            $this->deadlineSet = false; // the next call is on a new socket
            throw new UnavailableException('Redis did not answer: ' . $e->getMessage(), 0, $e);
        }
        if ($error) {
            throw new ReplyError((string) $reply);
        }
        return $reply;
    }

    private function applyDeadline(): void
    {
        $connection = $this->client->getConnection();
        if ($connection instanceof NodeConnectionInterface) {
            $seconds = (int) $this->deadline;
            stream_set_timeout($connection->getResource(), $seconds, (int) (($this->deadline - $seconds) * 1e6));
            $this->deadlineSet = true;
        }
    }
}
