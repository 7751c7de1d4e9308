<?php

declare(strict_types=1);

namespace Tollgate;

use Tollgate\Exception;
use Tollgate\Redis\ReplyError;

/** The one place that reads Redis' and the scripts' error replies (lua/README.md, "Errors"). */
final class Errors
{
    /** @return Exception\TollgateException|OverrideRedirect */
    public static function fromReply(ReplyError $e): \RuntimeException
    {
        $detail = $e->detail();
        return match ($e->code()) {
            'TG_INVALID' => new Exception\InvalidArgumentException($detail, 0, $e),
            'TG_CORRUPT' => new Exception\CorruptDataException($detail, 0, $e),
            'WRONGTYPE' => new Exception\CorruptDataException($e->getMessage(), 0, $e),
            'TG_CONTRACT' => new Exception\ContractException($detail, 0, $e),
            'TG_NOPERM' => new Exception\PermissionException($detail, 0, $e),
            'NOPERM' => new Exception\PermissionException($e->getMessage(), 0, $e),
            'TG_CONFLICT' => new Exception\ConflictException($detail, 0, $e),
            'TG_NOTFOUND' => new Exception\NotFoundException($detail, 0, $e),
            'TG_OVERRIDE' => new OverrideRedirect($detail),
            // The server cannot serve right now: a failure policy stands in, as for a timeout.
            'BUSY', 'LOADING', 'TRYAGAIN', 'MASTERDOWN', 'CLUSTERDOWN', 'READONLY'
                => new Exception\UnavailableException($e->getMessage(), 0, $e),
            default => self::other($e),
        };
    }

    private static function other(ReplyError $e): Exception\TollgateException
    {
        // An ACL refusal inside a script arrives as a plain ERR.
        if (preg_match("/can't run this command|No permissions to access|has no permissions/", $e->getMessage())) {
            return new Exception\PermissionException($e->getMessage(), 0, $e);
        }
        return new Exception\TollgateException($e->getMessage(), 0, $e);
    }
}
