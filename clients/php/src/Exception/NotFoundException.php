<?php

declare(strict_types=1);

namespace Tollgate\Exception;

/** What the call names does not exist (TG_NOTFOUND). */
final class NotFoundException extends TollgateException
{
    public const KIND = 'notfound';
}
