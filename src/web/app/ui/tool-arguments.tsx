// A tool call's arguments as a person reads them: an edit as its diff, a write as the new
// file's first lines, a command as its line, anything else as indented JSON. The approval
// card and the transcript's tool calls both show them.
import { type Args, parseArgs, str } from '../api/shared-views.ts'
import { Diff, lineDiff } from './diff.tsx'

const FIRST_LINES = 12

export function ToolArguments({ tool, text }: { tool: string; text: string | undefined }) {
  const args = parseArgs(text)
  if (!args) return text ? <pre class="args">{text}</pre> : null
  const command = str(args.command)
  if (command !== undefined)
    return (
      <pre class="args command">
        $ {command}
        {str(args.cwd) ? `\n  in ${args.cwd}` : ''}
      </pre>
    )
  if (tool === 'edit') {
    const edits = Array.isArray(args.edits) ? (args.edits as Args[]) : [args]
    return (
      <div class="args">
        {edits.map((e, i) => (
          <Diff
            key={i}
            path={i === 0 ? str(args.path) : undefined}
            lines={lineDiff(str(e.old_string) ?? '', str(e.new_string) ?? '')}
          />
        ))}
      </div>
    )
  }
  if (tool === 'write') {
    const lines = (str(args.content) ?? '').split('\n')
    if (lines.length > 1 && lines.at(-1) === '') lines.pop() // the file's last line break
    const shown = lines.slice(0, FIRST_LINES).map((t) => ({ kind: 'add' as const, text: t }))
    return (
      <div class="args">
        <Diff path={str(args.path)} lines={shown} />
        {lines.length > FIRST_LINES ? (
          <div class="note">… {lines.length - FIRST_LINES} more lines</div>
        ) : null}
      </div>
    )
  }
  return <pre class="args">{JSON.stringify(args, null, 2)}</pre>
}
