<?php

declare(strict_types=1);

namespace Tollgate\Http;

/**
 * A PSR-15 middleware in shape (process($request, $handler)), for any PSR-7 implementation,
 * with no PSR package required: $responses is a PSR-17 response factory (createResponse) and
 * $streams, optional, a stream factory (createStream) for the body. With
 * psr/http-server-middleware installed, Psr15Middleware is the same class with the interface.
 */
final class Middleware
{
    public function __construct(private Guard $guard, private object $responses, private ?object $streams = null)
    {
    }

    public function process(object $request, object $handler): object
    {
        $decision = $this->guard->decide($request);
        if ($decision === null) {
            return $handler->handle($request);
        }
        if ($decision->allowed) {
            $response = $handler->handle($request);
        } else {
            $response = $this->responses->createResponse(429)->withHeader('Content-Type', 'text/plain; charset=utf-8');
            $body = Guard::body($decision);
            if ($this->streams !== null) {
                $response = $response->withBody($this->streams->createStream($body));
            } else {
                $response->getBody()->write($body);
            }
        }
        foreach ($decision->headers() as $name => $value) {
            $response = $response->withHeader($name, $value);
        }
        return $response;
    }
}
