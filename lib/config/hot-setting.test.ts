import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { hotSetting } from './hot-setting.ts'

const run = promisify(execFile)
const script = `
  const { hotSetting } = await import(${JSON.stringify(new URL('./hot-setting.ts', import.meta.url).pathname)})
  const first = hotSetting('HOT_SETTING_PROBE')
  process.env.HOT_SETTING_PROBE = 'changed'
  console.log(JSON.stringify([first, hotSetting('HOT_SETTING_PROBE')]))
`

describe('a setting read on every request', () => {
  it('is read once by a production server, whose environment does not change under it', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, NODE_ENV: 'production', HOT_SETTING_PROBE: 'set' } })
    expect(JSON.parse(stdout)).toEqual(['set', 'set'])
  })

  it('is read each time elsewhere, where tests point a running process at another server', () => {
    process.env.HOT_SETTING_PROBE = 'one'
    expect(hotSetting('HOT_SETTING_PROBE')).toBe('one')
    process.env.HOT_SETTING_PROBE = 'two'
    expect(hotSetting('HOT_SETTING_PROBE')).toBe('two')
    delete process.env.HOT_SETTING_PROBE
  })
})
