<?php

declare(strict_types=1);

namespace Tollgate;

use Tollgate\Exception\InvalidArgumentException;

/**
 * Key names exactly as lua/README.md ("Conventions") builds them; the scripts refuse any other
 * spelling. Ids are percent-escaped so that no id holds ':' '{' '}' or glob characters: every
 * key of a user shares the hash tag {<user>} (one Cluster slot) and no id aliases another's keys.
 * On a Redis Cluster the policy keys carry the fixed tag "{:}", which no escaped id can produce.
 */
final class KeySchema
{
    public const MAX_ID_BYTES = 1024;
    /** ASCII bytes that stay raw; every other byte below 0x80 is written %XX. */
    private const PLAIN = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.@+=!~,;#&$()\'/<>|^`"';

    /** An id of PLAIN bytes only, which escape() gives back as it is (PreparedHit tests it inline). */
    public const ALL_PLAIN = '~\A[A-Za-z0-9\-_.@+=!\~,;#&$()\'/<>|^`"]*\z~';

    public readonly string $prefix;
    /** "<p>:" or, on a cluster, "<p>:{:}:": where the policies, their index and audit live. */
    private string $policyBase;

    public function __construct(string $prefix = 'tg', public readonly bool $cluster = false)
    {
        self::checkPrefix($prefix);
        $this->prefix = $prefix;
        $this->policyBase = $cluster ? "$prefix:{:}:" : "$prefix:";
    }

    /**
     * 1..64 bytes of printable ASCII other than : * ? [ ] \ { } %: a glob character would make
     * the console's SCAN patterns match other deployments' keys, a ':' would let two prefixes
     * alias ("a:policy:audit" is prefix "a:policy"'s audit and prefix "a"'s policy "audit").
     */
    public static function checkPrefix(string $prefix): void
    {
        if ($prefix === '' || strlen($prefix) > 64 || preg_match('/[^\x21-\x7e]|[:*?\[\]\\\\{}%]/', $prefix)) {
            throw new InvalidArgumentException(
                "key prefix '$prefix' must be 1 to 64 bytes of printable ASCII other than : * ? [ ] \\ { } %"
            );
        }
    }

    /** Non-empty and at most 1024 bytes; $what names the id in the message. */
    public static function checkId(string $id, string $what): void
    {
        if ($id === '') {
            throw new InvalidArgumentException("$what must not be empty");
        }
        if (strlen($id) > self::MAX_ID_BYTES) {
            throw new InvalidArgumentException(sprintf('%s is %d bytes long; at most %d bytes are allowed', $what, strlen($id), self::MAX_ID_BYTES));
        }
    }

    /** Plain ASCII and well-formed UTF-8 stay; every other byte becomes %XX (upper case). */
    public static function escape(string $id): string
    {
        // The common id first, by PCRE's compiled matcher: strspn() compares each byte with
        // every byte of its mask, a tenth of a hit's own work.
        if (preg_match(self::ALL_PLAIN, $id) === 1) {
            return $id;
        }
        $length = strlen($id);
        $plain = strspn($id, self::PLAIN);
        if ($plain === $length) {
            return $id; // the common id: nothing to escape
        }
        $out = substr($id, 0, $plain);
        for ($i = $plain; $i < $length; ++$i) {
            $byte = ord($id[$i]);
            if ($byte < 0x80) {
                $out .= strspn($id[$i], self::PLAIN) === 1 ? $id[$i] : sprintf('%%%02X', $byte);
                continue;
            }
            $sequence = self::utf8Length($id, $i);
            if ($sequence > 0) {
                $out .= substr($id, $i, $sequence);
                $i += $sequence - 1;
            } else {
                $out .= sprintf('%%%02X', $byte);
            }
        }
        return $out;
    }

    /**
     * Bytes of the well-formed UTF-8 sequence starting at $i (2..4), or 0: no overlong forms,
     * no surrogates, nothing above U+10FFFF (Unicode 15, table 3-7).
     */
    private static function utf8Length(string $s, int $i): int
    {
        $n = strlen($s);
        $b0 = ord($s[$i]);
        $cont = static fn (int $at, int $lo = 0x80, int $hi = 0xBF): bool => $at < $n && ($b = ord($s[$at])) >= $lo && $b <= $hi;
        if ($b0 >= 0xC2 && $b0 <= 0xDF) {
            return $cont($i + 1) ? 2 : 0;
        }
        if ($b0 >= 0xE0 && $b0 <= 0xEF) {
            [$lo, $hi] = $b0 === 0xE0 ? [0xA0, 0xBF] : ($b0 === 0xED ? [0x80, 0x9F] : [0x80, 0xBF]);
            return $cont($i + 1, $lo, $hi) && $cont($i + 2) ? 3 : 0;
        }
        if ($b0 >= 0xF0 && $b0 <= 0xF4) {
            [$lo, $hi] = $b0 === 0xF0 ? [0x90, 0xBF] : ($b0 === 0xF4 ? [0x80, 0x8F] : [0x80, 0xBF]);
            return $cont($i + 1, $lo, $hi) && $cont($i + 2) && $cont($i + 3) ? 4 : 0;
        }
        return 0;
    }

    /** "<p>:{<escaped user>}": every key of a user starts with it. */
    public function userBase(string $user): string
    {
        return $this->prefix . ':{' . self::escape($user) . '}';
    }

    public function stateKey(string $user, string $action, string $algorithmCode, int $windowMs): string
    {
        return $this->userBase($user) . ':' . self::escape($action) . ":$algorithmCode:$windowMs";
    }

    public function actionBanKey(string $user, string $action): string
    {
        return $this->userBase($user) . ':' . self::escape($action) . ':ban';
    }

    public function userBanKey(string $user): string
    {
        return $this->userBase($user) . ':ban';
    }

    public function userAuditKey(string $user): string
    {
        return $this->userBase($user) . ':audit';
    }

    public function overridesKey(string $user): string
    {
        return $this->userBase($user) . ':overrides';
    }

    /**
     * Where a script mirrors a user's audit entry: the global stream, or on a cluster the user's
     * own stream again ("no mirror": the global one is in another slot).
     */
    public function auditMirror(string $userAuditKey): string
    {
        return $this->cluster ? $userAuditKey : $this->prefix . ':audit';
    }

    public function overrideIndexKey(): string
    {
        return $this->policyBase . 'overrides';
    }

    public function policyKey(string $action): string
    {
        return $this->policyBase . 'policy:' . self::escape($action);
    }

    public function policyHistoryKey(string $action): string
    {
        return $this->policyKey($action) . ':history';
    }

    public function policyIndexKey(): string
    {
        return $this->policyBase . 'policies';
    }

    /** Where policy changes are audited: the global stream, or "<p>:{:}:audit" on a cluster. */
    public function policyAuditKey(): string
    {
        return $this->policyBase . 'audit';
    }

    /** The action's per-second statistics for the console (stats.lua). */
    public function statsKey(string $action): string
    {
        return $this->prefix . ':stats:' . self::escape($action);
    }

    public function eventsChannel(): string
    {
        return $this->prefix . ':events';
    }

    /** SCAN pattern of every key of a user: escaped ids hold no glob characters. */
    public function userPattern(string $user): string
    {
        return $this->userBase($user) . ':*';
    }
}
