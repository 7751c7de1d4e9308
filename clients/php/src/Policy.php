<?php

declare(strict_types=1);

namespace Tollgate;

use Tollgate\Exception\BadPolicyException;
use Tollgate\Exception\ContractException;

/**
 * How one action is limited: the fields of the policy hash <p>:policy:<action>
 * (lua/README.md, "The policy hash"), read the way the C++ Policy::fromFields reads them and
 * checked the way Policy::validate checks them.
 */
final class Policy
{
    public const MAX_LIMIT = 1_000_000_000;
    public const MAX_SLIDING_LOG_LIMIT = 100_000;
    public const MAX_WINDOWS = 8;
    public const YEAR_MS = 31_536_000_000;
    public const ALGORITHMS = ['fixed_window' => 'fw', 'sliding_log' => 'sl', 'sliding_window' => 'sw', 'token_bucket' => 'tb'];
    private const CALENDAR_WINDOWS = [60_000, 3_600_000, 86_400_000, 604_800_000];

    /**
     * @param list<array{int,int}> $windows [limit, window_ms] pairs, in the policy's order
     * @param string $onError '' (report), 'allow', 'deny' or 'insurance'
     */
    public function __construct(
        public readonly string $action,
        public readonly array $windows,
        public readonly string $algorithm = 'fixed_window',
        public readonly int $cost = 1,
        public readonly int $warn = 0,
        public readonly int $banMs = 0,
        public readonly bool $banUntilMidnight = false,
        public readonly bool $calendar = false,
        public readonly string $timeZone = 'UTC',
        public readonly ?string $tzOffsets = null,
        public readonly bool $countDenied = false,
        public readonly bool $shadow = false,
        public readonly ?string $message = null,
        public readonly string $onError = '',
        public readonly int $revision = 0,
    ) {
        $this->validate();
    }

    /**
     * From HGETALL of the policy hash (or the same fields given inline). Unknown fields are
     * ignored; a malformed known field is a BadPolicyException, a contract this client does not
     * speak a ContractException.
     *
     * @param array<string,string|int|bool> $fields
     */
    public static function fromFields(string $action, array $fields): self
    {
        $text = static fn (string $f, string $default = ''): string => array_key_exists($f, $fields) ? (string) $fields[$f] : $default;
        $number = static function (string $f, int $default) use ($fields, $action): int {
            if (!array_key_exists($f, $fields)) {
                return $default;
            }
            $value = is_bool($fields[$f]) ? (int) $fields[$f] : (string) $fields[$f];
            if (is_string($value) && !preg_match('/^-?\d{1,18}$/', $value)) {
                throw new BadPolicyException(sprintf("policy %s: field '%s' is not an integer: '%s'", $action, $f, substr($value, 0, 40)));
            }
            return (int) $value;
        };
        if (array_key_exists('contract', $fields)) {
            $contract = (string) $fields['contract'];
            if (!preg_match('/^\d{1,9}$/', $contract) || (int) $contract < 1 || (int) $contract > Scripts::CONTRACT) {
                throw new ContractException(sprintf(
                    'policy %s was written under script contract %s, and this client follows contract %d: upgrade the tollgate package to read it (lua/README.md, "Contract version")',
                    $action, substr($contract, 0, 20), Scripts::CONTRACT
                ));
            }
        }
        $algorithm = $text('algorithm', 'fixed_window');
        if ($algorithm === 'gcra') {
            $algorithm = 'token_bucket';
        }
        if (!array_key_exists('windows', $fields)) {
            throw new BadPolicyException("policy $action has no windows");
        }
        $windows = [];
        foreach (explode(',', $text('windows')) as $pair) {
            if (!preg_match('/^(\d{1,15}):(\d{1,15})$/', $pair, $m)) {
                throw new BadPolicyException("policy $action: malformed windows field '" . substr($text('windows'), 0, 80) . "'");
            }
            $windows[] = [(int) $m[2], (int) $m[1]];
        }
        $onError = $text('on_error');
        if (!in_array($onError, ['', 'allow', 'deny', 'insurance'], true)) {
            throw new BadPolicyException("policy $action: unknown on_error '" . substr($onError, 0, 40) . "' (allow, deny or insurance)");
        }
        $align = $text('align', 'first_hit');
        if ($align !== 'first_hit' && $align !== 'calendar') {
            throw new BadPolicyException("policy $action: unknown align '" . substr($align, 0, 40) . "'");
        }
        $timeZone = $text('tz', 'UTC');
        $offsets = array_key_exists('tz_offsets', $fields) ? $text('tz_offsets') : null;
        if (!array_key_exists('tz', $fields) && array_key_exists('tz_offset_ms', $fields)) {
            // Saved before zones had names: a fixed offset, passed to hit.lua as it is.
            $offsets = (string) $number('tz_offset_ms', 0);
            $timeZone = 'fixed';
        }
        return new self(
            action: $action,
            windows: $windows,
            algorithm: $algorithm,
            cost: $number('cost', 1),
            warn: $number('warn', 0),
            banMs: $number('ban_ms', 0),
            banUntilMidnight: $text('ban_until') === 'midnight',
            calendar: $align === 'calendar',
            timeZone: $timeZone,
            tzOffsets: $offsets,
            countDenied: $text('count_denied') === '1',
            shadow: $text('shadow') === '1',
            message: array_key_exists('message', $fields) ? $text('message') : null,
            onError: $onError,
            revision: $number('revision', 0),
        );
    }

    /** The same policy with other windows (a user's limit override), capped to what the algorithm holds. */
    public function withWindows(array $windows): self
    {
        foreach ($windows as &$w) {
            if ($this->algorithm === 'sliding_log') {
                $w[0] = min($w[0], self::MAX_SLIDING_LOG_LIMIT);
            } elseif ($this->algorithm === 'token_bucket') {
                $w[0] = min($w[0], $w[1] * 1000);
            }
        }
        unset($w);
        $calendar = $this->calendar;
        foreach ($windows as [, $ms]) {
            $calendar = $calendar && in_array($ms, self::CALENDAR_WINDOWS, true);
        }
        return new self($this->action, $windows, $this->algorithm, $this->cost, $this->warn, $this->banMs,
            $this->banUntilMidnight, $calendar, $this->timeZone, $this->tzOffsets, $this->countDenied,
            $this->shadow, $this->message, $this->onError, $this->revision);
    }

    public function algorithmCode(): string
    {
        return self::ALGORITHMS[$this->algorithm];
    }

    public function hasBan(): bool
    {
        return $this->banMs > 0 || $this->banUntilMidnight;
    }

    /** Whether hit.lua needs the zone's UTC offsets (ARGV[8]); otherwise "0" is sent. */
    public function needsLocalTime(): bool
    {
        return $this->banUntilMidnight || $this->calendar;
    }

    private function validate(): void
    {
        $bad = fn (string $why) => new BadPolicyException("policy {$this->action}: $why");
        if ($this->action === '' || strlen($this->action) > KeySchema::MAX_ID_BYTES) {
            throw $bad('the action must be 1 to 1024 bytes');
        }
        if (!isset(self::ALGORITHMS[$this->algorithm])) {
            throw $bad("unknown algorithm '" . substr($this->algorithm, 0, 40) . "'");
        }
        if ($this->windows === [] || count($this->windows) > self::MAX_WINDOWS) {
            throw $bad('a policy needs 1 to 8 windows');
        }
        if ($this->calendar && $this->algorithm !== 'fixed_window') {
            throw $bad('calendar windows need fixed_window');
        }
        $seen = [];
        foreach ($this->windows as [$limit, $ms]) {
            if ($limit < 1 || $limit > self::MAX_LIMIT) {
                throw $bad('limit must be between 1 and ' . self::MAX_LIMIT . ", got $limit");
            }
            if ($ms < 1 || $ms > self::YEAR_MS) {
                throw $bad("window must be between 1ms and 1 year, got $ms ms");
            }
            if ($this->calendar && !in_array($ms, self::CALENDAR_WINDOWS, true)) {
                throw $bad('calendar windows are 1m, 1h, 1d or 1w, got ' . Duration::format($ms));
            }
            if (isset($seen[$ms])) {
                throw $bad('window ' . Duration::format($ms) . ' appears twice');
            }
            $seen[$ms] = true;
            if ($this->algorithm === 'token_bucket' && $limit > $ms * 1000) {
                throw $bad('token_bucket refills at most one token per microsecond: limit at most ' . ($ms * 1000));
            }
            if ($this->algorithm === 'sliding_log' && $limit > self::MAX_SLIDING_LOG_LIMIT) {
                throw $bad('sliding_log keeps one entry per hit: limit at most ' . self::MAX_SLIDING_LOG_LIMIT);
            }
        }
        if ($this->cost < 1 || $this->cost > self::MAX_LIMIT) {
            throw $bad('cost must be between 1 and ' . self::MAX_LIMIT . ", got {$this->cost}");
        }
        if ($this->warn < 0 || ($this->warn > 0 && $this->warn >= $this->windows[0][0])) {
            throw $bad("warn level must be below the limit of the first window ({$this->windows[0][0]}), got {$this->warn}");
        }
        if ($this->banMs < 0 || $this->banMs > 10 * self::YEAR_MS) {
            throw $bad('ban duration must be between 0 and 10 years');
        }
        if ($this->banMs > 0 && $this->banUntilMidnight) {
            throw $bad("choose a ban duration or 'until midnight', not both");
        }
        if ($this->message !== null && mb_strlen($this->message, 'UTF-8') > 1000) {
            throw $bad('deny message is longer than 1000 characters');
        }
        if ($this->needsLocalTime() && $this->tzOffsets === null && !ZoneOffsets::isKnown($this->timeZone)) {
            throw $bad("unknown time zone '" . substr($this->timeZone, 0, 60) . "' (use an IANA name such as Europe/Berlin)");
        }
    }

    /** hit.lua's ARGV[8]: the zone's offsets around now, or the policy's stored table. */
    public function offsets(): string
    {
        if (!$this->needsLocalTime()) {
            return '0';
        }
        if (ZoneOffsets::isKnown($this->timeZone)) {
            return ZoneOffsets::aroundNow($this->timeZone);
        }
        return $this->tzOffsets ?? '0';
    }
}
