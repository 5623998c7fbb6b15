// A code block: highlighted when its language is known and the grammars are in. The syntax
// tree becomes elements with class names (hljs-…), never HTML text.
import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { type HastRoot, highlighterLoaded, highlightTree, whenHighlighterLoads } from './highlight.ts'

type HastNode = HastRoot['children'][number]

function renderNodes(nodes: HastNode[]): ComponentChildren[] {
  return nodes.map((n, i) => {
    if (n.type === 'text') return n.value
    if (n.type === 'element') {
      const cls = (n.properties?.className as string[] | undefined)?.join(' ')
      return (
        <span key={i} class={cls}>
          {renderNodes(n.children as HastNode[])}
        </span>
      )
    }
    return null
  })
}

export function CodeBlock({ code, lang }: { code: string; lang?: string }) {
  const [, setLoaded] = useState(highlighterLoaded())
  useEffect(
    () => (lang && !highlighterLoaded() ? whenHighlighterLoads(() => setLoaded(true)) : undefined),
    [lang],
  )
  const tree = highlightTree(code, lang)
  return (
    <pre class="code" data-lang={lang || undefined}>
      <code>{tree ? renderNodes(tree.children) : code}</code>
    </pre>
  )
}
