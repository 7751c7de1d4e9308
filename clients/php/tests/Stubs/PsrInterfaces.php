<?php

// Empty stand-ins for the PSR-7 and PSR-15 interfaces Psr15Middleware names, only where the
// real packages are not installed (Debian has no PSR-15 package): enough to load and call it.

declare(strict_types=1);

namespace Psr\Http\Message;

if (!interface_exists(ResponseInterface::class)) {
    interface ResponseInterface
    {
    }
}
if (!interface_exists(ServerRequestInterface::class)) {
    interface ServerRequestInterface
    {
    }
}

namespace Psr\Http\Server;

use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;

if (!interface_exists(RequestHandlerInterface::class)) {
    interface RequestHandlerInterface
    {
        public function handle(ServerRequestInterface $request): ResponseInterface;
    }
}
if (!interface_exists(MiddlewareInterface::class)) {
    interface MiddlewareInterface
    {
        public function process(ServerRequestInterface $request, RequestHandlerInterface $handler): ResponseInterface;
    }
}
