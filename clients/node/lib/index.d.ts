// Types of the tollgate package (lib/*.js): checked by `tsc --noEmit` in test/types.test.js.
import type { EventEmitter } from 'node:events';
import type { Redis, Cluster } from 'ioredis';

export type Id = string | Buffer;
export type Tier = 'ok' | 'warn' | 'deny' | 'banned';
/** What a hit answers when Redis cannot within the deadline. */
export type FailureMode = 'report' | 'allow' | 'deny' | 'insurance';
/** A policy hash's fields (lua/README.md, "The policy hash"), e.g. { algorithm: 'fixed_window', windows: '60000:10' }. */
export type PolicyFields = Record<string, string | number>;

export interface WindowLimit { windowMs: number; limit: number; }
export interface Policy {
  readonly action: string;
  readonly algorithm: 'fixed_window' | 'sliding_log' | 'sliding_window' | 'token_bucket';
  readonly windows: readonly WindowLimit[];
  readonly cost: number;
  readonly warn: number;
  readonly banMs: number;
  readonly banUntilMidnight: boolean;
  readonly calendarAligned: boolean;
  /** The IANA zone; null for a fixed offset saved before zones had names (then tzOffsets). */
  readonly timeZone: string | null;
  readonly tzOffsets?: string;
  readonly countDenied: boolean;
  readonly shadow: boolean;
  readonly message?: string;
  readonly onError: FailureMode;
  readonly revision: number;
}

export interface RateLimitHeaderFields {
  'RateLimit-Policy': string;
  RateLimit?: string;
  'Retry-After'?: string;
}

export declare class Decision {
  readonly policy: Policy;
  allowed: boolean;
  tier: Tier;
  count: number;
  limit: number;
  remaining: number;
  resetMs: number;
  /** 0 when allowed; -1: never (a permanent ban, a cost past every limit). */
  retryAfterMs: number;
  /** The policy's message when not allowed, else null. */
  message: string | null;
  source: 'redis' | 'failure_policy';
  failureMode: 'allow' | 'deny' | 'insurance' | null;
  override: '' | 'limit' | 'unlimited';
  /** 1: a shadow policy's hit (never refused), 2: one enforcing would have banned. */
  shadow: 0 | 1 | 2;
  /** A peek's: the window's count and ms until it is empty as it stands; -1 otherwise. */
  countNow: number;
  resetNowMs: number;
  /** With source 'failure_policy': why Redis could not answer. */
  error: string | null;
  headers(partitionKey?: string | Buffer): RateLimitHeaderFields;
}

export interface CallOptions {
  /** Units of the hit, 1..1e9; default the policy's cost. */
  cost?: number;
  /** The policy's fields inline, instead of the stored policy. */
  policy?: PolicyFields;
  onError?: FailureMode;
  /** The call's deadline (default the Limiter's timeoutMs, 1000). */
  timeoutMs?: number;
}
export interface RefundOptions {
  cost?: number;
  actor?: string;
  reason?: string;
  policy?: PolicyFields;
  timeoutMs?: number;
}
export interface RefundResult {
  changed: boolean;
  banCreated: boolean;
  count: number;
  limit: number;
  remaining: number;
  resetMs: number;
  banUntilMs: number;
}
export interface ModerationOptions { action?: string; reason: string; actor: string; }
export interface BanOptions extends ModerationOptions { ms?: number; untilMs?: number; }
export interface ResetOptions { action?: string; reason?: string; actor: string; }
export interface OverrideOptions {
  action?: string;
  windows?: string;
  unlimited?: boolean;
  ms?: number;
  untilMs?: number;
  reason: string;
  actor: string;
}
export interface PolicyWriteOptions { actor: string; reason?: string; revision?: number; }

export interface LimiterOptions {
  prefix?: string;
  policies?: Record<string, PolicyFields>;
  onError?: FailureMode;
  timeoutMs?: number;
  insurance?: InsuranceLimiter;
  subscribe?: boolean;
  policyCacheMs?: number;
  scriptsDir?: string;
}

export declare class Limiter extends EventEmitter {
  constructor(redis: Redis | Cluster, options?: LimiterOptions);
  ready(): Promise<void>;
  close(): void;
  policy(action: string): Promise<Policy>;
  hit(action: string, user: Id, options?: CallOptions): Promise<Decision>;
  peek(action: string, user: Id, options?: CallOptions): Promise<Decision>;
  refund(action: string, user: Id, options?: RefundOptions): Promise<RefundResult>;
  penalize(action: string, user: Id, options: RefundOptions & { actor: string; reason: string }): Promise<RefundResult>;
  ban(user: Id, options: BanOptions): Promise<{ untilMs: number; createdMs: number }>;
  unban(user: Id, options: ModerationOptions): Promise<number>;
  reset(user: Id, options: ResetOptions): Promise<number>;
  setOverride(user: Id, options: OverrideOptions): Promise<{ untilMs: number; setMs: number; keyEnd: number }>;
  deleteOverride(user: Id, options: ModerationOptions): Promise<{ deleted: boolean; keyEnd: number }>;
  savePolicy(action: string, fields: PolicyFields, options: PolicyWriteOptions): Promise<number>;
  deletePolicy(action: string, options: PolicyWriteOptions): Promise<number>;
  readonly policies: { forget(action?: string): void };
}

export declare class InsuranceLimiter {
  constructor(options?: { factor?: number; maxWindows?: number });
  readonly size: number;
}

export declare function rateLimitHeaders(policy: Policy, decision: Decision, partitionKey?: string | Buffer): RateLimitHeaderFields;
export declare function escapeId(id: Id): string;
export declare function policyFromFields(action: string, fields: PolicyFields): Policy;
export declare const SCRIPT_CONTRACT: number;

export interface MiddlewareOptions<Request> {
  limiter: Limiter;
  action: string | ((request: Request) => string | Promise<string>);
  /** The id to limit: a user id, an API key, an address. */
  key: (request: Request) => string | number | Promise<string | number>;
  skip?: (request: Request) => boolean | Promise<boolean>;
  cost?: number | ((request: Request) => number | Promise<number>);
  /** The body of a refusal when the policy has no message (default 'Too Many Requests'). */
  message?: string;
  statusCode?: number;
}
export declare function expressLimit(options: MiddlewareOptions<any>): (req: any, res: any, next: (error?: unknown) => void) => void;
export declare function fastifyLimit(fastify: any, options: MiddlewareOptions<any>, done: (error?: Error) => void): void;

export declare class TollgateError extends Error {
  readonly kind: string;
}
export declare class InvalidError extends TollgateError { readonly kind: 'invalid'; }
export declare class CorruptError extends TollgateError { readonly kind: 'corrupt'; }
export declare class NoPolicyError extends TollgateError { readonly kind: 'no_policy'; readonly action: string; }
export declare class BadPolicyError extends TollgateError { readonly kind: 'bad_policy'; }
export declare class ContractError extends TollgateError { readonly kind: 'contract'; }
export declare class NoPermError extends TollgateError { readonly kind: 'noperm'; }
export declare class UnavailableError extends TollgateError { readonly kind: 'unavailable'; }
export declare class ConflictError extends TollgateError { readonly kind: 'conflict'; }
export declare class NotFoundError extends TollgateError { readonly kind: 'not_found'; }
