// Markdown rendered as elements from marked's tokens (the terminal client's parser). No HTML
// text is ever parsed: raw HTML in a message is shown as the text it is, links are kept only
// for http(s) and mailto and open in a new tab without a referrer, and images are shown only
// from data: addresses (the page's CSP allows no other origin anyway).
import { Lexer, type Token, type Tokens } from 'marked'
import type { ComponentChildren } from 'preact'
import { CodeBlock } from './code-block.tsx'

const SAFE_LINK = /^(https?:|mailto:)/i

function inline(tokens: Token[] | undefined): ComponentChildren[] {
  return (tokens ?? []).map((t, i) => inlineToken(t, i))
}

function inlineToken(t: Token, key: number): ComponentChildren {
  switch (t.type) {
    case 'strong':
      return <strong key={key}>{inline((t as Tokens.Strong).tokens)}</strong>
    case 'em':
      return <em key={key}>{inline((t as Tokens.Em).tokens)}</em>
    case 'del':
      return <del key={key}>{inline((t as Tokens.Del).tokens)}</del>
    case 'codespan':
      return <code key={key}>{(t as Tokens.Codespan).text}</code>
    case 'br':
      return <br key={key} />
    case 'link': {
      const l = t as Tokens.Link
      if (!SAFE_LINK.test(l.href)) return <span key={key}>{inline(l.tokens)}</span>
      return (
        <a key={key} href={l.href} target="_blank" rel="noopener noreferrer">
          {inline(l.tokens)}
        </a>
      )
    }
    case 'image': {
      const img = t as Tokens.Image
      if (!/^data:image\//i.test(img.href)) return <span key={key}>{img.text}</span>
      return <img key={key} src={img.href} alt={img.text} />
    }
    case 'text': {
      const x = t as Tokens.Text
      return x.tokens ? <span key={key}>{inline(x.tokens)}</span> : x.text
    }
    case 'escape':
      return (t as Tokens.Escape).text
    default:
      // html and anything unknown: the source text, as text
      return t.raw
  }
}

function block(t: Token, key: number): ComponentChildren {
  switch (t.type) {
    case 'paragraph':
      return <p key={key}>{inline((t as Tokens.Paragraph).tokens)}</p>
    case 'heading': {
      const h = t as Tokens.Heading
      const Tag = `h${Math.min(6, h.depth + 1)}` as 'h2'
      return <Tag key={key}>{inline(h.tokens)}</Tag>
    }
    case 'code': {
      const c = t as Tokens.Code
      return <CodeBlock key={key} code={c.text} lang={c.lang?.split(/\s/)[0]} />
    }
    case 'blockquote':
      return <blockquote key={key}>{blocks((t as Tokens.Blockquote).tokens)}</blockquote>
    case 'list': {
      const l = t as Tokens.List
      const items = l.items.map((item, i) => (
        <li key={i}>
          {item.task ? <input type="checkbox" checked={item.checked} disabled /> : null}
          {blocks(item.tokens)}
        </li>
      ))
      return l.ordered ? (
        <ol key={key} start={typeof l.start === 'number' ? l.start : undefined}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      )
    }
    case 'table': {
      const tb = t as Tokens.Table
      return (
        <div class="table-wrap" key={key}>
          <table>
            <thead>
              <tr>
                {tb.header.map((c, i) => (
                  <th key={i}>{inline(c.tokens)}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {tb.rows.map((row, r) => (
                <tr key={r}>
                  {row.map((c, i) => (
                    <td key={i}>{inline(c.tokens)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )
    }
    case 'hr':
      return <hr key={key} />
    case 'space':
      return null
    case 'text': {
      const x = t as Tokens.Text
      return <p key={key}>{x.tokens ? inline(x.tokens) : x.text}</p>
    }
    default:
      // html blocks and anything unknown: the source, as text
      return (
        <p key={key} class="raw">
          {t.raw}
        </p>
      )
  }
}

function blocks(tokens: Token[]): ComponentChildren[] {
  return tokens.map((t, i) => block(t, i))
}

export function Markdown({ text }: { text: string }) {
  let tokens: Token[]
  try {
    tokens = Lexer.lex(text, { gfm: true })
  } catch {
    return <p class="raw">{text}</p>
  }
  return <div class="md">{blocks(tokens)}</div>
}
