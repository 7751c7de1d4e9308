<?php

declare(strict_types=1);

namespace Tollgate\Tests;

use PHPUnit\Framework\TestCase;
use Tollgate\Decision;
use Tollgate\Policy;
use Tollgate\RateLimitHeaders;

/**
 * The header fields byte for byte as the C++ rateLimitHeaders() writes them (the same
 * situations as its unit test: the draft's examples, a ban, a permanent ban, a partition key).
 */
final class RateLimitHeadersTest extends TestCase
{
    private static function decision(Policy $policy, bool $allowed, int $limit, int $remaining, int $resetMs, int $retryMs = 0, ?string $tier = null): Decision
    {
        return new Decision($allowed, $tier ?? ($allowed ? 'ok' : 'deny'), 0, $limit, $remaining, $resetMs, $retryMs, null, Decision::SOURCE_REDIS, $policy);
    }

    public function testOneWindow(): void
    {
        $h = self::decision(new Policy('default', [[100, 10_000]]), true, 100, 50, 30_000)->headers();
        $this->assertSame(['RateLimit-Policy' => '"default-10s";q=100;w=10', 'RateLimit' => '"default-10s";r=50;t=30'], $h);
    }

    public function testSeveralWindowsNameTheBindingOne(): void
    {
        $h = self::decision(new Policy('api', [[100, 60_000], [1000, 86_400_000]]), true, 1000, 3, 3_600_000)->headers();
        $this->assertSame('"api-1m";q=100;w=60, "api-1d";q=1000;w=86400', $h['RateLimit-Policy']);
        $this->assertSame('"api-1d";r=3;t=3600', $h['RateLimit']);
    }

    public function testDenialRoundsSecondsUp(): void
    {
        $h = self::decision(new Policy('like', [[10, 60_000]]), false, 10, 0, 42_300, 42_300)->headers();
        $this->assertSame('"like-1m";r=0;t=43', $h['RateLimit']);
        $this->assertSame('43', $h['Retry-After']);
    }

    public function testBanAndPermanentBan(): void
    {
        $p = new Policy('like', [[10, 60_000]]);
        $banned = self::decision($p, false, 10, 7, 5_000, 3_600_000, 'banned')->headers();
        $this->assertSame('"like-1m";r=0;t=3600', $banned['RateLimit']);
        $this->assertSame('3600', $banned['Retry-After']);
        $permanent = self::decision($p, false, 10, 0, 0, -1, 'banned')->headers();
        $this->assertArrayNotHasKey('Retry-After', $permanent);
        $this->assertSame('"like-1m";r=0;t=0', $permanent['RateLimit']);
    }

    public function testPartitionKeyIsAByteSequence(): void
    {
        $h = self::decision(new Policy('api', [[100, 60_000]]), true, 100, 99, 60_000)->headers('project123');
        $this->assertSame('"api-1m";q=100;w=60;pk=:cHJvamVjdDEyMw==:', $h['RateLimit-Policy']);
        $this->assertSame('"api-1m";r=99;t=60;pk=:cHJvamVjdDEyMw==:', $h['RateLimit']);
    }

    public static function names(): array
    {
        return [
            'plain' => ['like', 60_000, '"like-1m"'],
            'mixed units' => ['like', 5_400_000, '"like-1h30m"'],
            'sub-second' => ['like', 500, '"like-500ms"'],
            'quote and backslash' => ['a"b\\c', 1000, '"a\\"b\\\\c-1s"'],
            'not ASCII' => ["caf\u{e9}", 1000, '"caf%C3%A9-1s"'],
            'percent' => ['50%', 1000, '"50%25-1s"'],
        ];
    }

    /** @dataProvider names */
    public function testNamesAreStructuredStrings(string $action, int $windowMs, string $name): void
    {
        $this->assertSame($name, RateLimitHeaders::name($action, $windowMs));
    }

    public function testSubSecondWindowIsAnnouncedAsOneSecond(): void
    {
        $h = self::decision(new Policy('like', [[5, 500]]), true, 5, 4, 500)->headers();
        $this->assertSame('"like-500ms";q=5;w=1', $h['RateLimit-Policy']);
    }
}
