<?php

declare(strict_types=1);

namespace Tollgate;

use Tollgate\Exception\InvalidArgumentException;
use Tollgate\Redis\Connection;

/**
 * Support's writes: ban, unban, reset and overrides, each one script that writes the change and
 * its audit entries (the user's stream and the global one) together or not at all, with a reason
 * and an actor (lua/README.md: ban.lua, unban.lua, reset.lua, override_set.lua,
 * override_delete.lua). An action of null means every action of the user.
 */
final class Moderation
{
    public function __construct(private Connection $redis, private KeySchema $schema, private Scripts $scripts, private float $timeout = 1.0)
    {
    }

    /**
     * Bans the user for $ms milliseconds (0 = permanent) from one action or every action.
     * @return array{untilMs:int,createdMs:int} untilMs 0 = permanent
     */
    public function ban(string $user, ?string $action, int $ms, string $reason, string $actor): array
    {
        $this->check($user, $action, $reason, $actor);
        if ($ms < 0) {
            throw new InvalidArgumentException('ban duration must be positive (0 = permanent)');
        }
        $banKey = $action === null ? $this->schema->userBanKey($user) : $this->schema->actionBanKey($user, $action);
        $reply = $this->run('ban', [$banKey, ...$this->auditKeys($user)],
            [$user, $action ?? '', $actor, $reason, $ms, 0, $this->schema->eventsChannel()]);
        return ['untilMs' => (int) $reply[0], 'createdMs' => (int) $reply[1]];
    }

    /** Lifts the user's ban of one action, or every ban of the user. Returns the bans deleted. */
    public function unban(string $user, ?string $action, string $reason, string $actor): int
    {
        $this->check($user, $action, $reason, $actor);
        if ($action !== null) {
            $bans = [$this->schema->actionBanKey($user, $action)];
        } else {
            $userBan = $this->schema->userBanKey($user);
            $bans = array_values(array_unique([$userBan, ...$this->userKeys($user, '/^:[^:]+:ban$/')]));
        }
        return (int) $this->run('unban', [...$this->auditKeys($user), ...$bans],
            [$user, $action ?? '', $actor, $reason, $this->schema->eventsChannel()]);
    }

    /** Deletes the user's counters of one action or of every action (bans stay). Returns the keys deleted. */
    public function reset(string $user, ?string $action, string $reason, string $actor): int
    {
        $this->check($user, $action, $reason, $actor);
        $name = $action === null ? '[^:]+' : preg_quote(KeySchema::escape($action), '/');
        $state = $this->userKeys($user, '/^:' . $name . ':(fw|sl|sw|tb):[1-9][0-9]*$/');
        return (int) $this->run('reset', [...$this->auditKeys($user), ...$state],
            [$user, $action ?? '', $actor, $reason, $this->schema->eventsChannel()]);
    }

    /**
     * Gives the user other limits for one action (or '*': every action), or none ($windows null:
     * exempt), for $ms milliseconds (0 = permanent).
     *
     * @param string|list<array{int,int}>|null $windows "60000:100,3600000:1000" or [limit, window_ms] pairs
     * @return array{untilMs:int,setMs:int,keyEnd:int}
     */
    public function setOverride(string $user, string $action, string|array|null $windows, int $ms, string $reason, string $actor): array
    {
        $this->check($user, $action, $reason, $actor);
        if (is_array($windows)) {
            $windows = implode(',', array_map(static fn (array $w) => "{$w[1]}:{$w[0]}", $windows));
        }
        $reply = $this->run('override_set', $this->overrideKeys($user), [$user, $action, $actor, $reason,
            $windows === null ? 'unlimited' : 'limit', $windows ?? '', $ms, 0, $this->schema->eventsChannel()]);
        $keyEnd = (int) $reply[2];
        $this->updateIndex($user, $keyEnd < 0 ? '+inf' : (string) $keyEnd);
        return ['untilMs' => (int) $reply[0], 'setMs' => (int) $reply[1], 'keyEnd' => $keyEnd];
    }

    /** Ends the user's override of one action (or '*'). Returns whether there was one. */
    public function deleteOverride(string $user, string $action, string $reason, string $actor): bool
    {
        $this->check($user, $action, $reason, $actor);
        $reply = $this->run('override_delete', $this->overrideKeys($user), [$user, $action, $actor, $reason, $this->schema->eventsChannel()]);
        $keyEnd = (int) $reply[1];
        $this->updateIndex($user, $keyEnd === 0 ? null : ($keyEnd < 0 ? '+inf' : (string) $keyEnd));
        return (int) $reply[0] === 1;
    }

    private function check(string $user, ?string $action, string $reason, string $actor): void
    {
        KeySchema::checkId($user, 'user id');
        if ($action !== null) {
            KeySchema::checkId($action, 'action');
        }
        if (trim($actor) === '') {
            throw new InvalidArgumentException('an actor is required');
        }
        // Every change says why: the audit trail is for people.
        if (trim($reason) === '') {
            throw new InvalidArgumentException('a reason is required');
        }
    }

    /** @return array{string,string} the user's audit stream and its mirror */
    private function auditKeys(string $user): array
    {
        $stream = $this->schema->userAuditKey($user);
        return [$stream, $this->schema->auditMirror($stream)];
    }

    /** @return list<string> override_set.lua's KEYS: on a cluster the index is "none" (KEYS[1]) and kept here. */
    private function overrideKeys(string $user): array
    {
        $hash = $this->schema->overridesKey($user);
        return [$hash, ...$this->auditKeys($user), $this->schema->cluster ? $hash : $this->schema->overrideIndexKey()];
    }

    /** On a cluster the index lives in another slot than the user: written after the script. */
    private function updateIndex(string $user, ?string $score): void
    {
        if (!$this->schema->cluster) {
            return;
        }
        $index = $this->schema->overrideIndexKey();
        $member = KeySchema::escape($user);
        $this->redis->command($score === null ? ['ZREM', $index, $member] : ['ZADD', $index, $score, $member], $index);
    }

    /**
     * The user's keys whose rest after "<p>:{<user>}" matches $shape (SCAN MATCH <p>:{<user>}:*,
     * exact for escaped ids; the shape check drops foreign look-alikes).
     * @return list<string>
     */
    private function userKeys(string $user, string $shape): array
    {
        $this->redis->setDeadline($this->timeout);
        $base = $this->schema->userBase($user);
        $found = [];
        foreach ($this->redis->scanKeys($this->schema->userPattern($user)) as $key) {
            if (str_starts_with($key, $base) && preg_match($shape, substr($key, strlen($base)))) {
                $found[] = $key;
            }
        }
        sort($found);
        return $found;
    }

    private function run(string $script, array $keys, array $args): mixed
    {
        $this->redis->setDeadline($this->timeout);
        return $this->scripts->run($script, $keys, $args);
    }
}
