<?php

declare(strict_types=1);

namespace Tollgate;

/** Durations written as Tollgate writes them everywhere: 1m, 1h30m, 500ms, 1w2d. */
final class Duration
{
    private const UNITS = ['w' => 604_800_000, 'd' => 86_400_000, 'h' => 3_600_000, 'm' => 60_000, 's' => 1000];

    public static function format(int $ms): string
    {
        if ($ms <= 0) {
            return '0s';
        }
        if ($ms % 1000 !== 0) {
            return $ms . 'ms';
        }
        $out = '';
        foreach (self::UNITS as $suffix => $unit) {
            if ($ms >= $unit) {
                $out .= intdiv($ms, $unit) . $suffix;
                $ms %= $unit;
            }
        }
        return $out;
    }
}
