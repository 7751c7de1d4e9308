<?php

declare(strict_types=1);

namespace Tollgate\Tests;

use Tollgate\Http\Guard;
use Tollgate\Http\Middleware;
use Tollgate\Http\Psr15Middleware;
use Tollgate\Tests\Stubs\FakeHandler;
use Tollgate\Tests\Stubs\FakeRequest;
use Tollgate\Tests\Stubs\FakeResponseFactory;
use Tollgate\Tests\Support\RedisTestCase;

require_once __DIR__ . '/Stubs/FakeHttp.php';
require_once __DIR__ . '/Stubs/PsrInterfaces.php';

/** The PSR-15 shaped middleware: 429 with the header fields and the message, keyed and skipped as the app says. */
final class MiddlewareTest extends RedisTestCase
{
    /** @dataProvider adapters */
    public function testRefusesWith429AndHeaderFields(string $adapter): void
    {
        $limiter = $this->limiter($adapter);
        $this->savePolicy($limiter, 'api', ['windows' => '60000:2', 'message' => 'Too many requests, try again in a minute']);
        $guard = new Guard($limiter, 'api', fn (FakeRequest $r) => $r->getAttribute('user'),
            fn (FakeRequest $r) => $r->path === '/health');
        $middleware = new Middleware($guard, new FakeResponseFactory());
        $handler = new FakeHandler();
        $alice = new FakeRequest(['user' => 'alice']);

        $ok = $middleware->process($alice, $handler);
        $this->assertSame([200, 'hello'], [$ok->status, $ok->body]);
        $this->assertSame('"api-1m";q=2;w=60', $ok->headers['RateLimit-Policy']);
        $this->assertSame('"api-1m";r=1;t=60', $ok->headers['RateLimit']);
        $this->assertArrayNotHasKey('Retry-After', $ok->headers);

        $middleware->process($alice, $handler);
        $refused = $middleware->process($alice, $handler);
        $this->assertSame(429, $refused->status);
        $this->assertSame('Too many requests, try again in a minute', $refused->body);
        $this->assertSame('60', $refused->headers['Retry-After']);
        $this->assertSame('"api-1m";r=0;t=60', $refused->headers['RateLimit']);
        $this->assertSame(2, $handler->calls, 'a refused request never reaches the handler');

        // Another key has its own quota; a skipped request is not counted at all.
        $this->assertSame(200, $middleware->process(new FakeRequest(['user' => 'bob']), $handler)->status);
        $health = $middleware->process(new FakeRequest(['user' => 'alice'], '/health'), $handler);
        $this->assertSame(200, $health->status);
        $this->assertSame([], $health->headers);
    }

    public function testDefaultBodyWithoutMessage(): void
    {
        $limiter = $this->limiter('phpredis', ['policies' => ['api' => ['windows' => '60000:1']]]);
        $middleware = new Middleware(new Guard($limiter, 'api', fn () => 'k'), new FakeResponseFactory());
        $middleware->process(new FakeRequest(), new FakeHandler());
        $this->assertSame('Too Many Requests', $middleware->process(new FakeRequest(), new FakeHandler())->body);
    }

    public function testPsr15Interface(): void
    {
        $limiter = $this->limiter('predis', ['policies' => ['api' => ['windows' => '60000:1']]]);
        $middleware = new Psr15Middleware(new Guard($limiter, 'api', fn () => 'k'), new class () {
            public function createResponse(int $code): object
            {
                return new class ($code) extends \Tollgate\Tests\Stubs\FakeResponse implements \Psr\Http\Message\ResponseInterface {
                };
            }
        });
        $this->assertInstanceOf(\Psr\Http\Server\MiddlewareInterface::class, $middleware);
        $request = new class () implements \Psr\Http\Message\ServerRequestInterface {
        };
        $handler = new class () implements \Psr\Http\Server\RequestHandlerInterface {
            public function handle(\Psr\Http\Message\ServerRequestInterface $request): \Psr\Http\Message\ResponseInterface
            {
                return new class (200) extends \Tollgate\Tests\Stubs\FakeResponse implements \Psr\Http\Message\ResponseInterface {
                };
            }
        };
        $this->assertSame(200, $middleware->process($request, $handler)->status);
        $this->assertSame(429, $middleware->process($request, $handler)->status);
    }
}
