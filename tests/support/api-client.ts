/** A small HTTP client for the integration tests: real requests, parsed answers. */
export type ApiAnswer<T = any> = { status: number; headers: Headers; body: T; text: string }

export function apiClient(baseUrl: string, token?: string) {
  async function call<T = any>(method: string, path: string, options: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}): Promise<ApiAnswer<T>> {
    const headers: Record<string, string> = { ...(token && { Authorization: `Bearer ${token}` }), ...options.headers }
    let body: string | undefined
    if (options.rawBody !== undefined) body = options.rawBody
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers['Content-Type'] ??= 'application/json'
    }
    const response = await fetch(baseUrl + path, { method, headers, body })
    const text = await response.text()
    let parsed: unknown = undefined
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {
      parsed = undefined
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text }
  }
  return {
    get: <T = any>(path: string, headers?: Record<string, string>) => call<T>('GET', path, { headers }),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => call<T>('POST', path, { body, headers }),
    patch: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => call<T>('PATCH', path, { body, headers }),
    delete: <T = any>(path: string, headers?: Record<string, string>) => call<T>('DELETE', path, { headers }),
    call,
  }
}
