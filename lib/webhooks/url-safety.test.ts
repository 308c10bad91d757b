import { afterEach, describe, expect, it } from 'vitest'
import { checkWebhookUrl, isPrivateAddress, setHostResolver } from './url-safety.ts'

afterEach(() => setHostResolver(undefined))

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1', '127.1.2.3', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.100.100.200',
    '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fd00:ec2::254', 'fc00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:7f00:1',
    '::ffff:169.254.169.254', '64:ff9b::7f00:1', '2002:7f00:1::', 'not-an-ip',
  ])('%s is refused', (address) => {
    expect(isPrivateAddress(address)).toBe(true)
  })

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(isPrivateAddress(address)).toBe(false)
  })
})

describe('checkWebhookUrl without WEBHOOK_ALLOW_PRIVATE_URLS', () => {
  it('requires https and refuses credentials', async () => {
    setHostResolver(async () => [{ address: '93.184.216.34', family: 4 }])
    expect(await checkWebhookUrl('https://hooks.example.com/in', false)).toBeNull()
    expect(await checkWebhookUrl('http://hooks.example.com/in', false)).toMatch(/https/)
    expect(await checkWebhookUrl('ftp://hooks.example.com/in', false)).toMatch(/https/)
    expect(await checkWebhookUrl('https://user:pw@hooks.example.com/in', false)).toMatch(/user name or password/)
    expect(await checkWebhookUrl('not a url', false)).toMatch(/absolute URL/)
  })

  it.each([
    'https://127.0.0.1/hook', 'https://2130706433/hook', 'https://0x7f.1/hook', 'https://[::1]/hook', 'https://169.254.169.254/latest/meta-data',
    'https://[fd00:ec2::254]/', 'https://[::ffff:127.0.0.1]/', 'https://10.1.2.3:8443/x',
  ])('refuses the literal private address in %s', async (url) => {
    expect(await checkWebhookUrl(url, false)).toMatch(/private, loopback or link-local/)
  })

  it('refuses a host when any of its resolved addresses is private', async () => {
    setHostResolver(async (host) => (host === 'mixed.example' ? [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.5', family: 4 }] : []))
    expect(await checkWebhookUrl('https://mixed.example/hook', false)).toMatch(/10\.0\.0\.5/)
    expect(await checkWebhookUrl('https://nothing.example/hook', false)).toMatch(/no addresses/)
  })

  it('refuses localhost through the real resolver, and unresolvable hosts', async () => {
    expect(await checkWebhookUrl('https://localhost:8443/hook', false)).toMatch(/private, loopback or link-local/)
    expect(await checkWebhookUrl('https://does-not-exist.invalid/hook', false)).toMatch(/could not be resolved/)
  })

  it('allows http and private addresses when the operator allows them', async () => {
    expect(await checkWebhookUrl('http://127.0.0.1:9999/hook', true)).toBeNull()
    expect(await checkWebhookUrl('https://localhost/hook', true)).toBeNull()
    expect(await checkWebhookUrl('ftp://127.0.0.1/hook', true)).toMatch(/https or http/)
  })
})
