// Highlighting of code blocks with lowlight (highlight.js grammars), as the terminal client
// does. The grammars are a chunk of their own (about 50 KB compressed), loaded when the first
// code block shows; until then, and for unknown languages, code is shown plain.
import type { createLowlight } from './grammars.ts'

type Lowlight = ReturnType<typeof createLowlight>
export type HastRoot = ReturnType<Lowlight['highlight']>

let lowlight: Lowlight | undefined
let loading = false
const waiting = new Set<() => void>()

/** Loads the grammars once; `onReady` runs when they are in (to render again). */
export function whenHighlighterLoads(onReady: () => void): () => void {
  waiting.add(onReady)
  if (!loading) {
    loading = true
    void import('./grammars.ts').then(({ common, createLowlight }) => {
      lowlight = createLowlight(common)
      for (const w of waiting) w()
      waiting.clear()
    })
  }
  return () => waiting.delete(onReady)
}

/** The syntax tree of `code`, or undefined (grammars not loaded yet, unknown language). */
export function highlightTree(code: string, lang: string | undefined): HastRoot | undefined {
  if (!lowlight || !lang || !lowlight.registered(lang)) return undefined
  try {
    return lowlight.highlight(lang, code)
  } catch {
    return undefined
  }
}

export function highlighterLoaded(): boolean {
  return lowlight !== undefined
}
