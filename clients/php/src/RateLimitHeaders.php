<?php

declare(strict_types=1);

namespace Tollgate;

/**
 * The header fields of draft-ietf-httpapi-ratelimit-headers from a decision, byte for byte as
 * the C++ rateLimitHeaders() (core/http/RateLimitHeaders) and tollgated write them
 * (lua/README.md, "RateLimit header fields from the reply").
 */
final class RateLimitHeaders
{
    /** @return array<string,string> RateLimit-Policy, RateLimit, and Retry-After when refused */
    public static function of(Decision $d, string $partitionKey = ''): array
    {
        $policy = $d->policy;
        if ($policy === null) {
            return [];
        }
        $pk = $partitionKey === '' ? '' : ';pk=:' . base64_encode($partitionKey) . ':';
        $items = [];
        $binding = null;
        foreach ($policy->windows as [$limit, $ms]) {
            // w is whole seconds: a window under a second is announced as one.
            $items[] = self::name($policy->action, $ms) . ";q=$limit;w=" . max(1, self::ceilSeconds($ms)) . $pk;
            if ($binding === null && $limit === $d->limit) {
                $binding = $ms; // the reply names no window: the first with its limit
            }
        }
        $binding ??= $policy->windows[0][1];
        // A ban refuses everything until it ends: nothing remains, and the quota comes back
        // when the ban (or the longer wait of a denial) is over.
        $remaining = $d->tier === 'banned' ? 0 : max(0, $d->remaining);
        $reset = !$d->allowed && $d->retryAfterMs > $d->resetMs ? $d->retryAfterMs : $d->resetMs;
        $fields = [
            'RateLimit-Policy' => implode(', ', $items),
            'RateLimit' => self::name($policy->action, $binding) . ";r=$remaining;t=" . self::ceilSeconds($reset) . $pk,
        ];
        if (!$d->allowed && $d->retryAfterMs >= 0) {
            $fields['Retry-After'] = (string) self::ceilSeconds($d->retryAfterMs);
        }
        return $fields;
    }

    /** `"<action>-<window>"`: printable ASCII, '%' and other bytes percent-escaped, '"' '\' backslash-escaped. */
    public static function name(string $action, int $windowMs): string
    {
        $quoted = preg_replace_callback('/[^\x20-\x7e]|%/', static fn ($m) => sprintf('%%%02X', ord($m[0])), $action);
        return '"' . addcslashes($quoted, '"\\') . '-' . Duration::format($windowMs) . '"';
    }

    /** Whole seconds, rounded up: a client that waits `t` seconds never comes back too early. */
    private static function ceilSeconds(int $ms): int
    {
        return $ms <= 0 ? 0 : intdiv($ms + 999, 1000);
    }
}
