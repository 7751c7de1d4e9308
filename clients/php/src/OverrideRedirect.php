<?php

declare(strict_types=1);

namespace Tollgate;

/**
 * hit.lua's and refund.lua's TG_OVERRIDE (lua/README.md, "Overrides"): the user's override needs
 * other windows than those sent. Internal: the Limiter sends the call again with them.
 */
final class OverrideRedirect extends \RuntimeException
{
    /** "policy" (send the policy's own windows), else the override's [limit, window_ms] pairs. */
    public function windows(): ?array
    {
        if ($this->message === 'policy') {
            return null;
        }
        $windows = [];
        foreach (explode(',', $this->message) as $pair) {
            if (!preg_match('/^(\d{1,15}):(\d{1,15})$/', $pair, $m) || (int) $m[1] < 1 || (int) $m[2] < 1) {
                throw new Exception\TollgateException("override windows '" . substr($this->message, 0, 200) . "' are not <window_ms>:<limit>,...");
            }
            $windows[] = [(int) $m[2], (int) $m[1]];
        }
        return $windows;
    }
}
