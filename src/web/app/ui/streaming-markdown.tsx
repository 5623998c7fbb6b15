// Markdown that grows while an answer streams. Lexing the whole text at every frame costs
// more as the answer grows (a 20,000-delta answer is ~130 KB), so the text is cut at blank
// lines outside code fences: every finished block is drawn once and kept, and only the
// last one, still growing, is lexed again. The committed entry is drawn whole (Markdown).
import { Component } from 'preact'
import { Markdown } from './markdown.tsx'
import { blockEnds } from './markdown-blocks.ts'

class FinishedBlock extends Component<{ text: string }> {
  shouldComponentUpdate(next: { text: string }): boolean {
    return next.text !== this.props.text
  }

  render() {
    return <Markdown text={this.props.text} />
  }
}

export function StreamingMarkdown({ text }: { text: string }) {
  const ends = blockEnds(text)
  const blocks: string[] = []
  let from = 0
  for (const end of ends) {
    blocks.push(text.slice(from, end))
    from = end
  }
  return (
    <div class="streaming">
      {blocks.map((b, i) => (
        <FinishedBlock key={i} text={b} />
      ))}
      <Markdown text={text.slice(from)} />
    </div>
  )
}
