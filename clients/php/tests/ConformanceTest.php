<?php

declare(strict_types=1);

namespace Tollgate\Tests;

use Tollgate\Tests\Support\Cases;
use Tollgate\Tests\Support\ConformanceCase;
use Tollgate\Tests\Support\RedisClusterServers;
use Tollgate\Tests\Support\RedisTestCase;

/** Every case of conformance/cases, with phpredis and with Predis (a Redis Cluster's with phpredis' RedisCluster): one test each. */
final class ConformanceTest extends RedisTestCase
{
    private static ?RedisClusterServers $cluster = null;

    public static function tearDownAfterClass(): void
    {
        self::$cluster?->stop();
        self::$cluster = null;
        parent::tearDownAfterClass();
    }

    public static function cases(): array
    {
        $cases = [];
        foreach (['phpredis', 'predis'] as $adapter) {
            foreach (Cases::files() as $file) {
                $cases[basename($file, '.json') . " ($adapter)"] = [$adapter, $file];
            }
        }
        return $cases ?: ['no cases' => ['', '']];
    }

    /** @dataProvider cases */
    public function testCase(string $adapter, string $file): void
    {
        if ($file === '') {
            $this->markTestSkipped('no conformance cases in ' . Cases::directory());
        }
        $case = new ConformanceCase(self::$server, $adapter, $file,
            static fn () => self::$cluster ??= new RedisClusterServers());
        if (($why = $case->skipReason()) !== null) {
            $this->markTestSkipped($why);
        }
        $failure = $case->run();
        $this->assertNull($failure, basename($file) . ": $failure");
    }
}
