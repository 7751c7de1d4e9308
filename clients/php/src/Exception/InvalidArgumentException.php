<?php

declare(strict_types=1);

namespace Tollgate\Exception;

/** A bad argument: refused by the client (an empty id, cost 0) or by a script (TG_INVALID); nothing was written. */
final class InvalidArgumentException extends TollgateException
{
    public const KIND = 'invalid';
}
