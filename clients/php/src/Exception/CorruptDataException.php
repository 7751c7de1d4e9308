<?php

declare(strict_types=1);

namespace Tollgate\Exception;

/** A key of Tollgate's holds a value of the wrong type or shape (TG_CORRUPT, WRONGTYPE); nothing was written. */
final class CorruptDataException extends TollgateException
{
    public const KIND = 'corrupt';
}
