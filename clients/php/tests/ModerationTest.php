<?php

declare(strict_types=1);

namespace Tollgate\Tests;

use Tollgate\Exception\InvalidArgumentException;
use Tollgate\Tests\Support\RedisTestCase;

/** Ban, unban, reset and overrides write their audit entries with the change (both streams). */
final class ModerationTest extends RedisTestCase
{
    /** @dataProvider adapters */
    public function testBanUnbanResetAreAudited(string $adapter): void
    {
        $limiter = $this->limiter($adapter);
        $this->savePolicy($limiter, 'comment', ['windows' => '30000:5']);
        $this->savePolicy($limiter, 'like', ['windows' => '30000:5']);
        $moderation = $limiter->moderation();
        $limiter->hit('comment', 'a:b');
        $limiter->hit('like', 'a:b');
        $ban = $moderation->ban('a:b', null, 60_000, 'spam wave', 'ops@host');
        $this->assertGreaterThan($ban['createdMs'], $ban['untilMs']);
        $moderation->ban('a:b', 'like', 0, 'forever', 'ops@host');
        $banned = $limiter->hit('comment', 'a:b');
        $this->assertSame('banned', $banned->tier);
        $this->assertSame(2, $moderation->unban('a:b', null, 'appeal accepted', 'ops@host'));
        $this->assertSame('ok', $limiter->hit('comment', 'a:b')->tier);
        $this->assertSame(1, $moderation->reset('a:b', 'comment', 'support ticket', 'ops@host'));
        $this->assertSame(1, $limiter->hit('comment', 'a:b')->count);
        $this->assertSame(2, $moderation->reset('a:b', null, 'support ticket', 'ops@host'), 'comment and like');

        $admin = $this->admin();
        $events = array_map(fn ($entry) => $entry['event'] . ' ' . $entry['reason'] . ' ' . $entry['actor'], array_values($admin->xRange('tg:{a%3Ab}:audit', '-', '+')));
        $this->assertSame(['ban spam wave ops@host', 'ban forever ops@host', 'unban appeal accepted ops@host',
            'reset support ticket ops@host', 'reset support ticket ops@host'], $events);
        $this->assertSame(5, $admin->xLen('tg:audit') - 2, 'mirrored in the global stream (after the two policy saves)');
    }

    /** @dataProvider adapters */
    public function testOverrides(string $adapter): void
    {
        $limiter = $this->limiter($adapter);
        $this->savePolicy($limiter, 'comment', ['windows' => '30000:1']);
        $moderation = $limiter->moderation();
        $moderation->setOverride('vip', 'comment', [[3, 10_000]], 60_000, 'trial', 'ops');
        $hits = array_map(fn () => $limiter->hit('comment', 'vip'), range(1, 4));
        $this->assertSame([true, true, true, false], array_map(fn ($d) => $d->allowed, $hits));
        $this->assertSame(['limit', 3], [$hits[0]->override, $hits[0]->limit]);
        $moderation->setOverride('vip', '*', null, 0, 'partner', 'ops');
        $this->assertTrue($moderation->deleteOverride('vip', 'comment', 'trial over', 'ops'));
        $exempt = $limiter->hit('comment', 'vip');
        $this->assertSame([true, 'unlimited'], [$exempt->allowed, $exempt->override]);
        $this->assertSame(1, $this->admin()->zCard('tg:overrides'));
    }

    /** @dataProvider adapters */
    public function testReasonAndActorAreRequired(string $adapter): void
    {
        $this->expectException(InvalidArgumentException::class);
        $this->expectExceptionMessage('a reason is required');
        $this->limiter($adapter)->moderation()->ban('x', null, 1000, ' ', 'ops');
    }
}
