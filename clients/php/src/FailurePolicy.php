<?php

declare(strict_types=1);

namespace Tollgate;

use Tollgate\Exception\InvalidArgumentException;
use Tollgate\Exception\UnavailableException;

/**
 * What a hit answers when Redis cannot within the call's deadline (a refused connection, a
 * timeout, BUSY, LOADING): `report` throws the UnavailableException, `allow` lets the hit
 * through, `deny` refuses it, `insurance` asks an in-process InsuranceLimiter. Refusals and bad
 * data (TG_INVALID, WRONGTYPE, NOPERM) are always thrown: allowing through them would hide a
 * broken setup. The mode comes from the call, else the Limiter, else the policy's `on_error`.
 */
final class FailurePolicy
{
    public const MODES = ['report', 'allow', 'deny', 'insurance'];

    public static function checkMode(?string $mode): ?string
    {
        if ($mode !== null && !in_array($mode, self::MODES, true)) {
            throw new InvalidArgumentException("unknown failure policy '$mode' (report, allow, deny or insurance)");
        }
        return $mode;
    }

    public static function answer(?string $mode, ?Policy $policy, string $user, ?int $cost, bool $count, UnavailableException $error, ?InsuranceLimiter $insurance): Decision
    {
        $mode ??= 'report';
        if ($mode === 'report' || ($mode === 'insurance' && $policy === null)) {
            throw $error;
        }
        if ($mode === 'insurance') {
            [$allowed, $tier, $used, $limit, $remaining, $reset, $retry] =
                ($insurance ?? InsuranceLimiter::shared())->hit($policy, $user, $cost ?? $policy->cost, $count);
        } else {
            $allowed = $mode === 'allow';
            [$tier, $used, $limit, $remaining, $reset, $retry] = [$allowed ? 'ok' : 'deny', 0, 0, 0, 0, 0];
        }
        // A shadow policy denies nobody, not even while Redis is away: the would-be answer stays.
        $shadow = $policy !== null && $policy->shadow && $count;
        if ($shadow) {
            $allowed = true;
        }
        return new Decision($allowed, $tier, $used, $limit, $remaining, $reset, $retry,
            $allowed ? null : $policy?->message, Decision::SOURCE_FAILURE_POLICY, $policy,
            '', $shadow ? 1 : 0, null, null, $error->getMessage(), $mode);
    }
}
