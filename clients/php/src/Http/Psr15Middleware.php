<?php

declare(strict_types=1);

namespace Tollgate\Http;

use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\MiddlewareInterface;
use Psr\Http\Server\RequestHandlerInterface;

/**
 * Middleware with the PSR-15 interface, for stacks that type-check it (Slim, Mezzio, Laminas).
 * Loaded only when used, so it needs psr/http-server-middleware only in applications that use it.
 */
final class Psr15Middleware implements MiddlewareInterface
{
    private Middleware $middleware;

    public function __construct(Guard $guard, object $responses, ?object $streams = null)
    {
        $this->middleware = new Middleware($guard, $responses, $streams);
    }

    public function process(ServerRequestInterface $request, RequestHandlerInterface $handler): ResponseInterface
    {
        return $this->middleware->process($request, $handler);
    }
}
