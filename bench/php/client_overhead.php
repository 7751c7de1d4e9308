<?php

// What the PHP client adds to a decision: Tollgate\Limiter::hit() against a bare EVALSHA loop
// of the same assembled hit.lua with the same keys and arguments, on one private redis-server,
// one connection, one call in flight (PHP's own concurrency), for phpredis and Predis. After a
// warm-up, each round runs the two in alternating batches of 100 calls for --seconds, so both
// share the same moments of a machine whose speed moves; the ratio is taken within each round and
// the median of the rounds printed with their range. Client CPU is getrusage of this process.
// First the Limiter alone over a connection that answers at once: the client's own µs.
//
//   php bench/php/client_overhead.php [--seconds 1] [--rounds 15] [--users 1000]

declare(strict_types=1);

require dirname(__DIR__, 2) . '/clients/php/tests/bootstrap.php';

use Tollgate\Limiter;
use Tollgate\PolicyWriter;
use Tollgate\Tests\Support\RedisServer;

$options = getopt('', ['seconds:', 'rounds:', 'users:']);
$seconds = (float) ($options['seconds'] ?? 1);
$rounds = (int) ($options['rounds'] ?? 15);
$userCount = (int) ($options['users'] ?? 1000);

// The package runs the assembled scripts it ships: copied from this build's build/lua into its
// lua/ first, as package.sh and the tests do (never edited by hand).
$built = dirname(__DIR__, 2) . '/build/lua';
$shipped = dirname(__DIR__, 2) . '/clients/php/lua';
$scripts = glob($built . '/*.lua*') ?: [];
if (!is_file($built . '/hit.lua')) {
    fwrite(STDERR, "no assembled scripts in $built: bash scripts/build.sh tollgate_lua_scripts\n");
    exit(2);
}
is_dir($shipped) || mkdir($shipped);
foreach ($scripts as $script) {
    copy($script, $shipped . '/' . basename($script));
}

$server = new RedisServer();
$users = array_map(static fn () => 'user' . random_int(1, PHP_INT_MAX), range(1, $userCount));

/** µs of this process's CPU so far (user + system). */
function cpuMicros(): float
{
    $u = getrusage();
    return $u['ru_utime.tv_sec'] * 1e6 + $u['ru_utime.tv_usec'] + $u['ru_stime.tv_sec'] * 1e6 + $u['ru_stime.tv_usec'];
}

/**
 * Runs the loops for $seconds in alternating batches of 100 calls, so that a machine whose speed
 * moves (other work on the same cores) slows every loop alike; returns per loop
 * [decisions/s over its own batches, µs of this process's CPU a decision].
 *
 * @param array<string,callable(int):void> $loops
 */
function interleaved(float $seconds, array $loops): array
{
    $wall = $cpu = $count = array_fill_keys(array_keys($loops), 0);
    $end = hrtime(true) + (int) ($seconds * 1e9);
    $n = 0;
    while (hrtime(true) < $end) {
        foreach ($loops as $name => $loop) {
            $c0 = cpuMicros();
            $t0 = hrtime(true);
            for ($i = 0; $i < 100; ++$i) {
                $loop($n++);
            }
            $wall[$name] += hrtime(true) - $t0;
            $cpu[$name] += cpuMicros() - $c0;
            $count[$name] += 100;
        }
    }
    $result = [];
    foreach ($loops as $name => $loop) {
        $result[$name] = [$count[$name] / ($wall[$name] / 1e9), $cpu[$name] / $count[$name]];
    }
    return $result;
}

/** @param list<float> $values */
function median(array $values): float
{
    sort($values);
    $n = count($values);
    return $n % 2 ? $values[intdiv($n, 2)] : ($values[$n / 2 - 1] + $values[$n / 2]) / 2;
}

/** "median (min-max)" of $values. */
function spread(array $values, int $digits): string
{
    return sprintf("%.{$digits}f (%.{$digits}f-%.{$digits}f)", median($values), min($values), max($values));
}

/**
 * A connection that answers every hit at once: the client's own work, with no I/O at all. It
 * takes a call as one array too (ArgvEvalSha), as both shipped adapters do.
 */
final class AnsweringConnection implements Tollgate\Redis\Connection, Tollgate\Redis\ArgvEvalSha
{
    public function evalSha(string $sha, array $keys, array $args, bool $readOnly = false): mixed
    {
        return [1, 'ok', 1, 1000000000, 999999999, 3600000, 0];
    }

    public function evalShaArgv(string $sha, array $keysAndArgs, int $numKeys, float $deadline): mixed
    {
        return [1, 'ok', 1, 1000000000, 999999999, 3600000, 0];
    }

    public function evalSource(string $source, array $keys, array $args): mixed
    {
        return $this->evalSha('', $keys, $args);
    }

    public function hashGetAll(string $key): array
    {
        return ['windows' => '3600000:1000000000'];
    }

    public function scanKeys(string $pattern, int $count = 1000): array
    {
        return [];
    }

    public function command(array $argv, ?string $key = null): mixed
    {
        return null;
    }

    public function isCluster(): bool
    {
        return false;
    }

    public function setDeadline(?float $seconds): void
    {
    }
}

printf("medians of %d rounds of %g s (the range in parentheses)\n", $rounds, $seconds);
printf("%-9s %-24s %14s %16s\n", 'adapter', 'loop', 'decisions/s', 'client µs/dec');
$alone = new Limiter(new AnsweringConnection(), 'tg');
[$rate, $cpu] = interleaved($seconds, ['alone' => static function (int $n) use ($alone, $users, $userCount) {
    $alone->hit('bench', $users[$n % $userCount]);
}])['alone'];
printf("%-9s %-24s %14.0f %16.2f  (no Redis: the client's own work)\n", '-', 'Tollgate\Limiter::hit', $rate, $cpu);
foreach (['phpredis', 'predis'] as $adapter) {
    $client = $server->client($adapter);
    $limiter = new Limiter($client, 'tg');
    PolicyWriter::of($limiter)->save('bench', ['windows' => '3600000:1000000000'], 'bench');
    $limiter->hit('bench', 'warm-up'); // loads the script
    $sha = $limiter->scripts()->sha('hit');
    // The bare loop: the very keys and arguments the Limiter sends (hit.lua's short form),
    // built once per user before the clock starts.
    $calls = array_map(static fn (string $u) => [
        ["tg:{{$u}}:ban", "tg:{{$u}}:bench:ban", "tg:{{$u}}:overrides", "tg:{{$u}}:bench:fw:3600000"],
        ['hit', 'fixed_window', 1, 1000000000, 3600000],
    ], $users);
    $bare = $adapter === 'phpredis'
        ? static function (int $n) use ($client, $sha, $calls, $userCount) {
            [$keys, $args] = $calls[$n % $userCount];
            $client->evalsha($sha, [...$keys, ...$args], 4);
        }
        : static function (int $n) use ($client, $sha, $calls, $userCount) {
            [$keys, $args] = $calls[$n % $userCount];
            $client->executeRaw(['EVALSHA', $sha, 4, ...$keys, ...$args]);
        };
    $tollgate = static function (int $n) use ($limiter, $users, $userCount) {
        $limiter->hit('bench', $users[$n % $userCount]);
    };
    interleaved($seconds, ['bare' => $bare, 'limiter' => $tollgate]); // warm-up
    $each = ['bare' => [[], []], 'limiter' => [[], []], 'ratio' => [], 'added' => []];
    for ($round = 0; $round < $rounds; ++$round) {
        $result = interleaved($seconds, ['bare' => $bare, 'limiter' => $tollgate]);
        foreach ($result as $name => [$rate, $cpu]) {
            $each[$name][0][] = $rate;
            $each[$name][1][] = $cpu;
        }
        $each['ratio'][] = $result['limiter'][0] / $result['bare'][0];
        $each['added'][] = $result['limiter'][1] - $result['bare'][1];
    }
    printf("%-9s %-24s %14.0f %16s\n", $adapter, 'bare EVALSHA', median($each['bare'][0]), spread($each['bare'][1], 1));
    printf("%-9s %-24s %14.0f %16s\n", $adapter, 'Tollgate\\Limiter::hit', median($each['limiter'][0]), spread($each['limiter'][1], 1));
    printf("%-9s %-24s %14s  (goal >= 0.9); the Limiter adds %s µs a decision\n", $adapter, 'ratio, within a round', spread($each['ratio'], 2),
        spread($each['added'], 1));
}
$server->stop();
