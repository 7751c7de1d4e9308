<?php

declare(strict_types=1);

namespace Tollgate;

/**
 * What a hit or a peek answers (hit.lua's reply, lua/README.md), or what the failure policy
 * answered while Redis could not. Durations are in milliseconds; retryAfterMs -1 = never
 * (a permanent ban).
 *
 * The fields are plain public properties, not readonly ones: PHP 8.2 writes a readonly property
 * by its slow path, which made building a Decision a quarter of a hit's own work. Read them;
 * writing one changes that object and nothing else.
 */
final class Decision
{
    public const SOURCE_REDIS = 'redis';
    public const SOURCE_FAILURE_POLICY = 'failure_policy';
    private const TIERS = ['ok' => true, 'warn' => true, 'deny' => true, 'banned' => true];

    public function __construct(
        public bool $allowed,
        /** ok, warn, deny or banned */
        public string $tier,
        public int $count,
        public int $limit,
        public int $remaining,
        public int $resetMs,
        public int $retryAfterMs,
        /** The policy's message when not allowed, else null. */
        public ?string $message,
        /** redis, or failure_policy (Redis did not answer in time; see $redisError) */
        public string $source,
        /** The policy the hit was weighed against (its windows give the header fields); null when Redis could not even give the policy. */
        public ?Policy $policy,
        /** The override that decided: '', 'limit' or 'unlimited'. */
        public string $override = '',
        /** 0, or for a shadow policy's hit 1, or 2 when enforcing would have banned. */
        public int $shadow = 0,
        /** A peek's: the window's count and ms until empty as it stands, before the hit weighed. */
        public ?int $countNow = null,
        public ?int $resetNowMs = null,
        /** Why Redis could not answer, when the failure policy did. */
        public ?string $redisError = null,
        /** For the failure policy's answers: allow, deny or insurance. */
        public ?string $failureMode = null,
    ) {
    }

    /** An empty decision from Redis, cloned for each reply: a clone runs no constructor. */
    private static ?self $blank = null;

    /** @param list<mixed> $reply hit.lua's 7, 9 or 11 elements */
    public static function fromReply(array $reply, Policy $policy): self
    {
        if (!isset($reply[6]) || !\is_string($reply[1]) || !isset(self::TIERS[$reply[1]])) {
            throw new Exception\TollgateException('malformed reply from hit.lua: ' . \substr(\json_encode($reply) ?: '?', 0, 200));
        }
        $d = clone (self::$blank ??= new self(false, 'ok', 0, 0, 0, 0, 0, null, self::SOURCE_REDIS, null));
        $d->allowed = (int) $reply[0] === 1;
        $d->tier = $reply[1];
        $d->count = (int) $reply[2];
        $d->limit = (int) $reply[3];
        $d->remaining = (int) $reply[4];
        $d->resetMs = (int) $reply[5];
        $d->retryAfterMs = (int) $reply[6];
        $d->policy = $policy;
        if (!$d->allowed) {
            $d->message = $policy->message;
        }
        if (isset($reply[8])) {
            $d->override = (string) $reply[7];
            $d->shadow = (int) $reply[8];
            if (isset($reply[10])) {
                $d->countNow = (int) $reply[9];
                $d->resetNowMs = (int) $reply[10];
            }
        }
        return $d;
    }

    /** Whether enforcing would have refused this shadow hit. */
    public function wouldDeny(): bool
    {
        return $this->shadow > 0 && ($this->tier === 'deny' || $this->tier === 'banned');
    }

    /**
     * RateLimit-Policy, RateLimit and (when refused) Retry-After, exactly as the C++
     * rateLimitHeaders() writes them; $partitionKey adds `;pk=:<base64>:` to every item.
     *
     * @return array<string,string>
     */
    public function headers(string $partitionKey = ''): array
    {
        return RateLimitHeaders::of($this, $partitionKey);
    }
}
