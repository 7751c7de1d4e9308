<?php

declare(strict_types=1);

namespace Tollgate\Http;

use Tollgate\Decision;
use Tollgate\Limiter;

/**
 * Rate limits HTTP requests of any framework: who a request counts for comes from $key (a
 * user id, an API key, an address), requests $skip accepts are not counted. A refused request
 * gets 429 with RateLimit-Policy, RateLimit, Retry-After and the policy's message; an allowed one
 * the first two. Middleware wraps it for PSR-15; send() serves plain PHP scripts.
 *
 *     $guard = new Tollgate\Http\Guard($limiter, 'api', fn () => $_SERVER['REMOTE_ADDR']);
 *     if (!$guard->send()) { exit; }
 */
final class Guard
{
    public const DEFAULT_MESSAGE = 'Too Many Requests';

    /** @var \Closure(mixed): string */
    private \Closure $key;
    /** @var ?\Closure(mixed): bool */
    private ?\Closure $skip;

    public function __construct(private Limiter $limiter, private string $action, callable $key, ?callable $skip = null, private ?int $cost = null)
    {
        $this->key = \Closure::fromCallable($key);
        $this->skip = $skip === null ? null : \Closure::fromCallable($skip);
    }

    /** The decision for $request (whatever the framework passes to $key), or null when skipped. */
    public function decide(mixed $request = null): ?Decision
    {
        if ($this->skip !== null && ($this->skip)($request)) {
            return null;
        }
        return $this->limiter->hit($this->action, (string) ($this->key)($request), $this->cost);
    }

    /** The body of a 429: the policy's message, else "Too Many Requests". */
    public static function body(Decision $decision): string
    {
        return $decision->message ?? self::DEFAULT_MESSAGE;
    }

    /**
     * For plain PHP (php -S, mod_php, FPM without a framework): sends the header fields, and for a
     * refused request status 429 and the message. Returns whether the script should go on.
     */
    public function send(mixed $request = null): bool
    {
        $decision = $this->decide($request);
        if ($decision === null) {
            return true;
        }
        foreach ($decision->headers() as $name => $value) {
            header("$name: $value");
        }
        if ($decision->allowed) {
            return true;
        }
        http_response_code(429);
        header('Content-Type: text/plain; charset=utf-8');
        echo self::body($decision);
        return false;
    }
}
