<?php

declare(strict_types=1);

namespace Tollgate\Exception;

/** The ACL user may not run a write the call needs (TG_NOPERM, NOPERM); nothing was written. */
final class PermissionException extends TollgateException
{
    public const KIND = 'noperm';
}
