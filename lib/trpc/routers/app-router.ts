import { memberProcedure, router } from '../init.ts'
import { apiKeysRouter } from './api-keys-router.ts'
import { contentKeysRouter } from './content-keys-router.ts'
import { articlesRouter } from './articles-router.ts'
import { mediaRouter } from './media-router.ts'
import { departmentsRouter } from './departments-router.ts'
import { deskRouter } from './desk-router.ts'
import { newsroomRouter } from './newsroom-router.ts'
import { securityRouter } from './security-router.ts'
import { ssoRouter } from './sso-router.ts'
import { twoFactorPolicyRouter } from './two-factor-policy-router.ts'
import { usersRouter } from './users-router.ts'
import { webhooksRouter } from './webhooks-router.ts'

/** The portal's procedures: thin adapters over lib/, one sub-router per page area. */
export const appRouter = router({
  me: memberProcedure.query(({ ctx }) => ({ id: ctx.member.id, name: ctx.member.name, role: ctx.member.role, tenant: ctx.tenant.name })),
  desk: deskRouter,
  articles: articlesRouter,
  media: mediaRouter,
  apiKeys: apiKeysRouter,
  contentKeys: contentKeysRouter,
  webhooks: webhooksRouter,
  users: usersRouter,
  departments: departmentsRouter,
  security: securityRouter,
  newsroom: newsroomRouter,
  sso: ssoRouter,
  twoFactorPolicy: twoFactorPolicyRouter,
})

export type AppRouter = typeof appRouter
