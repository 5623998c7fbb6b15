// The `copilot` transport: one step against Copilot's API on the OpenAI wire the model is
// served on, through the openai-compatible codecs and HTTP layer.
import { openaiCompatible } from '../openai-compatible/transport.ts'
import type { Transport } from '../types.ts'

export const transport: Transport = openaiCompatible
