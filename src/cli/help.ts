// The text of `hearth --help` (and of --help after any command).
import { VERSION } from '../build-info.ts'

export const HELP = `hearth ${VERSION}: a local agent daemon speaking protocol 3

Usage: hearth [--home DIR] COMMAND ...

  hearth daemon [--home DIR] [--port N] [--host 127.0.0.1|::1] [--demo] [--quiet]
                           run the daemon (default port 0: any free port); prints
                           where it listens and when it stops (--quiet: neither);
                           --demo adds a read-only \`demo\` profile that answers
                           without any account
  hearth status [--home DIR]
                           print the running daemon's server resource
  hearth sessions [--home DIR] [--all] [--search TEXT] [--json]
                           list sessions (roots; --all: children too), newest
                           activity first, each with its handle (hearth chat
                           HANDLE); --json: one session per line
  hearth session new --workspace DIR [--name N] [--home DIR]
                           create a session; prints its id
  hearth session show ID [--json] [--history] [--home DIR]
                           print a session; --history: its conversation
                           (--json: one history entry per line)
  hearth session watch ID [--json] [--home DIR]
                           follow a session's events, one line each (--json: one
                           frame per line); survives reconnects and daemon
                           restarts; Ctrl-C stops it
  hearth session set ID [--profile P] [--model M] [--effort E] [--home DIR]
                           change a session's profile, model or effort (a new
                           profile brings its own model unless --model is given)
  hearth send SESSION [TEXT...] [--approve auto|deny] [--json] [--home DIR]
                           send a message (TEXT, else standard input) and print
                           the streamed answer and its tool calls; a call that
                           needs approval is asked on the terminal, or allowed
                           (auto) or denied (deny) without asking; Ctrl-C
                           interrupts it and exits; --json: the run's events,
                           one {"event","id","data"} line each (as session
                           watch --json), its run.ended last
  hearth interrupt SESSION [--home DIR]
                           stop the session's running answer and its waiting
                           messages
  hearth diff SESSION [--run R] [--file F] [--json] [--home DIR]
                           the files a run changed (default: the session's last
                           run that changed files): status, +/- lines and path;
                           --file: that file's diff (coloured at a terminal; a
                           binary file is named, not shown); see
                           docs/checkpoints.md
  hearth undo SESSION [--run R] [--file F]... [--yes] [--overwrite] [--json]
                     [--home DIR]
                           put the files a run changed (default: the session's
                           last run that changed files; --file: only these) back
                           as they were before it; lists them and asks y/N (not
                           at a terminal: only with --yes); a file changed since
                           the run is refused unless --overwrite
  hearth redo SESSION [--yes] [--overwrite] [--json] [--home DIR]
                           undo the session's last restore (put back what it
                           replaced), asked as for undo
  hearth chat [SESSION | --last] [--workspace DIR] [--home DIR]
                           talk in a session (a new one in the current directory
                           when none is named, created with the first message;
                           --last, -c or --continue: the directory's latest
                           session); at a terminal the full-screen
                           client (/help in it), else a line at a time; tool
                           calls show as they run, approvals are asked inline
                           (y / n / a: always for this session); Ctrl-C
                           interrupts the answer, a second Ctrl-C quits; on
                           quitting it prints how to continue the session
  hearth -c, --continue    the latest session of this directory (hearth chat --last)
  hearth acp [--no-start] [--home DIR]
                           an Agent Client Protocol agent on standard input and
                           output, for editors (Zed and other ACP clients; see
                           docs/acp.md): sessions, prompts, tool calls and
                           approvals through the daemon of the home, which it
                           starts when none runs (said on standard error;
                           --no-start: fail instead); --login PROVIDER signs in
                           as hearth login does (an editor's terminal sign-in)
  hearth config get [GROUP] [--home DIR]
                           print the settings (all groups, or one of providers,
                           mcp, extensions, capabilities, models, ui); secrets
                           show only as {"saved": true}
  hearth config set GROUP PATCH-JSON [--home DIR]
                           change one group with a JSON merge patch
                           (null removes a field)
  hearth profile add NAME --endpoint URL --model ID [--protocol responses|chat_completions]
                     [--extension E] [--api-key-stdin] [--default] [--home DIR]
                           save a provider profile; the key is read from standard
                           input and kept in HOME/creds.json
  hearth profile list [--json] [--home DIR]
                           list the profiles (* the default; the daemon's demo
                           profile is built in and read-only)
  hearth profile use NAME [--home DIR]
                           make NAME the default profile of new sessions
  hearth profile remove NAME [--home DIR]
                           remove a saved profile (and its key)
  hearth mcp add NAME [--env KEY=VALUE]... [--cwd DIR] -- COMMAND [ARGS...]
  hearth mcp add NAME --url URL [--header "Name: value"]... [--bearer-token-stdin]
                     [--client-id ID [--client-secret-stdin]] [--client-metadata-url URL]
                     [--scope SCOPE]... [--callback-port PORT]
                     [--startup-timeout-ms MS] [--tool-timeout-ms MS] [--home DIR]
                           add an MCP server whose tools sessions offer to the
                           model (as mcp__NAME__TOOL): a command run over stdio,
                           or a streamable HTTP URL; env values, headers and the
                           token (read from standard input) are kept in
                           HOME/creds.json (values given as options are also in
                           your shell's history)
  hearth mcp list [--json] [--home DIR]
                           list the MCP servers (secrets only as their names) and
                           whether a remote one is signed in
  hearth mcp login NAME [--manual] [--home DIR]
                           sign in to a remote MCP server (OAuth in the browser;
                           --manual: paste the address the browser ends on)
  hearth mcp logout NAME [--home DIR]
                           sign out of a remote MCP server (its tokens are
                           revoked and deleted)
  hearth mcp remove NAME [--home DIR]
                           remove an MCP server and its secrets
  hearth work [list] [--workspace DIR] [--json] [--home DIR]
                           the work items of a workspace (default: this directory)
  hearth work add TITLE [--notes TEXT] [--parent ID] [--status S] [--workspace DIR]
                           add a work item; prints its id
  hearth work set ID [--status S] [--title T] [--notes N] [--parent ID|none]
  hearth work done ID      change an item (S: open, in_progress, done, cancelled);
                           an ID may be the start of one
  hearth work rm ID [--notify SESSION]
                           remove an item (one without children); --notify leaves
                           that session a note it reads at its next turn
  hearth models refresh [--url URL] [--home DIR]
                           download the public model catalogue (default: settings
                           models.catalogue_url, else https://models.dev/api.json)
                           into HOME/cache/models.json;
                           a running daemon uses it from its next request
  hearth login [PROVIDER] [--manual] [--gh] [--home DIR]
                           sign in to a provider (chatgpt, the default, claude,
                           antigravity or copilot): prints what the provider's
                           terms allow, opens the browser (unless
                           HEARTH_NO_BROWSER is set; the URL is printed either
                           way) and waits; a pasted callback address or code
                           also finishes it. copilot shows a code to enter at
                           GitHub and finishes by itself (Esc or Ctrl-C
                           cancels); --gh saves the token of the signed-in
                           GitHub CLI instead (gh auth token)
  hearth accounts [--home DIR]
                           list the signed-in accounts (never their tokens)
  hearth logout ACCOUNT [--home DIR]
                           remove a signed-in account
  hearth quota [--json] [--home DIR]
                           the latest quota readings of the signed-in accounts
                           (per provider and account: each limit's used percent,
                           window, reset and plan; stale readings and failed
                           polls marked) and each limit's trail as a small
                           chart; --json: the readings as JSON
  hearth web [SESSION] [--home DIR]
                           open the web client in the browser, signed in with the
                           daemon's token (in the address's fragment, which the
                           daemon never receives); HEARTH_NO_BROWSER: print the
                           address instead (it holds the token); SESSION: open
                           that session
  hearth --help            this text
  hearth --version         the version and build

  hearth                   at a terminal the full-screen client (as hearth chat),
                           else the same as hearth status

Home: --home (before or after the command), else $HEARTH_HOME, else ~/.hearth.
A running daemon writes HOME/daemon.json (its URL) and HOME/token (the bearer token).

Sessions: wherever an ID or SESSION is asked for, its handle will do (the end of
its id, as hearth sessions shows it), or any start or end of the id that no other
session's id shares.

Exit codes: 0 ok, 1 error, 2 usage.
`

/** A usage line of HELP and the lines under it (its further options and its description). */
interface HelpBlock {
  command: string
  lines: string[]
  described: boolean
}

/** The column where HELP's descriptions start. */
const DESCRIPTION = /^ {27}\S|^ {2}hearth \S.*\S {2,}\S/

function helpBlocks(): HelpBlock[] {
  const blocks: HelpBlock[] = []
  for (const line of HELP.split('\n')) {
    const usage = /^ {2}hearth (.*)$/.exec(line)
    if (usage) blocks.push({ command: usage[1], lines: [line], described: false })
    else if (/^ {3,}\S/.test(line) && blocks.length > 0) blocks.at(-1)?.lines.push(line)
    else if (line.trim() !== '' && blocks.length > 0) break // the notes after the usage lines
    const last = blocks.at(-1)
    if (last && DESCRIPTION.test(line)) last.described = true
  }
  return blocks
}

/**
 * The help of one command (`hearth send --help`, `hearth session show --help`): its usage
 * lines with their description (usage lines that share one description stay together), and
 * the notes on homes, sessions and exit codes. The whole text when nothing matches.
 */
export function helpFor(words: readonly (string | undefined)[]): string {
  const named = words.filter((w): w is string => w !== undefined && !w.startsWith('-'))
  for (let n = Math.min(named.length, 2); n >= 1; n--) {
    const prefix = named.slice(0, n).join(' ')
    const matches = (b: HelpBlock) => b.command === prefix || b.command.startsWith(`${prefix} `)
    const picked: string[] = []
    let group: HelpBlock[] = []
    for (const block of helpBlocks()) {
      group.push(block)
      if (!block.described) continue
      if (group.some(matches)) picked.push(...group.flatMap((b) => b.lines))
      group = []
    }
    if (picked.length > 0) return `Usage:\n${picked.join('\n')}\n\n${HELP.slice(HELP.indexOf('\nHome:') + 1)}`
  }
  return HELP
}
