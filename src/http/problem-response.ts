// Rendering a problem as an HTTP response: the only place problem+json bodies are built.
import { type HearthError, type ProblemCode, problemBody } from '../schemas/problems.ts'

export const PROBLEM_JSON = 'application/problem+json'

export function problemResponse(
  code: ProblemCode,
  detail?: string,
  headers: Record<string, string> = {},
  members: Record<string, unknown> = {},
): Response {
  const body = { ...members, ...problemBody(code, detail) }
  return new Response(JSON.stringify(body), {
    status: body.status,
    headers: { 'content-type': PROBLEM_JSON, 'cache-control': 'no-store', ...headers },
  })
}

export function errorResponse(err: HearthError): Response {
  return problemResponse(err.code, err.message, err.headers, err.members)
}
