// Joining a profile's endpoint (a base URL) with an API path.
//
// OpenAI's SDKs, Codex and pi take a base URL that already carries the version
// (`https://api.openai.com/v1`) and append `/responses` or `/chat/completions`; many
// users instead paste a bare origin (`http://localhost:11434`). hearth accepts both:
//   - a path that already ends in the API path is used as it is (a full URL was pasted);
//   - a path with a version segment (`/v1`, `/v1beta/openai`, `/api/paas/v4`) gets the
//     API path appended: `{endpoint}/responses`;
//   - any other path (`''`, `/`, `/proxy`) gets `/v1` and the API path: `{endpoint}/v1/responses`.
// Trailing slashes are ignored and a query string (`?api-version=…`) is kept.

export type ApiPath = '/responses' | '/chat/completions'

const VERSION_SEGMENT = /^v\d+(?:(?:alpha|beta)\d*)?$/i

export function joinEndpoint(endpoint: string, apiPath: ApiPath): string {
  const url = new URL(endpoint.trim())
  const path = url.pathname.replace(/\/+$/, '')
  if (path.endsWith(apiPath)) {
    url.pathname = path
  } else {
    const versioned = path.split('/').some((segment) => VERSION_SEGMENT.test(segment))
    url.pathname = versioned ? `${path}${apiPath}` : `${path}/v1${apiPath}`
  }
  return url.toString()
}
