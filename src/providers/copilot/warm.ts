// Copilot speaks the OpenAI wires, which openai-compatible's warm-up steps already run.
import type { WarmStep } from '../types.ts'

export const warmSteps: readonly WarmStep[] = []
