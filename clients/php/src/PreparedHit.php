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
    /** "<p>:{": every key of a user starts with it and the escaped id */
    public readonly string $head;
    /** @var list<string> what follows "<p>:{<user>" in each state key */
    private array $stateSuffixes = [];
    private string $actionBanSuffix;
    /** @var list<string|int> limit, window_ms pairs, then the marker "override" when sent for one */
    private array $pairs = [];
    /** @var list<string|int> ARGV[4..7] of the full form */
    private array $rules;
    /** @var list<string> ARGV[10..12] of the full form */
    private array $ids;
    /** hit or shadow, as the policy says */
    private string $hitMode;
    /** @var list<string> what follows "<p>:{<user>" in each key of the short form, in KEYS order */
    public readonly array $shortSuffixes;
    /** @var list<string|int> the short form's whole ARGV for a hit (or shadow hit) and for a peek of the policy's cost */
    private array $hitArgs;
    private array $peekArgs;
    /** The short form's number of keys */
    public readonly int $shortKeyCount;
    /**
     * @var list<string|int> the short form's hit of the policy's cost as Limiter::hit() sends it
     * to an ArgvEvalSha adapter: room for the shortKeyCount keys ("<p>:{<user>" and each of
     * shortSuffixes), then the ARGV
     */
    public readonly array $hitArgv;

    public function __construct(public readonly Policy $policy, private KeySchema $schema, public readonly bool $forOverride = false)
    {
        $p = $policy;
        $escapedAction = KeySchema::escape($p->action);
        $this->head = $schema->prefix . ':{';
        $this->actionBanSuffix = "}:$escapedAction:ban";
        foreach ($p->windows as [$limit, $ms]) {
            $this->stateSuffixes[] = "}:$escapedAction:{$p->algorithmCode()}:$ms";
            $this->pairs[] = $limit;
            $this->pairs[] = $ms;
        }
        if ($forOverride) {
            $this->pairs[] = 'override';
        }
        $this->short = !$p->countDenied && $p->warn === 0 && $p->banMs === 0 && !$p->banUntilMidnight && !$p->calendar;
        $this->hitMode = $p->shadow ? 'shadow' : 'hit';
        $this->rules = [$p->countDenied ? '1' : '0', $p->warn, $p->banMs, $p->banUntilMidnight ? 'midnight' : ''];
        $this->ids = [$p->action, $schema->eventsChannel(), $p->calendar ? 'calendar' : 'first_hit'];
        $this->shortSuffixes = ['}:ban', $this->actionBanSuffix, '}:overrides', ...$this->stateSuffixes];
        $this->hitArgs = [$this->hitMode, $p->algorithm, $p->cost, ...$this->pairs];
        $this->peekArgs = ['peek', $p->algorithm, $p->cost, ...$this->pairs];
        $this->shortKeyCount = \count($this->shortSuffixes);
        $this->hitArgv = [...\array_fill(0, $this->shortKeyCount, ''), ...$this->hitArgs];
    }

    /**
     * hit.lua's KEYS and ARGV for a checked user id: a peek, or a hit of the policy's mode (hit
     * or shadow); $cost null = the policy's. The short form's (most hits) is the user's keys and
     * an ARGV made once.
     *
     * @return array{list<string>, list<string|int>} KEYS and ARGV
     */
    public function call(bool $peek, string $user, ?int $cost): array
    {
        // KeySchema::userBase() inline, the common id recognized without a call.
        $base = $this->head . (\preg_match(KeySchema::ALL_PLAIN, $user) === 1 ? $user : KeySchema::escape($user));
        if ($this->short) {
            $keys = [];
            foreach ($this->shortSuffixes as $suffix) {
                $keys[] = $base . $suffix;
            }
            $args = $peek ? $this->peekArgs : $this->hitArgs;
            if ($cost !== null) {
                $args[2] = $cost;
            }
            return [$keys, $args];
        }
        $audit = $base . '}:audit';
        $keys = [$base . '}:ban', $base . $this->actionBanSuffix, $base . '}:overrides', $audit, $this->schema->auditMirror($audit)];
        foreach ($this->stateSuffixes as $suffix) {
            $keys[] = $base . $suffix;
        }
        $cost ??= $this->policy->cost;
        return [$keys, [$peek ? 'peek' : $this->hitMode, $this->policy->algorithm, $cost, ...$this->rules, $this->policy->offsets(), $user, ...$this->ids, ...$this->pairs]];
    }

    /**
     * refund.lua's KEYS and ARGV: hit.lua's full form with actor and reason before the pairs.
     * @return array{list<string>, list<string|int>}
     */
    public function refundCall(string $mode, string $user, ?int $cost, string $actor, string $reason): array
    {
        $base = $this->head . KeySchema::escape($user);
        $audit = $base . '}:audit';
        $keys = [$base . '}:ban', $base . $this->actionBanSuffix, $base . '}:overrides', $audit, $this->schema->auditMirror($audit)];
        foreach ($this->stateSuffixes as $suffix) {
            $keys[] = $base . $suffix;
        }
        $cost ??= $this->policy->cost;
        return [$keys, [$mode, $this->policy->algorithm, $cost, ...$this->rules, $this->policy->offsets(), $user, ...$this->ids, $actor, $reason, ...$this->pairs]];
    }
}
