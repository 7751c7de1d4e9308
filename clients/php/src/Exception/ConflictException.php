<?php

declare(strict_types=1);

namespace Tollgate\Exception;

/** A policy revision mismatch (TG_CONFLICT). */
final class ConflictException extends TollgateException
{
    public const KIND = 'conflict';
}
