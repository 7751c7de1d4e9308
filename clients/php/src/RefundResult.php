<?php

declare(strict_types=1);

namespace Tollgate;

/** What refund.lua answers: the state after the call of the window with the smallest remaining. */
final class RefundResult
{
    public function __construct(
        /** false: nothing was written (a refund of empty windows) */
        public readonly bool $changed,
        /** a penalty crossed a limit of a policy that bans */
        public readonly bool $banCreated,
        public readonly int $count,
        public readonly int $limit,
        public readonly int $remaining,
        public readonly int $resetMs,
        /** the end of the ban created, epoch ms; 0 = none */
        public readonly int $banUntilMs,
    ) {
    }

    public static function fromReply(mixed $reply): self
    {
        if (!is_array($reply) || count($reply) < 7) {
            throw new Exception\TollgateException('malformed reply from refund.lua');
        }
        $n = array_map('intval', $reply);
        return new self($n[0] === 1, $n[1] === 1, $n[2], $n[3], $n[4], $n[5], $n[6]);
    }
}
