<?php

declare(strict_types=1);

namespace Tollgate\Exception;

/** No policy is stored for the action (and none was given inline). */
final class NoPolicyException extends TollgateException
{
    public const KIND = 'no_policy';
}
