import { z } from 'zod'
import { chooseSearchLanguage, searchLanguage, searchLanguageChoices } from '../../articles/search-language.ts'
import { router, scopedProcedure } from '../init.ts'

const procedure = scopedProcedure('admin')

/** The newsroom's own settings (Settings → Search). */
export const newsroomRouter = router({
  searchLanguage: procedure.query(async ({ ctx }) => ({ language: await searchLanguage(ctx.actor.tenant.id), choices: searchLanguageChoices })),
  setSearchLanguage: procedure.input(z.object({ language: z.string().max(64) })).mutation(({ ctx, input }) => chooseSearchLanguage(ctx.actor, input.language)),
  /**
   * Settings → Export asks this before it downloads: it does nothing, but as a mutation on the
   * declared sudo list it opens "Confirm it's you" when the session's last proof is old, and
   * /api/newsroom-export refuses such a session the same way.
   */
  confirmExport: procedure.mutation(() => ({ ready: true as const })),
})
