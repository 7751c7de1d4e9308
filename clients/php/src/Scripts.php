<?php

declare(strict_types=1);

namespace Tollgate;

use Tollgate\Exception\ContractException;
use Tollgate\Exception\TollgateException;
use Tollgate\Redis\Connection;
use Tollgate\Redis\ReplyError;

/**
 * The assembled scripts this package ships (lua/, copied from the build, never edited), run by
 * SHA. When the server does not know a SHA (restart, failover, SCRIPT FLUSH, a proxy that
 * forwards EVAL but not SCRIPT LOAD) the same call goes again as EVAL, which also caches it.
 *
 * The contract (lua/README.md, "Contract version") is checked twice: each file's header must say
 * "Contract: 3" when it is read, and the server is asked `EVALSHA <sha> 0 contract` after a
 * script had to be loaded. A hit by SHA runs exactly the file whose SHA it is, so nothing can
 * change the contract between two loads and the common hit pays no extra round trip.
 */
final class Scripts
{
    public const CONTRACT = 3;
    /** @var array<string,array{string,string}> name => [source, sha1], read once per process */
    private static array $files = [];

    private bool $contractAsked = false;
    /** @var array<string,array{string,string}> this instance's scripts by name */
    private array $byName = [];

    public function __construct(private Connection $redis, private ?string $directory = null)
    {
    }

    public static function defaultDirectory(): string
    {
        return dirname(__DIR__) . '/lua';
    }

    /** The SHA1 of a shipped script (what `tollgatectl scripts` lists for the same build). */
    public function sha(string $name): string
    {
        return $this->file($name)[1];
    }

    /**
     * Runs a script; a script's error reply becomes the matching TollgateException, and hit.lua's
     * and refund.lua's TG_OVERRIDE an OverrideRedirect for the caller to follow.
     */
    public function run(string $name, array $keys, array $args, bool $readOnly = false): mixed
    {
        try {
            return $this->redis->evalSha(($this->byName[$name] ??= $this->file($name))[1], $keys, $args, $readOnly);
        } catch (ReplyError $e) {
            return $this->afterError($name, $e, $keys, $args);
        }
    }

    /**
     * What run() does when EVALSHA of $name answered the error $e: the same call as EVAL when
     * the server did not know the script, the matching exception otherwise. For a caller that
     * sends the EVALSHA itself (Limiter's hits, by the SHA it keeps).
     */
    public function afterError(string $name, ReplyError $e, array $keys, array $args): mixed
    {
        if ($e->code() !== 'NOSCRIPT') {
            throw Errors::fromReply($e);
        }
        try {
            $reply = $this->redis->evalSource($this->file($name)[0], $keys, $args);
        } catch (ReplyError $e) {
            throw Errors::fromReply($e);
        }
        $this->askContract($name);
        return $reply;
    }

    /** Asks the server which contract the loaded script speaks; ContractException unless ours. */
    public function askContract(string $name = 'hit'): void
    {
        if ($this->contractAsked) {
            return;
        }
        [$source, $sha] = $this->file($name);
        try {
            $answer = $this->redis->evalSha($sha, [], ['contract']);
        } catch (ReplyError $e) {
            $answer = $e->code() === 'NOSCRIPT' ? $this->redis->evalSource($source, [], ['contract']) : throw Errors::fromReply($e);
        }
        if ((string) $answer !== (string) self::CONTRACT) {
            throw new ContractException(sprintf('%s.lua on the server answers contract %s, this client speaks contract %d', $name, var_export($answer, true), self::CONTRACT));
        }
        $this->contractAsked = true;
    }

    /** @return array{string,string} */
    private function file(string $name): array
    {
        $path = ($this->directory ?? self::defaultDirectory()) . "/$name.lua";
        if (isset(self::$files[$path])) {
            return self::$files[$path];
        }
        $source = @file_get_contents($path);
        if ($source === false) {
            throw new TollgateException("cannot read the script $path: the package is incomplete");
        }
        if (!preg_match('/^Contract: (\d+)/m', $source, $m) || (int) $m[1] !== self::CONTRACT) {
            throw new ContractException(sprintf('%s follows contract %s, this client speaks contract %d: install the scripts of the same release', $path, $m[1] ?? 'none', self::CONTRACT));
        }
        return self::$files[$path] = [$source, sha1($source)];
    }
}
