<?php

declare(strict_types=1);

namespace Tollgate\Redis;

/**
 * An adapter that also takes a script call's KEYS and ARGV as one array, the way the Redis client
 * under it wants them: a hit then builds one array instead of two that evalSha() joins again.
 * Both shipped adapters do; a Connection of your own need not (the Limiter uses evalSha()).
 */
interface ArgvEvalSha
{
    /**
     * EVALSHA $sha $numKeys, then $keysAndArgs: the first $numKeys are KEYS, the rest ARGV. The
     * read deadline is $deadline seconds, as after Connection::setDeadline($deadline).
     */
    public function evalShaArgv(string $sha, array $keysAndArgs, int $numKeys, float $deadline): mixed;
}
