// The shape of one operation in the route table. Each group's schema file exports an
// `ops` object of these; the HTTP layer registers and validates from it, OpenAPI is
// generated from it and the client is typed by it. Handlers live in src/api/, never here.
import type { Static, TObject, TSchema } from 'typebox'
import type { ProblemCode } from './problems.ts'

export type Method = 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE'

export interface ResponseSpec {
  description: string
  /** JSON body schema; omitted for bodiless responses (204). */
  schema?: TSchema
  /** Defaults to application/json. */
  mediaType?: string
  /** A text/event-stream alternative of this response, chosen by Accept. */
  stream?: TSchema
  /** Further JSON alternatives (e.g. another view of the resource). */
  alternatives?: readonly TSchema[]
  /** Response headers this status sets, e.g. ['ETag', 'Location']. */
  headers?: readonly ResponseHeader[]
}

export type ResponseHeader = 'ETag' | 'Location' | 'Vary' | 'Retry-After' | 'Allow' | 'WWW-Authenticate'

export type Precondition = 'required' | 'optional'

export interface OpSpec {
  method: Method
  /** OpenAPI-style path with {name} segments. */
  path: string
  summary: string
  description?: string
  tags: readonly string[]
  params?: TObject
  query?: TObject
  /** Conditional request headers this op reads. */
  ifMatch?: Precondition
  ifNoneMatch?: Precondition
  body?: TSchema
  /** Request media type; merge-patch operations use application/merge-patch+json. */
  bodyMediaType?: 'application/json' | 'application/merge-patch+json'
  /** Decoded body byte limit; the default is 64 KiB. */
  bodyLimit?: number
  responses: Readonly<Record<number, ResponseSpec>>
  /** Problem codes this op can answer beyond the shared ones (401, 403, 404 route, 405…). */
  problems: readonly ProblemCode[]
  /** JSON pointers of fields clients may not send (400 read_only_field, checked before the schema). */
  readOnly?: readonly string[]
  /**
   * The handler reads `rawBody` (parsed JSON) first and the validated `body` later: for
   * idempotent creation, where a repeat is looked up before its body is validated.
   */
  deferBodyCheck?: boolean
  /** Capability name that must be present in GET /server for this op to exist. */
  capability?: string
  /** Extension that must be enabled (GET /server `extensions`) for this op to exist. */
  extension?: string
}

export function defineOps<const T extends Record<string, OpSpec>>(ops: T): T {
  return ops
}

type StaticOr<S, Fallback> = S extends TSchema ? Static<S> : Fallback

/** What a handler receives once the HTTP layer has validated the request. */
export interface OpInput<O extends OpSpec> {
  params: StaticOr<O['params'], Record<string, never>>
  query: StaticOr<O['query'], Record<string, never>>
  body: StaticOr<O['body'], undefined>
  /** The parsed JSON body before schema validation (see OpSpec.deferBodyCheck). */
  rawBody: unknown
  ifMatch: string | undefined
  ifNoneMatch: string | undefined
  /** Accept header of the request, for ops that negotiate a stream. */
  accept: string
  /** Any request header (e.g. Last-Event-ID, Accept-Encoding). */
  header: (name: string) => string | undefined
  /** Aborted when the client goes away or the daemon drains. */
  signal: AbortSignal
}

type SuccessStatus<O extends OpSpec> = Extract<keyof O['responses'], number>

export type OpResult<O extends OpSpec> = {
  [S in SuccessStatus<O>]: {
    status: S
    body:
      | (O['responses'][S]['schema'] extends TSchema ? Static<O['responses'][S]['schema']> : undefined)
      | (O['responses'][S]['alternatives'] extends readonly TSchema[]
          ? Static<O['responses'][S]['alternatives'][number]>
          : never)
    headers?: Record<string, string>
  }
}[SuccessStatus<O>]

/** A handler that writes its own response (a server-sent event stream) returns this. */
export interface RawResult {
  response: Response
}

export type Handler<O extends OpSpec> = (
  input: OpInput<O>,
) => Promise<OpResult<O> | RawResult> | OpResult<O> | RawResult

export type Handlers<T extends Record<string, OpSpec>> = { [K in keyof T]: Handler<T[K]> }
