<?php

declare(strict_types=1);

namespace Tollgate\Redis;

/** An error reply of the server, as its text ("NOSCRIPT No matching script", "TG_INVALID ..."). */
final class ReplyError extends \RuntimeException
{
    public function code(): string
    {
        $space = strpos($this->message, ' ');
        return $space === false ? $this->message : substr($this->message, 0, $space);
    }

    public function detail(): string
    {
        $space = strpos($this->message, ' ');
        return $space === false ? '' : substr($this->message, $space + 1);
    }
}
