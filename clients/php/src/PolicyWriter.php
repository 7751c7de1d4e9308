<?php

declare(strict_types=1);

namespace Tollgate;

use Tollgate\Redis\Connection;

/**
 * Saves and deletes policies with policy_set.lua and policy_delete.lua (audited, with the
 * action's history), for applications that keep their limits in their own configuration.
 * A Limiter's cached copy is replaced within its policyTtl (or at once: forgetPolicies()).
 */
final class PolicyWriter
{
    public function __construct(private Connection $redis, private KeySchema $schema, private Scripts $scripts)
    {
    }

    public static function of(Limiter $limiter): self
    {
        return new self($limiter->redis, $limiter->schema, $limiter->scripts());
    }

    /**
     * Replaces the policy hash with $fields (lua/README.md, "The policy hash"); $expectedRevision
     * null = whatever is stored now. Returns the new revision.
     *
     * @param array<string,string|int> $fields
     */
    public function save(string $action, array $fields, string $actor, string $reason = '', ?int $expectedRevision = null, bool $check = true): int
    {
        KeySchema::checkId($action, 'action');
        if ($check) {
            Policy::fromFields($action, $fields); // refuse what no client could read, before writing
        }
        $expectedRevision ??= $this->storedRevision($action);
        $args = [$expectedRevision, $actor, $this->schema->eventsChannel(), $reason];
        foreach ($fields as $field => $value) {
            $args[] = (string) $field;
            $args[] = (string) $value;
        }
        return (int) $this->scripts->run('policy_set', $this->keys($action), $args);
    }

    /** Deletes the policy (its history stays, so it can be restored). Returns whether there was one. */
    public function delete(string $action, string $actor, string $reason = ''): bool
    {
        KeySchema::checkId($action, 'action');
        $args = [$this->storedRevision($action), $actor, $this->schema->eventsChannel(), $reason];
        return (int) $this->scripts->run('policy_delete', $this->keys($action), $args) === 1;
    }

    private function storedRevision(string $action): int
    {
        $revision = $this->redis->command(['HGET', $this->schema->policyKey($action), 'revision'], $this->schema->policyKey($action));
        return is_numeric($revision) ? (int) $revision : 0;
    }

    /** @return list<string> */
    private function keys(string $action): array
    {
        return [$this->schema->policyKey($action), $this->schema->policyAuditKey(), $this->schema->policyIndexKey(), $this->schema->policyHistoryKey($action)];
    }
}
