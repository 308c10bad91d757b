import type { Actor } from '../tenancy/actor.ts'

/**
 * Which portal acts need recent authentication (sudo mode, recent-authentication.ts), decided
 * here, beside `can` (permissions.ts), and not by each procedure: the portal's tRPC middleware
 * (lib/trpc/init.ts) asks `needsRecentAuthentication` for every mutation, after the role check,
 * and a test walks every mutation of the router and fails when one is missing from this list.
 *
 * The rule: an act that can redirect the newsroom's data elsewhere, widen who or what may get
 * in, or remove a person asks. Taking access away (revoking a key, ending a session, pausing a
 * webhook) does not: it must stay quick in an incident.
 *
 * - `always` / `never`;
 * - a function for an act that is dangerous only sometimes (a key with admin scope): it reads
 *   the raw input (not yet validated: a malformed one is refused by the procedure) and answers
 *   whether this call needs it.
 */
export type RecentAuthenticationRule = 'always' | 'never' | ((input: unknown, actor: Actor) => boolean | Promise<boolean>)

export const recentAuthenticationActs: Record<string, RecentAuthenticationRule> = {
  // Articles: the newsroom's daily work; the workflow's own rules (articleActionRefusal) decide.
  'articles.lease': 'never',
  // Media: the same daily work; who may change or delete an image is mediaActionRefusal's decision.
  'media.update': 'never',
  'media.delete': 'never',
  'articles.releaseLease': 'never',
  'articles.addNote': 'never',
  'articles.createPreviewLink': 'never',
  'articles.revokePreviewLink': 'never',
  'articles.restoreRevision': 'never',
  'articles.create': 'never',
  'articles.update': 'never',
  'articles.transition': 'never',
  'articles.approveAndPublish': 'never',
  'articles.cancelSchedule': 'never',

  // API keys: a key is a way in, of any scope (articles:read reads every draft from anywhere,
  // articles:write publishes; content keys, which read only published work, ask too), and a
  // rolled key's answer carries a new working secret: both outlive the session that made them.
  'apiKeys.create': 'always',
  'apiKeys.roll': 'always',
  'apiKeys.rename': 'never',
  // Narrowing, loosening or clearing the addresses a key works from: all of it changes who may use it.
  'apiKeys.setAllowlist': 'always',
  'apiKeys.revoke': 'never',
  // Content keys read everything published, from any site that embeds one.
  'contentKeys.create': 'always',
  'contentKeys.revoke': 'never',

  // Webhooks send every article event (drafts included) to the URL they name.
  'webhooks.create': 'always',
  'webhooks.update': 'always',
  'webhooks.rotateSecret': 'always',
  'webhooks.reenable': 'never',
  'webhooks.pause': 'never',
  'webhooks.resume': 'never',
  'webhooks.delete': 'never',
  'webhooks.sendTest': 'never',
  'webhooks.redeliver': 'never',

  // People.
  // Any new member is a new way in, and the answer carries its generated password.
  'users.create': 'always',
  'users.changeRole': 'always',
  'users.deactivate': 'always',
  'users.resetSecondFactors': 'always',

  'departments.add': 'never',
  'departments.rename': 'never',
  'departments.remove': 'never',
  'newsroom.setSearchLanguage': 'never',
  // The whole newsroom in one file (every draft, every member, the audit log): what an
  // unattended session would take. /api/newsroom-export checks the same window.
  'newsroom.confirmExport': 'always',

  // Who may sign in, and how.
  'sso.save': 'always',
  'twoFactorPolicy.save': 'always',

  // The member's own sign-in (Settings → Security).
  'security.endSession': 'never',
  'security.endOtherSessions': 'never',
  // The proof itself.
  'security.reauthenticate': 'never',
  'security.passkeyReauthenticationOptions': 'never',
  'security.reauthenticateWithPasskey': 'never',
  // A new passkey is a new way in; renaming or removing one changes which ways in there are.
  'security.passkeyRegistrationOptions': 'always',
  'security.registerPasskey': 'always',
  'security.renamePasskey': 'always',
  'security.removePasskey': 'always',
  // Starting an authenticator app enrolment stores nothing usable. Confirming it is a new
  // factor, as a new passkey is: the member's next sign-in needs its codes, and its recovery
  // codes are in the answer, so whoever sits at a stale session must prove who they are.
  'security.startTotp': 'never',
  'security.confirmTotp': 'always',
  'security.removeTotp': 'always',
  'security.regenerateRecoveryCodes': 'always',
  // Asks for the current password itself (change-password.ts).
  'security.changePassword': 'never',
}

/**
 * Whether this call of the portal mutation at `path` needs recent authentication. A mutation
 * not in the list needs it (fail closed); the router's test keeps the list complete.
 */
export async function needsRecentAuthentication(path: string, input: unknown, actor: Actor): Promise<boolean> {
  const rule = Object.hasOwn(recentAuthenticationActs, path) ? recentAuthenticationActs[path]! : 'always'
  if (rule === 'always' || rule === 'never') return rule === 'always'
  return rule(input, actor)
}
