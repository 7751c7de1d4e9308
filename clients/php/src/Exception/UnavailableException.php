<?php

declare(strict_types=1);

namespace Tollgate\Exception;

/** Redis did not answer within the deadline (or not at all) and the failure policy is to report it. */
final class UnavailableException extends TollgateException
{
    public const KIND = 'unavailable';
}
