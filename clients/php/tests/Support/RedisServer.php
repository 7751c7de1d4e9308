<?php

declare(strict_types=1);

namespace Tollgate\Tests\Support;

/**
 * A private redis-server for one test run: a free loopback port, a temporary directory, no
 * persistence, stopped (and its directory removed) when the object goes or the process ends.
 * It runs in the foreground of proc_open, so freeze() and thaw() can SIGSTOP and SIGCONT it.
 */
final class RedisServer
{
    public readonly int $port;
    private $process;
    private string $dir;
    private bool $stopped = false;

    /** @param list<string> $extra more redis-server arguments; a cluster node also needs its bus port (port + 10000) free */
    public function __construct(array $extra = [])
    {
        $clusterNode = in_array('--cluster-enabled', $extra, true);
        $this->dir = sys_get_temp_dir() . '/tollgate-php-' . getmypid() . '-' . bin2hex(random_bytes(4));
        mkdir($this->dir, 0700, true);
        for ($attempt = 0; ; ++$attempt) {
            $this->port = $clusterNode ? self::freeClusterPort() : self::freePort();
            $argv = ['redis-server', '--port', (string) $this->port, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
                '--dir', $this->dir, ...$extra];
            $this->process = proc_open($argv, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $this->dir . '/log', 'a'], 2 => ['file', $this->dir . '/log', 'a']], $pipes);
            if ($this->waitForPing()) {
                break;
            }
            proc_terminate($this->process, SIGKILL);
            if ($attempt === 3) {
                throw new \RuntimeException('redis-server did not start: ' . @file_get_contents($this->dir . '/log'));
            }
        }
        register_shutdown_function([$this, 'stop']);
    }

    public function __destruct()
    {
        $this->stop();
    }

    public function pid(): int
    {
        return proc_get_status($this->process)['pid'];
    }

    public function phpredis(): \Redis
    {
        $redis = new \Redis();
        $redis->connect('127.0.0.1', $this->port, 2.0);
        return $redis;
    }

    public function predis(): \Predis\Client
    {
        return new \Predis\Client(['host' => '127.0.0.1', 'port' => $this->port, 'read_write_timeout' => 2.0]);
    }

    /** A client of the kind named: phpredis or predis. */
    public function client(string $kind): \Redis|\Predis\Client
    {
        return $kind === 'predis' ? $this->predis() : $this->phpredis();
    }

    /** Redis stops answering without closing a connection (SIGSTOP). */
    public function freeze(): void
    {
        posix_kill($this->pid(), SIGSTOP);
    }

    public function thaw(): void
    {
        posix_kill($this->pid(), SIGCONT);
    }

    public function stop(): void
    {
        if ($this->stopped) {
            return;
        }
        $this->stopped = true;
        $this->thaw();
        proc_terminate($this->process, SIGKILL);
        proc_close($this->process);
        foreach (glob($this->dir . '/*') ?: [] as $file) {
            @unlink($file);
        }
        @rmdir($this->dir);
    }

    public static function freePort(): int
    {
        $socket = stream_socket_server('tcp://127.0.0.1:0');
        $name = stream_socket_get_name($socket, false);
        fclose($socket);
        return (int) substr($name, strrpos($name, ':') + 1);
    }

    /** A free port whose cluster bus port (+10000) is free too, and exists. */
    private static function freeClusterPort(): int
    {
        for ($i = 0; $i < 100; ++$i) {
            $port = self::freePort();
            if ($port + 10000 > 65535) {
                continue;
            }
            $bus = @stream_socket_server('tcp://127.0.0.1:' . ($port + 10000));
            if ($bus) {
                fclose($bus);
                return $port;
            }
        }
        throw new \RuntimeException('no free port pair for a cluster node');
    }

    private function waitForPing(): bool
    {
        for ($i = 0; $i < 100; ++$i) {
            if (!proc_get_status($this->process)['running']) {
                return false;
            }
            $socket = @stream_socket_client("tcp://127.0.0.1:{$this->port}", $errno, $error, 0.2);
            if ($socket) {
                fwrite($socket, "PING\r\n");
                $reply = fgets($socket);
                fclose($socket);
                if ($reply === "+PONG\r\n") {
                    return true;
                }
            }
            usleep(20_000);
        }
        return false;
    }
}
