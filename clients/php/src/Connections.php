<?php

declare(strict_types=1);

namespace Tollgate;

use Tollgate\Redis\Connection;
use Tollgate\Redis\PhpRedisConnection;
use Tollgate\Redis\PredisConnection;

/** Picks the adapter for the client an application already has. */
final class Connections
{
    public static function wrap(mixed $redis): Connection
    {
        return match (true) {
            $redis instanceof Connection => $redis,
            $redis instanceof \Redis, $redis instanceof \RedisCluster => new PhpRedisConnection($redis),
            $redis instanceof \Predis\ClientInterface => new PredisConnection($redis),
            default => throw new Exception\InvalidArgumentException(
                'give a connected \Redis or \RedisCluster (phpredis), a Predis\Client, or a Tollgate\Redis\Connection; got ' . get_debug_type($redis)
            ),
        };
    }
}
