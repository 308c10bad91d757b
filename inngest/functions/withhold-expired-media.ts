import { cron } from 'inngest'
import { withholdExpiredMedia } from '../../lib/media/licence-expiry.ts'
import { inngest } from '../client.ts'

/**
 * Every minute, withholds the images whose licence ended (those no live article shows too:
 * caches may hold their renditions): the content API and renditions stop showing them at the
 * instant itself; this run purges the caches, sends media.updated and tells the editors of live
 * articles showing them (lib/media/licence-expiry.ts).
 * A minute bounds how long a shared cache may keep an expired image.
 */
export const withholdExpiredMediaFunction = inngest.createFunction(
  { id: 'withhold-expired-media', name: 'Withhold images whose licence expired', triggers: [cron('* * * * *')], concurrency: 1 },
  async ({ step }) =>
    step.run('withhold', async () => {
      const { withheld } = await withholdExpiredMedia()
      return { withheld: withheld.length, articles: withheld.reduce((sum, item) => sum + item.articleIds.length, 0) }
    }),
)
