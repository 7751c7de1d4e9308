<?php

declare(strict_types=1);

namespace Tollgate\Tests\Support;

use PHPUnit\Framework\TestCase;
use Tollgate\Limiter;
use Tollgate\PolicyWriter;

/** Tests against a private redis-server (one per test class, emptied before each test), with either adapter. */
abstract class RedisTestCase extends TestCase
{
    protected static ?RedisServer $server = null;

    public static function setUpBeforeClass(): void
    {
        self::$server = new RedisServer();
    }

    public static function tearDownAfterClass(): void
    {
        self::$server?->stop();
        self::$server = null;
    }

    protected function setUp(): void
    {
        self::$server->thaw();
        $admin = self::$server->phpredis();
        $admin->flushAll();
        $admin->close();
    }

    public static function adapters(): array
    {
        return ['phpredis' => ['phpredis'], 'predis' => ['predis']];
    }

    protected function limiter(string $adapter, array $options = [], string $prefix = 'tg'): Limiter
    {
        return new Limiter(self::$server->client($adapter), $prefix, $options);
    }

    /** Saves a policy with policy_set.lua, as tollgatectl policy set would. */
    protected function savePolicy(Limiter $limiter, string $action, array $fields): void
    {
        PolicyWriter::of($limiter)->save($action, $fields, 'tests');
    }

    protected function admin(): \Redis
    {
        return self::$server->phpredis();
    }
}
