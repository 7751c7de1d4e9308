<?php

declare(strict_types=1);

namespace Tollgate\Tests\Support;

/** Where the conformance cases are: TOLLGATE_CONFORMANCE_CASES, else the repository's conformance/cases. */
final class Cases
{
    public static function directory(): string
    {
        return getenv('TOLLGATE_CONFORMANCE_CASES') ?: dirname(__DIR__, 4) . '/conformance/cases';
    }

    /** @return list<string> the case files, sorted */
    public static function files(): array
    {
        $files = glob(self::directory() . '/*.json') ?: [];
        sort($files);
        return $files;
    }
}
