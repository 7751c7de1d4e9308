<?php

declare(strict_types=1);

namespace Tollgate;

use Tollgate\Exception\InvalidArgumentException;
use Tollgate\Exception\UnavailableException;
use Tollgate\Redis\ArgvEvalSha;
use Tollgate\Redis\Connection;
use Tollgate\Redis\ReplyError;

/**
 * Hits, peeks, refunds and penalties against the policies stored in Redis (or given inline),
 * each one atomic script call (lua/README.md). One Limiter per Redis connection and prefix.
 *
 *     $limiter = new Tollgate\Limiter($redis, 'tg');
 *     $decision = $limiter->hit('comment', '42');
 *     if (!$decision->allowed) { ... $decision->message, $decision->retryAfterMs ... }
 *
 * Options: `policies` (action => Policy or its hash fields: used instead of Redis), `policyTtl`
 * (seconds a policy read from Redis is used before it is read again, default 2), `onError`
 * (allow, deny, report or insurance: the failure policy for every call, instead of the
 * policy's `on_error`), `timeout` (the deadline of each call in seconds, default 1), `insurance`
 * (an InsuranceLimiter of your own), `scripts` (another folder of assembled scripts), `stats`
 * (true: add the outcomes up for the console's dashboard, HitStats).
 */
final class Limiter
{
    private const MAX_REMEMBERED_OVERRIDES = 4096;
    private const OPTIONS = ['policies', 'policyTtl', 'onError', 'timeout', 'insurance', 'scripts', 'stats'];

    public readonly Connection $redis;
    public readonly KeySchema $schema;
    private Scripts $scripts;
    private PolicyCache $policies;
    private float $timeout;
    private ?string $onError;
    private ?InsuranceLimiter $insurance;
    private ?HitStats $stats;
    /** hit.lua's SHA1, once known */
    private ?string $hitSha = null;
    /** The connection again when it takes a call's keys and arguments in one array (both shipped adapters do) */
    private ?ArgvEvalSha $argv;
    /**
     * @var array<string,array{PreparedHit,float}> action => its policy's prepared call, and until
     * when (microtime) the policy is current without asking the PolicyCache (PolicyCache::usableUntil)
     */
    private array $prepared = [];
    /** @var array<string,list<array{int,int}>> "action\0user" => the override windows last redirected to */
    private array $overrideTargets = [];

    public function __construct(mixed $redis, string $prefix = 'tg', array $options = [])
    {
        if ($unknown = array_diff(array_keys($options), self::OPTIONS)) {
            throw new InvalidArgumentException("unknown Limiter option '" . implode("', '", $unknown) . "' (" . implode(', ', self::OPTIONS) . ')');
        }
        if (($options['timeout'] ?? 1) <= 0 || ($options['policyTtl'] ?? 0) < 0) {
            throw new InvalidArgumentException('timeout must be above 0 seconds and policyTtl at least 0');
        }
        $this->redis = Connections::wrap($redis);
        $this->argv = $this->redis instanceof ArgvEvalSha ? $this->redis : null;
        $this->schema = new KeySchema($prefix, $this->redis->isCluster());
        $this->scripts = new Scripts($this->redis, $options['scripts'] ?? null);
        $this->policies = new PolicyCache($this->redis, $this->schema, (float) ($options['policyTtl'] ?? 2.0), $options['policies'] ?? []);
        $this->timeout = (float) ($options['timeout'] ?? 1.0);
        $this->onError = FailurePolicy::checkMode($options['onError'] ?? null);
        $this->insurance = $options['insurance'] ?? null;
        $this->stats = ($options['stats'] ?? false) ? new HitStats($this->redis, $this->schema, $this->scripts) : null;
    }

    public function scripts(): Scripts
    {
        return $this->scripts;
    }

    /** Ban, unban, reset and overrides for support tooling, audited by the same scripts. */
    public function moderation(): Moderation
    {
        return new Moderation($this->redis, $this->schema, $this->scripts, $this->timeout);
    }

    /**
     * The action's policy: inline, cached, or read now (HGETALL <p>:policy:<action>).
     * NoPolicyException when there is none, BadPolicyException / ContractException when the
     * stored hash cannot be read.
     */
    public function policy(string $action): Policy
    {
        KeySchema::checkId($action, 'action');
        $this->redis->setDeadline($this->timeout);
        return $this->policies->get($action);
    }

    /** Forgets the cached policies (one action, or all): the next call reads them again. */
    public function forgetPolicies(?string $action = null): void
    {
        $this->policies->forget($action);
        if ($action === null) {
            $this->prepared = [];
        } else {
            unset($this->prepared[$action]);
        }
    }

    /**
     * Counts a hit of $cost units (null = the policy's cost). A shadow policy's hit is counted and
     * reported as enforcing would decide it, but always allowed.
     *
     * @param array{onError?:string,timeout?:float} $call the failure policy and deadline of this call
     */
    public function hit(string $action, string $user, ?int $cost = null, array $call = []): Decision
    {
        // Most hits, in as few PHP operations as a hit takes (beside the round trip, what a PHP
        // process pays per hit is mostly this): the policy current and in the short form, no cost
        // or call options, no override remembered for the user, a shipped adapter. decide() does
        // everything else, and the rest of these hits' errors.
        $entry = $this->prepared[$action] ?? null;
        if ($entry === null || $this->argv === null || $cost !== null || $call !== [] || !$entry[0]->short
            || $user === '' || \strlen($user) > KeySchema::MAX_ID_BYTES
            || ($entry[1] !== \INF && \microtime(true) >= $entry[1])
            || ($this->overrideTargets !== [] && isset($this->overrideTargets[$action . "\0" . $user]))) {
            return $this->decide(false, $action, $user, $cost, $call);
        }
        $prepared = $entry[0];
        $policy = $prepared->policy;
        // The keys into the prepared call (KeySchema::userBase(), the common id without a call).
        $base = $prepared->head . (\preg_match(KeySchema::ALL_PLAIN, $user) === 1 ? $user : KeySchema::escape($user));
        $argv = $prepared->hitArgv;
        foreach ($prepared->shortSuffixes as $i => $suffix) {
            $argv[$i] = $base . $suffix;
        }
        try {
            $reply = $this->argv->evalShaArgv($this->hitSha ??= $this->scripts->sha('hit'), $argv, $prepared->shortKeyCount, $this->timeout);
        } catch (ReplyError $e) {
            return $this->afterErrorReply($e, $action, $user, $policy);
        } catch (UnavailableException $e) {
            return FailurePolicy::answer($this->failureMode(null, $policy), $policy, $user, null, true, $e, $this->insurance);
        }
        $decision = Decision::fromReply($reply, $policy);
        $this->stats?->record($decision, $policy->cost);
        return $decision;
    }

    /** What a hit of $cost would get, written nowhere (EVALSHA_RO: a read-only ACL user may peek). */
    public function peek(string $action, string $user, ?int $cost = null, array $call = []): Decision
    {
        return $this->decide(true, $action, $user, $cost, $call);
    }

    /** Gives back $cost units (null = the policy's) in every window, e.g. when the request failed. */
    public function refund(string $action, string $user, ?int $cost = null, array $call = []): RefundResult
    {
        return $this->refundCall('refund', $action, $user, $cost, '', '', $call);
    }

    /**
     * Counts $cost extra units in every window, past the limit too; bans as the policy says when
     * a hit of that cost would have been denied (audited with $actor and $reason, both required).
     */
    public function penalize(string $action, string $user, int $cost, string $actor, string $reason, array $call = []): RefundResult
    {
        if (trim($actor) === '' || trim($reason) === '') {
            throw new InvalidArgumentException('a penalty needs an actor and a reason');
        }
        return $this->refundCall('penalize', $action, $user, $cost, $actor, $reason, $call);
    }

    private function decide(bool $peek, string $action, string $user, ?int $cost, array $call): Decision
    {
        if ($user === '' || \strlen($user) > KeySchema::MAX_ID_BYTES) {
            KeySchema::checkId($user, 'user id'); // what every hit pays is checked here, inline
        }
        if ($cost !== null) {
            self::checkCost($cost);
        }
        $callMode = $call === [] ? null : FailurePolicy::checkMode($call['onError'] ?? null);
        $this->redis->setDeadline(isset($call['timeout']) ? (float) $call['timeout'] : $this->timeout);
        // Most hits find their policy's call prepared and current here, without a call.
        $entry = $this->prepared[$action] ?? null;
        if ($entry === null || ($entry[1] !== \INF && \microtime(true) >= $entry[1])) {
            try {
                $prepared = $this->prepare($action);
            } catch (UnavailableException $e) {
                return FailurePolicy::answer($callMode ?? $this->onError, null, $user, $cost, !$peek, $e, $this->insurance);
            }
        } else {
            $prepared = $entry[0];
        }
        $policy = $prepared->policy;
        if ($this->overrideTargets !== [] && isset($this->overrideTargets[$action . "\0" . $user])) {
            $prepared = new PreparedHit($policy->withWindows($this->overrideTargets[$action . "\0" . $user]), $this->schema, true);
        }
        try {
            for ($redirects = 0; ; ++$redirects) {
                try {
                    [$keys, $args] = $prepared->call($peek, $user, $cost);
                    $decision = Decision::fromReply($this->scripts->run('hit', $keys, $args, $peek), $policy);
                    if (!$peek) {
                        $this->stats?->record($decision, $cost ?? $policy->cost);
                    }
                    return $decision;
                } catch (OverrideRedirect $redirect) {
                    if ($redirects >= 2) {
                        throw new Exception\TollgateException("the override of user $user keeps changing: " . $redirect->getMessage());
                    }
                    $prepared = $this->redirected($policy, $user, $redirect);
                }
            }
        } catch (UnavailableException $e) {
            return FailurePolicy::answer($this->failureMode($callMode, $policy), $policy, $user, $cost, !$peek, $e, $this->insurance);
        }
    }

    /** What hit() does with an error reply to its EVALSHA. */
    private function afterErrorReply(ReplyError $e, string $action, string $user, Policy $policy): Decision
    {
        $error = $e->code() === 'NOSCRIPT' ? null : Errors::fromReply($e);
        if ($error === null || $error instanceof OverrideRedirect) {
            // The script counted nothing: the hit goes again by the way that loads the script
            // (EVAL) or follows the override.
            return $this->decide(false, $action, $user, null, []);
        }
        if ($error instanceof UnavailableException) { // BUSY, LOADING ...: as for a timeout
            return FailurePolicy::answer($this->failureMode(null, $policy), $policy, $user, null, true, $error, $this->insurance);
        }
        throw $error;
    }

    /** The failure policy of a call: its own, else the Limiter's, else the policy's on_error. */
    private function failureMode(?string $callMode, Policy $policy): string
    {
        return $callMode ?? $this->onError ?? ($policy->onError === '' ? 'report' : $policy->onError);
    }

    /**
     * The action's policy as the PolicyCache has it (read now when its ttl is over), its call
     * prepared again only when the policy changed.
     */
    private function prepare(string $action): PreparedHit
    {
        $policy = $this->policies->get($action);
        $prepared = $this->prepared[$action][0] ?? null;
        if ($prepared === null || $prepared->policy !== $policy) {
            $prepared = new PreparedHit($policy, $this->schema);
        }
        $this->prepared[$action] = [$prepared, $this->policies->usableUntil($action)];
        return $prepared;
    }

    private function refundCall(string $mode, string $action, string $user, ?int $cost, string $actor, string $reason, array $call): RefundResult
    {
        KeySchema::checkId($user, 'user id');
        self::checkCost($cost);
        $this->redis->setDeadline((float) ($call['timeout'] ?? $this->timeout));
        $prepared = $this->prepare($action);
        $policy = $prepared->policy;
        if ($this->overrideTargets !== [] && isset($this->overrideTargets[$action . "\0" . $user])) {
            $prepared = new PreparedHit($policy->withWindows($this->overrideTargets[$action . "\0" . $user]), $this->schema, true);
        }
        for ($redirects = 0; ; ++$redirects) {
            [$keys, $args] = $prepared->refundCall($mode, $user, $cost, $actor, $reason);
            try {
                return RefundResult::fromReply($this->scripts->run('refund', $keys, $args));
            } catch (OverrideRedirect $redirect) {
                if ($redirects >= 2) {
                    throw new Exception\TollgateException("the override of user $user keeps changing: " . $redirect->getMessage());
                }
                $prepared = $this->redirected($policy, $user, $redirect);
            }
        }
    }

    /**
     * The call again with the windows TG_OVERRIDE names (lua/README.md, "Overrides"); the user's
     * next hits go there at once (the script checks them: a stale entry costs one redirect).
     */
    private function redirected(Policy $policy, string $user, OverrideRedirect $redirect): PreparedHit
    {
        $target = $policy->action . "\0" . $user;
        $windows = $redirect->windows();
        if ($windows === null) {
            unset($this->overrideTargets[$target]);
            return $this->prepared[$policy->action][0] ?? new PreparedHit($policy, $this->schema);
        }
        if (count($this->overrideTargets) >= self::MAX_REMEMBERED_OVERRIDES) {
            $this->overrideTargets = [];
        }
        $this->overrideTargets[$target] = $windows;
        return new PreparedHit($policy->withWindows($windows), $this->schema, true);
    }

    private static function checkCost(?int $cost): void
    {
        if ($cost === null) {
            return;
        }
        if ($cost < 1 || $cost > Policy::MAX_LIMIT) {
            throw new InvalidArgumentException('cost must be between 1 and ' . Policy::MAX_LIMIT . ", got $cost");
        }
    }
}
