import { cron } from 'inngest'
import { sweepOrphanMediaBlobs } from '../../lib/media/orphan-blobs.ts'
import { inngest } from '../client.ts'

/**
 * Once a day, removes media blobs no record refers to (lib/media/orphan-blobs.ts): what a
 * deletion could not remove while the object store was not answering, so a deleted image's
 * bytes do not stay in the bucket for good.
 */
export const sweepOrphanMediaFunction = inngest.createFunction(
  { id: 'sweep-orphan-media', name: 'Remove media blobs no record refers to', triggers: [cron('17 3 * * *')], concurrency: 1 },
  async ({ step }) =>
    step.run('sweep', async () => {
      const { examined, removed } = await sweepOrphanMediaBlobs()
      return { examined, removed: removed.length }
    }),
)
