<?php

declare(strict_types=1);

namespace Tollgate\Tests;

use Tollgate\Tests\Support\RedisServer;
use Tollgate\Tests\Support\RedisTestCase;

/**
 * The Composer archive package.sh makes, installed offline into an application folder with
 * `composer install`, limiting a plain PHP script served by `php -S`: 200 with the header
 * fields, then 429 with Retry-After and the policy's message; a skipped path is never counted.
 */
final class InstalledPackageTest extends RedisTestCase
{
    private string $dir;
    private $web = null;

    protected function setUp(): void
    {
        parent::setUp();
        $this->dir = sys_get_temp_dir() . '/tollgate-app-' . getmypid() . '-' . bin2hex(random_bytes(3));
        mkdir($this->dir . '/dist', 0700, true);
    }

    protected function tearDown(): void
    {
        if ($this->web) {
            proc_terminate($this->web);
            proc_close($this->web);
        }
        exec('rm -rf ' . escapeshellarg($this->dir));
    }

    public function testPhpScriptLimitsRequests(): void
    {
        $package = dirname(__DIR__);
        $this->run_(['bash', "$package/package.sh", "$this->dir/dist"], ['TOLLGATE_LUA_DIR' => "$package/lua"]);
        $archive = glob("$this->dir/dist/tollgate-php-*.zip")[0] ?? $this->fail('package.sh made no archive');
        preg_match('/tollgate-php-(.*)\.zip$/', $archive, $m);
        file_put_contents("$this->dir/composer.json", json_encode([
            'require' => ['tollgate/tollgate' => $m[1]],
            'repositories' => [['packagist.org' => false], ['type' => 'package', 'package' => [
                'name' => 'tollgate/tollgate', 'version' => $m[1], 'dist' => ['type' => 'zip', 'url' => $archive],
                'autoload' => ['psr-4' => ['Tollgate\\' => 'src/']],
            ]]],
        ], JSON_UNESCAPED_SLASHES));
        $this->run_(['composer', 'install', '--no-interaction', '--quiet', '--working-dir', $this->dir],
            ['COMPOSER_DISABLE_NETWORK' => '1', 'COMPOSER_CACHE_DIR' => "$this->dir/cache", 'COMPOSER_HOME' => "$this->dir/home"]);
        file_put_contents("$this->dir/index.php", <<<'PHP'
            <?php
            require __DIR__ . '/vendor/autoload.php';

            $redis = new Redis();
            $redis->connect('127.0.0.1', (int) getenv('REDIS_PORT'));
            $limiter = new Tollgate\Limiter($redis, 'tg');
            $guard = new Tollgate\Http\Guard($limiter, 'api',
                fn () => $_SERVER['HTTP_X_API_KEY'] ?? $_SERVER['REMOTE_ADDR'],
                fn () => $_SERVER['REQUEST_URI'] === '/health');
            if (!$guard->send()) {
                return;
            }
            echo "hello\n";
            PHP);

        $admin = $this->admin();
        $admin->hMSet('tg:policy:api', ['windows' => '60000:2', 'message' => 'Slow down, please']);
        $port = RedisServer::freePort();
        $this->web = proc_open(['php', '-S', "127.0.0.1:$port", "$this->dir/index.php"],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes, $this->dir,
            ['REDIS_PORT' => (string) self::$server->port, 'PATH' => getenv('PATH')]);
        $get = function (string $path, string $key = 'k1') use ($port): array {
            for ($i = 0; $i < 100; ++$i) {
                $body = @file_get_contents("http://127.0.0.1:$port$path", false, stream_context_create(
                    ['http' => ['ignore_errors' => true, 'header' => "X-Api-Key: $key\r\n"]]));
                if ($body !== false) {
                    $headers = [];
                    foreach (array_slice($http_response_header, 1) as $line) {
                        [$name, $value] = explode(':', $line, 2);
                        $headers[$name] = trim($value);
                    }
                    return [(int) explode(' ', $http_response_header[0])[1], $headers, $body];
                }
                usleep(50_000); // the server is still starting
            }
            $this->fail('php -S did not answer');
        };

        [$status, $headers, $body] = $get('/');
        $this->assertSame([200, "hello\n"], [$status, $body]);
        $this->assertSame('"api-1m";q=2;w=60', $headers['RateLimit-Policy']);
        $this->assertSame('"api-1m";r=1;t=60', $headers['RateLimit']);
        $get('/');
        [$status, $headers, $body] = $get('/');
        $this->assertSame([429, 'Slow down, please'], [$status, $body]);
        $this->assertSame('60', $headers['Retry-After']);
        $this->assertSame('"api-1m";r=0;t=60', $headers['RateLimit']);
        $this->assertSame(200, $get('/', 'k2')[0], 'another key has its own quota');
        [$status, $headers] = $get('/health');
        $this->assertSame(200, $status);
        $this->assertArrayNotHasKey('RateLimit', $headers);
        $this->assertSame('2', $admin->get('tg:{k1}:api:fw:60000'), 'refusals and skipped requests are not counted');
    }

    private function run_(array $argv, array $env): void
    {
        $process = proc_open($argv, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null,
            $env + ['PATH' => getenv('PATH'), 'HOME' => getenv('HOME') ?: $this->dir]);
        $output = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
        $this->assertSame(0, proc_close($process), implode(' ', $argv) . ":\n$output");
    }
}
