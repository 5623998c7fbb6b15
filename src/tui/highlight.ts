// Syntax highlighting of code blocks: lowlight (highlight.js grammars) parses, and its
// syntax tree is turned into styled terminal lines. The grammars load in the background
// after the first frame (they cost tens of milliseconds), so until then, and for unknown
// languages, code is shown plain.
import type { HastNode, HastRoot, Lowlight } from './grammars.js'
import type { Theme } from './theme.ts'

let lowlight: Lowlight | undefined
let loading: Promise<void> | undefined

/** Loads the grammars once; `onReady` runs when they are there (to render again). */
export function loadHighlighter(onReady: () => void): Promise<void> {
  loading ??= import('./grammars.js').then(({ common, createLowlight }) => {
    lowlight = createLowlight(common)
  })
  return loading.then(onReady, () => {})
}

/** The colour of a highlight.js scope (hljs-keyword …), as a basic terminal colour. */
const SCOPE_COLOURS: Record<string, number> = {
  keyword: 35,
  built_in: 36,
  type: 36,
  literal: 36,
  number: 33,
  string: 32,
  regexp: 32,
  comment: 90,
  meta: 90,
  title: 34,
  'title.function': 34,
  'title.class': 34,
  attr: 33,
  attribute: 33,
  variable: 31,
  params: 37,
  symbol: 33,
  tag: 34,
  name: 34,
  section: 34,
  addition: 32,
  deletion: 31,
}

function colourOf(className: string[] | undefined): number | undefined {
  for (const c of className ?? []) {
    const scope = c.replace(/^hljs-/, '')
    if (SCOPE_COLOURS[scope] !== undefined) return SCOPE_COLOURS[scope]
    const base = scope.split(/[._]/)[0]
    if (SCOPE_COLOURS[base] !== undefined) return SCOPE_COLOURS[base]
  }
  return undefined
}

/**
 * `code` as styled lines (one per source line), or undefined when it cannot be highlighted
 * (grammars not loaded, no colour, unknown language).
 */
export function highlightLines(code: string, lang: string | undefined, theme: Theme): string[] | undefined {
  if (!lowlight || !theme.colour || !lang || !lowlight.registered(lang)) return undefined
  let tree: HastRoot
  try {
    tree = lowlight.highlight(lang, code)
  } catch {
    return undefined
  }
  const lines: string[] = ['']
  const walk = (nodes: HastNode[], colour: number | undefined) => {
    for (const n of nodes) {
      if (n.type === 'text') {
        const parts = n.value.split('\n')
        parts.forEach((part, i) => {
          if (i > 0) lines.push('')
          if (part) lines[lines.length - 1] += colour === undefined ? part : theme.fg(colour)(part)
        })
      } else walk(n.children, colourOf(n.properties?.className) ?? colour)
    }
  }
  walk(tree.children, undefined)
  return lines
}
