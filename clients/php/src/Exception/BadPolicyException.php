<?php

declare(strict_types=1);

namespace Tollgate\Exception;

/** The policy hash (or an inline policy) is malformed: a field out of its range or enum. */
final class BadPolicyException extends TollgateException
{
    public const KIND = 'bad_policy';
}
