import net from 'node:net'
import { expect, test } from '@playwright/test'
import { queryE2eDatabase } from './support/e2e-database.ts'
import { signedInContext } from './support/portal-session.ts'
import { e2eBaseUrl } from './support/e2e-env.ts'
import { unique } from './support/unique.ts'
import { noisePhoto } from './support/media-photos.ts'

// A phone on a flaky connection: the whole photo reached the server, which kept it and sent its
// answer, and the connection dropped before that answer reached the phone. The server saw its
// answer go out (nothing told it otherwise), so the image is kept. The page must not then tell
// the editor "Nothing was stored".

/**
 * A way to the server that loses the answer to an upload: the request goes through whole, the
 * server answers (and sees its answer go out), and the connection to the browser is then cut.
 * Everything else passes as it is.
 */
async function lossyWay() {
  const target = new URL(e2eBaseUrl)
  const server = net.createServer((browserSide) => {
    const serverSide = net.connect(Number(target.port), target.hostname)
    let losing = false
    browserSide.on('data', (chunk) => {
      if (chunk.includes('POST /api/media ')) losing = true
      serverSide.write(chunk)
    })
    serverSide.on('data', (chunk) => {
      if (!losing) return void browserSide.write(chunk)
      browserSide.resetAndDestroy()
      setTimeout(() => serverSide.destroy(), 1_000)
    })
    browserSide.on('error', () => undefined)
    serverSide.on('error', () => browserSide.destroy())
    browserSide.on('close', () => losing || serverSide.destroy())
    serverSide.on('close', () => browserSide.destroy())
  })
  // A port of the system's choosing: two workers, or another run, never meet on it.
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, close: () => new Promise((resolve) => server.close(resolve)) }
}

test('the answer to an upload lost on the way back: the page does not say nothing was stored when the image was kept', async ({ browser }) => {
  const name = `lost-answer-${unique()}.jpg`
  const context = await signedInContext(browser, 'writer')
  const page = await context.newPage()
  // Cookies are the host's, whatever the port: the session holds on this way in too.
  const way = await lossyWay()
  try {
    await page.goto(`${way.url}/media`)
    await page.getByLabel('Choose images to upload').setInputFiles({ name, mimeType: 'image/jpeg', buffer: await noisePhoto(480, 320, 91) })
    const row = page.getByTestId('media-upload').filter({ hasText: name })
    await expect(row).toHaveAttribute('data-state', 'failed')
    const said = (await row.getByRole('alert').textContent()) ?? ''
    await page.waitForTimeout(1_500)
    const kept = await queryE2eDatabase('SELECT 1 FROM media WHERE filename = $1', [name])
    expect(kept.length === 0 || !/Nothing was stored/i.test(said), `the page said "${said}" and the image is in the library`).toBe(true)
  } finally {
    await context.close()
    await way.close()
  }
})
