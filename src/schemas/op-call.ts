// What a call of one operation takes and gives, typed from its OpSpec: the request's
// params, query, body and headers, and the success body of its statuses; and the two small
// functions every call needs (its path, and whether an answer is a problem). Shared by the
// clients (src/client in Node, the web page's src/web/app/api/client.ts); nothing here
// imports code, so the page's bundle takes only these functions.
import type { Static, TSchema } from 'typebox'
import type { AllOps, OpId } from './index.ts'
import type { OpSpec } from './op.ts'
import type { Problem } from './problems.ts'

type StaticOr<S, F> = S extends TSchema ? Static<S> : F

export interface CallInput<O extends OpSpec> {
  params?: StaticOr<O['params'], Record<string, never>>
  query?: Partial<StaticOr<O['query'], Record<string, never>>>
  body?: StaticOr<O['body'], undefined>
  headers?: Record<string, string>
}

export type SuccessBody<O extends OpSpec> = {
  [S in Extract<keyof O['responses'], number>]: O['responses'][S]['schema'] extends TSchema
    ? Static<O['responses'][S]['schema']>
    : undefined
}[Extract<keyof O['responses'], number>]

export interface CallResult<O extends OpSpec> {
  status: number
  body: SuccessBody<O>
  headers: Headers
}

/** A client of the API: src/client's HearthClient and the web page's client both are. */
export interface OpCaller {
  call<K extends OpId>(id: K, input?: CallInput<AllOps[K]>): Promise<CallResult<AllOps[K]>>
}

/** An operation's path template with its params in place, each encoded. */
export function pathOf(template: string, params: Record<string, string> = {}): string {
  return template.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const v = params[name]
    if (v === undefined) throw new Error(`Missing path parameter ${name}`)
    return encodeURIComponent(v)
  })
}

/** Whether a parsed answer is a problem document (with hearth's `code`). */
export function isProblem(v: unknown): v is Problem {
  const p = v as Problem | null | undefined
  return typeof p === 'object' && p !== null && typeof p.code === 'string' && typeof p.status === 'number'
}
