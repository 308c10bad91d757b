import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { Plan } from '../db/generated/enums.ts'
import { metrics } from '../ops/metrics.ts'
import { firstConnectionSettled, getRedis } from '../redis.ts'
import { consumeInRedis, MemoryWindows, RedisDataLost, RedisLineage, type WindowOutcome } from './sliding-window.ts'
import { ReservedWindows } from './reserved-window.ts'

/**
 * Request budgets: per API token (by the tenant's plan), per client address for requests
 * without a valid token, and per account and address for portal sign-in.
 *
 * Window semantics: a true rolling window (sliding-window log, sliding-window.ts): a request
 * is admitted when fewer than the limit were admitted in the window before it, so no span of
 * the window's length (60 s by default) ever admits more than the limit, however the requests
 * fall and across however many instances. Refused requests do not count.
 *
 * With REDIS_URL the log lives in Redis, decided by one atomic script on Redis's clock, and
 * holds across every app instance. If Redis is down or slow, each instance keeps the log in
 * memory instead, at its share of each limit: the limit divided by RATE_LIMIT_INSTANCES (the
 * number of instances behind the load balancer; default 1), rounded down (at least 1). So
 * N instances together never admit more than the limit in memory while Redis is away, and
 * requests are never failed because of Redis. Without REDIS_URL (one process) memory holds the
 * whole limit. A window that spans the start of an outage can hold what Redis admitted before it
 * and the shares admitted after: an instance cannot know what the others spent through Redis,
 * so at worst (2 - 1/N) times the limit (one instance spent it all through Redis, each other
 * instance then its share), exactly the limit with one instance (break70 measured 300 for 200
 * with two); the alternative, admitting nothing in an outage's first window, fails requests.
 * What an instance admitted through Redis is counted in its memory too (only the newest share of
 * it is kept), so a token it let use the limit stays refused by it when Redis goes mid-window.
 *
 * A Redis that comes back without its data (restarted without persistence, a failover to a
 * replica that never had it, a FLUSHALL) is treated as away for one window: its log is empty,
 * and deciding there would hand a budget spent in this window out whole again (twice the limit
 * in one rolling window). An instance notices in the answer of a script it sends anyway (a
 * marker key, RedisLineage in sliding-window.ts: no extra round trip), and from then until the
 * policy's window has passed (the longest the lost log could have covered) it decides in memory
 * at its share, as above, then in Redis again. So a token refused before the loss stays refused
 * by the instances that admitted it: in any window across the loss each instance admits no more
 * than the larger of what it admitted through Redis and its share, together the limit when the
 * token's traffic was spread evenly, at worst (2 - 1/N) times it when one instance had admitted
 * all of it (exactly the limit with one instance; before, twice the limit whatever N).
 * An instance that never saw the marker (a first deploy, tests, one started after the loss)
 * takes Redis as it finds it: a fresh Redis restricts no one. Not seen: a failover that loses
 * only the replication lag's newest writes (the marker survives it). On the return to Redis
 * (after an outage, or the window after a loss) what the instance admitted alone is added to the
 * log first (owedToRedis below), so Redis's count covers it.
 *
 * Busy budgets (per token, per content key) are not decided in Redis request by request: an
 * instance reserves a block of slots in the same log in one atomic script and serves requests
 * from it in memory for up to a second (reserved-window.ts, which says why no window across the
 * instances admits more than the limit, and how RateLimit's remaining is worked out from a
 * block). A block is at most an eighth of the limit per instance, and a budget under 100 a
 * window is decided per request as before: there, one slot withheld by another instance would
 * be a refusal someone sees.
 */
export type RateLimitDecision = {
  allowed: boolean
  limit: number
  remaining: number
  /** Seconds until the oldest request counted leaves the window, giving back one request of budget. */
  resetSeconds: number
  /** Seconds to wait before retrying; 0 when allowed, at least 1 when not. */
  retryAfterSeconds: number
  /** The name of the policy that decided, as it appears in the RateLimit headers. */
  policy: string
}

type Policy = {
  name: string
  limit: number
  windowSeconds: number
  keyPrefix: string
  /** The largest block an instance may reserve (reserved-window.ts): an eighth of its share of the limit; 0 under minimumForBlocks. */
  blockCap: number
  /** The Redis data this instance decides in, shared by every policy (sliding-window.ts). */
  lineage: RedisLineage
  /** This instance's share of the limit (localShare): what it decides at in memory. */
  share: number
}

type Limiters = {
  token: Record<Plan, Policy>
  unauthenticated: Policy
  /** Per content key: the public content API's answers a shared cache did not have. */
  contentKey: Policy
  signInAccount: Policy
  signInAccountAddress: Policy
  signInCodeAccount: Policy
  signInAddress: Policy
  signInWhileLocked: Policy
  signInKnownBrowser: Policy
  passkeySignInOptions: Policy
  /** Per member: new recovery codes (ten scrypts each). */
  recoveryCodes: Policy
  /** Per member: recovery codes hashed for a new factor (an app's confirmation, a first passkey). */
  newFactorCodes: Policy
  /** By policy name, for RateLimit-Policy's w. */
  windowSeconds: Record<string, number>
}

let limiters: Limiters | undefined

/**
 * The limiters, once Redis's first connection has settled: with the offline queue off, the
 * first requests would otherwise all go to the per-process insurance.
 */
async function readyLimiters(): Promise<Limiters> {
  limiters ??= createLimiters()
  const redis = getRedis()
  if (redis && redis.status !== 'ready') await firstConnectionSettled(redis)
  return limiters
}

/**
 * `nowMs` is for tests that drive a clock; otherwise Redis's clock (or this process's) decides.
 * `alsoRead` names a Redis key whose value an admitted request needs next (a cached GET's
 * generation): read in the decision's round trip and returned as `read` ('' when the key is
 * absent). `read` is absent when the decision was made in memory or refused; the caller then
 * reads the key itself if it still needs it.
 */
export function consumeTokenRequest(tokenId: string, plan: Plan, nowMs?: number, alsoRead?: string): RateLimitDecision | Promise<RateLimitDecision & { read?: string }> {
  // Most of a busy token's requests are served from this instance's block: the decision itself,
  // not a promise of it (a cached GET made and awaited five of them for this, issue 50).
  if (limiters && nowMs === undefined) {
    const policy = limiters.token[plan] ?? limiters.token.standard
    const atOnce = fromBlockAtOnce(policy, fullKeyOf(policy, tokenId))
    if (atOnce) return atOnce.decision
  }
  return consumeTokenRequestLater(tokenId, plan, nowMs, alsoRead)
}

async function consumeTokenRequestLater(tokenId: string, plan: Plan, nowMs?: number, alsoRead?: string): Promise<RateLimitDecision & { read?: string }> {
  const current = await readyLimiters()
  const { decision, read } = await consumeHeld(current.token[plan] ?? current.token.standard, tokenId, nowMs, alsoRead, true)
  return read === undefined ? decision : { ...decision, read }
}

/**
 * For the public content API, per content key (its digest): what reaches the app is what the
 * shared cache (Varnish, a CDN) did not answer, so this bounds one site's misses, not its readers.
 */
export async function consumeContentKeyRequest(key: string): Promise<RateLimitDecision> {
  const current = await readyLimiters()
  return (await consumeHeld(current.contentKey, createHash('sha256').update(key).digest('base64url').slice(0, 32), undefined, undefined, true)).decision
}

/** For requests without a valid token: bounds how fast one address can guess tokens. */
export async function consumeUnauthenticatedRequest(clientAddress: string): Promise<RateLimitDecision> {
  const current = await readyLimiters()
  return consume(current.unauthenticated, addressKey(clientAddress))
}

/** A sign-in attempt's decision (consumeSignInAttempt); lib/auth/sign-in-throttle.ts turns it into what the person is told. */
export type SignInAttemptDecision = RateLimitDecision & {
  /** The attempt succeeded: its slots are given back (only failures count). */
  succeeded: () => Promise<void>
  /** The account has had its budget of failures from everywhere: only addresses that have (almost) not failed for it may still try. */
  accountLocked: boolean
  /** Seconds until the account's lock ends (its oldest failure leaves the window); 0 when it is not locked. */
  lockEndsInSeconds: number
  /** If this attempt fails, it fills the account's budget: the lock begins with it. */
  lastBeforeLock: boolean
  /** The address's budget (any accounts) is spent: only a proven browser was let past it (`proven`). */
  addressExhausted: boolean
  /** Failures counted for this account from this address in the window, before this attempt. */
  failuresFromHere: number
  /** Seconds until the account's oldest counted failure leaves its window (when a lock begun now would end). */
  accountResetSeconds: number
}

/**
 * For the sign-in page's passkey challenges: a budget of their own per address, so a script
 * asking in a loop is stopped at a page's needs (each answer stores a challenge row) without
 * spending the address's /v1 budget, and /v1 traffic never starves a person's passkey sign-in.
 */
export async function consumePasskeySignInOptions(clientAddress: string): Promise<RateLimitDecision> {
  const current = await readyLimiters()
  return consume(current.passkeySignInOptions, addressKey(clientAddress))
}

/**
 * For a member's new recovery codes (ten scrypts each, spent before anything can refuse them):
 * a few a minute, so a loop of cheap requests from one session cannot keep the server's cores
 * and libuv's threads hashing (break55). Consumed before the hashing, so requests at once count too.
 */
export async function consumeRecoveryCodeRegeneration(userId: string): Promise<RateLimitDecision> {
  const current = await readyLimiters()
  return consume(current.recoveryCodes, userId)
}

/**
 * For recovery codes hashed with a member's new factor (confirming an authenticator app, a first
 * passkey), ten scrypts before the factor lock: the member knows the app's key, and a script's
 * software passkey registers at will, so requests sent at once all hashed (break56). A budget of
 * its own, so setting up a factor spends none of the regenerations'.
 */
export async function consumeNewFactorCodes(userId: string): Promise<RateLimitDecision> {
  const current = await readyLimiters()
  return consume(current.newFactorCodes, userId)
}

/**
 * While an account is locked, an address that failed for it fewer times than this may still
 * try: the member at their usual desk (a typo or two included) is not locked out by someone
 * guessing from elsewhere.
 */
export const failuresAllowedFromAnAddressWhileLocked = 3

/**
 * For portal sign-in, three budgets of failures, counted together: per account (guessing one
 * person's password from many addresses), per account and address (the same, from one), and
 * per address (one address trying many accounts). Each attempt takes a slot in each (so
 * concurrent guesses cannot slip past together) and `succeeded()` gives them back, as does a
 * refusal (nothing was tried).
 *
 * The account's budget running out does not refuse everyone: that would let anyone lock any
 * member out by failing ten times. It locks the account against the addresses that failed for
 * it; an address that has not (fewer than failuresAllowedFromAnAddressWhileLocked failures) may
 * still try, and lib/auth/sign-in-throttle.ts decides what a locked account's sign-in needs
 * beyond the password. Wrong second-factor codes (`kind: 'code'`) count in a budget of their
 * own, which does lock the account everywhere: only someone who knows the password reaches it. The refusal's wait is the real one: when the deciding window frees a slot.
 */
export type SignInAttemptKind = 'password' | 'code' | 'recovery_code'

/**
 * `proven`: the browser proved it signed in to this account before (a known-browser note or a
 * live session; sign-in-throttle.ts then bounds that proof's own failures): the per-address
 * budget, which others behind the same address (an office's NAT) can spend on other accounts,
 * does not refuse it. `addressExhausted` says it would have.
 */
export async function consumeSignInAttempt(email: string, clientAddress: string, kind: SignInAttemptKind = 'password', proven = false): Promise<SignInAttemptDecision> {
  const current = await readyLimiters()
  const [account, pair, address] = await Promise.all([
    consumeHeld(kind === 'password' ? current.signInAccount : current.signInCodeAccount, accountKey(email)),
    consumeHeld(current.signInAccountAddress, `${accountKey(email)}:${addressKey(clientAddress)}`),
    consumeHeld(current.signInAddress, addressKey(clientAddress)),
  ])
  const giveBack = async () => {
    await Promise.all([account.release(), pair.release(), address.release()]).catch(() => undefined)
  }
  const accountLocked = !account.decision.allowed
  // What this address had failed for this account before: the pair window's count less this attempt.
  const failuresFromHere = pair.decision.allowed ? Math.max(0, pair.decision.limit - 1 - pair.decision.remaining) : pair.decision.limit
  const lockEndsInSeconds = accountLocked ? account.decision.retryAfterSeconds : 0
  const addressExhausted = !address.decision.allowed
  const facts = { accountLocked, lockEndsInSeconds, failuresFromHere, addressExhausted, lastBeforeLock: account.decision.allowed && account.decision.remaining === 0, accountResetSeconds: account.decision.resetSeconds }
  // A proven browser is not refused for what others spent from its address.
  const addressDecision = proven && addressExhausted ? pair.decision : address.decision
  let decision: RateLimitDecision
  if (!addressDecision.allowed) decision = addressDecision
  else if (!pair.decision.allowed) decision = pair.decision
  // Wrong codes come from someone who has the password: their lock holds for every address
  // (else many addresses could each guess a few of the million codes), and the member is told
  // to change it. Not for a recovery code (50 random bits, hopeless to guess at any rate): it
  // is what lets the member in from their own address while someone holding the password keeps
  // the authenticator codes locked.
  else if (accountLocked && (kind === 'code' || failuresFromHere >= failuresAllowedFromAnAddressWhileLocked)) decision = account.decision
  else decision = moreRestrictive(accountLocked ? pair.decision : account.decision, moreRestrictive(pair.decision, addressDecision))
  if (!decision.allowed) await giveBack()
  return { ...decision, ...facts, succeeded: giveBack }
}

/**
 * While an account is locked, each try from an address that has not failed for it takes one
 * of these (per account): how a member without a second factor may still sign in from their
 * own address, without letting many addresses guess on. Not given back: it bounds tries.
 */
export async function consumeLockedAccountTry(email: string): Promise<RateLimitDecision> {
  const current = await readyLimiters()
  return consume(current.signInWhileLocked, accountKey(email))
}

/**
 * While an account is locked, a browser that proved it signed in to the account before (a
 * known-browser note, or the live session of a member confirming it's them) is not held to the
 * lock's few tries; each of its tries takes a slot here instead, per account and proof, given
 * back (`release`) when the password was right. A proof that failed
 * failuresAllowedFromAnAddressWhileLocked times in the window is held to the lock's tries like
 * any stranger (OWASP's device-cookie lockout): a note read off a browser, replayed from many
 * addresses, cannot guess on.
 */
export async function consumeKnownBrowserTry(email: string, proof: string): Promise<{ allowed: boolean; retryAfterSeconds: number; release: () => Promise<void> }> {
  const current = await readyLimiters()
  const { decision, release } = await consumeHeld(current.signInKnownBrowser, `${accountKey(email)}:${createHash('sha256').update(proof).digest('base64url').slice(0, 32)}`)
  return { allowed: decision.allowed, retryAfterSeconds: decision.retryAfterSeconds, release }
}

/**
 * The response headers for a decision: RateLimit-Policy and RateLimit in the structured-field
 * form of draft-ietf-httpapi-ratelimit-headers (-10/-11: a quoted policy name with q/w and
 * r/t parameters), the de facto X-RateLimit-* trio many clients already read, and Retry-After
 * on a denial.
 */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const window = limiters?.windowSeconds[decision.policy]
  const headers: Record<string, string> = {
    'RateLimit-Policy': `"${decision.policy}";q=${decision.limit}${window ? `;w=${window}` : ''}`,
    RateLimit: `"${decision.policy}";r=${decision.remaining};t=${decision.resetSeconds}`,
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    // Unix epoch seconds when the window resets (as GitHub sends it), not a delta. Rounded up
    // so a client that waits until then never finds the old window still open.
    'X-RateLimit-Reset': String(Math.ceil(Date.now() / 1000) + decision.resetSeconds),
  }
  if (!decision.allowed) headers['Retry-After'] = String(Math.max(1, decision.retryAfterSeconds))
  return headers
}

/** Round trips this process has made to reserve blocks of per-token and per-content-key budgets, and requests it served from blocks without one (reserved-window.ts). */
export function blockStats(): { reservations: number; servedFromBlocks: number; localDecisions: number } {
  return { reservations: reserved.reservations, servedFromBlocks: reserved.servedFromBlocks, localDecisions }
}

/** Forgets the limiters (and their in-memory counts) so the next call reads the environment again. */
export function resetRateLimitersForTests(): void {
  limiters = undefined
  memory = new MemoryWindows()
  reserved.reset()
  owedToRedis.clear()
  reportedRedisDown = false
}

let memory = new MemoryWindows()
const reserved = new ReservedWindows()
// Decisions made in memory while Redis was configured but away (slow or down): for tests, beside the metric.
let localDecisions = 0
let reportedRedisDown = false

async function consume(policy: Policy, key: string, nowMs?: number): Promise<RateLimitDecision> {
  return (await consumeHeld(policy, key, nowMs)).decision
}

/**
 * `inBlocks`: the policy may be served from reserved blocks (reserved-window.ts). Then nothing
 * is read beside the decision (`alsoRead` is ignored): most decisions make no round trip.
 */
async function consumeHeld(policy: Policy, key: string, nowMs?: number, alsoRead?: string, inBlocks = false): Promise<{ decision: RateLimitDecision; release: () => Promise<void>; read?: string }> {
  const fullKey = fullKeyOf(policy, key)
  const windowMs = policy.windowSeconds * 1000
  const redis = getRedis()
  const { lineage } = policy
  // Redis came back without its data less than a window ago: its log may lack what was admitted
  // in this window, so it is treated as away (memory, at this instance's share) until the window
  // has passed, without asking it.
  const recovering = lineage.recovering(windowMs, nowMs)
  // While the connection is not ready, answer from memory at once, without a round trip.
  if (redis && redis.status === 'ready' && !recovering) {
    const atOnce = inBlocks && nowMs === undefined ? fromBlockAtOnce(policy, fullKey) : undefined
    if (atOnce) return atOnce
    try {
      await declareOwed(redis, policy, fullKey, windowMs, inBlocks && policy.blockCap > 0, nowMs)
      if (inBlocks && policy.blockCap > 0) {
        const outcome = await reserved.consume(redis, lineage, fullKey, policy.limit, windowMs, policy.blockCap, nowMs)
        reportedRedisDown = false
        return { decision: decide(policy, outcome), release: remembered(policy, fullKey, windowMs, nowMs, outcome) }
      }
      const outcome = await consumeInRedis(redis, lineage, fullKey, policy.limit, windowMs, nowMs, alsoRead)
      reportedRedisDown = false
      return { decision: decide(policy, outcome), release: remembered(policy, fullKey, windowMs, nowMs, outcome), ...(outcome.read !== undefined && { read: outcome.read }) }
    } catch (error) {
      if (error instanceof RedisDataLost) {
        // Redis answers, but without the log this instance decided in (restarted without its
        // data, an empty replica promoted, flushed): nothing was decided there; as while it is away.
        if (lineage.lost(error.made, nowMs ?? Date.now())) console.error(`Rate limiter '${policy.name}': Redis came back without its data, counting in memory for one window.`)
      } else {
        // Slow or failing Redis: this request is counted in memory rather than failed.
        if (!reportedRedisDown) console.error(`Rate limiter '${policy.name}': Redis unavailable, counting in memory.`, error)
        reportedRedisDown = true
      }
    }
  } else if (redis && !recovering && !reportedRedisDown) {
    console.error(`Rate limiter '${policy.name}': Redis unavailable (${redis.status}), counting in memory.`)
    reportedRedisDown = true
  }
  // Redis configured but away: this instance decides alone, so it takes only its share.
  const limited = redis ? { ...policy, limit: localShare(policy.limit) } : policy
  if (redis) {
    localDecisions++
    metrics.rateLimitLocalDecisions.inc()
  }
  const outcome = memory.consume(fullKey, limited.limit, windowMs, nowMs)
  if (!redis || !outcome.allowed) return { decision: decide(limited, outcome), release: outcome.release }
  // Owed to Redis until it is told (declareOwed); a request that turns out not to count (a right
  // password, a refusal) is taken out of what is owed as well as out of memory.
  const at = owe(fullKey, nowMs ?? Date.now(), windowMs)
  return {
    decision: decide(limited, outcome),
    release: async () => {
      forgetOwed(fullKey, at)
      await outcome.release()
    },
  }
}

type Held = { decision: RateLimitDecision; release: () => Promise<void> }

/**
 * A request served from this instance's reserved block without waiting: when the policy is
 * served in blocks, Redis is ready, nothing admitted in memory is still owed to it, it is not
 * recovering from a loss, and the key's block has a slot left with nobody waiting before it.
 * Otherwise undefined, and the decision goes the long way (consumeHeld). Real time only: a
 * block's lease runs on the real clock.
 */
function fromBlockAtOnce(policy: Policy, fullKey: string): Held | undefined {
  const redis = getRedis()
  if (!redis || redis.status !== 'ready' || policy.blockCap <= 0) return undefined
  const windowMs = policy.windowSeconds * 1000
  if (owedToRedis.has(fullKey) || policy.lineage.recovering(windowMs)) return undefined
  const outcome = reserved.consumeAtOnce(redis, fullKey, policy.limit)
  if (!outcome) return undefined
  reportedRedisDown = false
  return { decision: decide(policy, outcome), release: remembered(policy, fullKey, windowMs, undefined, outcome) }
}

/**
 * Requests this instance admitted in memory (Redis away, slow, or recovering from a loss), by
 * key, that Redis's log does not hold: they are declared there before the key's next decision in
 * Redis, so the count Redis keeps again includes them. Without, a token that used its share in
 * memory during a 3 s blip got its whole limit again from Redis once it answered (299 of a limit
 * of 200 in one window, break66). Declared at Redis's time then, later than they were admitted:
 * they leave the window a little late, never early.
 */
/** Per key, the times (oldest first) of the requests admitted in memory that Redis has yet to be told of. */
const owedToRedis = new Map<string, number[]>()

/** Notes a request admitted in memory at `at`; returns `at`, for forgetOwed. Times that left the window are dropped on the way. */
function owe(fullKey: string, at: number, windowMs: number): number {
  const times = owedToRedis.get(fullKey)
  if (times) {
    times.push(at)
    // Admissions that left the window are owed no more: an outage of many windows must not be declared whole (break70).
    let gone = 0
    while (gone < times.length && at - times[gone]! >= windowMs) gone++
    if (gone > 0) times.splice(0, gone)
    return at
  }
  // Keys never asked for again would stay: those whose admissions have all left the window go.
  if (owedToRedis.size >= 10_000) for (const [key, entry] of owedToRedis) if (at - entry.at(-1)! >= windowMs) owedToRedis.delete(key)
  owedToRedis.set(fullKey, [at])
  return at
}

function forgetOwed(fullKey: string, at: number): void {
  const times = owedToRedis.get(fullKey)
  const index = times?.lastIndexOf(at) ?? -1
  if (index < 0) return
  times!.splice(index, 1)
  if (times!.length === 0) owedToRedis.delete(fullKey)
}

async function declareOwed(redis: Redis, policy: Policy, fullKey: string, windowMs: number, inBlocks: boolean, nowMs: number | undefined): Promise<void> {
  const times = owedToRedis.get(fullKey)
  if (!times) return
  owedToRedis.delete(fullKey)
  const now = nowMs ?? Date.now()
  // Only what is still in the window counts (and never more than the limit could have let in).
  const count = Math.min(policy.limit, times.filter((at) => now - at < windowMs).length)
  if (count === 0) return
  try {
    if (inBlocks) await reserved.declare(redis, policy.lineage, fullKey, policy.limit, windowMs, count)
    // A budget decided request by request (under minimumForBlocks, so at most 99 of them): a log entry each.
    else await Promise.all(Array.from({ length: count }, () => consumeInRedis(redis, policy.lineage, fullKey, policy.limit, windowMs, nowMs)))
  } catch (error) {
    owedToRedis.set(fullKey, times)
    throw error
  }
}

/**
 * A request Redis admitted is also counted in this instance's memory (not decided there): should
 * Redis go away or come back without its data within the window, the decisions made in memory
 * see what this instance admitted, and a token it let use its whole limit is refused rather
 * than given its share again. The release takes it out of both.
 */
function remembered(policy: Policy, fullKey: string, windowMs: number, nowMs: number | undefined, outcome: WindowOutcome): () => Promise<void> {
  if (!outcome.allowed) return outcome.release
  const at = memory.record(fullKey, policy.share, windowMs, nowMs)
  const counted = memory
  return async () => {
    counted.forget(fullKey, at)
    await outcome.release()
  }
}

// Budgets smaller than this are decided request by request in Redis.
const minimumForBlocks = 100


/** This instance's part of `limit` while it decides alone: limit / RATE_LIMIT_INSTANCES, at least 1. */
export function localShare(limit: number): number {
  return Math.max(1, Math.floor(limit / positiveInteger('RATE_LIMIT_INSTANCES', 1)))
}

// A busy token's key, joined once rather than per request: a joined string is new each time,
// and hashed anew for the lookup of the token's block (reserved-window.ts): 180 against 28 ns a
// request, joined and looked up, in a micro-benchmark.
const fullKeys = new WeakMap<Policy, Map<string, string>>()
function fullKeyOf(policy: Policy, key: string): string {
  let joined = fullKeys.get(policy)
  if (!joined) fullKeys.set(policy, (joined = new Map()))
  let fullKey = joined.get(key)
  if (fullKey === undefined) {
    fullKey = `${policy.keyPrefix}:${key}`
    if (joined.size >= 10_000) joined.clear()
    joined.set(key, fullKey)
  }
  return fullKey
}

function decide(policy: Policy, outcome: WindowOutcome): RateLimitDecision {
  const resetSeconds = Math.max(0, Math.ceil(outcome.resetMs / 1000))
  return {
    allowed: outcome.allowed,
    limit: policy.limit,
    remaining: outcome.allowed ? Math.min(policy.limit, outcome.remaining) : 0,
    resetSeconds,
    retryAfterSeconds: outcome.allowed ? 0 : Math.max(1, resetSeconds),
    policy: policy.name,
  }
}

function moreRestrictive(a: RateLimitDecision, b: RateLimitDecision): RateLimitDecision {
  if (a.allowed !== b.allowed) return a.allowed ? b : a
  if (!a.allowed) return a.retryAfterSeconds >= b.retryAfterSeconds ? a : b
  if (a.remaining !== b.remaining) return a.remaining < b.remaining ? a : b
  return a.resetSeconds >= b.resetSeconds ? a : b
}

function createLimiters(): Limiters {
  const prefix = process.env.RATE_LIMIT_KEY_PREFIX || 'newsroom:rl'
  const window = positiveInteger('RATE_LIMIT_WINDOW_SECONDS', 60)
  const signInWindow = positiveInteger('RATE_LIMIT_SIGN_IN_WINDOW_SECONDS', 15 * 60)

  const instances = positiveInteger('RATE_LIMIT_INSTANCES', 1)
  // One marker for every budget under the prefix: they are lost together.
  const lineage = new RedisLineage(`${prefix}:lineage`)
  const policy = (name: string, key: string, limit: number, windowSeconds: number): Policy => ({
    name,
    limit,
    windowSeconds,
    keyPrefix: `${prefix}:${key}`,
    blockCap: limit >= minimumForBlocks ? Math.floor(limit / (8 * instances)) : 0,
    lineage,
    share: localShare(limit),
  })
  return {
    // Both plans count under one key, so a plan change mid-window keeps the count.
    token: {
      standard: policy('per-token', 'token', positiveInteger('RATE_LIMIT_STANDARD_PER_MINUTE', 1_000), window),
      enterprise: policy('per-token', 'token', positiveInteger('RATE_LIMIT_ENTERPRISE_PER_MINUTE', 10_000), window),
    },
    unauthenticated: policy('per-address', 'address', positiveInteger('RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE', 60), window),
    contentKey: policy('per-content-key', 'content-key', positiveInteger('RATE_LIMIT_CONTENT_PER_MINUTE', 3_000), window),
    signInAccount: policy('sign-in-account', 'sign-in:account', positiveInteger('RATE_LIMIT_SIGN_IN_PER_ACCOUNT', 10), signInWindow),
    signInCodeAccount: policy('sign-in-codes', 'sign-in:codes', positiveInteger('RATE_LIMIT_SIGN_IN_PER_ACCOUNT', 10), signInWindow),
    signInAccountAddress: policy('sign-in-account-address', 'sign-in:account-address', positiveInteger('RATE_LIMIT_SIGN_IN_PER_ACCOUNT', 10), signInWindow),
    signInAddress: policy('sign-in-address', 'sign-in:address', positiveInteger('RATE_LIMIT_SIGN_IN_PER_ADDRESS', 50), signInWindow),
    signInWhileLocked: policy('sign-in-while-locked', 'sign-in:locked', positiveInteger('RATE_LIMIT_SIGN_IN_WHILE_LOCKED', 10), signInWindow),
    signInKnownBrowser: policy('sign-in-known-browser', 'sign-in:known-browser', failuresAllowedFromAnAddressWhileLocked, signInWindow),
    // A sign-in page asks once per attempt; ten a minute is a busy shared office's worth.
    passkeySignInOptions: policy('passkey-sign-in-options', 'passkey-options:address', positiveInteger('RATE_LIMIT_PASSKEY_OPTIONS_PER_MINUTE', 10), window),
    // Ten scrypts (16 MB and ~50 ms of CPU each) a regeneration: two tabs' worth a minute (break55).
    recoveryCodes: policy('recovery-codes', 'recovery-codes:member', positiveInteger('RATE_LIMIT_RECOVERY_CODES_PER_MINUTE', 2), window),
    // The same ten scrypts a confirmation, and the same two tabs' worth (break56).
    newFactorCodes: policy('new-factor-codes', 'new-factor-codes:member', positiveInteger('RATE_LIMIT_RECOVERY_CODES_PER_MINUTE', 2), window),
    windowSeconds: {
      'per-token': window,
      'per-address': window,
      'per-content-key': window,
      'sign-in-account': signInWindow,
      'sign-in-account-address': signInWindow,
      'sign-in-codes': signInWindow,
      'sign-in-address': signInWindow,
      'sign-in-while-locked': signInWindow,
      'sign-in-known-browser': signInWindow,
      'passkey-sign-in-options': window,
      'recovery-codes': window,
      'new-factor-codes': window,
    },
  }
}

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw.trim() === '') return fallback
  const value = Number(raw)
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new Error(`${name} must be a whole number of at least 1, not '${raw}'.`)
  }
  return value
}

/** Addresses kept out of Redis keys and dumps: the key is a digest of the normalised address. */
function accountKey(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('base64url').slice(0, 32)
}

// Dual-stack sockets report IPv4 clients as ::ffff:a.b.c.d; one client gets one budget.
function addressKey(clientAddress: string): string {
  const address = clientAddress.trim().toLowerCase()
  if (address === '') return 'unknown'
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address
}
