<?php

declare(strict_types=1);

namespace Tollgate;

/**
 * hit.lua's keys and arguments for one policy, with everything that does not depend on the user
 * built once (lua/README.md, hit.lua). A policy that can never ban, warn, count a denial or need
 * local time goes in the short form: 2 keys and 9 arguments fewer, which the server pays for on
 * every hit.
 */
final class PreparedHit
{
    public readonly bool $short;
    /** @var list<string> what follows "<p>:{<user>}" in each state key */
    private array $stateSuffixes = [];
    private string $actionBanSuffix;
    /** @var list<string|int> limit, window_ms pairs, then the marker "override" when sent for one */
    private array $pairs = [];
    /** @var list<string|int> ARGV[4..7] of the full form */
    private array $rules;
    /** @var list<string> ARGV[10..12] of the full form */
    private array $ids;
    /** @var list<string> what follows "<p>:{<user>}" in each key of the short form, in KEYS order */
    private array $shortSuffixes;
    /** @var list<string|int> the short form's ARGV after the mode: algorithm, cost, pairs */
    private array $shortTail;

    public function __construct(public readonly Policy $policy, private KeySchema $schema, public readonly bool $forOverride = false)
    {
        $p = $policy;
        $escapedAction = KeySchema::escape($p->action);
        $this->actionBanSuffix = ":$escapedAction:ban";
        foreach ($p->windows as [$limit, $ms]) {
            $this->stateSuffixes[] = ":$escapedAction:{$p->algorithmCode()}:$ms";
            $this->pairs[] = $limit;
            $this->pairs[] = $ms;
        }
        if ($forOverride) {
            $this->pairs[] = 'override';
        }
        $this->short = !$p->countDenied && $p->warn === 0 && $p->banMs === 0 && !$p->banUntilMidnight && !$p->calendar;
        $this->rules = [$p->countDenied ? '1' : '0', $p->warn, $p->banMs, $p->banUntilMidnight ? 'midnight' : ''];
        $this->ids = [$p->action, $schema->eventsChannel(), $p->calendar ? 'calendar' : 'first_hit'];
        $this->shortSuffixes = [':ban', $this->actionBanSuffix, ':overrides', ...$this->stateSuffixes];
        $this->shortTail = [$p->algorithm, $p->cost, ...$this->pairs];
    }

    /**
     * @param string $mode hit, shadow or peek
     * @return array{list<string>, list<string|int>} KEYS and ARGV
     */
    public function call(string $mode, string $user, ?int $cost): array
    {
        $base = $this->schema->userBase($user);
        if ($this->short) { // every hit of most policies: its parts made once
            $keys = [];
            foreach ($this->shortSuffixes as $suffix) {
                $keys[] = $base . $suffix;
            }
            $args = [$mode, ...$this->shortTail];
            if ($cost !== null) {
                $args[2] = $cost;
            }
            return [$keys, $args];
        }
        $keys = [$base . ':ban', $base . $this->actionBanSuffix, $base . ':overrides'];
        if (!$this->short) {
            $audit = $base . ':audit';
            $keys[] = $audit;
            $keys[] = $this->schema->auditMirror($audit);
        }
        foreach ($this->stateSuffixes as $suffix) {
            $keys[] = $base . $suffix;
        }
        $cost ??= $this->policy->cost;
        return [$keys, [$mode, $this->policy->algorithm, $cost, ...$this->rules, $this->policy->offsets(), $user, ...$this->ids, ...$this->pairs]];
    }

    /**
     * refund.lua's KEYS and ARGV: hit.lua's full form with actor and reason before the pairs.
     * @return array{list<string>, list<string|int>}
     */
    public function refundCall(string $mode, string $user, ?int $cost, string $actor, string $reason): array
    {
        $base = $this->schema->userBase($user);
        $audit = $base . ':audit';
        $keys = [$base . ':ban', $base . $this->actionBanSuffix, $base . ':overrides', $audit, $this->schema->auditMirror($audit)];
        foreach ($this->stateSuffixes as $suffix) {
            $keys[] = $base . $suffix;
        }
        $cost ??= $this->policy->cost;
        return [$keys, [$mode, $this->policy->algorithm, $cost, ...$this->rules, $this->policy->offsets(), $user, ...$this->ids, $actor, $reason, ...$this->pairs]];
    }
}
