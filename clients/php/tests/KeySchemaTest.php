<?php

declare(strict_types=1);

namespace Tollgate\Tests;

use PHPUnit\Framework\TestCase;
use Tollgate\Exception\InvalidArgumentException;
use Tollgate\KeySchema;

/** Ids are escaped exactly as lua/README.md says (hit.lua refuses any other spelling). */
final class KeySchemaTest extends TestCase
{
    public static function ids(): array
    {
        return [
            'plain' => ['alice-42_x.y@z', 'alice-42_x.y@z'],
            'colon and braces' => ['a:{b}', 'a%3A%7Bb%7D'],
            'glob characters' => ['*?[]\\', '%2A%3F%5B%5D%5C'],
            'percent' => ['50%', '50%25'],
            'space and newline' => ["a b\n", 'a%20b%0A'],
            'utf-8 stays' => ['Zoë 用户', 'Zoë%20用户'],
            'emoji stays' => ['😀', '😀'],
            'lone 0xFF' => ["\xff", '%FF'],
            'lone 0xFE' => ["\xfe", '%FE'],
            'U+FFFD stays' => ["\u{fffd}", "\u{fffd}"],
            'overlong slash' => ["\xc0\xaf", '%C0%AF'],
            'surrogate' => ["\xed\xa0\x80", '%ED%A0%80'],
            'above U+10FFFF' => ["\xf4\x90\x80\x80", '%F4%90%80%80'],
            'truncated sequence' => ["\xe2\x82", '%E2%82'],
            'U+FEFF stays' => ["\u{feff}a", "\u{feff}a"],
            'quotes and friends' => ['"\'`^|<>/', '"\'`^|<>/'],
        ];
    }

    /** @dataProvider ids */
    public function testEscape(string $id, string $escaped): void
    {
        $this->assertSame($escaped, KeySchema::escape($id));
    }

    public function testKeysOfOneUserShareTheHashTag(): void
    {
        $schema = new KeySchema('tg');
        $this->assertSame('tg:{a%3Ab}:like:fw:60000', $schema->stateKey('a:b', 'like', 'fw', 60000));
        $this->assertSame('tg:{a%3Ab}:like:ban', $schema->actionBanKey('a:b', 'like'));
        $this->assertSame('tg:{a%3Ab}:ban', $schema->userBanKey('a:b'));
        $this->assertSame('tg:policy:like', $schema->policyKey('like'));
        $this->assertSame('tg:audit', $schema->auditMirror('tg:{a%3Ab}:audit'));
    }

    public function testClusterLayout(): void
    {
        $schema = new KeySchema('tg', true);
        $this->assertSame('tg:{:}:policy:like', $schema->policyKey('like'));
        $this->assertSame('tg:{:}:policies', $schema->policyIndexKey());
        $this->assertSame('tg:{:}:audit', $schema->policyAuditKey());
        $this->assertSame('tg:{:}:overrides', $schema->overrideIndexKey());
        // No global mirror on a cluster: another slot.
        $this->assertSame('tg:{a}:audit', $schema->auditMirror('tg:{a}:audit'));
    }

    public static function badPrefixes(): array
    {
        return [[''], ['a:b'], ['a*'], ['a{'], ['a b'], ['50%'], [str_repeat('p', 65)]];
    }

    /** @dataProvider badPrefixes */
    public function testBadPrefixIsRefused(string $prefix): void
    {
        $this->expectException(InvalidArgumentException::class);
        new KeySchema($prefix);
    }

    public function testIdLength(): void
    {
        KeySchema::checkId(str_repeat('x', 1024), 'user id');
        $this->expectException(InvalidArgumentException::class);
        $this->expectExceptionMessage('user id is 1025 bytes long');
        KeySchema::checkId(str_repeat('x', 1025), 'user id');
    }
}
