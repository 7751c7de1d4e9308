<?php

declare(strict_types=1);

namespace Tollgate;

/**
 * hit.lua's ARGV[8] from PHP's own zone database (lua/README.md, "Time zones"): the offset in
 * force 2 days back, then every change for 40 days ahead, `<offset_ms>,<utc_ms>:<offset_ms>,...`.
 * Computed once a day per zone and process, as the C++ client does.
 */
final class ZoneOffsets
{
    private const DAY_MS = 86_400_000;
    /** @var array<string,array{int,string}> zone => [day, text] */
    private static array $cache = [];

    public static function isKnown(string $zone): bool
    {
        if ($zone === 'UTC') {
            return true;
        }
        try {
            new \DateTimeZone($zone);
            return preg_match('#^[A-Za-z_]+(/[A-Za-z0-9_+\-]+)*$#', $zone) === 1;
        } catch (\Exception) {
            return false;
        }
    }

    public static function aroundNow(string $zone): string
    {
        $now = (int) (microtime(true) * 1000);
        $day = intdiv($now, self::DAY_MS);
        if ((self::$cache[$zone][0] ?? -1) !== $day) {
            self::$cache[$zone] = [$day, self::between($zone, $now - 2 * self::DAY_MS, $now + 40 * self::DAY_MS)];
        }
        return self::$cache[$zone][1];
    }

    public static function between(string $zone, int $fromMs, int $toMs): string
    {
        $tz = new \DateTimeZone($zone);
        $transitions = $tz->getTransitions(intdiv($fromMs, 1000), intdiv($toMs, 1000));
        if ($transitions === false || $transitions === []) {
            return (string) ($tz->getOffset(new \DateTimeImmutable('@' . intdiv($fromMs, 1000))) * 1000);
        }
        // The first entry is the state at the start of the span; then only real offset changes.
        $offset = $transitions[0]['offset'] * 1000;
        $text = (string) $offset;
        foreach (array_slice($transitions, 1) as $change) {
            $at = $change['ts'] * 1000;
            $next = $change['offset'] * 1000;
            if ($at <= $fromMs || $next === $offset) {
                continue;
            }
            $text .= ",$at:$next";
            $offset = $next;
        }
        return $text;
    }
}
