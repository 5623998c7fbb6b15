// What a call of one operation takes and gives, typed from its OpSpec: the request's
// params, query, body and headers, and the success body of its statuses. Types only, shared
// by the clients (src/client in Node, the web page's src/web/app/api/client.ts).
import type { Static, TSchema } from 'typebox'
import type { OpSpec } from './op.ts'

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
