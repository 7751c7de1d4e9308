<?php

declare(strict_types=1);

namespace Tollgate\Exception;

/**
 * Every error Tollgate raises. kind() names it in the words of the conformance suite
 * (invalid, corrupt, no_policy, bad_policy, contract, noperm, unavailable, conflict, notfound),
 * so callers and tests branch on a value, never on a message.
 */
class TollgateException extends \RuntimeException
{
    public const KIND = 'error';

    public function kind(): string
    {
        return static::KIND;
    }
}
