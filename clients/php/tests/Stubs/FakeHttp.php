<?php

declare(strict_types=1);

namespace Tollgate\Tests\Stubs;

/**
 * The few PSR-7 / PSR-17 / PSR-15 methods the middleware calls, as tiny fakes: Debian packages
 * no PSR-15 interfaces, and the middleware must not need them.
 */
class FakeResponse
{
    public array $headers = [];
    public string $body = '';

    public function __construct(public int $status = 200)
    {
    }

    public function withHeader(string $name, string $value): self
    {
        $copy = clone $this;
        $copy->headers[$name] = $value;
        return $copy;
    }

    public function getBody(): object
    {
        $response = $this;
        return new class ($response) {
            public function __construct(private FakeResponse $response)
            {
            }

            public function write(string $text): int
            {
                $this->response->body .= $text;
                return strlen($text);
            }
        };
    }
}

final class FakeResponseFactory
{
    public function createResponse(int $code = 200): FakeResponse
    {
        return new FakeResponse($code);
    }
}

final class FakeRequest
{
    public function __construct(public array $attributes = [], public string $path = '/')
    {
    }

    public function getAttribute(string $name): mixed
    {
        return $this->attributes[$name] ?? null;
    }
}

final class FakeHandler
{
    public int $calls = 0;

    public function handle(object $request): FakeResponse
    {
        ++$this->calls;
        $response = new FakeResponse(200);
        $response->body = 'hello';
        return $response;
    }
}
