<?php

declare(strict_types=1);

namespace Tollgate\Tests\Support;

/**
 * A private three-primary Redis Cluster on free loopback ports (redis-cli --cluster create),
 * each node a RedisServer of its own, stopped with this object.
 */
final class RedisClusterServers
{
    /** @var list<RedisServer> */
    public readonly array $nodes;

    public function __construct()
    {
        $nodes = [];
        for ($i = 0; $i < 3; ++$i) {
            $nodes[] = new RedisServer(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '5000']);
        }
        $this->nodes = $nodes;
        $argv = ['redis-cli', '--cluster', 'create', ...array_map(fn (RedisServer $n) => "127.0.0.1:{$n->port}", $nodes),
            '--cluster-replicas', '0', '--cluster-yes'];
        $process = proc_open($argv, [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        $output = stream_get_contents($pipes[1]) . stream_get_contents($pipes[2]);
        if (proc_close($process) !== 0) {
            throw new \RuntimeException("redis-cli --cluster create failed:\n$output");
        }
        $this->waitUntilServing();
    }

    /** @return list<string> host:port of every node */
    public function seeds(): array
    {
        return array_map(fn (RedisServer $n) => "127.0.0.1:{$n->port}", $this->nodes);
    }

    public function client(): \RedisCluster
    {
        return new \RedisCluster(null, $this->seeds(), 2.0, 2.0);
    }

    public function stop(): void
    {
        foreach ($this->nodes as $node) {
            $node->stop();
        }
    }

    /** Every node says the cluster is ok and knows all 16384 slots. */
    private function waitUntilServing(): void
    {
        for ($i = 0; $i < 200; ++$i) {
            $ok = true;
            foreach ($this->nodes as $node) {
                $info = (string) $node->phpredis()->rawCommand('CLUSTER', 'INFO');
                $ok = $ok && str_contains($info, 'cluster_state:ok') && str_contains($info, 'cluster_slots_ok:16384');
            }
            if ($ok) {
                return;
            }
            usleep(50_000);
        }
        throw new \RuntimeException('the Redis Cluster did not come up');
    }
}
