<?php

declare(strict_types=1);

namespace Tollgate;

/**
 * What a hit or a peek answers (hit.lua's reply, lua/README.md), or what the failure policy
 * answered while Redis could not. Durations are in milliseconds; retryAfterMs -1 = never
 * (a permanent ban).
 */
final class Decision
{
    public const SOURCE_REDIS = 'redis';
    public const SOURCE_FAILURE_POLICY = 'failure_policy';
    private const TIERS = ['ok' => true, 'warn' => true, 'deny' => true, 'banned' => true];

    public function __construct(
        public readonly bool $allowed,
        /** ok, warn, deny or banned */
        public readonly string $tier,
        public readonly int $count,
        public readonly int $limit,
        public readonly int $remaining,
        public readonly int $resetMs,
        public readonly int $retryAfterMs,
        /** The policy's message when not allowed, else null. */
        public readonly ?string $message,
        /** redis, or failure_policy (Redis did not answer in time; see $redisError) */
        public readonly string $source,
        /** The policy the hit was weighed against (its windows give the header fields); null when Redis could not even give the policy. */
        public readonly ?Policy $policy,
        /** The override that decided: '', 'limit' or 'unlimited'. */
        public readonly string $override = '',
        /** 0, or for a shadow policy's hit 1, or 2 when enforcing would have banned. */
        public readonly int $shadow = 0,
        /** A peek's: the window's count and ms until empty as it stands, before the hit weighed. */
        public readonly ?int $countNow = null,
        public readonly ?int $resetNowMs = null,
        /** Why Redis could not answer, when the failure policy did. */
        public readonly ?string $redisError = null,
        /** For the failure policy's answers: allow, deny or insurance. */
        public readonly ?string $failureMode = null,
    ) {
    }

    /** @param list<mixed> $reply hit.lua's 7, 9 or 11 elements */
    public static function fromReply(array $reply, Policy $policy): self
    {
        if (!isset($reply[6]) || !is_string($reply[1]) || !isset(self::TIERS[$reply[1]])) {
            throw new Exception\TollgateException('malformed reply from hit.lua: ' . substr(json_encode($reply) ?: '?', 0, 200));
        }
        $allowed = (int) $reply[0] === 1;
        return new self(
            $allowed, $reply[1], (int) $reply[2], (int) $reply[3], (int) $reply[4], (int) $reply[5], (int) $reply[6],
            $allowed ? null : $policy->message, self::SOURCE_REDIS, $policy,
            isset($reply[8]) ? (string) $reply[7] : '',
            isset($reply[8]) ? (int) $reply[8] : 0,
            isset($reply[10]) ? (int) $reply[9] : null,
            isset($reply[10]) ? (int) $reply[10] : null,
        );
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
