// Shared by the openai-compatible tests: fixture loading, byte sources and collection.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { decode, type Protocol } from '../../../src/providers/openai-compatible/transport.ts'
import type { NeutralEvent, NeutralRequest } from '../../../src/providers/types.ts'

export function fixture(name: string): string {
  return readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8')
}

/** The text as a byte stream cut into chunks of `size` bytes (so UTF-8 characters split). */
export async function* bytes(text: string, size = Number.POSITIVE_INFINITY): AsyncGenerator<Uint8Array> {
  const all = Buffer.from(text, 'utf8')
  const step = Number.isFinite(size) ? size : all.length || 1
  for (let i = 0; i < all.length; i += step) yield new Uint8Array(all.subarray(i, i + step))
}

export async function collect(events: AsyncIterable<NeutralEvent>): Promise<NeutralEvent[]> {
  const out: NeutralEvent[] = []
  for await (const event of events) out.push(event)
  return out
}

export function run(text: string, protocol: Protocol, size?: number): Promise<NeutralEvent[]> {
  return collect(decode(bytes(text, size), protocol))
}

/** SSE text from JSON objects (`data:` lines only). */
export function frames(...objs: unknown[]): string {
  return objs.map((o) => `data: ${typeof o === 'string' ? o : JSON.stringify(o)}\n\n`).join('')
}

export function text(index: number, delta: string): NeutralEvent {
  return { type: 'text_delta', index, delta }
}

export function usage(
  prompt: number | null,
  cached: number | null,
  write: number | null,
  completion: number | null,
  total: number | null,
): NeutralEvent {
  return {
    type: 'usage',
    usage: {
      prompt_tokens: prompt,
      cached_prompt_tokens: cached,
      cache_write_tokens: write,
      completion_tokens: completion,
      total_tokens: total,
    },
  }
}

export function request(overrides: Partial<NeutralRequest> = {}): NeutralRequest {
  return {
    model: 'gpt-test',
    effort: null,
    system: null,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi there' }] }],
    tools: [],
    session_id: '0190f5a0-0000-7000-8000-000000000001',
    ...overrides,
  }
}
