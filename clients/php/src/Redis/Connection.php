<?php

declare(strict_types=1);

namespace Tollgate\Redis;

/**
 * The few commands Tollgate sends, over any Redis client. Two adapters ship:
 * PhpRedisConnection (phpredis' Redis and RedisCluster) and PredisConnection (Predis).
 *
 * Contract for an adapter: a reply error of the server throws ReplyError with the server's
 * text (NOSCRIPT, TG_INVALID ..., WRONGTYPE ...); a connection that fails, closes or does not
 * answer within the deadline throws Tollgate\Exception\UnavailableException, and the next call
 * starts on a fresh connection (never reads a late reply of an earlier call).
 */
interface Connection
{
    /** EVALSHA, or EVALSHA_RO when $readOnly (a peek: a read-only ACL user may run it). */
    public function evalSha(string $sha, array $keys, array $args, bool $readOnly = false): mixed;

    /** EVAL with the whole source: the fallback when the server does not know the SHA. */
    public function evalSource(string $source, array $keys, array $args): mixed;

    /** HGETALL as field => value. */
    public function hashGetAll(string $key): array;

    /** Every key matching $pattern (SCAN to the end; on a cluster, on every primary). */
    public function scanKeys(string $pattern, int $count = 1000): array;

    /** Any other command; $key routes it on a cluster (the command's first key). */
    public function command(array $argv, ?string $key = null): mixed;

    /** Whether this is a Redis Cluster (the policy keys then use the hash tag "{:}"). */
    public function isCluster(): bool;

    /** The read deadline of the calls that follow, in seconds; null = the client's own. */
    public function setDeadline(?float $seconds): void;
}
