<?php

declare(strict_types=1);

namespace Tollgate\Tests;

use PHPUnit\Framework\TestCase;
use Tollgate\Exception\BadPolicyException;
use Tollgate\Exception\ContractException;
use Tollgate\Policy;

/** The policy hash read as lua/README.md ("The policy hash") and the C++ Policy::fromFields read it. */
final class PolicyTest extends TestCase
{
    public function testFieldsAndDefaults(): void
    {
        $p = Policy::fromFields('like', ['windows' => '60000:10,3600000:100', 'warn' => '5', 'ban_ms' => '60000',
            'message' => 'Slow down', 'on_error' => 'allow', 'revision' => '3', 'contract' => '3', 'unknown' => 'ignored']);
        $this->assertSame([[10, 60000], [100, 3600000]], $p->windows);
        $this->assertSame('fixed_window', $p->algorithm);
        $this->assertSame(1, $p->cost);
        $this->assertSame(5, $p->warn);
        $this->assertSame('Slow down', $p->message);
        $this->assertSame('allow', $p->onError);
        $this->assertSame(3, $p->revision);
        $this->assertTrue($p->hasBan());
    }

    public function testGcraIsTokenBucket(): void
    {
        $this->assertSame('token_bucket', Policy::fromFields('a', ['windows' => '1000:10', 'algorithm' => 'gcra'])->algorithm);
    }

    public function testOlderContractsReadTheSame(): void
    {
        $this->assertSame(1, Policy::fromFields('a', ['windows' => '1000:1', 'contract' => '2'])->windows[0][0]);
        $this->assertSame(1, Policy::fromFields('a', ['windows' => '1000:1'])->windows[0][0]);
    }

    public function testLaterContractIsRefused(): void
    {
        $this->expectException(ContractException::class);
        $this->expectExceptionMessage('contract 4');
        Policy::fromFields('a', ['windows' => '1000:1', 'contract' => '4']);
    }

    public static function malformed(): array
    {
        return [
            'no windows' => [['algorithm' => 'fixed_window']],
            'windows words' => [['windows' => 'thirty']],
            'unknown algorithm' => [['windows' => '1000:1', 'algorithm' => 'leaky']],
            'cost not a number' => [['windows' => '1000:1', 'cost' => 'one']],
            'warn at the limit' => [['windows' => '1000:5', 'warn' => '5']],
            'window twice' => [['windows' => '1000:5,1000:6']],
            'nine windows' => [['windows' => '1:1,2:1,3:1,4:1,5:1,6:1,7:1,8:1,9:1']],
            'sliding log too large' => [['windows' => '1000:100001', 'algorithm' => 'sliding_log']],
            'calendar of 2 minutes' => [['windows' => '120000:5', 'align' => 'calendar']],
            'unknown on_error' => [['windows' => '1000:1', 'on_error' => 'maybe']],
            'unknown zone' => [['windows' => '1000:1', 'ban_until' => 'midnight', 'tz' => 'Mars/Olympus']],
            'ban and midnight' => [['windows' => '1000:1', 'ban_until' => 'midnight', 'ban_ms' => '1000']],
        ];
    }

    /** @dataProvider malformed */
    public function testMalformedIsABadPolicy(array $fields): void
    {
        $this->expectException(BadPolicyException::class);
        Policy::fromFields('a', $fields);
    }

    public function testLocalTimeOffsets(): void
    {
        $this->assertSame('0', Policy::fromFields('a', ['windows' => '1000:1', 'tz' => 'Europe/Berlin'])->offsets());
        $midnight = Policy::fromFields('a', ['windows' => '1000:1', 'ban_until' => 'midnight', 'tz' => 'Europe/Berlin']);
        $this->assertMatchesRegularExpression('/^(3600000|7200000)(,\d+:(3600000|7200000))*$/', $midnight->offsets());
        // Saved before zones had names: the fixed offset as it is.
        $fixed = Policy::fromFields('a', ['windows' => '1000:1', 'ban_until' => 'midnight', 'tz_offset_ms' => '7200000']);
        $this->assertSame('7200000', $fixed->offsets());
    }

    public function testOverrideWindowsAreCappedToWhatTheAlgorithmHolds(): void
    {
        $p = Policy::fromFields('a', ['windows' => '1000:5', 'algorithm' => 'sliding_log']);
        $this->assertSame([[100000, 60000]], $p->withWindows([[500000, 60000]])->windows);
    }
}
