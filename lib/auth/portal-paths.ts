/**
 * Portal paths that both the server (proxy.ts's two-factor gate) and the browser (a tab that
 * learns it is now gated) must agree on. A module of constants only, so client code can import
 * it without pulling in the server-only gate.
 */

/** Where proxy.ts sends a member past the newsroom's two-factor grace. */
export const secondFactorSetupPath = '/settings/security'
