<?php

declare(strict_types=1);

namespace Tollgate\Tests;

use Tollgate\Decision;
use Tollgate\Exception\ContractException;
use Tollgate\Exception\InvalidArgumentException;
use Tollgate\Exception\NoPolicyException;
use Tollgate\Exception\UnavailableException;
use Tollgate\Limiter;
use Tollgate\Policy;
use Tollgate\Tests\Support\RedisTestCase;

/** The Limiter against a real redis-server, with phpredis and with Predis. */
final class LimiterTest extends RedisTestCase
{
    /** @dataProvider adapters */
    public function testHitUntilDenied(string $adapter): void
    {
        $limiter = $this->limiter($adapter);
        $this->savePolicy($limiter, 'comment', ['windows' => '30000:2', 'message' => 'Slow down']);
        $first = $limiter->hit('comment', '42', 1);
        $this->assertTrue($first->allowed);
        $this->assertSame(['ok', 1, 2, 1, Decision::SOURCE_REDIS], [$first->tier, $first->count, $first->limit, $first->remaining, $first->source]);
        $this->assertNull($first->message);
        $limiter->hit('comment', '42');
        $denied = $limiter->hit('comment', '42');
        $this->assertFalse($denied->allowed);
        $this->assertSame('deny', $denied->tier);
        $this->assertSame('Slow down', $denied->message);
        $this->assertGreaterThan(29_000, $denied->retryAfterMs);
        $this->assertSame('"comment-30s";r=0;t=30', $denied->headers()['RateLimit']);
        $this->assertSame('30', $denied->headers()['Retry-After']);
    }

    /** @dataProvider adapters */
    public function testPeekWritesNothing(string $adapter): void
    {
        $limiter = $this->limiter($adapter);
        $this->savePolicy($limiter, 'comment', ['windows' => '30000:5']);
        $limiter->hit('comment', 'ann', 2);
        $peek = $limiter->peek('comment', 'ann', 1);
        $this->assertSame([3, 2], [$peek->count, $peek->countNow]);
        $this->assertSame(3, $limiter->hit('comment', 'ann')->count);
    }

    /** @dataProvider adapters */
    public function testShadowPolicyNeverDenies(string $adapter): void
    {
        $limiter = $this->limiter($adapter, ['policies' => ['trial' => ['windows' => '30000:1', 'shadow' => '1', 'ban_ms' => '60000']]]);
        $limiter->hit('trial', 'bo');
        $second = $limiter->hit('trial', 'bo');
        $this->assertTrue($second->allowed);
        $this->assertSame('deny', $second->tier);
        $this->assertSame(2, $second->shadow, 'enforcing would have banned');
        $this->assertTrue($second->wouldDeny());
    }

    /** @dataProvider adapters */
    public function testInlinePoliciesNeedNoPolicyHash(string $adapter): void
    {
        $limiter = $this->limiter($adapter, ['policies' => ['upload' => new Policy('upload', [[3, 60_000]], 'sliding_log')]]);
        $this->assertSame(3, $limiter->hit('upload', 'cy')->limit);
        $this->assertSame(0, $this->admin()->exists('tg:policy:upload'));
    }

    /** @dataProvider adapters */
    public function testMissingPolicyIsTyped(string $adapter): void
    {
        $this->expectException(NoPolicyException::class);
        $this->limiter($adapter)->hit('nothing', 'dee');
    }

    /** @dataProvider adapters */
    public function testPolicyIsCachedForItsTtl(string $adapter): void
    {
        $limiter = $this->limiter($adapter, ['policyTtl' => 60]);
        $this->savePolicy($limiter, 'comment', ['windows' => '30000:2']);
        $this->assertSame(2, $limiter->hit('comment', 'eve')->limit);
        $this->savePolicy($limiter, 'comment', ['windows' => '30000:7']);
        $this->assertSame(2, $limiter->hit('comment', 'eve')->limit, 'within the TTL');
        $limiter->forgetPolicies('comment');
        $this->assertSame(7, $limiter->hit('comment', 'eve')->limit);
        $fresh = $this->limiter($adapter, ['policyTtl' => 0]);
        $this->savePolicy($fresh, 'comment', ['windows' => '30000:9']);
        $this->assertSame(9, $fresh->hit('comment', 'eve')->limit);
    }

    /** @dataProvider adapters */
    public function testScriptFlushFallsBackToEvalOnce(string $adapter): void
    {
        $limiter = $this->limiter($adapter);
        $this->savePolicy($limiter, 'comment', ['windows' => '30000:5']);
        $limiter->hit('comment', 'fay');
        $admin = $this->admin();
        $admin->script('flush');
        $admin->rawCommand('CONFIG', 'RESETSTAT');
        $this->assertSame(2, $limiter->hit('comment', 'fay')->count);
        $this->assertSame(3, $limiter->hit('comment', 'fay')->count);
        $stats = $admin->info('commandstats');
        $this->assertStringContainsString('calls=1,', $stats['cmdstat_eval'] ?? '', 'one EVAL loads the script');
    }

    /** @dataProvider adapters */
    public function testDeadlineAndFailurePolicy(string $adapter): void
    {
        $limiter = $this->limiter($adapter);
        $this->savePolicy($limiter, 'comment', ['windows' => '30000:5', 'message' => 'Busy']);
        $limiter->hit('comment', 'gus');
        self::$server->freeze();
        try {
            $started = microtime(true);
            $open = $limiter->hit('comment', 'gus', null, ['onError' => 'allow', 'timeout' => 0.2]);
            $this->assertTrue($open->allowed);
            $this->assertSame(Decision::SOURCE_FAILURE_POLICY, $open->source);
            $closed = $limiter->hit('comment', 'gus', null, ['onError' => 'deny', 'timeout' => 0.2]);
            $this->assertFalse($closed->allowed);
            $this->assertSame('Busy', $closed->message);
            try {
                $limiter->hit('comment', 'gus', null, ['timeout' => 0.2]);
                $this->fail('a report policy throws');
            } catch (UnavailableException $e) {
                $this->assertSame('unavailable', $e->kind());
            }
            $this->assertLessThan(2.0, microtime(true) - $started, 'three calls of 200 ms each');
        } finally {
            self::$server->thaw();
        }
        // The three hits sent before their deadline still run when Redis resumes; what this call
        // reads is its own reply (5), never the late reply of a call that timed out (2).
        $this->assertSame(5, $limiter->hit('comment', 'gus')->count);
    }

    /** @dataProvider adapters */
    public function testInsuranceLimitsWhileRedisIsAway(string $adapter): void
    {
        $limiter = $this->limiter($adapter, ['onError' => 'insurance', 'timeout' => 0.1,
            'insurance' => new \Tollgate\InsuranceLimiter(0.5)]);
        $this->savePolicy($limiter, 'comment', ['windows' => '30000:4']);
        $limiter->hit('comment', 'hal');
        self::$server->freeze();
        try {
            $answers = array_map(fn () => $limiter->hit('comment', 'hal')->allowed, range(1, 3));
        } finally {
            self::$server->thaw();
        }
        $this->assertSame([true, true, false], $answers, 'half of the limit of 4, counted in this process');
    }

    /** @dataProvider adapters */
    public function testArgumentsAreChecked(string $adapter): void
    {
        $limiter = $this->limiter($adapter, ['policies' => ['a' => ['windows' => '1000:1']]]);
        foreach ([fn () => $limiter->hit('a', ''), fn () => $limiter->hit('a', 'x', 0), fn () => $limiter->hit('a', str_repeat('x', 1025)),
            fn () => $limiter->penalize('a', 'x', 1, '', 'why'), fn () => $limiter->hit('a', 'x', null, ['onError' => 'maybe'])] as $call) {
            try {
                $call();
                $this->fail('refused');
            } catch (InvalidArgumentException $e) {
                $this->assertSame('invalid', $e->kind());
            }
        }
    }

    public function testScriptsOfAnotherContractAreRefused(): void
    {
        $dir = sys_get_temp_dir() . '/tollgate-contract-' . getmypid();
        @mkdir($dir);
        file_put_contents("$dir/hit.lua", "--[[ hit.lua\nContract: 2 (old)\n]]\nreturn 2\n");
        try {
            $this->expectException(ContractException::class);
            $this->expectExceptionMessage('follows contract 2');
            $this->limiter('phpredis', ['scripts' => $dir, 'policies' => ['a' => ['windows' => '1000:1']]])->hit('a', 'x');
        } finally {
            @unlink("$dir/hit.lua");
            @rmdir($dir);
        }
    }

    public function testServerAnsweringAnotherContractIsRefused(): void
    {
        // A script that says contract 3 in its header but answers 4 when asked: the client asks
        // after it had to load it, and refuses.
        $dir = sys_get_temp_dir() . '/tollgate-contract-' . getmypid();
        @mkdir($dir);
        file_put_contents("$dir/hit.lua", "--[[ hit.lua\nContract: 3 (lua/README.md)\n]]\nif ARGV[1] == 'contract' then return 4 end\nreturn {1, 'ok', 1, 1, 0, 0, 0}\n");
        try {
            $this->expectException(ContractException::class);
            $this->expectExceptionMessage('answers contract 4');
            $this->limiter('predis', ['scripts' => $dir, 'policies' => ['a' => ['windows' => '1000:1']]])->hit('a', 'x');
        } finally {
            @unlink("$dir/hit.lua");
            @rmdir($dir);
        }
    }

    /** @dataProvider adapters */
    public function testStatisticsForTheConsole(string $adapter): void
    {
        $limiter = $this->limiter($adapter, ['stats' => true]);
        $this->savePolicy($limiter, 'comment', ['windows' => '30000:2', 'ban_ms' => '60000']);
        foreach (range(1, 4) as $i) {
            $limiter->hit('comment', 'ida', 1);
        }
        $limiter->peek('comment', 'ida');
        unset($limiter); // the end of a request: the counts go in one stats.lua call
        $totals = $this->admin()->hMGet('tg:stats:comment', ['total:h', 'total:c', 'total:d', 'total:b', 'total:ab']);
        $this->assertSame(['total:h' => '4', 'total:c' => '4', 'total:d' => '2', 'total:b' => '1', 'total:ab' => '1'], $totals);
    }

    public function testUnknownOptionIsRefused(): void
    {
        $this->expectException(InvalidArgumentException::class);
        $this->expectExceptionMessage("unknown Limiter option 'policyTTL'");
        $this->limiter('phpredis', ['policyTTL' => 5]);
    }

    public function testAdaptersAreChosenByClient(): void
    {
        $this->assertInstanceOf(\Tollgate\Redis\PhpRedisConnection::class, $this->limiter('phpredis')->redis);
        $this->assertInstanceOf(\Tollgate\Redis\PredisConnection::class, $this->limiter('predis')->redis);
        $this->expectException(InvalidArgumentException::class);
        new Limiter(new \stdClass());
    }
}
