<?php

declare(strict_types=1);

namespace Tollgate;

use Tollgate\Exception\NoPolicyException;
use Tollgate\Exception\UnavailableException;
use Tollgate\Redis\Connection;

/**
 * Policies by action: given inline, or read from Redis (HGETALL <p>:policy:<action>) and kept for
 * `ttl` seconds. PHP has no thread to listen on the events channel as the C++ Limiter does, so
 * an edit reaches a long-running process within `ttl` seconds; a web request (PHP-FPM, mod_php)
 * starts with an empty cache and reads each action it uses once. While Redis does not answer,
 * an expired policy is still used, so the failure policy it names can decide.
 */
final class PolicyCache
{
    /** @var array<string,array{?Policy,float}> action => [policy or null (none stored), read at] */
    private array $read = [];
    /** @var array<string,Policy> */
    private array $inline = [];

    /** @param array<string,Policy|array> $inline */
    public function __construct(private Connection $redis, private KeySchema $schema, private float $ttl, array $inline = [])
    {
        foreach ($inline as $action => $policy) {
            $this->inline[(string) $action] = $policy instanceof Policy ? $policy : Policy::fromFields((string) $action, $policy);
        }
    }

    public function get(string $action): Policy
    {
        if (isset($this->inline[$action])) {
            return $this->inline[$action];
        }
        $now = microtime(true);
        $entry = $this->read[$action] ?? null;
        if ($entry === null || $now - $entry[1] >= $this->ttl) {
            try {
                $fields = $this->redis->hashGetAll($this->schema->policyKey($action));
            } catch (UnavailableException $e) {
                if ($entry === null || $entry[0] === null) {
                    throw $e;
                }
                return $entry[0];
            } catch (Redis\ReplyError $e) {
                throw Errors::fromReply($e);
            }
            $entry = $this->read[$action] = [$fields === [] ? null : Policy::fromFields($action, $fields), $now];
        }
        return $entry[0] ?? throw new NoPolicyException(
            "no policy for action '$action' (HGETALL {$this->schema->policyKey($action)} is empty): set one with tollgatectl policy set, or pass it inline"
        );
    }

    /**
     * Until when (microtime) the policy get() last answered for $action may be used without
     * asking again: never again for an inline one, the end of its ttl for one read from Redis
     * (already past for one reused while Redis did not answer).
     */
    public function usableUntil(string $action): float
    {
        if (isset($this->inline[$action])) {
            return \INF;
        }
        return isset($this->read[$action]) ? $this->read[$action][1] + $this->ttl : 0.0;
    }

    public function forget(?string $action): void
    {
        if ($action === null) {
            $this->read = [];
        } else {
            unset($this->read[$action]);
        }
    }
}
