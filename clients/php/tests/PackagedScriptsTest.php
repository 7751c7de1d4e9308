<?php

declare(strict_types=1);

namespace Tollgate\Tests;

use PHPUnit\Framework\TestCase;
use Tollgate\Scripts;

/**
 * The package ships the assembled scripts of the build, never edited by hand: its lua/ must be
 * byte for byte the build's (TOLLGATE_LUA_BUILD_DIR, else build/lua of the repository).
 * After a change under lua/: `bash clients/php/package.sh` copies them again.
 */
final class PackagedScriptsTest extends TestCase
{
    public function testScriptsAreTheBuildsCopies(): void
    {
        $build = getenv('TOLLGATE_LUA_BUILD_DIR') ?: dirname(__DIR__, 3) . '/build/lua';
        $built = glob("$build/*.lua") ?: [];
        if ($built === []) {
            $this->markTestSkipped("no assembled scripts in $build: bash scripts/build.sh tollgate_lua_scripts");
        }
        $shipped = glob(Scripts::defaultDirectory() . '/*.lua') ?: [];
        $this->assertSame(array_map('basename', $built), array_map('basename', $shipped),
            'clients/php/lua holds other scripts than the build: run clients/php/package.sh');
        foreach ($built as $file) {
            $this->assertSame(sha1_file($file), sha1_file(Scripts::defaultDirectory() . '/' . basename($file)),
                basename($file) . ' differs from the build\'s: run clients/php/package.sh (never edit the copies)');
        }
    }

    public function testEveryScriptSpeaksTheClientsContract(): void
    {
        foreach (glob(Scripts::defaultDirectory() . '/*.lua') as $file) {
            $this->assertMatchesRegularExpression('/^Contract: ' . Scripts::CONTRACT . ' /m', (string) file_get_contents($file), basename($file));
        }
    }
}
